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


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_type_error_is_the_files_to_fix_and_its_dependents_are_not_traced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Audit 45: in a `_RocqProject` project, a type error got the advice to check "the
    _CoqProject's -R/-Q/-I lines" and Extraction's tools; the files loading the broken
    one each failed with "Unable to locate library", read as loadpath errors of their
    own; and a dry run said the other proofs were "written"."""
    folder = project(tmp_path)
    (folder / "_CoqProject").rename(folder / "_RocqProject")
    (folder / "B.v").write_text("Definition b : nat := true.\n")  # a type error
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet"]
    assert main(["prove", str(folder), *args]) == 1
    err = capsys.readouterr().err
    assert 'B.v:1: the file does not compile: The term "true" has type "bool"' in err
    assert "fix it there: the holes of C.v are not searched" in err
    assert "_CoqProject" not in err and "Extraction" not in err
    assert "their proofs shown in the diff where found" in err
    # The trace of the files alone says why C.v was not traced.
    done = main(["trace", str(folder), "--out", str(tmp_path / "t"), "--no-progress"])
    err = capsys.readouterr().err
    assert done == 1 and "C.v:1: not traced: it loads B.v, which failed" in err, err
    # A setup error still gets the loadpath advice, naming the project's own file.
    (folder / "B.v").write_text("Require Import NoSuchLibrary.\n")
    assert main(["prove", str(folder), *args]) == 1
    err = capsys.readouterr().err
    assert "check the _RocqProject's -R/-Q/-I lines or --coq-arg" in err
