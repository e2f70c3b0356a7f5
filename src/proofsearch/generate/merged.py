"""Several generators as one: their suggestions merged by score.

Each part may get an offset added to its scores (a prior on how much to trust it). The
same tactic from two parts keeps its best score. The ``knn`` family and the default
generator for an indexed Coq project are built this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.theorem import Theorem


class MergedGenerator(TacticGenerator):
    """Asks every part for ``n`` tactics and keeps the ``n`` best-scored of them all."""

    def __init__(self, parts: Sequence[TacticGenerator], offsets: Sequence[float] = ()) -> None:
        if not parts:
            raise ValueError("a merged generator needs at least one part")
        self.parts = list(parts)
        self.offsets = list(offsets) or [0.0] * len(self.parts)
        if len(self.offsets) != len(self.parts):
            raise ValueError("give one offset per part")

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        merged: list[Suggestion] = []
        for part, offset in zip(self.parts, self.offsets, strict=True):
            merged += [
                Suggestion(s.tactic, min(0.0, s.logprob + offset))
                for s in part.generate(goals, theorem, n)
            ]
        return best_unique(merged, n)

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        for part in self.parts:
            part.learn(theorem, steps)

    def close(self) -> None:
        for part in self.parts:
            part.close()
