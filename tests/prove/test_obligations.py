"""Program obligations and ``Function`` termination proofs left ``Admitted`` are holes
(real Coq, the stand-in generator).

``Next Obligation.`` names no constant: Coq numbers the obligations, so the re-check asks
which one the sentence opens, and a file cannot end with a program's obligations
unsolved, so it admits the later ones after the proof (docs/prove.md).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.checker import check_proof
from proofsearch.project.holes import OBLIGATION_REASON, find_holes
from proofsearch.trace.sources import Source

PROGRAM = """\
Require Import Arith Lia Program.
Local Obligation Tactic := idtac.

Program Definition pred_pos (n : nat) (H : n > 0) : {m : nat | S m = n} :=
  match n with O => _ | S k => k end.
Next Obligation. Admitted.
Next Obligation. Admitted.

Module M.
  Program Definition bigger (n : nat) : {m | m > n} := S n.
  Obligation 1.
  Proof.
  Admitted.
End M.

Lemma through_bigger : forall n, S n > n.
Proof.
Admitted.
"""


pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own


def test_obligations_are_holes_named_as_coq_will_or_by_their_line() -> None:
    holes, skipped = find_holes(Source(Path("P.v"), "P.v", "Obl.P"), PROGRAM)
    assert [(h.line, h.qualid, h.statement) for h in holes] == [
        (6, "pred_pos_obligation@6", "Next Obligation."),
        (7, "pred_pos_obligation@7", "Next Obligation."),
        (11, "M.bigger_obligation_1", "Obligation 1."),
        (16, "through_bigger", "Lemma through_bigger : forall n, S n > n."),
    ]
    assert skipped == []
    assert all(h.ender == "Qed." and h.to_record()["propositions_only"] for h in holes[:3])


def test_equations_obligations_are_still_said_not_searched() -> None:
    text = (
        "From Equations Require Import Equations.\n"
        "Equations f (n : nat) : nat by wf n lt := f 0 := 0; f (S n) := f n.\n"
        "Next Obligation. Admitted.\n"
    )
    holes, skipped = find_holes(Source(Path("E.v"), "E.v", "E"), text)
    assert holes == []
    assert [(s.line, s.ident, s.reason) for s in skipped] == [(3, "f", OBLIGATION_REASON)]


def prove_and_write(tmp_path: Path, text: str, *more: str) -> tuple[Path, Path]:
    """``P.v`` holding ``text`` in a project ``Obl``, proved with ``--write`` by the
    stand-in generator: the folder, and the log of the holes it was asked about."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Obl\nP.v\n")
    (folder / "P.v").write_text(text)
    log = tmp_path / "asked.log"
    args = ["--generator", "tests.prove.stand_in:by_name", "--gen-option", f"log={log}"]
    code = main(
        ["prove", str(folder), *args, *more, "--write", "--quiet", "--no-library-trace",
         "--output", str(tmp_path / "r.jsonl")]
    )  # fmt: skip
    assert code == 0
    return folder, log


@pytest.mark.usefixtures("no_new_coq_processes")
def test_obligations_are_filled_and_the_project_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second ``Next Obligation`` is Coq's obligation 2 (the first stays admitted
    before it): named so once the project is traced, searched, re-checked under that
    name, written ``Qed`` with its names shortened (an obligation's own name is not:
    ``Import`` does not bring a solved one in); the file builds and the filled
    obligations rest on nothing. A lemma proved through an obligation filled in the same
    run does not rest on an admitted one: ``--strict`` writes it (it was left)."""
    folder, log = prove_and_write(tmp_path, PROGRAM, "--strict")
    assert log.read_text().splitlines() == [
        "pred_pos_obligation_1",
        "pred_pos_obligation_2",
        "M.bigger_obligation_1",
        "through_bigger",
    ]
    assert (folder / "P.v").read_text() == PROGRAM.replace(
        "Next Obligation. Admitted.\nNext Obligation. Admitted.\n",
        "Next Obligation. Admitted.\nNext Obligation.\n"  # no ``Proof.`` added after it
        "  intros n H k E; reflexivity.\nQed.\n",
    ).replace(  # written with the shortest name (the file must admit h's others to ask)
        "  Proof.\n  Admitted.\n",
        "  Proof.\n    intros n; cbv beta; apply Nat.lt_succ_diag_r.\n  Qed.\n",
    ).replace(
        "S n > n.\nProof.\nAdmitted.\n", "S n > n.\nProof.\n  exact M.bigger_obligation_1.\nQed.\n"
    )
    assert "left Admitted: P.v:6 pred_pos_obligation_1" in capsys.readouterr().out
    # An obligation is reached by its qualified name only (Import does not bring it).
    (folder / "Use.v").write_text(
        "From Obl Require Import P.\nPrint Assumptions P.pred_pos_obligation_2.\n"
        "Print Assumptions M.bigger.\nPrint Assumptions through_bigger.\n"
        "Print Assumptions pred_pos.\n"
    )
    for file in ("P.v", "Use.v"):
        done = subprocess.run(
            ["coqc", "-R", ".", "Obl", file], cwd=folder, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    printed = done.stdout.split("Closed under the global context")
    assert len(printed) == 4, done.stdout  # pred_pos rests on its obligation 1
    assert "pred_pos_obligation_1" in printed[3]


BEGUN = """\
Require Import Arith Lia Program.
Local Obligation Tactic := idtac.
Program Definition half_up (n : nat) : {m : nat | n <= 2 * m} := S n.
Next Obligation.
  intros n. simpl.
  admit.
Admitted.
"""


def test_a_begun_obligation_is_continued_where_the_user_stopped(tmp_path: Path) -> None:
    """Its ``admit.`` is a part of its own, found in the trace by the obligation's place
    (the trace has Coq's name for it, ``half_up_obligation_1``); the user's tactics stay."""
    folder, log = prove_and_write(tmp_path, BEGUN)
    assert log.read_text().splitlines() == ["half_up_obligation_1_admit1"]
    assert (folder / "P.v").read_text() == BEGUN.replace(
        # `intros m` found; the part's own statement names it `n` (the proof's words)
        "  admit.\nAdmitted.\n",
        "  { revert n. intros n; lia. }\nQed.\n",
    )
    done = subprocess.run(["coqc", "-R", ".", "Obl", "P.v"], cwd=folder, capture_output=True)
    assert done.returncode == 0, done.stderr


VALUE = """\
Require Import Arith Lia Program.
Local Obligation Tactic := idtac.
Program Definition pick (k : nat) : {n : nat | n > k} := _.
Next Obligation. Admitted.
"""


def test_an_obligation_filled_with_a_value_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``{n | n > k}`` for a program's ``_``: any value with its proof was accepted, and
    ``Qed`` keeps the program from computing through it; an audit found it said nothing."""
    folder, _ = prove_and_write(tmp_path, VALUE)
    assert "intros k; exists (S k); auto." in (folder / "P.v").read_text()
    out = " ".join(capsys.readouterr().out.split())
    assert "obligation filled with a value: P.v:4 pick_obligation_1: its type is no" in out


AMID = """\
Require Import Arith Lia Program.
Local Obligation Tactic := idtac.
Program Definition sub_safe (n m : nat) (H : m <= n) : {k | k + m = n} := n - m.
Lemma lemma_amid : forall n, n + 0 = n.
Proof. Admitted.
Next Obligation. Admitted.
"""


def test_a_lemma_between_a_program_and_its_obligations_is_rechecked(tmp_path: Path) -> None:
    """Its re-check's file ended with ``sub_safe``'s obligation unsolved: an error
    ("Unsolved obligations when closing file"), searched again on every run."""
    folder, _ = prove_and_write(tmp_path, AMID)
    assert (
        "Lemma lemma_amid : forall n, n + 0 = n.\nProof.\n  intros n; lia.\nQed.\n"
        in (folder / "P.v").read_text()
    )


OBLIGED = """\
Require Import Arith Program.
Local Obligation Tactic := idtac.
Axiom cheat : False.
Module M.
Program Definition h (n : nat) : {m | m = n} * {m | m = n + 0} := (exist _ n _, exist _ n _).
Next Obligation. Admitted.
"""


@pytest.mark.parametrize("statement", ["Next Obligation.", "Obligation 2.", "Obligation 2 of h."])
def test_the_recheck_reads_the_assumptions_of_the_obligation_proved(statement: str) -> None:
    """Not of another constant: a proof through an axiom is refused, naming it, and the
    later obligations the re-check admits do not count (the first is ``Admitted`` in
    the header and is no assumption of the second)."""
    place = "M.h_obligation@7"  # the qualid prove's record gives it
    cheating = check_proof(OBLIGED, statement, ["destruct cheat"], footer="End M.", name=place)
    assert not cheating.ok and "uses axioms not allowed: cheat" in cheating.message
    assert cheating.axioms == ("cheat",)
    honest = check_proof(
        OBLIGED, statement, ["intros n; cbv beta; auto"], footer="End M.", name=place
    )
    assert honest.ok and honest.axioms == (), honest.message


FUNCTION = """\
Require Import Arith Lia Recdef.
Function count_down (n : nat) {measure id n} : nat :=
  match n with 0 => 0 | S k => count_down k end.
Proof.
Admitted.
Function structural (n : nat) : nat := match n with 0 => 0 | S k => structural k end.
Lemma after : forall n, structural n = 0.
Proof.
Admitted.
"""


def test_a_functions_termination_proof_is_a_hole(tmp_path: Path) -> None:
    """``Function … {measure …}`` opens the proof of its termination conditions: a hole
    named by the function, re-checked by the function's own assumptions. A structural
    ``Function`` opens nothing (the lemma after it is no nested proof)."""
    holes, skipped = find_holes(Source(Path("P.v"), "P.v", "Obl.P"), FUNCTION)
    assert [(h.line, h.qualid) for h in holes] == [(2, "count_down"), (7, "after")]
    assert skipped == []
    folder, log = prove_and_write(tmp_path, FUNCTION)
    assert log.read_text().splitlines() == ["count_down", "after"]
    first, second, _ = FUNCTION.split("Proof.\nAdmitted.\n")
    assert (folder / "P.v").read_text() == (
        f"{first}Proof.\n  intros n k E; unfold id; lia.\nQed.\n"
        f"{second}Proof.\n  induction n; simpl; auto.\nQed.\n"
    )
    (folder / "Use.v").write_text("From Obl Require Import P.\nPrint Assumptions count_down.\n")
    for file in ("P.v", "Use.v"):
        done = subprocess.run(
            ["coqc", "-R", ".", "Obl", file], cwd=folder, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Closed under the global context"


def list_holes(folder: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["prove", str(folder), "--list", "--no-library-trace"]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.usefixtures("no_new_coq_processes")
def test_list_names_obligations_as_coq_did_where_a_trace_of_the_file_is_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--list`` traces nothing: before any run an obligation shows the name its place
    suggests; after a run (which traced the file) Coq's name; after an edit, the guess
    again, never a stale trace's name for a hole it no longer describes."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Obl\nP.v\n")
    (folder / "P.v").write_text(PROGRAM)
    guessed = ["P.v:6 pred_pos_obligation@6", "P.v:7 pred_pos_obligation@7"]
    assert list_holes(folder, capsys)[:2] == guessed
    args = ["--generator", "tests.prove.stand_in:by_name", "--gen-option", "log=/dev/null"]
    assert main(["prove", str(folder), *args, "--quiet", "--no-library-trace",
                 "--output", str(tmp_path / "r.jsonl")]) == 0  # fmt: skip
    assert list_holes(folder, capsys) == [
        "P.v:6 pred_pos_obligation_1",
        "P.v:7 pred_pos_obligation_2",
        "P.v:11 M.bigger_obligation_1",
        "P.v:16 through_bigger",
    ]
    (folder / "P.v").write_text("(* edited *)\n" + PROGRAM)
    assert list_holes(folder, capsys)[:2] == [
        "P.v:7 pred_pos_obligation@7",
        "P.v:8 pred_pos_obligation@8",
    ]
