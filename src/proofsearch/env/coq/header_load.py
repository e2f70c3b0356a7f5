"""A long header run as a few ``Load`` sentences instead of thousands of sentences.

coqidetop keeps one state per sentence, and the ``Edit_at`` that follows every tactic a
search tries takes time that grows with the number of states on the line: measured
here, a tactic cost 1.4 ms after a header of 10 sentences, 3.5 ms after 1,000 and
10.7 ms after 3,000. A library lemma's header is its file's prefix (in math-comp's
``order.v``, up to 3,389 sentences), and so is a hole's in ``prove``. Runs of the
header's sentences are therefore written to files in the prover's private folder and
run as ``Load "FILE".``: one state each, and Coq reads the file itself. ``Load`` runs
the commands as if they were typed where it stands (a section or module opened in the
file stays open after it).

A run ends right after a proof ender (``Qed``, ``Defined``, ``Admitted``, ``Abort``), so
that no file ends inside a proof. A ``Fail`` (or ``Succeed``) command is never loaded:
inside a ``Load``, Coq 8.16 rolls back to the state before the ``Load`` once the failing
command has run, so a notation the file declared above it is gone (``Syntax Error:
Lexer: Undefined token`` on the theorem). It stays a sentence of its own, and so does
the rest of the proof it may stand in (the next run starts after a proof ender, outside
any proof). Runs are cut greedily from the start, long ones first
(at least 1,024 sentences, then 256, 64, 16), and the rest stays as it is: a header
that extends another (the next lemma of the same file) gets the same files for the
part they share, so the line keeps that part and only the new sentences run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from proofsearch.env.coq.vernac import PROOF_ENDERS, command_of

#: Least sentences per file, longest first.
RUN_SIZES = (1024, 256, 64, 16)
#: Commands that undo what they ran, and inside a ``Load`` more than that.
ROLLBACK_WORDS = frozenset({"Fail", "Succeed"})


def load_sentences(sentences: Sequence[str], folder: Path) -> list[str]:
    """``sentences`` with runs of them replaced by ``Load`` sentences of files in
    ``folder`` (written when missing; named by their content). A folder whose name a
    Coq string cannot hold as it is leaves the sentences as they are."""
    if '"' in str(folder) or "\\" in str(folder):
        return list(sentences)
    ends = [i for i, sentence in enumerate(sentences) if command_of(sentence).word in PROOF_ENDERS]
    loaded: list[str] = []
    start = 0
    for stop, sentence in enumerate(sentences):
        if stop >= start and _rolls_back(sentence):
            # Plain up to the end of the proof it may stand in: a file starts outside one.
            resume = next((end + 1 for end in ends if end >= stop), len(sentences))
            loaded += _segment(sentences[start:stop], folder)
            loaded += sentences[stop:resume]
            start = resume
    return loaded + _segment(sentences[start:], folder)


def _rolls_back(sentence: str) -> bool:
    """``Fail …``/``Succeed …`` (also after ``Time``, ``Timeout n``, …)."""
    return bool(ROLLBACK_WORDS & set(command_of(sentence).words[:4]))


def _segment(sentences: Sequence[str], folder: Path) -> list[str]:
    """Runs of ``sentences`` (outside any proof at first; no rollback command among
    them) as ``Load`` sentences."""
    ends = [i for i, sentence in enumerate(sentences) if command_of(sentence).word in PROOF_ENDERS]
    loaded: list[str] = []
    start = 0
    for size in RUN_SIZES:
        while True:
            end = next((i for i in ends if i >= start + size - 1), None)
            if end is None:
                break
            loaded.append(_load(sentences[start : end + 1], folder))
            start = end + 1
    return loaded + list(sentences[start:])


def _load(run: Sequence[str], folder: Path) -> str:
    text = "\n".join(run) + "\n"
    path = folder / f"header-{hashlib.sha256(text.encode()).hexdigest()[:24]}.v"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return f'Load "{path}".'
