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
