"""The from-scratch re-check with coqc: closed proofs pass, everything else fails."""

from __future__ import annotations

import pytest

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
    assert verdict.ok and verdict.axioms == ("Classical_Prop.classic",)


def test_axioms_compare_as_the_extractor_records_them() -> None:
    """The extractor records ``allowed_axioms`` where nothing is imported
    (``Eqdep.Eq_rect_eq.eq_rect_eq``); the proof's header imports ``Eqdep``, where the
    same axiom prints as ``Eq_rect_eq.eq_rect_eq``. A proof through it is the reference
    proof's own route and must pass (it was refused: 4 of 45 stdlib tuning lemmas)."""
    header = "Require Import Coq.Logic.Eqdep.\nImport EqdepTheory."
    statement = "Lemma u : forall (U : Type) (x : U) (p : x = x), p = eq_refl x."
    allowed = ["Eqdep.Eq_rect_eq.eq_rect_eq"]
    verdict = check_proof(header, statement, ["apply UIP_refl"], allowed_axioms=allowed)
    assert verdict.ok and verdict.axioms == ("Eqdep.Eq_rect_eq.eq_rect_eq",), verdict
    assert not check_proof(header, statement, ["apply UIP_refl"]).ok


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


#: Header states that must not change what the checker adds after the proof.
HEADER_STATES = {
    "positive scope": ("Require Import PArith.\nOpen Scope positive_scope.", "", None),
    "Z scope": ("Require Import ZArith.\nOpen Scope Z_scope.", "", None),
    "nat scope closed, bool delimited": (
        "Close Scope nat_scope.\nOpen Scope bool_scope.", "", None,
    ),
    "local notations": (
        'Local Notation "0" := true.\nLocal Notation "x := y" := (x = y) (at level 70).\n'
        'Local Notation Locate := I.\nLocal Notation "\'Print\'" := False.',
        "", None,
    ),
    "implicit arguments": (
        "Set Implicit Arguments.\nSet Maximal Implicit Insertion.\nSet Contextual Implicit."
        "\nSet Strict Implicit.\nSet Printing Implicit.\nSet Printing All.",
        "", None,
    ),
    "universe polymorphism, printing": (
        "Set Universe Polymorphism.\nSet Printing Universes.\nSet Printing Width 20.\n"
        "Unset Printing Notations.",
        "", None,
    ),
    "open section and module, with a footer": (
        "Require Import PArith.\nModule M.\nSection S.\nVariable n : nat.\n"
        "Open Scope positive_scope.",
        "End S.\nEnd M.", "M.one",
    ),
}  # fmt: skip


@pytest.mark.parametrize("state", sorted(HEADER_STATES))
def test_what_the_checker_adds_ignores_the_header_state(state: str) -> None:
    header, footer, name = HEADER_STATES[state]
    verdict = check_proof(header, "Lemma one : True.", ["exact I"], footer=footer, name=name)
    assert verdict.ok and verdict.axioms == (), verdict.message


def test_a_proof_that_leaves_the_theorem_is_refused_before_compiling() -> None:
    # Compiled as it is, this file proves `1 = 1` under the name `x` and is closed.
    escape = "idtac. Abort. Theorem x : 1 = 1. Proof. reflexivity"
    verdict = check_proof("", "Theorem x : 1 = 2.", [escape])
    assert not verdict.ok and "not exactly one sentence" in verdict.message
    assert not verdict.disagreement


def test_disagreements_are_told_from_cheats() -> None:
    assert check_proof("", "Theorem x : 1 = 2.", ["reflexivity"]).disagreement
    cheat = check_proof("Axiom cheat : False.", "Theorem x : 1 = 2.", ["destruct cheat"])
    assert not cheat.ok and not cheat.disagreement


def test_in_place_check_for_a_lemma_no_name_reaches_after_the_footer() -> None:
    """A lemma inside a scope a plugin opens (Hierarchy-Builder's `HB.builders`, whose
    module has a generated name): printed by name after the footer, it is not found."""
    header = "Module M.\n"
    statement = "Lemma l : 1 = 1."
    ok = check_proof(header, statement, ["reflexivity"], footer="End M.", in_place=True)
    assert ok.ok and ok.axioms == (), ok
    by_name = check_proof(header, statement, ["reflexivity"], footer="End M.")
    assert not by_name.ok and "could not print the assumptions" in by_name.message
    cheat = check_proof(
        header + "Axiom shadow : False.\n", statement, ["exact (False_ind _ shadow)"],
        footer="End M.", in_place=True,
    )  # fmt: skip
    assert not cheat.ok and "shadow" in cheat.message


def test_typing_flags_are_said_and_a_projects_own_are_accepted() -> None:
    """Under `-impredicative-set` every lemma prints `Theory: Set is impredicative`, and
    under `-type-in-type` `X relies on an unsafe hierarchy`: a project's own flags (a
    `prove` hole: any_axiom) are its logic; elsewhere they are a finding, said in words
    (the reason was a bare "Theory:")."""
    statement, proof = "Lemma z : forall n : nat, n = n.", ["reflexivity"]
    for flag, said in [
        ("-impredicative-set", "typing flags: Set is impredicative"),
        ("-type-in-type", "typing flags: relies on an unsafe hierarchy; Type hierarchy is"),
    ]:
        strict = check_proof("", statement, proof, args=[flag])
        assert not strict.ok and strict.message.startswith(said), strict.message
        assert check_proof("", statement, proof, args=[flag], any_axiom=True).ok
    # An unguarded fixpoint of the header is a finding too, not "unexpected output".
    header = "Unset Guard Checking.\nFixpoint f (n : nat) : nat := f n.\nSet Guard Checking."
    verdict = check_proof(header, "Lemma g : f 0 = f 0.", ["reflexivity"])
    assert not verdict.ok and "is assumed to be guarded" in verdict.message, verdict.message


def test_a_refusals_message_is_coqs_error_not_its_warnings() -> None:
    """Eleven notation warnings came before the error of a file loading math-comp, and
    the one-line reason a user reads (200 characters) held only warnings (audit 49)."""
    from proofsearch.env.coq.checker import coq_errors

    warning = (
        'File "/tmp/c/ProofsearchCheck.v", line 2, characters 0-43:\n'
        'Warning: Notation "_ + _" was already used in scope nat_scope.\n'
        "[notation-overridden,parsing,default]\n"
    )
    error = (
        'File "/tmp/c/ProofsearchCheck.v", line 26, characters 8-20:\n'
        "Error: The variable fresh_name_6 was not found in the current environment."
    )
    assert coq_errors(warning * 11 + error + "\n") == error + " (11 warning(s) left out)"
    assert coq_errors("Error: Cannot find a physical path.\n") == (
        "Error: Cannot find a physical path."
    )
    assert coq_errors(warning) == warning.strip()  # no error at all: everything, as it was
