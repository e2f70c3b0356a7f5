"""The statement's own names for what a written proof introduces
(``project/statement_names.py``, audit 54)."""

from __future__ import annotations

import pytest

from proofsearch.env.coq.binders import statement_binders
from proofsearch.project.statement_names import with_statement_names


@pytest.mark.parametrize(
    ("statement", "binders"),
    [
        ("Theorem t : forall b c, andb b c = andb c b.", ["b", "c"]),
        ("Theorem t : forall X (l1 l2 : list X),\n  rev (l1 ++ l2) = rev l1.", ["X", "l1", "l2"]),
        ("Theorem t : forall X : Type, forall l : list X, rev (rev l) = l.", ["X", "l"]),
        # Parameters before the colon are in the context already: no intro names them.
        ("Lemma t (n : nat) : forall m k : nat, m = k -> n = n.", ["m", "k"]),
        ("Lemma t {A} : forall (x : A) (y : A) _ z, True.", ["x", "y"]),
        ("Lemma t : forall '(x, y), x = y.", []),
        ("Lemma t (f : nat -> nat) : f 0 = f 0.", []),
        ("Lemma t : forall {A : Type} [B] (x : A), True.", ["A", "B", "x"]),
    ],
)
def test_statement_binders(statement: str, binders: list[str]) -> None:
    assert statement_binders(statement) == binders


def test_renaming_is_simultaneous_and_whole_words_only() -> None:
    statement = "Theorem t : forall n m : nat, n + m = m + n."
    proof = ["intros m n", "rewrite Nat.add_comm; apply (f m n.+1 mx)"]
    assert with_statement_names(proof, statement) == [
        "intros n m",
        "rewrite Nat.add_comm; apply (f n m.+1 mx)",
    ]


def test_hypotheses_after_the_binders_keep_their_names() -> None:
    statement = "Theorem t : forall a b : nat, a = b -> b = a."
    assert with_statement_names(["intros x y H", "now rewrite H"], statement) == [
        "intros a b H",
        "now rewrite H",
    ]
    assert with_statement_names(["intro x; destruct x; auto"], statement) == [
        "intro a; destruct a; auto"
    ]


def test_nothing_to_do() -> None:
    statement = "Theorem t : forall a b : nat, a = b -> b = a."
    assert with_statement_names(["intros a b H", "auto"], statement) is None
    assert with_statement_names(["intros", "auto"], statement) is None
    assert with_statement_names(["intros [|x] y", "auto"], statement) is None
    assert with_statement_names(["induction n", "auto"], statement) is None


def test_a_run_of_intros_steps_is_read_as_one() -> None:
    """`intros x. intros x0.` for `forall x y` (audit 55) reads `intros x. intros y.`."""
    statement = "Lemma sq_sum_nonneg : forall x y : R, 0 <= sq x + sq y."
    proof = ["intros x", "intros x0", "unfold sq", "nra"]
    assert with_statement_names(proof, statement) == ["intros x", "intros y", "unfold sq", "nra"]
    # A step that does more after its names ends the run.
    assert with_statement_names(["intro a; destruct a", "intros b"], statement) == [
        "intro x; destruct x",
        "intros b",
    ]
