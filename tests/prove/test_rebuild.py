"""The scratch rebuild (``project/rebuild.py``): dependents rebuilt, several at a time.

A stand-in ``coqc`` (a shell script) makes the order observable without timing: ``B``
and ``C`` each wait for the other to have started, so they compile only if two files
run at once; ``D`` checks that both finished before it started.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from proofsearch.project.rebuild import ScratchBuild
from proofsearch.trace.sources import Project, Source

#: The last argument is the file; ``started/X`` and ``done/X`` mark its start and end, in the
#: folder that holds ``marks`` (outside the scratch copy). A file whose text says
#: ``FAIL`` fails with Coq's message shape. ``PATIENCE``: how many 50 ms waits for the
#: other file (long where it must come, short where it cannot).
FAKE_COQC = """#!/bin/sh
for source; do :; done  # the last argument: the file
file=$(basename "$source" .v)
marks=$(cat "$MARKS")
touch "$marks/started/$file"
case "$file" in
  B) other=C ;;
  C) other=B ;;
  D) [ -e "$marks/done/B" ] && [ -e "$marks/done/C" ] || { echo "D before B, C" >&2; exit 1; } ;;
esac
if [ -n "$other" ]; then
  i=0
  while [ ! -e "$marks/started/$other" ]; do
    i=$((i + 1)); [ $i -gt "$PATIENCE" ] && { echo "$file ran alone" >&2; exit 1; }
    sleep 0.05
  done
fi
if grep -q FAIL "$source"; then
  echo "File \\"$source\\", line 2, characters 0-4:" >&2; echo "Error: broken $file" >&2; exit 1
fi
touch "$marks/done/$file"
"""

GRAPH = {"P.A": [], "P.B": ["P.A"], "P.C": ["P.A"], "P.D": ["P.B", "P.C"]}


def _project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patience: int = 1200
) -> tuple[Project, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    sources = []
    for module in GRAPH:
        name = module.split(".")[1]
        (root / f"{name}.v").write_text(f"(* {name} *)\n")
        sources.append(Source(root / f"{name}.v", f"{name}.v", module))
    coqc = tmp_path / "coqc"
    coqc.write_text(FAKE_COQC)
    coqc.chmod(coqc.stat().st_mode | stat.S_IXUSR)
    marks = tmp_path / "marks"
    for sub in ("started", "done"):
        (marks / sub).mkdir(parents=True)
    (tmp_path / "marks.path").write_text(str(marks))
    monkeypatch.setenv("MARKS", str(tmp_path / "marks.path"))
    monkeypatch.setenv("PATIENCE", str(patience))
    return Project("P", root, ["-R", str(root), "P"], [(root, "P")], sources), coqc


def test_two_files_at_a_time_in_dependency_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, coqc = _project(tmp_path, monkeypatch)
    with ScratchBuild(project, GRAPH, coqc=str(coqc), jobs=2) as scratch:
        assert scratch.build({"P.A": "(* A, changed *)\n"}) is None
    assert sorted(p.name for p in (tmp_path / "marks/done").iterdir()) == ["A", "B", "C", "D"]


def test_one_at_a_time_b_and_c_cannot_meet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in is not trivially satisfied: one file at a time, ``B`` waits for a
    ``C`` that never starts (and nothing after a failure starts)."""
    project, coqc = _project(tmp_path, monkeypatch, patience=20)
    with ScratchBuild(project, GRAPH, coqc=str(coqc), jobs=1) as scratch:
        failure = scratch.build({"P.A": "(* A, changed *)\n"})
    assert failure is not None and failure.module == "P.B"
    assert "B ran alone" in failure.message
    assert not (tmp_path / "marks/started/D").exists()


def test_the_failure_earliest_in_dependency_order_is_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``B`` and ``C`` both fail, together: the one a one-at-a-time build meets first is
    reported, whatever finished first; ``D`` never starts; a second build after the
    fix compiles only what is left."""
    project, coqc = _project(tmp_path, monkeypatch)
    with ScratchBuild(project, GRAPH, coqc=str(coqc), jobs=2) as scratch:
        broken = {"P.B": "(* B *)\nFAIL\n", "P.C": "(* C *)\nFAIL\n"}
        failure = scratch.build(broken)
        assert failure is not None
        assert (failure.module, failure.file, failure.line) == ("P.B", "B.v", 2)
        assert failure.summary == "broken B"
        assert not (tmp_path / "marks/started/D").exists()
        for name in ("started", "done"):
            for mark in (tmp_path / "marks" / name).iterdir():
                mark.unlink()
        assert scratch.build({"P.B": "(* B, fixed *)\n", "P.C": "(* C, fixed *)\n"}) is None
    assert sorted(p.name for p in (tmp_path / "marks/done").iterdir()) == ["B", "C", "D"]
