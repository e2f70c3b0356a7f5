"""A project file that does not compile (the user mid-edit) stops only its own holes
and those of the files that load it (real Coq, the stand-in generator). Until
2026-12-07 one leaf file's syntax error stopped the run for every file (audit 43-b)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main

pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Mid\nA.v\nB.v\nC.v\n")
    (folder / "A.v").write_text("Lemma zero_zero : 0 = 0.\nProof.\nAdmitted.\n")
    (folder / "B.v").write_text("Lemma b : True.\nProof. exact I Qed.\n")  # the '.' left out
    (folder / "C.v").write_text(
        "From Mid Require Import B.\nLemma top_twice : 2 = 2.\nProof.\nAdmitted.\n"
    )
    return folder


@pytest.mark.usefixtures("no_new_coq_processes")
def test_the_files_that_compile_are_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path)
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet"]
    assert main(["prove", str(folder), *args, "--write"]) == 1
    err = capsys.readouterr().err
    assert "B.v:2: the file does not compile: Syntax error" in err
    assert "fix it there: the holes of C.v are not searched; the other files' holes" in err
    assert "_CoqProject" not in err  # no loadpath is to blame for a syntax error
    assert (
        folder / "A.v"
    ).read_text() == "Lemma zero_zero : 0 = 0.\nProof.\n  reflexivity.\nQed.\n"
    assert (folder / "C.v").read_text().endswith("Admitted.\n")
    # Only the unbuilt files' holes selected: the run stops as before, nothing written.
    assert main(["prove", str(folder), str(folder / "C.v"), *args]) == 1
    err = capsys.readouterr().err
    assert "B.v:2: the file does not compile" in err and "other files" not in err
