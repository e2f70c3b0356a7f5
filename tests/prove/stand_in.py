"""Stand-in generators for the prove tests (``--generator tests.prove.stand_in:…``).

``by_name`` answers each hole with the tactics of a fixed table keyed by the hole's
qualified name, so the proofs found, and so the diff, are known in advance. It can
also log each hole it is asked about, edit a file the first time a given hole is
asked about (a user editing the project during a run), or hang on one hole (to be
killed there).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.theorem import Theorem

#: A hole's tactics, or several in the order they are offered.
PROOFS: dict[str, str | tuple[str, ...]] = {
    "dbl_add": "reflexivity",
    "timed": "exact I",
    "limited": "reflexivity",
    "redirected": "reflexivity",
    "begun_timed_admit1": "reflexivity",
    "after_timed_qed": "exact I",
    "f_twice": "apply f_id",
    "zero_zero": "reflexivity",
    "Arith2.add_comm'": "apply Coq.Arith.PeanoNat.Nat.add_comm",  # a premise's full path
    "top_twice": "reflexivity",
    "both_admit1": "intros m; lia",
    "both_admit2": "intros m; reflexivity",
    "add0_rest1": "intros m IH; rewrite IH; reflexivity",
    "mixed_admit1": "intros m; lia",
    "mixed_rest1": "intros m; reflexivity",
    "unfocused": "intros m; lia",
    "dead": "intros m; reflexivity",
    "uses_ax": "exact (ax 0)",
    "uses_dep_ax": "exact (dep_ax 0)",
    "zero_or_not": "intros n; apply excluded",
    "nat_refl": "intros x; reflexivity",
    "Make.pick_default": "intros []; reflexivity",
    "Make.uses_hard": "intros x y; rewrite (hard x), (hard y); reflexivity",
    "sig_pos": "destruct x as [n H]; simpl; exact H",
    "universes_admit1": "intros B m; rewrite app_nil_r; reflexivity",
    "brace_rest1": "intros m; reflexivity",
    "linear": "intros n; lia",
    "begun_admit1": "intros m; lia",
    # The first uses the hypothesis `Proof using -(H0).` excludes: refused at its Qed.
    "u2": ("now destruct x", "symmetry; exact Hxy"),
    "used_admit1": "intros m; exact Hxy",
    "two": "exists 2; reflexivity",
    "two_is_2": "reflexivity",
    "Use.two_plus": "reflexivity",
    "two_plus": "reflexivity",
    # Data: each would type-check, and none is what the user meant.
    "f": "exact (fun n => n)",
    "some_nat": "exact 0",
    "inhab_nat": "constructor; exact 0",
    "nat_pointed": "now exists 0",
    "le_refl": "intros n; auto",
    "gen_true": "reflexivity",
    "tt_path": "exact (idpath tt)",
    "uses_k": "symmetry; apply plus_n_O",
    "witness": "intros n; rewrite <- plus_n_Sm, <- plus_n_O; reflexivity",
    # Program obligations (tests/prove/test_obligations.py): the first is left open.
    "pred_pos_obligation_2": "intros n H k E; reflexivity",
    "through_bigger": "exact M.bigger_obligation_1",
    "half_up_obligation_1_admit1": "intros m; lia",
    "count_down": "intros n k E; unfold id; lia",
    "pick_obligation_1": "intros k; exists (S k); auto",
    "lemma_amid": "intros n; lia",
    # tests/prove/test_strict_names.py: two lemmas named alike in two files.
    "Ch.uses_base_admit1": "exact I",
    "uses_base": "exact I",
    "after": "induction n; simpl; auto",
    "M.bigger_obligation_1": "intros n; cbv beta; apply Coq.Arith.PeanoNat.Nat.lt_succ_diag_r",
    # tests/prove/test_stale_proofs.py: through a lemma of another file, then restated.
    "through_base": "exact (base 3)",
    "magic_val": "reflexivity",
    # tests/bench/test_presentation.py: a premise the proof does not need.
    "pres_le": "intros n m; eauto using Nat.le_refl, Nat.le_add_r",
    # tests/prove/test_refute.py: through a false exercise.
    "two_is_one": "apply bad",
}


class ByName(TacticGenerator):
    def __init__(
        self,
        log: str | None = None,
        edit: Sequence[str] = (),
        hang_on: str | None = None,
        hang_while: str | None = None,
    ) -> None:
        self.log = Path(log) if log else None
        self.edit = tuple(edit)
        self.hang_on = hang_on
        #: Hang only while this file exists (a resumed run with the same options goes on).
        self.hang_while = Path(hang_while) if hang_while else None
        self.seen: set[str] = set()

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        qualid = str(theorem.extra.get("qualid"))
        if qualid not in self.seen:
            self.seen.add(qualid)
            if self.log is not None:
                with self.log.open("a") as log:
                    log.write(qualid + "\n")
            if self.edit and self.edit[0] == qualid:
                with Path(self.edit[1]).open("a") as source:
                    source.write("(* edited during the run *)\n")
            if qualid == self.hang_on and (self.hang_while is None or self.hang_while.exists()):
                time.sleep(3600)
        tactics = PROOFS.get(qualid) or ()
        tactics = (tactics,) if isinstance(tactics, str) else tactics
        return [Suggestion(tactic, -float(rank)) for rank, tactic in enumerate(tactics)]


def by_name(**options: Any) -> ByName:
    return ByName(**options)
