Require Import List.
From Demo Require Import Double.
Import ListNotations.

Definition doubles (l : list nat) : list nat := map double l.

Lemma doubles_length : forall l, length (doubles l) = length l.
Proof.
  intros l. unfold doubles. apply map_length.
Qed.

Lemma doubles_app : forall l m, doubles (l ++ m) = doubles l ++ doubles m.
Proof.
Admitted.

Lemma doubles_nil : doubles [] = [].
Proof. Admitted.
