"""Several generators as one: their suggestions merged by score.

Parts score on their own scales. With a :class:`~proofsearch.generate.calibration.
Calibration` (learned from the trace: how often each part's suggestion, at each band
of its raw score, is the tactic that was written), a suggestion's merged score is that
precision's log, one scale for all parts. Without one, each part may get an offset
added to its scores (a prior on how much to trust it). The same tactic from two parts
keeps its best score. The ``knn`` family and the default generator for an indexed Coq
project are built this way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.generate.calibration import Calibration
from proofsearch.theorem import Theorem


class MergedGenerator(TacticGenerator):
    """Asks every part for ``n`` tactics and keeps the ``n`` best-scored of them all."""

    def __init__(
        self,
        parts: Sequence[TacticGenerator],
        offsets: Sequence[float] = (),
        names: Sequence[str] = (),
        calibration: Calibration | None = None,
        reserve: Sequence[float] = (),
    ) -> None:
        if not parts:
            raise ValueError("a merged generator needs at least one part")
        self.parts = list(parts)
        self.offsets = list(offsets) or [0.0] * len(self.parts)
        if len(self.offsets) != len(self.parts):
            raise ValueError("give one offset per part")
        self.names = list(names) or [f"part{i}" for i in range(len(self.parts))]
        if len(self.names) != len(self.parts):
            raise ValueError("give one name per part")
        self.calibration = calibration
        self.reserve = list(reserve) or [0.0] * len(self.parts)
        if len(self.reserve) != len(self.parts):
            raise ValueError("give one reserve per part")
        if any(not 0.0 <= r <= 1.0 for r in self.reserve) or sum(self.reserve) > 1.0:
            raise ValueError("reserves are fractions of the tactics asked, 1 at most in all")

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        """The ``n`` best by merged score, except that a part with a reserve keeps its own
        best ``reserve × n`` whatever the others score (scores are unchanged: they still
        order the search)."""
        merged: list[Suggestion] = []
        reserved: set[str] = set()
        for part, offset, name, reserve in zip(
            self.parts, self.offsets, self.names, self.reserve, strict=True
        ):
            own = []
            for s in part.generate(goals, theorem, n):
                if self.calibration is not None:
                    score = self.calibration.score(name, s.logprob)
                else:
                    score = min(0.0, s.logprob + offset)
                own.append(Suggestion(s.tactic, score))
            merged += own
            reserved.update(s.tactic for s in best_unique(own, math.ceil(reserve * n)))
        if not reserved:
            return best_unique(merged, n)
        ranked = best_unique(merged, len(merged))  # each tactic once, at its best score
        kept = [s for s in ranked if s.tactic in reserved][:n]
        rest = [s for s in ranked if s.tactic not in reserved][: n - len(kept)]
        return best_unique(kept + rest, n)

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        for part in self.parts:
            part.learn(theorem, steps)

    def close(self) -> None:
        for part in self.parts:
            part.close()


def calibrated_merge(
    parts: Sequence[TacticGenerator],
    names: Sequence[str],
    index: str | Path | Sequence[str | Path],
    calibrate: bool = True,
    signature: str = "",
    reserve: Sequence[float] = (),
) -> MergedGenerator:
    """``parts`` merged on the scale calibrated on the trace(s) ``index`` (see
    :mod:`.calibration`); by raw score when ``calibrate`` is false or the traces are too
    small to learn from. ``signature`` names what else shapes a part (a tactics file)."""
    from proofsearch.generate.calibration import load_or_calibrate

    calibration = None
    if calibrate:
        traces = [index] if isinstance(index, str | Path) else list(index)
        calibration = load_or_calibrate(traces, dict(zip(names, parts, strict=True)), signature)
    return MergedGenerator(parts, names=names, calibration=calibration, reserve=reserve)
