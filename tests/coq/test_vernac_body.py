"""Whether a sentence gives its value with ``:=`` (no proof follows to be found)."""

from __future__ import annotations

import pytest

from proofsearch.env.coq.vernac import command_of, gives_body, is_mutual


@pytest.mark.parametrize(
    ("sentence", "body"),
    [
        ("Definition d : nat := 3.", True),
        ("Instance i : C nat := {| f := 0 |}.", True),
        ("#[global] Program Instance dec_le (x y : nat) : Dec (x <= y) := match x with end.", True),
        ("Definition two : {n : nat | n = 2}.", False),
        ("Lemma l (f := S) : f 0 = 1.", False),  # inside brackets
        # A let of the statement is not a body: the stdlib's divmod_spec was taken for one.
        ("Lemma divmod_spec : forall x y, let (q, u) := divmod x y 0 y in u <= y.", False),
        ("Lemma law : forall a : nat, let b := a in let c := b in c = a.", False),
        ("Definition f : let n := 1 in nat := 0.", True),
    ],
)
def test_a_body_is_a_top_level_colon_equals_outside_a_let(sentence: str, body: bool) -> None:
    assert gives_body(command_of(sentence)) is body


@pytest.mark.parametrize(
    ("sentence", "mutual"),
    [
        ("Lemma a : forall n, ev n -> ev (S (S n))\nwith b : forall n, od n -> od n.", True),
        ("Theorem a (n : nat) : P n with b (n : nat) : Q n.", True),
        ("Lemma c : forall x, match x with O => True | S _ => True end.", False),
        ("Lemma d : True.", False),
    ],
)
def test_a_mutual_statement_is_a_with_before_a_name_and_its_type(
    sentence: str, mutual: bool
) -> None:
    """What the extractor drops and what prove's reason for an open hole says."""
    assert is_mutual(command_of(sentence)) is mutual
