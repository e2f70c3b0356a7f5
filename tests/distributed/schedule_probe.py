"""A two-stage schedule for Ray tests: the first stage cannot prove anything, the
second proves ``True``; only a search that runs both stages proves it."""

from __future__ import annotations

from proofsearch.generate.fixed import FixedTacticGenerator
from proofsearch.generate.schedule import ScheduledGenerator, Stage


def make(**_: object) -> ScheduledGenerator:
    return ScheduledGenerator(
        [
            Stage("useless", 1, FixedTacticGenerator("idtac")),
            Stage("proves", 1, FixedTacticGenerator("exact I")),
        ]
    )
