"""A schedule: strategies that share one theorem's budget, one after another.

Different generators prove different theorems (on held-out stdlib lemmas, ``knn`` and
``knn-portfolio`` each proved some the other did not), and most proofs are found in the
first seconds of a search. So a theorem's budget is better spent as a few shorter
searches with different strategies than as one long search with one. A
:class:`ScheduledGenerator` names its stages and their shares of the budget; the search
(:mod:`proofsearch.search.prover`) runs a fresh tree per stage, in order, until one
proves the theorem. Time a stage leaves unused (its tree ran out) goes to the stages
after it, in proportion to their shares.

The stages may share parts (one ``knn`` generator in two stages): a proof learned
during the run reaches each distinct part once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.theorem import Theorem


@dataclass(frozen=True)
class Stage:
    """One strategy of a schedule and its share of the theorem's budget (any positive
    weight; the shares are normalised)."""

    name: str
    share: float
    generator: TacticGenerator


class ScheduledGenerator(TacticGenerator):
    """Stages run one after another; asked directly, it answers as its first stage that
    offers anything."""

    def __init__(self, stages: Sequence[Stage]) -> None:
        if not stages:
            raise ValueError("a schedule needs at least one stage")
        for stage in stages:
            if not (math.isfinite(stage.share) and stage.share > 0):
                raise ValueError(f"stage {stage.name}: share must be positive, not {stage.share}")
        self.stages = list(stages)

    def schedule(self) -> list[tuple[str, float]]:
        return [(stage.name, stage.share) for stage in self.stages]

    def stage(self, index: int) -> TacticGenerator:
        return self.stages[index].generator

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        for stage in self.stages:
            # A stage may offer nothing for this theorem (``hammer`` without its import).
            suggestions = stage.generator.generate(goals, theorem, n)
            if suggestions:
                return suggestions
        return []

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        for part in self._distinct_leaves():
            part.learn(theorem, steps)

    def close(self) -> None:
        for part in self._distinct_leaves():
            part.close()

    def _distinct_leaves(self) -> Iterator[TacticGenerator]:
        """Each generator the stages are made of, once (merged ones opened up)."""
        seen: set[int] = set()
        for stage in self.stages:
            for leaf in _leaves(stage.generator):
                if id(leaf) not in seen:
                    seen.add(id(leaf))
                    yield leaf


def _leaves(generator: TacticGenerator) -> Iterator[TacticGenerator]:
    parts = getattr(generator, "parts", None)
    if isinstance(parts, list) and all(isinstance(p, TacticGenerator) for p in parts):
        for part in parts:
            yield from _leaves(part)
    else:
        yield generator


def parse_schedule(text: str, known: Sequence[str]) -> list[tuple[str, float]]:
    """``"knn-portfolio:3,knn:1"`` → ``[("knn-portfolio", 3.0), ("knn", 1.0)]``.

    A stage without ``:SHARE`` gets share 1. Names must be among ``known``; errors name
    the offending stage, so a mistyped schedule stops the run before any work.
    """
    stages: list[tuple[str, float]] = []
    for item in text.split(","):
        name, sep, share_text = item.strip().partition(":")
        name = name.strip()
        if name not in known:
            raise ValueError(
                f"schedule {text!r}: unknown stage {name!r}; the stages: {', '.join(known)}"
            )
        try:
            share = float(share_text) if sep else 1.0
        except ValueError:
            raise ValueError(
                f"schedule {text!r}: stage {name}: share {share_text!r} is not a number; "
                "give NAME:SHARE, e.g. knn:1"
            ) from None
        if not (math.isfinite(share) and share > 0):
            raise ValueError(
                f"schedule {text!r}: stage {name}: share must be positive; e.g. {name}:1"
            )
        stages.append((name, share))
    return stages


def without_stage(plan: list[tuple[str, float]], name: str) -> list[tuple[str, float]]:
    """``plan`` with the stages called ``name`` left out, each one's share given to the
    stage after it (to the one before it when it is last), so the other stages keep the
    times they had: ``knn:1,hammer:0.5,knn-portfolio:2.5`` without ``hammer`` is
    ``knn:1,knn-portfolio:3``. A stage that is switched off then neither runs nor shows in
    a result's ``stages``."""
    kept: list[tuple[str, float]] = []
    carried = 0.0
    for stage, share in plan:
        if stage == name:
            carried += share
        else:
            kept.append((stage, share + carried))
            carried = 0.0
    if not kept:
        raise ValueError(f"the schedule has no stage but {name!r}, which is switched off")
    if carried:
        last, share = kept[-1]
        kept[-1] = (last, share + carried)
    return kept
