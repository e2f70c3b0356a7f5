"""A tactic generator that misbehaves on purpose, loaded by name inside Ray workers.

``make`` is the factory that ``--generator tests.distributed.chaos:make`` resolves to.
Its random crashes follow ``seed`` (a test prints the seed it used and takes it from
``PROOFSEARCH_CHAOS_SEED`` when set, so a failing run can be replayed).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from typing import Any

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.theorem import Theorem


class ChaosGenerator(TacticGenerator):
    def __init__(
        self,
        tactic: str = "reflexivity",
        sleep: float = 0.0,
        crash_probability: float = 0.0,
        always_crash: Sequence[str] = (),
        raise_on: Sequence[str] = (),
        hang_on: Sequence[str] = (),
        seed: int | None = None,
    ) -> None:
        self.tactic = tactic
        self.sleep = sleep
        self.crash_probability = crash_probability
        self.always_crash = set(always_crash)
        self.raise_on = set(raise_on)
        self.hang_on = set(hang_on)
        self.seed = seed if seed is not None else os.getpid() ^ time.time_ns()
        self.calls = 0

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        if self.sleep:
            time.sleep(self.sleep)
        if theorem.name in self.always_crash:
            os._exit(3)
        if theorem.name in self.raise_on:
            raise ZeroDivisionError("the generator divided by zero")
        if theorem.name in self.hang_on:
            time.sleep(3600)
        self.calls += 1
        # Decided by the seed, the theorem and this worker's call count: not by timing.
        draw = random.Random(f"{self.seed}:{theorem.name}:{self.calls}").random()
        if draw < self.crash_probability:
            os._exit(4)
        return [Suggestion(self.tactic, 0.0)]


def make(**options: Any) -> ChaosGenerator:
    return ChaosGenerator(**options)
