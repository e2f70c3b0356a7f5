"""A generator of cheating tactics, through the real search on real Coq, proves nothing."""

from __future__ import annotations

import pytest

from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.coq.test_guard import CHEATS

#: Cheats that get past the guard and must be stopped by Qed or the re-check.
KERNEL_CHEATS = [
    "exact_no_check (eq_refl 1)",
    "change_no_check (1 = 1); reflexivity",
    "vm_cast_no_check (eq_refl 1)",
    "fix f 1; exact f",
    "shelve",
    "eexists; shelve",
    "clear; exfalso; shelve",
    "abstract (exact_no_check (eq_refl 1))",
    "apply proof_admitted",
]


class Cheater(TacticGenerator):
    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(t, -0.1) for t in [*CHEATS, *KERNEL_CHEATS]][:n]


FALSE = Theorem("false", "Theorem one_is_two : 1 = 2.", "")
FALSE_FORALL = Theorem("false_forall", "Theorem all_zero : forall n : nat, n = 0.", "")


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("theorem", [FALSE, FALSE_FORALL])
def test_cheating_generator_proves_nothing(
    theorem: Theorem, check: bool, no_new_coq_processes: None
) -> None:
    assert len(CHEATS) + len(KERNEL_CHEATS) >= 15
    with CoqProver(CoqConfig(tactic_timeout=2)) as prover:
        searcher = BestFirstSearchProver(
            prover, Cheater(), SearchConfig(timeout=30, max_expansions=20, check=check)
        )
        result = searcher.search(theorem)
    assert result.status in (Status.FAILED, Status.OPEN), result
    assert result.proof is None
    assert result.num_tactic_applications >= len(CHEATS)
