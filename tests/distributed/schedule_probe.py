"""Generators for Ray tests: a two-stage schedule (the first stage cannot prove anything,
the second proves ``True``; only a search that runs both stages proves it), and a
generator slower than any theorem's budget."""

from __future__ import annotations

import time

from proofsearch.generate.base import Suggestion
from proofsearch.generate.fixed import FixedTacticGenerator
from proofsearch.generate.schedule import ScheduledGenerator, Stage
from proofsearch.theorem import Theorem


def make(**_: object) -> ScheduledGenerator:
    return ScheduledGenerator(
        [
            Stage("useless", 1, FixedTacticGenerator("idtac")),
            Stage("proves", 1, FixedTacticGenerator("exact I")),
        ]
    )


class _Suffixed(FixedTacticGenerator):
    """Its tactic works only after its header suffix, which defines what it uses."""

    header_suffix = "Definition probe_suffix := I."


def make_suffixed(**_: object) -> ScheduledGenerator:
    return ScheduledGenerator(
        [
            Stage("useless", 1, FixedTacticGenerator("idtac")),
            Stage("suffixed", 1, _Suffixed("exact probe_suffix")),
        ]
    )


class _Slow(FixedTacticGenerator):
    """A model server far slower than the theorem's budget: each answer takes 60 s."""

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        time.sleep(60.0)
        return super().generate(goals, theorem, n)


def make_slow(**_: object) -> FixedTacticGenerator:
    return _Slow("exact I")
