(** Small facts on natural numbers: two are proved, three are left [Admitted]. *)
Require Import Arith Lia.

Fixpoint double (n : nat) : nat :=
  match n with
  | 0 => 0
  | S m => S (S (double m))
  end.

Lemma double_plus : forall n, double n = n + n.
Proof.
  induction n as [| n IH].
  - reflexivity.
  - simpl. rewrite IH. lia.
Qed.

Lemma double_zero : double 0 = 0.
Proof. Admitted.

Lemma double_le : forall n, n <= double n.
Proof.
  intros n. rewrite double_plus.
Admitted.

(* A comment that mentions Admitted. and (* nested *) Qed. is not a hole. *)
Lemma plus_assoc_3 : forall a b c : nat, a + (b + c) = a + b + c.
Admitted.
