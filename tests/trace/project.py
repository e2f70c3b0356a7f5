"""The small Coq project the trace tests run on, written into a temporary folder."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "theories/A.v": """\
Definition double (n : nat) : nat := n + n.

Lemma double_zero : double 0 = 0.
Proof.
  reflexivity.
Qed.

Section Sec.
  Variable k : nat.
  Lemma double_k : double k = k + k.
  Proof. unfold double. reflexivity. Qed.
End Sec.
""",
    "theories/B.v": """\
Require Import Lib.A.

Module M.
  Inductive color : Type := Red | Green.
  Definition flip (c : color) : color :=
    match c with Red => Green | Green => Red end.
  Lemma flip_flip : forall c, flip (flip c) = c.
  Proof.
    intros c. destruct c.
    - reflexivity.
    - simpl; reflexivity.
  Qed.
End M.

Definition two : { n : nat | n = double 1 }.
Proof. exists 2. reflexivity. Defined.
""",
    "theories/C.v": """\
Require Import Lib.A Lib.B.

Lemma use (b : bool) : M.flip M.Red = M.Green /\\ double 1 = 2.
Proof.
  split.
  { reflexivity. }
  { reflexivity. }
Qed.
""",
}

COQPROJECT = "-R theories Lib\n"


def write_project(root: Path, files: dict[str, str] | None = None) -> Path:
    """Write the project (``_CoqProject`` and sources) under ``root``; return ``root``."""
    (root / "theories").mkdir(parents=True, exist_ok=True)
    (root / "_CoqProject").write_text(COQPROJECT)
    for name, text in (files or FILES).items():
        (root / name).write_text(text)
    return root
