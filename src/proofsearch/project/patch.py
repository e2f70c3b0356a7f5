"""The filled text of a file, and its unified diff.

Only each filled hole's span changes (from ``Proof``, or the statement's end, to
``Admitted.``): it becomes the ``Proof`` sentence as written (``Proof using …`` kept),
the tactics one per line at the proof's indentation, and ``Qed.``. Every other byte of
the file is left as it was.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from proofsearch.project.holes import Hole


def filled_span(hole: Hole, proof: Sequence[str]) -> str:
    """What replaces ``hole``'s span: ``Proof.``, the user's comments that were in it,
    one tactic a line, ``Qed.`` (``Defined.`` for a definition); for a
    hole searched part by part, ``proof`` holds one block per ``admit.`` and per goal
    left at ``Admitted`` (see :mod:`.admits`)."""
    blocks = len(proof) >= max(len(hole.admits), 1) and all(p.startswith("{ ") for p in proof)
    if hole.partial and (blocks or not proof):  # no block: the user's tactics prove it
        from proofsearch.project.admits import fill_admits

        return fill_admits(hole, proof)
    nl = hole.newline
    # ``Next Obligation.`` opens the proof itself: no ``Proof.`` is added after it.
    head = hole.proof_sentence or ("" if hole.is_obligation else f"{nl}{hole.indent}Proof.")
    notes = "".join(f"{nl}{hole.tactic_indent}{comment}" for comment in hole.comments)
    if hole.ltac2_mode:  # the proof found is Ltac1's; Ltac2 stays the file's mode after it
        notes += f'{nl}{hole.tactic_indent}Proof Mode "Classic".'
    body = notes + "".join(f"{nl}{hole.tactic_indent}{tactic}." for tactic in proof)
    return f"{head}{body}{nl}{hole.qed_indent}{hole.ender}"


def fill_text(text: str, fills: Mapping[Hole, Sequence[str]]) -> str:
    """``text`` with each hole of ``fills`` replaced by its proof (holes of one file)."""
    return fill_with_lines(text, fills)[0]


def fill_with_lines(
    text: str, fills: Mapping[Hole, Sequence[str]]
) -> tuple[str, dict[Hole, tuple[int, int]]]:
    """The filled text, and each filled hole's first and last line in it (1-based), so
    that a compiler's error line can be traced back to the proof that caused it."""
    out: list[str] = []
    lines: dict[Hole, tuple[int, int]] = {}
    position = 0
    line = 1
    for hole in sorted(fills, key=lambda h: h.start):
        if hole.start < position:
            raise ValueError(f"{hole.name}: overlapping holes")
        before = text[position : hole.start]
        span = filled_span(hole, fills[hole])
        line += before.count("\n")
        first = line
        line += span.count("\n")
        lines[hole] = (first, line)
        out += [before, span]
        position = hole.end
    out.append(text[position:])
    return "".join(out), lines


def unified_diff(file: str, old: str, new: str) -> str:
    """``diff -u``'s text for one file (``a/FILE``, ``b/FILE``), empty when unchanged."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{file}", f"b/{file}"
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` by ``text``: a temporary file in the same folder, then a rename,
    so a reader (or a crash) sees the old file or the new one, never half of one."""
    mode = path.stat().st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
