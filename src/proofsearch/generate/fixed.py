"""``fixed``: always the same tactic, like LeanAgent's ``tactic=`` option."""

from __future__ import annotations

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.theorem import Theorem


class FixedTacticGenerator(TacticGenerator):
    """Suggests one tactic, whatever the goals, with log-probability 0."""

    def __init__(self, tactic: str) -> None:
        if not tactic.strip():
            raise ValueError("the fixed tactic is empty")
        self.tactic = tactic.strip()

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(self.tactic, 0.0)] if n > 0 else []
