"""The Coq project the prove tests run on, written into a temporary folder.

Four files with ``Require`` between them (Base ← Sec, Mod ← Top), a notation, bullets
in finished proofs, a Section with ``Variable``/``Context``/``Hypothesis`` and ``Proof
using``, a Module, an attribute, comments and strings that mention ``Admitted.``, and
six holes: four the shipped generators prove, ``zero_zero`` whose proof breaks ``Top.v``
(Admitted generalises it over the section's variables, Qed does not), and
``impossible``, which nothing proves.
"""

from __future__ import annotations

from pathlib import Path

FILES = {
    "Base.v": """\
(* Definitions (* with a nested comment: Admitted. *) for the other files. *)
Require Import Arith Lia String.

Definition twice (n : nat) : nat := n + n.
Notation "'dbl' n" := (twice n) (at level 30).

Lemma twice_S : forall n, twice (S n) = S (S (twice n)).
Proof.
  intros n. unfold twice. destruct n.
  - reflexivity.
  - lia.
Qed.

Lemma dbl_add : forall n, dbl n = n + n.
Proof.
Admitted.

Definition label := "not a hole: Admitted."%string.
""",
    "Sec.v": """\
From Proj Require Import Base.

Section Params.
  Variable k : nat.
  Context (f : nat -> nat).
  Hypothesis f_id : forall n, f n = n.

  Lemma f_twice : f (twice k) = twice k.
  Proof using f_id.
    (* a partial attempt *)
  Admitted.

  Lemma zero_zero : 0 = 0.
  Admitted.
End Params.
""",
    "Mod.v": """\
From Proj Require Import Base.
Require Import Lia.

Module Arith2.
  Lemma add_comm' : forall a b : nat, a + b = b + a.
  Proof. Admitted.

  #[local] Lemma impossible : forall n : nat, n = S n.
  Proof.
    intros n.
  Admitted.
End Arith2.
""",
    "Top.v": """\
From Proj Require Import Base Sec Mod.

Definition uses_zero_zero : 0 = 0 := zero_zero 3 (fun n => n) (fun n => eq_refl).

Lemma top_twice : forall n, twice n = n + n.
Proof. Admitted.
""",
}

ORDER = ("Base.v", "Sec.v", "Mod.v", "Top.v")

#: ``file:line name`` of every hole, as ``--list`` prints them: files in dependency
#: order (ties by module name), then top to bottom.
HOLES = [
    "Base.v:14 dbl_add",
    "Mod.v:5 Arith2.add_comm'",
    "Mod.v:8 Arith2.impossible",
    "Sec.v:8 f_twice",
    "Sec.v:13 zero_zero",
    "Top.v:5 top_twice",
]


def write_project(root: Path, dune: bool = False) -> Path:
    """The project under ``root/proj`` (``_CoqProject``, or dune files with ``dune``)."""
    folder = root / "proj"
    folder.mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(text)
    if dune:
        (folder / "dune-project").write_text("(lang dune 3.8)\n(using coq 0.8)\n")
        (folder / "dune").write_text(
            "; the theory of this folder\n(coq.theory\n (name Proj)\n (theories Coq))\n"
        )
    else:
        (folder / "_CoqProject").write_text("-R . Proj\n" + "\n".join(ORDER) + "\n")
    return folder
