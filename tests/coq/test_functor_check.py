"""The re-check of a lemma inside a functor (in place, after a marker) and ``any_axiom``."""

from __future__ import annotations

from proofsearch.env.coq.checker import check_proof

SIGNATURE = """\
Module Type T.
  Parameter t : Type.
  Parameter eq_dec : forall x y : t, {x = y} + {x <> y}.
End T.
"""
HEADER = SIGNATURE + "Axiom cheat : False.\nModule Make (A : T).\n"
FOOTER = "End Make."
STATEMENT = "Lemma dec_refl : forall x : A.t, exists b : bool, b = b /\\ x = x."


def _check(proof: list[str], **options: object) -> object:
    return check_proof(
        HEADER, STATEMENT, proof, footer=FOOTER, functor_parameters=("A",), **options
    )  # type: ignore[arg-type]


def test_a_functor_lemma_is_checked_in_place_and_may_use_its_parameters() -> None:
    verdict = _check(["intros x", "exists true", "split; reflexivity"])
    assert verdict.ok, verdict  # type: ignore[attr-defined]
    assert verdict.axioms == ("A.t",)  # type: ignore[attr-defined]


def test_a_functor_lemma_may_not_use_an_axiom_it_is_not_given() -> None:
    verdict = _check(["destruct cheat"])
    assert not verdict.ok and "cheat" in verdict.message  # type: ignore[attr-defined]
    assert _check(["destruct cheat"], allowed_axioms=["cheat"]).ok  # type: ignore[attr-defined]


def test_printed_text_before_the_marker_is_not_read() -> None:
    """A tactic prints before ``Qed``; only what follows the marker, a fresh random word
    no tactic can know, is read."""
    spoof = 'idtac "Closed under the global context"'
    verdict = _check([spoof, "destruct cheat"])
    assert not verdict.ok and verdict.axioms  # type: ignore[attr-defined]


def test_a_wrong_proof_inside_a_functor_is_rejected() -> None:
    verdict = _check(["intros x", "exists true", "discriminate"])
    assert not verdict.ok and "coqc rejected" in verdict.message  # type: ignore[attr-defined]


def test_an_imported_parameters_fields_print_short_and_need_any_axiom() -> None:
    """``Module Make (Import A : T)``: ``A.t`` prints as ``t``, which is then checked like
    any other axiom (``prove`` checks with ``any_axiom``)."""
    header = HEADER.replace("(A : T)", "(Import A : T)")
    proof = ["intros x", "exists true", "split; reflexivity"]
    options = {"footer": FOOTER, "functor_parameters": ("A",)}
    refused = check_proof(header, STATEMENT, proof, **options)  # type: ignore[arg-type]
    assert not refused.ok and refused.axioms == ("t",)
    accepted = check_proof(header, STATEMENT, proof, any_axiom=True, **options)  # type: ignore[arg-type]
    assert accepted.ok and accepted.axioms == ("t",)


def test_any_axiom_accepts_what_the_header_loads_and_still_reads_it() -> None:
    header = "Require Import Classical."
    statement = "Lemma em : forall P : Prop, P \\/ ~ P."
    assert not check_proof(header, statement, ["intros", "apply classic"]).ok
    verdict = check_proof(header, statement, ["intros", "apply classic"], any_axiom=True)
    assert verdict.ok and verdict.axioms == ("Classical_Prop.classic",)
    # Closed is still required: an admitted goal is never a proof.
    assert not check_proof(header, statement, ["admit"], any_axiom=True).ok


def test_a_functor_check_refuses_a_header_suffix() -> None:
    suffix = "From Hammer Require Import Tactics."
    verdict = _check(["intros x", "exists true", "split; reflexivity"], header_suffix=suffix)
    assert not verdict.ok and "functor" in verdict.message  # type: ignore[attr-defined]


def test_a_functor_lemma_inside_a_section_may_use_the_sections_variables() -> None:
    """Printed before ``End S``, the assumptions list the section variables the proof
    uses (MenhirLib's ``Hypothesis safe``): arguments once the section closes, not
    axioms (the first MenhirLib run refused three right proofs for it)."""
    header = HEADER + "  Section S.\n  Variable y : A.t.\n  Hypothesis Hy : y = y.\n"
    statement = "Lemma uses_hy : y = y."
    verdict = check_proof(
        header, statement, ["exact Hy"], footer="End S.\nEnd Make.", functor_parameters=("A",)
    )
    assert verdict.ok and verdict.axioms == (), verdict
    cheat = check_proof(
        header, statement, ["destruct cheat"], footer="End S.\nEnd Make.",
        functor_parameters=("A",),
    )  # fmt: skip
    assert not cheat.ok and "cheat" in cheat.axioms
