"""The from-scratch re-check with coqc: closed proofs pass, everything else fails."""

from __future__ import annotations

from proofsearch.env.coq.checker import check_proof, parse_assumptions, statement_name


def test_closed_proof_passes() -> None:
    verdict = check_proof(
        "Require Import Lia.", "Lemma x : forall n, 2 * n = n + n.", ["intros", "lia"]
    )
    assert verdict.ok and verdict.axioms == ()


def test_printed_spoof_does_not_fool_the_check() -> None:
    verdict = check_proof(
        "Axiom cheat : False.",
        "Theorem x : 1 = 2.",
        ['idtac "Closed under the global context"', "destruct cheat"],
    )
    assert not verdict.ok and verdict.axioms == ("cheat",)


def test_allowed_axioms() -> None:
    header = "Require Import Classical."
    statement = "Lemma em : forall P : Prop, P \\/ ~ P."
    assert not check_proof(header, statement, ["intros", "apply classic"]).ok
    verdict = check_proof(
        header, statement, ["intros", "apply classic"], allowed_axioms=["classic"]
    )
    assert verdict.ok and verdict.axioms == ("classic",)


def test_wrong_proof_is_rejected_with_coqs_message() -> None:
    verdict = check_proof("", "Theorem x : 1 = 2.", ["reflexivity"])
    assert not verdict.ok and "coqc rejected" in verdict.message


def test_statement_names() -> None:
    assert statement_name("Theorem foo : True.") == "foo"
    assert statement_name("  Lemma bar' (n : nat) : n = n.") == "bar'"
    assert statement_name("#[local] Lemma baz : True.") == "baz"
    assert statement_name("Goal True.") == "Unnamed_thm"
    assert statement_name("Check nat.") is None


def test_parse_assumptions() -> None:
    assert parse_assumptions("Closed under the global context\n") == (True, (), "")
    ok, axioms, other = parse_assumptions("Axioms:\nclassic : forall P : Prop, P \\/ ~ P\n")
    assert ok and axioms == ("classic",) and other == ""
    ok, _, other = parse_assumptions("Section Variables:\nx : nat\n")
    assert not ok and "Section Variables" in other


def test_lemma_inside_a_section_and_a_module() -> None:
    header = "Module M.\nSection S.\nVariable n : nat."
    verdict = check_proof(
        header, "Lemma keep : n = n.", ["reflexivity"], footer="End S.\nEnd M.", name="M.keep"
    )
    assert verdict.ok, verdict.message
    # Without the footer coqc refuses the file: the section is still open.
    assert not check_proof(header, "Lemma keep : n = n.", ["reflexivity"]).ok


def test_wrapped_assumption_lines() -> None:
    output = "Axioms:\nClassicalDedekindReals.sig_forall_dec\n  : forall P : nat -> Prop, x\n"
    ok, axioms, _ = parse_assumptions(output)
    assert ok and axioms == ("ClassicalDedekindReals.sig_forall_dec",)
