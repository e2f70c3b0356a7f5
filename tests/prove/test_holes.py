"""Finding holes and filling their spans, on text alone (no Coq)."""

from __future__ import annotations

from pathlib import Path

from proofsearch.project.holes import (
    ADMIT_OBLIGATIONS_REASON,
    NESTED_REASON,
    OUTER_REASON,
    find_holes,
    select_lemmas,
)
from proofsearch.project.patch import fill_text
from proofsearch.trace.sources import Source

TEXT = """\
(* (* nested *) Lemma not_a_hole : True. Admitted. *)
Definition s := "Lemma in_a_string : True. Admitted.".
Module M.
  Section S.
    Variable x : nat.
    #[local] Lemma a : x = x.
    Proof using x.
      idtac. (* tried *)
    Admitted.
  End S.
  Lemma b : True. Admitted.
  Lemma c : True.
  Proof with auto.
  - idtac.
  Admitted.
End M.
Lemma done : True.
Proof. exact I. Qed.
"""

SOURCE = Source(Path("/nowhere/F.v"), "F.v", "P.F")


def test_holes_are_sentences_not_lines() -> None:
    holes, skipped = find_holes(SOURCE, TEXT)
    assert not skipped
    assert [(h.line, h.qualid) for h in holes] == [(6, "M.a"), (11, "M.b"), (12, "M.c")]
    a, b, c = holes
    assert a.in_section and a.proof_sentence == "Proof using x." and a.partial == ("idtac.",)
    assert a.header.endswith("Variable x : nat.\n") and a.footer == "End S.\nEnd M."
    assert b.proof_sentence == "" and b.footer == "End M."
    assert c.proof_sentence == "Proof with auto." and c.partial == ("-", "idtac.")
    assert [h.qualid for h in select_lemmas(holes, ["M.?"])] == ["M.a", "M.b", "M.c"]
    assert [h.qualid for h in select_lemmas(holes, ["F.v:M.b"])] == ["M.b"]
    # A file deeper in the project: its path from the root, or its name alone (audit 43-b).
    deep, _ = find_holes(Source(Path("/p/theories/Algo/F.v"), "theories/Algo/F.v", "P.F"), TEXT)
    assert [h.qualid for h in select_lemmas(deep, ["theories/Algo/F.v:M.b"])] == ["M.b"]
    assert [h.qualid for h in select_lemmas(deep, ["F.v:*"])] == ["M.a", "M.b", "M.c"]
    assert select_lemmas(deep, ["Algo/F.v:*"]) == []  # a path is the whole path


def test_only_the_spans_change() -> None:
    holes, _ = find_holes(SOURCE, TEXT)
    a, b, c = holes
    new = fill_text(TEXT, {a: ["reflexivity"], b: ["exact I"], c: ["auto", "exact I"]})
    expected = (
        TEXT.replace(
            "    Proof using x.\n      idtac. (* tried *)\n    Admitted.\n",
            # the user's comment is kept (their partial tactics are replaced)
            "    Proof using x.\n      (* tried *)\n      reflexivity.\n    Qed.\n",
        )
        .replace(
            "  Lemma b : True. Admitted.\n", "  Lemma b : True.\n  Proof.\n    exact I.\n  Qed.\n"
        )
        .replace(
            "  Proof with auto.\n  - idtac.\n  Admitted.\n",
            "  Proof with auto.\n  auto.\n  exact I.\n  Qed.\n",  # as the proof's first line
        )
    )
    assert new == expected


def test_crlf_files_keep_their_line_endings() -> None:
    text = "Lemma t : True.\r\nProof.\r\nAdmitted.\r\n"
    (hole,), _ = find_holes(SOURCE, text)
    assert (
        fill_text(text, {hole: ["exact I"]})
        == "Lemma t : True.\r\nProof.\r\n  exact I.\r\nQed.\r\n"
    )


FUNCTORS = """\
Module Type T.
  Parameter t : Type.
  Lemma in_signature : True.
  Proof. Admitted.
End T.
Module Type S.
End S.
Module Make (Import A B : T) (C : T) <: S.
  Module Inner.
    Lemma deep : True.
    Proof. Admitted.
  End Inner.
End Make.
"""


def test_functor_holes_carry_their_parameters() -> None:
    """A lemma inside a functor is a hole (its re-check prints its assumptions in
    place); one inside a Module Type is not (a signature has no proofs to fill)."""
    (deep,), skipped = find_holes(SOURCE, FUNCTORS)
    assert [(s.ident, s.reason) for s in skipped] == [
        ("in_signature", "inside a Module Type: not a constant of the library")
    ]
    assert deep.qualid == "Make.Inner.deep" and deep.functor_parameters == ("A", "B", "C")
    record = deep.to_record()
    assert record["functor_parameters"] == ["A", "B", "C"] and record["any_axiom"] is True
    # The header opens the functor without its signature (closing it right after the
    # lemma would fail: the signature's fields are still missing).
    assert "Module Make (Import A B : T) (C : T).\n" in deep.header
    assert deep.footer == "End Inner.\nEnd Make."


INSTANCES = """\
From Coq Require Import RelationClasses.
#[export] Instance nat_refl : Reflexive (@eq nat).
Proof. Admitted.
Instance : Symmetric (@eq nat).
Proof. Admitted.
Instance with_body : Transitive (@eq nat) := eq_trans.
Definition also_body : nat := 0.
Program Definition obligation : {n : nat | n = 0} := exist _ 0 _.
Next Obligation. Admitted.
Goal True.
Admitted.
Definition Program := nat.
Lemma names_Program : Program = Program.
Proof. Admitted.
#[program] Definition attr : {n : nat | n = 0} := exist _ 0 _.
Next Obligation. Admitted.
Program Lemma program_lemma (x : {n : nat | n > 0}) : x > 0.
Proof. Admitted.
"""


def test_instances_are_holes_and_bodies_are_not() -> None:
    """A named ``Instance`` with a proof is a hole (``Proper``/``Reflexive`` instances
    are the commonest ``Admitted`` of typeclass code), and so is a ``Program``
    obligation (by its line: Coq numbers it); an anonymous one and a ``Goal`` are
    reported (a ``Program Lemma`` is proved as any lemma: a hole); a sentence with a body
    (``:=``) opens no proof, so the ``Admitted`` of a later ``Goal`` is not taken for its
    proof."""
    holes, skipped = find_holes(SOURCE, INSTANCES)
    assert [(h.line, h.qualid) for h in holes] == [
        (2, "nat_refl"),
        (9, "obligation_obligation@9"),
        (13, "names_Program"),
        (16, "attr_obligation@16"),  # ``#[program]``'s, not the Program's above
        (17, "program_lemma"),
    ]
    assert holes[0].statement == "#[export] Instance nat_refl : Reflexive (@eq nat)."
    assert [(s.line, s.reason) for s in skipped] == [(4, "no name"), (10, "an anonymous Goal")]


def test_a_file_mixing_line_endings_keeps_each_holes() -> None:
    """One CRLF hole made every fill of the file CRLF (the kept lines too)."""
    text = (
        "Lemma a : True.\nProof with auto.\nAdmitted.\nLemma b : True.\r\nProof.\r\nAdmitted.\r\n"
    )
    a, b = find_holes(SOURCE, text)[0]
    assert fill_text(text, {a: ["exact I"], b: ["exact I"]}) == (
        "Lemma a : True.\nProof with auto.\n  exact I.\nQed.\n"
        "Lemma b : True.\r\nProof.\r\n  exact I.\r\nQed.\r\n"
    )


OTHER_ADMITTED = """\
Fixpoint half (n : nat) : nat.
Admitted.
Section S.
  Variable n : nat.
  Let n_plus_0 : n + 0 = n.
  Proof. intros. Admitted.
  Lemma hole : n = n.
  Proof. Admitted.
End S.
Program Definition g : {x : nat | x = 1} * {y : nat | y = 2} := (_, _).
Next Obligation. Admitted.
Next Obligation. Admitted.
Program Definition h : {x : nat | x = 3} := _.
Admit Obligations.
"""


def test_every_other_admitted_proof_is_reported() -> None:
    """A ``Fixpoint`` or ``Let`` proved by tactics and a second obligation were passed
    over without a word: each is reported now, with why it is not searched."""
    holes, skipped = find_holes(SOURCE, OTHER_ADMITTED)
    assert [h.qualid for h in holes] == ["hole", "g_obligation@11", "g_obligation@12"]
    kinds = (
        "holes: lemmas, Examples, Definitions, named Instances, Program obligations and the "
        "termination proofs of Functions"
    )
    assert [(s.line, s.ident, s.reason) for s in skipped] == [
        (1, "half", f"a Fixpoint is not a hole ({kinds})"),
        (5, "n_plus_0", f"a Let is not a hole ({kinds})"),
        # No Admitted, and yet obligations left admitted: said too (an audit).
        (14, "h", ADMIT_OBLIGATIONS_REASON),
    ]


def test_a_filled_proof_keeps_the_holes_comments_not_its_strings() -> None:
    text = (
        'Lemma t : True.\nProof.\n  (* plan: (* nested *) *) idtac "(* no".\n  (* b *)\nAdmitted.\n'
    )
    (hole,), _ = find_holes(SOURCE, text)
    assert hole.comments == ("(* plan: (* nested *) *)", "(* b *)")
    assert fill_text(text, {hole: ["exact I"]}) == (
        "Lemma t : True.\nProof.\n  (* plan: (* nested *) *)\n  (* b *)\n  exact I.\nQed.\n"
    )


def test_a_definition_of_a_type_is_not_a_hole() -> None:
    """HoTT's ``Definition jc_image : Type. Admitted.`` was "proved" by ``exact Empty``:
    any type fits, so the search would pick an arbitrary one."""
    text = (
        "Definition jc_image : Type.\nAdmitted.\n"
        "Definition F (A : Type) : Type -> Type.\nProof. Admitted.\n"
        "Definition three : {n : nat | n = 3}.\nProof. Admitted.\n"
    )
    (hole,), skipped = find_holes(SOURCE, text)
    assert hole.qualid == "three"
    assert [(s.ident, s.reason.split(":")[0]) for s in skipped] == [
        ("jc_image", "its type is a sort"),
        ("F", "its type is a sort"),
    ]


HB_BUILDERS = """\
From HB Require Import structures.
HB.builders Context T of IsCMonoid T.
  Lemma opr0 : right_id z0 op.
  Proof. Admitted.
  HB.instance Definition _ := IsMonoid.Build T z0 op opA op0r opr0.
HB.end.
Section S.
HB.builders Context U of F U.
  Lemma inner : True.
  Admitted.
HB.end.
End S.
"""


def test_a_hole_inside_hb_builders_is_closed_by_the_files_own_sentences() -> None:
    """`HB.end.` right after the lemma fails ("No builders to declare"): the footer is
    the file's sentences up to it, and the assumptions are printed in place (no name
    reaches the lemma after `HB.end.`)."""
    (opr0, inner), skipped = find_holes(SOURCE, HB_BUILDERS)
    assert skipped == []
    assert opr0.qualid == "opr0" and opr0.check_in_place and opr0.in_section
    assert opr0.footer == (
        "HB.instance Definition _ := IsMonoid.Build T z0 op opA op0r opr0.\nHB.end."
    )
    assert inner.footer == "HB.end.\nEnd S."
    assert opr0.to_record()["check_in_place"] is True


def test_unicode_names_are_names() -> None:
    """Coq accepts Unicode letters in identifiers: `plus_αβ` is a hole (it was "no
    name"), and a module `Μod` (a Greek capital Mu) is not read as `od`."""
    text = (
        "Lemma plus_αβ : forall a b : nat, a + b = b + a.\nProof.\nAdmitted.\n"
        "Module Μod.\n  Lemma in_μ : forall n : nat, n * 1 = n.\n  Admitted.\nEnd Μod.\n"
    )
    holes, skipped = find_holes(SOURCE, text)
    assert not skipped
    assert [h.qualid for h in holes] == ["plus_αβ", "Μod.in_μ"]
    assert holes[1].footer == "End Μod."


def test_a_refine_instance_is_said_for_what_it_is() -> None:
    """`#[refine] Instance … := {…}. Proof. Admitted.` was "an Instance is not a hole
    (holes: … named Instances)", which contradicts itself."""
    text = (
        "Class C := { c : nat; c_pos : c > 0 }.\n"
        "#[refine] Instance i : C := { c := 1 }.\nProof.\nAdmitted.\n"
    )
    holes, skipped = find_holes(SOURCE, text)
    assert not holes
    assert [(s.line, s.ident, s.reason) for s in skipped] == [
        (2, "i", "an Instance whose value is given with := and finished by tactics "
         "(#[refine], Program) is not a hole")
    ]  # fmt: skip


def test_nested_proofs_are_said_and_the_rest_of_the_file_is_not_misread() -> None:
    """`Set Nested Proofs Allowed`: the outer hole disappeared and `intros n.` was taken
    for a declaration ("a intros is not a hole"); the inner one was searched under a
    header ending inside the outer proof, which no search can close. Both are said;
    the holes after them, and a `Proof term.` or `Proof Mode` sentence, are as before."""
    text = (
        "Set Nested Proofs Allowed.\n"
        "Lemma outer : forall n : nat, n + 0 = n /\\ True.\nProof.\n"
        "  Lemma inner : forall m : nat, 0 + m = m.\n  Proof.\n  Admitted.\n"
        "  intros n. split.\n  - apply plus_n_O.\n  - admit.\nAdmitted.\n"
        "Lemma given : True.\nProof I.\n"
        'Lemma moded : True.\nProof.\n  Proof Mode "Classic".\n  exact I.\nQed.\n'
        "Lemma after : True.\nProof.\nAdmitted.\n"
    )
    holes, skipped = find_holes(SOURCE, text)
    assert [h.qualid for h in holes] == ["after"]
    assert [(s.line, s.ident, s.reason) for s in skipped] == [
        (2, "outer", OUTER_REASON),
        (4, "inner", NESTED_REASON),
    ]
