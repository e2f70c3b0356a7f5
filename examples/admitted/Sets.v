From Demo Require Import Double Lists.

Section Monotone.
  Variable f : nat -> nat.
  Hypothesis f_mono : forall n m, n <= m -> f n <= f m.

  Lemma f_double : forall n, f n <= f (double n).
  Proof using f_mono.
  Admitted.
End Monotone.

Module Pairs.
  #[local] Lemma swap_swap : forall (p : nat * nat), (snd p, fst p) = (snd p, fst p).
  Proof.
  Admitted.

  (* No generator here knows this one: it needs Fermat's little theorem. *)
  Lemma hard : forall n : nat, Nat.modulo (n * n * n * n * n) 5 = Nat.modulo n 5.
  Proof.
  Admitted.
End Pairs.
