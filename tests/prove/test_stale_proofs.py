"""An earlier run's proof after the user restates a lemma it uses, in another file
(real Coq, the stand-in generator): re-checked, and searched again when it no longer
holds (audit 43-b: it was kept, the rebuild refused it, and it stayed so for good)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main

BASE = """\
Inductive P : nat -> Prop := p n : P n.
Inductive Q : nat -> Prop := q n : Q n.
Lemma base : forall n, P n.
Proof. exact p. Qed.
"""
USE = "From Stale Require Import A.\nLemma through_base : P 3.\nProof.\nAdmitted.\n"


pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own


def two_files(tmp_path: Path, use: str) -> Path:
    """The project: A.v (BASE) and B.v (``use``), bound to ``Stale``."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Stale\nA.v\nB.v\n")
    (folder / "A.v").write_text(BASE)
    (folder / "B.v").write_text(use)
    return folder


def run(folder: Path, log: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    code = main(
        ["prove", str(folder), "--generator", "tests.prove.stand_in:by_name",
         "--gen-option", f"log={log}", "--no-library-trace", "--timeout", "20"]
    )  # fmt: skip
    assert code == 0
    said = capsys.readouterr()
    return said.out + said.err


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_proof_through_a_restated_lemma_is_rechecked_and_searched_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = two_files(tmp_path, USE)
    log = tmp_path / "asked.log"
    out = run(folder, log, capsys)
    assert "exact (base 3)" in out  # the dry run's diff
    assert "keep an earlier run's result" not in out
    # An edit to A.v that changes nothing B's proof uses: re-checked, kept, not searched.
    (folder / "A.v").write_text(BASE + "(* a comment *)\n")
    log.unlink()
    out = run(folder, log, capsys)
    assert "exact (base 3)" in out and "no longer check" not in out
    assert not log.exists()
    assert "1 of the 1 hole(s) and part(s) keep an earlier run's result" in out
    # Restated: the proof no longer checks, so the hole is searched again (and left).
    (folder / "A.v").write_text(
        BASE.replace("forall n, P n.\nProof. exact p.", "forall n, Q n.\nProof. exact q.")
    )
    out = run(folder, log, capsys)
    assert "1 proof(s) found by an earlier run no longer check" in out
    assert log.read_text().splitlines() == ["through_base"]
    assert "left Admitted: B.v:2 through_base" in out and "breaks" not in out


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_proof_is_not_written_when_a_file_it_loads_is_edited_during_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Audit 43-b: ``magic := 6`` edited to ``7`` in A.v during a ``--write`` run, and B.v
    got ``magic = 6`` written ``Qed`` (found and rebuilt against the old A.v): the
    project no longer built, and the run said nothing (exit 0), A.v having no hole."""
    import json

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Stale\nA.v\nB.v\n")
    (folder / "A.v").write_text("Definition magic := 6.\n")
    use = "From Stale Require Import A.\nLemma magic_val : magic = 6.\nProof.\nAdmitted.\n"
    (folder / "B.v").write_text(use)
    edit = json.dumps(["magic_val", str(folder / "A.v")])  # appends a comment to A.v
    code = main(
        ["prove", str(folder), "--generator", "tests.prove.stand_in:by_name",
         "--gen-option", f"edit={edit}", "--no-library-trace", "--write"]
    )  # fmt: skip
    said = capsys.readouterr()
    assert code == 1
    assert "left Admitted: B.v:2 magic_val: A.v, which B.v loads, changed since it was read" in (
        said.out
    )
    assert "A.v changed since it was read: neither it nor the files that load it" in said.err
    assert (folder / "B.v").read_text() == use
    # The next run re-checks the proof against A.v as it is now, and writes it.
    assert main(["prove", str(folder), "--generator", "tests.prove.stand_in:by_name",
                 "--no-library-trace", "--write", "--quiet"]) == 0  # fmt: skip
    assert "reflexivity" in (folder / "B.v").read_text()


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_hole_searched_again_for_an_edit_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A setting changed was said, an edit was not (audit 43-b: "searched again" with no
    word why after a comment was added to a file the holes load)."""
    folder = two_files(tmp_path, "From Stale Require Import A.\nLemma nope : Q 3.\nAdmitted.\n")
    log = tmp_path / "asked.log"
    assert "searched again" not in run(folder, log, capsys)
    (folder / "A.v").write_text(BASE + "(* a comment *)\n")
    said = run(folder, log, capsys)
    assert "1 hole(s) left open by an earlier run are searched again: their file, or a " in said
    assert "changed since (B.v:nope)" in said


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_proof_dropped_for_an_edit_of_its_file_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dry run's proof, then the student restates the lemma before `--write`: the proof
    is not reused (right), and now the run says so (audit 54: it only reappeared as
    "left Admitted")."""
    folder = two_files(tmp_path, USE)
    log = tmp_path / "asked.log"
    assert "exact (base 3)" in run(folder, log, capsys)
    (folder / "B.v").write_text(USE.replace("P 3", "Q 3"))
    said = run(folder, log, capsys)
    assert "1 proof(s) an earlier run found are not reused: their file changed since " in said
    assert "(B.v:through_base); searched again" in said
