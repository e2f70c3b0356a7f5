"""Holes false as stated (``project/refute.py``, audit 54): the statement's negation at
small values, checked from scratch; said as the reason the hole stays Admitted."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.project.refute import header_values, negation, scripts


def test_the_negation_keeps_parameters_and_binders() -> None:
    assert negation("Theorem bad : forall n : nat, n + 1 = n.") == (
        "Lemma proofsearch_refutation : ~ (forall n : nat, n + 1 = n)."
    )
    assert negation("Lemma t {A} (x : A) : x = x.") == (
        "Lemma proofsearch_refutation : ~ (forall {A} (x : A), x = x)."
    )
    assert negation("Example e : 2 + 2 = 5.") == "Lemma proofsearch_refutation : ~ (2 + 2 = 5)."
    assert negation("Definition d : nat := 0.") is None
    assert negation("Instance i : Foo.") is None


def test_values_follow_the_binders_types() -> None:
    found = scripts("", "forall (b : bool) (n : nat), P b n")
    assert found[0] == (
        (),
        "intro H; simpl in H; first [discriminate H | congruence | easy | inversion H]",
    )
    assert [values for values, _ in found[1:4]] == [
        (("b", "true"), ("n", "0")), (("b", "true"), ("n", "1")), (("b", "true"), ("n", "2")),
    ]  # fmt: skip
    assert "specialize (H true 0)" in found[1][1]
    assert len(found) == 7
    # A type with no values here ends the instantiation: only the binders before it.
    partial = scripts("(X : Type)", "forall (t : tree X) (n : nat), P t n")
    assert [values for values, _ in partial] == [(), (("X", "nat"),)]
    # An implicit binder takes its value through @H.
    implicit = scripts("{A : Type}", "forall (x : A), x = x")
    assert "specialize (@H nat)" in implicit[1][1]


def test_the_headers_own_types_give_values() -> None:
    """A course's own `nat'` and `bool'` (audit 54's course): their constructors."""
    header = (
        "Inductive bool' : Type := | true' | false'.\n"
        "(* Inductive fake := a | b. *)\n"
        "Inductive nat' : Type :=\n  | O'\n  | S' (n : nat').\n"
        "Inductive tree := leaf | node : tree -> tree -> tree.\n"
    )
    declared = header_values(header)
    assert declared == {"bool'": ("true'", "false'"), "nat'": ("O'", "(S' O')"), "tree": ("leaf",)}
    found = scripts("", "forall n : nat', plus' n O' = S' n", declared)
    assert [values for values, _ in found[1:]] == [(("n", "O'"),), (("n", "(S' O')"),)]


pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own

COURSE = """\
Theorem bad : forall n : nat, n + 1 = n.
Proof.
Admitted.

Example wrong_sum : 2 + 2 = 5.
Proof. Admitted.

Theorem true_but_open : forall n : nat, n + 0 = n.
Proof.
Admitted.

Theorem bad_through_bad : forall n : nat, n + 1 = n + 2.
Proof.
Admitted.

Inductive nat' : Type := O' | S' (n : nat').
Fixpoint double' (n : nat') : nat' := match n with O' => O' | S' m => S' (S' (double' m)) end.
Theorem double_grows : forall n : nat', double' n = S' n.
Proof.
Admitted.

Example two_is_one : 1 + 1 = 1.
Proof.
Admitted.
"""


@pytest.mark.usefixtures("no_new_coq_processes")
def test_false_exercises_are_said_false_and_stay_admitted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real Coq, the stand-in generator (it proves none of these). `bad_through_bad` is
    false too, and said so: its refutation rests on no admitted lemma."""
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-Q . LF\nC.v\n")
    (folder / "C.v").write_text(COURSE)
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet",
            "--timeout", "5", "--output", str(tmp_path / "r.jsonl")]  # fmt: skip
    assert main(["prove", str(folder), *args, "--write", "--strict"]) == 0
    out = capsys.readouterr().out
    assert (
        "left Admitted: C.v:1 bad: false as stated: it does not hold for n := 0 (its negation "
        "is proved: intro H; specialize (H 0); simpl in H; discriminate H)"
    ) in out
    assert "left Admitted: C.v:5 wrong_sum: false as stated: it does not hold (its negation" in out
    assert "C.v:12 bad_through_bad: false as stated: it does not hold for n := 0" in out
    assert "C.v:18 double_grows: false as stated: it does not hold for n := O'" in out
    assert "C.v:8 true_but_open: false as stated" not in out
    # Proved through the false one: said so where it rests on it (--strict: not written).
    assert "C.v:22 two_is_one: --strict: rests on bad (false as stated), still Admitted" in out
    assert "C.v:8 true_but_open: no proof" in out
    assert (folder / "C.v").read_text() == COURSE  # nothing written for them (--strict)
    assert main(["prove", str(folder), *args]) == 0  # a dry run, not strict
    out = capsys.readouterr().out
    assert "rests on Admitted: C.v:22 two_is_one uses bad (false as stated)" in out
    assert main(["prove", str(folder), *args, "--no-refute"]) == 0
    assert "false as stated" not in capsys.readouterr().out
