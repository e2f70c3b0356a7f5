"""An in-memory prover over an explicit state graph, for the search engine's unit tests.

The search is pure Python over the prover interface; its exact semantics (ordering,
merging, budgets) are easiest to pin down on a graph whose every edge the test chose.
End-to-end behaviour is tested on real Coq elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Self

from proofsearch.env.base import (
    CheckResult,
    Outcome,
    ProofSession,
    ProofState,
    Proved,
    Prover,
    ProverStats,
    TacticError,
    TacticTimeout,
)
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.theorem import Theorem

QED = "QED"
#: An edge to this target is a tactic that runs to the per-tactic limit.
TIMEOUT = "TIMEOUT"
#: An edge to this target is a tactic that ignored the limit: its process was killed.
KILLED = "KILLED"


class GraphSession(ProofSession):
    def __init__(self, prover: GraphProver, theorem: Theorem) -> None:
        self.prover = prover
        self.theorem = theorem
        self.root = prover.state("root", ())

    def apply(self, state: ProofState, tactic: str, timeout: float | None = None) -> Outcome:
        self.prover.applied.append((state.key, tactic))
        self.prover.started.append(time.perf_counter())
        if self.prover.delay:
            time.sleep(self.prover.delay)
        target = self.prover.edges.get(state.key, {}).get(tactic)
        if target is None:
            return TacticError(f"no edge {state.key} --{tactic}-->")
        if target == QED:
            return Proved((*state.path, tactic))
        if target == TIMEOUT:
            return TacticTimeout()
        if target == KILLED:
            return TacticTimeout("no answer; process killed", killed=True)
        return self.prover.state(target, (*state.path, tactic))


class GraphProver(Prover):
    name = "graph"

    def __init__(
        self,
        edges: Mapping[str, Mapping[str, str]],
        delay: float = 0.0,
        goal_counts: Mapping[str, int] | None = None,
    ) -> None:
        self.edges = edges
        self.delay = delay
        #: How many goals a state reports (:attr:`ProofState.goal_count`); unlisted: unknown.
        self.goal_counts = dict(goal_counts or {})
        self.stats = ProverStats()
        self.applied: list[tuple[str, str]] = []
        #: When each tactic started (``time.perf_counter()``).
        self.started: list[float] = []
        self.checked: list[list[str]] = []

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        return cls(options.get("edges", {}), options.get("delay", 0.0))

    def state(self, key: str, path: tuple[str, ...]) -> ProofState:
        return ProofState((f"goal {key}",), key, path, goal_count=self.goal_counts.get(key))

    def open(self, theorem: Theorem) -> ProofSession:
        return GraphSession(self, theorem)

    def check(self, theorem: Theorem, proof: Sequence[str]) -> CheckResult:
        self.checked.append(list(proof))
        key = "root"
        for tactic in proof:
            target = self.edges.get(key, {}).get(tactic)
            if target is None:
                return CheckResult(False, f"no edge {key} --{tactic}-->")
            if target == QED:
                return CheckResult(True, "closed")
            key = target
        return CheckResult(False, "proof incomplete")


class TableGenerator(TacticGenerator):
    """Suggests, for the state named in the goal text, the tactics the test listed."""

    def __init__(self, table: Mapping[str, Sequence[tuple[str, float]]]) -> None:
        self.table = table
        self.calls: list[str] = []

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        key = goals.removeprefix("goal ")
        self.calls.append(key)
        return [Suggestion(t, lp) for t, lp in self.table.get(key, [])][:n]
