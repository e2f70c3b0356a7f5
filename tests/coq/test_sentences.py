"""Sentence splitting must match what coqidetop's Add parses, or code is dropped silently."""

from __future__ import annotations

import pytest

from proofsearch.env.coq.sentences import SentenceError, split_sentences


def texts(source: str) -> list[str]:
    return [s.text for s in split_sentences(source)]


def test_plain_sentences_and_comments() -> None:
    source = (
        "Require Import Arith.\n(* a comment. with dots. *) Lemma x : 1 = 1.\nProof. auto. Qed."
    )
    assert texts(source) == [
        "Require Import Arith.",
        "Lemma x : 1 = 1.",
        "Proof.",
        "auto.",
        "Qed.",
    ]


def test_bullets_braces_and_selectors_are_sentences() -> None:
    source = "split. - auto. + left. ** right. 2: { idtac. } { exact I. }"
    assert texts(source) == [
        "split.", "-", "auto.", "+", "left.", "**", "right.",
        "2: {", "idtac.", "}", "{", "exact I.", "}",
    ]  # fmt: skip


def test_dots_that_do_not_end_sentences() -> None:
    source = (
        'Notation "[ x ; .. ; y ]" := (cons x .. (cons y nil) ..).\n'
        "Check Nat.add_comm.\n"
        'Definition s := "a. b".\n'
        "(* nested (* comment. *) still. *) Check 1."
    )
    assert texts(source) == [
        'Notation "[ x ; .. ; y ]" := (cons x .. (cons y nil) ..).',
        "Check Nat.add_comm.",
        'Definition s := "a. b".',
        "Check 1.",
    ]


def test_doubled_quotes_inside_strings() -> None:
    assert texts('Definition s := "say ""hi"". ok". Check s.') == [
        'Definition s := "say ""hi"". ok".',
        "Check s.",
    ]


@pytest.mark.parametrize(
    "source", ["Lemma x : True", "(* open comment", 'Definition s := "open.', "auto. intros"]
)
def test_unterminated_text_is_an_error(source: str) -> None:
    with pytest.raises(SentenceError):
        split_sentences(source)


def test_proof_with_default_tactic_ends_a_sentence() -> None:
    assert texts("Proof with auto. split... exact I. Qed.") == [
        "Proof with auto.",
        "split...",
        "exact I.",
        "Qed.",
    ]


def test_elpi_quotations_are_one_token() -> None:
    """Coq-Elpi's code holds dots and `}}`: read as Coq, the file split mid-program."""
    source = (
        "Elpi Command hi.\n"
        "Elpi Accumulate lp:{{\n  main [str S] :- coq.say {{ nat }} S.\n  pred p i:int.\n}}.\n"
        "Elpi Db x.db lp:{{{ p {{ q }} }}}.\n"
        "Lemma a : True.\nProof. exact I. Qed.\n"
    )
    assert texts(source) == [
        "Elpi Command hi.",
        'Elpi Accumulate lp:{{\n  main [str S] :- coq.say {{ nat }} S.\n  pred p i:int.\n}}.',
        "Elpi Db x.db lp:{{{ p {{ q }} }}}.",
        "Lemma a : True.", "Proof.", "exact I.", "Qed.",
    ]  # fmt: skip
    # Not a quotation: a name ending in `lp`, and Coq's own `{{` (two focus braces).
    assert texts("Definition help:=1.\nGoal True. { { exact I. } }") == [
        "Definition help:=1.", "Goal True.", "{", "{", "exact I.", "}", "}",
    ]  # fmt: skip
    with pytest.raises(SentenceError, match="Elpi quotation"):
        split_sentences("Elpi Accumulate lp:{{ main _. ")


def test_an_unterminated_comment_is_named_where_it_opens() -> None:
    """As Coq says it (audit 54: a course file's `(*` left open in an exercise heading was
    reported with no line): the line the comment opens on, nested ones closed before."""
    text = "Lemma a : True.\nProof. exact I. Qed.\n(* (* closed *) still open\nLemma b : True.\n"
    with pytest.raises(SentenceError, match="unterminated comment opened on line 3") as error:
        split_sentences(text)
    assert error.value.line == 3
