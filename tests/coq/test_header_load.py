"""A long header runs as a few ``Load`` sentences: fewer states, the same theorem.

Every tactic a search tries is followed by an ``Edit_at`` whose cost grows with the
states on coqidetop's line; a library lemma's header is its file's prefix (thousands of
sentences). See :mod:`proofsearch.env.coq.header_load`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.env.base import EnvError, ProofState, Proved
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.header_load import load_sentences
from proofsearch.theorem import Theorem


def lemmas(first: int, last: int) -> list[str]:
    """Four sentences per lemma: statement, ``Proof``, a tactic, ``Qed``."""
    sentences: list[str] = []
    for i in range(first, last):
        sentences += [f"Lemma l{i} : n + {i} = {i} + n.", "Proof.", "apply Nat.add_comm.", "Qed."]
    return sentences


#: 164 sentences, a section left open.
HEADER = ["Require Import Arith.", "Section S.", "Variable n : nat.", *lemmas(0, 40), "Let m := n."]


def loaded_runs(folder: Path, sentences: list[str]) -> list[list[str]]:
    """The sentences each ``Load`` of the loaded form stands for."""
    runs = []
    for sentence in load_sentences(sentences, folder):
        if sentence.startswith('Load "'):
            path = Path(sentence.removeprefix('Load "').removesuffix('".'))
            assert path.parent == folder
            runs.append(path.read_text().splitlines())
    return runs


def test_runs_end_after_a_proof_and_are_long_ones_first(tmp_path: Path) -> None:
    loaded = load_sentences(HEADER, tmp_path)
    runs = loaded_runs(tmp_path, HEADER)
    # Runs of >= 64 sentences (each to the first Qed after that), then runs of >= 16.
    assert [len(run) for run in runs] == [67, 64, 16, 16]
    assert all(run[-1] == "Qed." for run in runs)
    # Together with what is left as it is, they are the header, in order.
    tail = [s for s in loaded if not s.startswith('Load "')]
    assert [s for run in runs for s in run] + tail == HEADER
    assert tail == ["Let m := n."] and len(loaded) == 5


def test_a_header_that_extends_another_shares_its_files(tmp_path: Path) -> None:
    shorter = load_sentences(HEADER, tmp_path)
    longer = load_sentences([*HEADER, *lemmas(40, 45), "Check l44."], tmp_path)
    assert longer[:4] == shorter[:4]
    assert len(longer) < len(HEADER) // 10


def test_short_headers_and_odd_folders_stay_as_they_are(tmp_path: Path) -> None:
    assert load_sentences(HEADER[:10], tmp_path) == HEADER[:10]
    odd = tmp_path / 'a"b'
    assert load_sentences(HEADER, odd) == HEADER
    assert not odd.exists()


@pytest.fixture(scope="module")
def prover() -> CoqProver:
    with CoqProver(CoqConfig()) as instance:
        yield instance  # type: ignore[misc]


def test_a_loaded_header_opens_the_same_theorem(prover: CoqProver) -> None:
    theorem = Theorem(
        "t", "Lemma t : n + 39 = 39 + n.", "\n".join(HEADER), extra={"footer": "End S."}
    )
    session = prover.open(theorem)
    # Four files, the last sentence, the goal selector and the statement on the line
    # instead of 166.
    assert len(prover.line.sentences) == 7
    assert isinstance(session.root, ProofState) and "n : nat" in session.root.text
    assert session.apply(session.root, "apply l39") == Proved(("apply l39",))
    # The section a file opened is still open after it, and the re-check (coqc on the
    # header as it was given, then the footer that closes the section) agrees.
    assert prover.check(theorem, ["apply l39"]).ok


def test_the_next_lemma_of_the_file_runs_only_what_is_new(prover: CoqProver) -> None:
    first = Theorem("t", "Lemma t : n + 39 = 39 + n.", "\n".join(HEADER))
    prover.open(first)
    states = list(prover.line.states)
    second = Theorem("u", "Lemma u : n + 40 = 40 + n.", "\n".join([*HEADER, *lemmas(40, 41)]))
    session = prover.open(second)
    assert prover.line.states[:4] == states[:4]  # the four loaded files were not run again
    assert session.apply(session.root, "apply l40") == Proved(("apply l40",))


def test_a_failing_sentence_inside_a_file_is_named(prover: CoqProver) -> None:
    broken = list(HEADER)
    broken[40] = "reflexivity."  # lemma 9 is `n + 9 = 9 + n`: not by reflexivity
    with pytest.raises(EnvError, match=r"(?s)header sentence 41 failed: .*'reflexivity.'"):
        prover.open(Theorem("t", "Lemma t : True.", "\n".join(broken)))


#: A notation, then a header of 30 sentences with a ``Fail`` inside its first proof, and
#: nothing after it that needs what came before (so the header itself never fails).
NOTATION = 'Notation "x ⊕ y" := (x + y) (at level 50, left associativity).'
FAILING = ["Lemma f : 1 = 2.", "Proof.", "Fail reflexivity.", "Abort."]
CLOSED = [
    s for i in range(6) for s in (f"Lemma c{i} : {i} = {i}.", "Proof.", "reflexivity.", "Qed.")
]
WITH_FAIL = ["Require Import Arith.", NOTATION, *FAILING, *CLOSED, "Time Fail Check 1 = true."]


def test_fail_commands_are_never_loaded(tmp_path: Path) -> None:
    loaded = load_sentences(WITH_FAIL, tmp_path)
    runs = loaded_runs(tmp_path, WITH_FAIL)
    assert runs and not any("Fail" in sentence for run in runs for sentence in run)
    assert "Fail reflexivity." in loaded and loaded[-1] == "Time Fail Check 1 = true."
    # Runs, kept sentences and the Fail commands are the header, in order.
    expanded = []
    for sentence in loaded:
        if sentence.startswith('Load "'):
            expanded += runs.pop(0)
        else:
            expanded.append(sentence)
    assert expanded == WITH_FAIL


def test_a_notation_survives_a_fail_in_a_long_header(prover: CoqProver) -> None:
    """Real Coq: inside a ``Load``, ``Fail`` rolled back to the state before the ``Load``,
    so the theorem's notation was gone (``statement rejected: Syntax Error: Lexer:
    Undefined token``)."""
    theorem = Theorem("t", "Lemma t : forall b : nat, b ⊕ 0 = b.", "\n".join(WITH_FAIL))
    session = prover.open(theorem)
    assert isinstance(session.root, ProofState)
    assert any(s.startswith('Load "') for s in prover.line.sentences)  # loaded, not plain
    assert prover.check(theorem, ["intros; apply Nat.add_0_r"]).ok
