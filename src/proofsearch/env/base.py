"""The prover interface: open a theorem, apply a tactic to a state, check a proof.

The search layer sees only these types. A backend keeps whatever it needs to find a
state again (a Coq state id, a Lean proof-state id) in :attr:`ProofState.handle`, and
the tactic path from the root in :attr:`ProofState.path`, so that it can rebuild any
state after its process dies.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Self

from proofsearch.theorem import Theorem


class EnvError(Exception):
    """The prover could not open a theorem or run at all (bad header, missing binary)."""


class ProverStartError(EnvError):
    """The prover process could not start (missing binary, bad arguments, bad project).

    Not the theorem's fault: every theorem would fail the same way, so a run stops
    rather than record each of them as ``error`` (see :meth:`Prover.start`).
    """


class ProofState:
    """An open proof state.

    ``goals`` are the focused goals as text (hypotheses, then the target), which is what
    a tactic generator sees. ``key`` is canonical: two states with the same key are the
    same state (all goal lists included) and the search merges them. A backend may give
    ``goals`` as a function: most states are never expanded, so their goals need never
    be rendered (the Coq backend computes keys from the prover's raw reply).
    ``goal_count`` is how many goals are open (every goal list), when the backend can
    tell without rendering them; ``None`` when it cannot (a search may then treat the
    state as one goal).
    """

    __slots__ = ("_goals", "goal_count", "handle", "key", "path")

    def __init__(
        self,
        goals: Sequence[str] | Callable[[], Sequence[str]],
        key: str,
        path: tuple[str, ...] = (),
        handle: Any = None,
        goal_count: int | None = None,
    ) -> None:
        self._goals = goals if callable(goals) else tuple(goals)
        self.key = key
        self.path = tuple(path)
        self.handle = handle
        self.goal_count = goal_count

    @property
    def goals(self) -> tuple[str, ...]:
        if callable(self._goals):
            self._goals = tuple(self._goals())
        return self._goals

    @property
    def text(self) -> str:
        """The goals as one string, separated by blank lines."""
        return "\n\n".join(self.goals)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProofState):
            return NotImplemented
        return (self.key, self.path, self.goals) == (other.key, other.path, other.goals)

    def __hash__(self) -> int:
        return hash((self.key, self.path))

    def __repr__(self) -> str:
        return f"ProofState(goals={self.goals!r}, key={self.key!r}, path={self.path!r})"


@dataclass(frozen=True)
class Proved:
    """The tactic closed the proof; ``path`` is the whole proof from the root."""

    path: tuple[str, ...]


#: How a guard's refusal begins a :class:`TacticError`'s message (a cheat, a command).
GUARD_REFUSAL = "rejected: "


@dataclass(frozen=True)
class TacticError:
    """The prover rejected the tactic (or the guard did, :data:`GUARD_REFUSAL`), with
    its message."""

    message: str

    @property
    def refused_by_guard(self) -> bool:
        return self.message.startswith(GUARD_REFUSAL)


@dataclass(frozen=True)
class TacticTimeout:
    """The tactic ran past its time limit.

    ``closing``: the tactic closed every goal, but the check that makes it a proof
    (Coq's ``Qed``) did not finish within the theorem's budget, so it is no proof; the
    search says so in its result.

    ``killed``: the tactic ignored the prover's own limit and its process was killed
    (a restart and a header replay each time), so a search does not try it again.
    """

    message: str = "timeout"
    closing: bool = False
    killed: bool = False


Outcome = ProofState | Proved | TacticError | TacticTimeout


@dataclass(frozen=True)
class CheckResult:
    """The verdict of re-checking a whole proof from scratch."""

    ok: bool
    message: str = ""
    axioms: tuple[str, ...] = ()
    #: The proof was refused for a reason other than a cheat or a time limit (it did not
    #: compile, the checker's output could not be read): after the search's prover
    #: accepted it, that is a bug in one of the two (a "search/check disagreement").
    disagreement: bool = False


@dataclass
class ProverStats:
    """Counters a backend keeps, for benchmarks and progress displays."""

    applications: int = 0
    restarts: int = 0
    prover_seconds: float = 0.0


class ProofSession(ABC):
    """One theorem opened in a prover. Any state of the session can be extended."""

    theorem: Theorem
    root: ProofState
    #: When the theorem's budget ends (a ``time.perf_counter()`` value), set by the
    #: search; ``None``: no budget. A backend bounds the work it does after a tactic
    #: (Coq's ``Qed``) by it.
    deadline: float | None = None
    #: What the backend learned about the statement while opening it (Coq: whether a
    #: definition's type is a proposition), copied into the search's result.
    facts: Mapping[str, Any] = MappingProxyType({})

    @abstractmethod
    def apply(self, state: ProofState, tactic: str, timeout: float | None = None) -> Outcome:
        """Run ``tactic`` on ``state`` under a time limit in seconds."""

    def apply_all(
        self,
        state: ProofState,
        tactics: Sequence[str],
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        """Run each tactic on the same state; backends override this to pipeline.

        With a ``deadline`` (a ``time.perf_counter()`` value) no tactic starts after it:
        the outcomes are those of a prefix of ``tactics``, the ones that ran. A search's
        stage ends at its deadline; 64 tactics run to their end could overrun it by
        minutes when some of them run to the per-tactic limit.
        """
        outcomes: list[Outcome] = []
        for tactic in tactics:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            outcomes.append(self.apply(state, tactic, timeout))
        return outcomes

    def close(self) -> None:
        """Release what the session holds (the prover's processes stay for reuse)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Prover(ABC):
    """A prover backend: owns its processes, opens theorems, re-checks proofs."""

    name: ClassVar[str]
    stats: ProverStats

    @classmethod
    @abstractmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        """Build the prover from plain options (picklable, so that Ray actors can do it).

        Lists stand for tuples; an unknown or invalid option raises :class:`ValueError`
        naming it.
        """

    @abstractmethod
    def open(self, theorem: Theorem) -> ProofSession:
        """Open ``theorem`` and return a session whose ``root`` is its initial state.

        Raises :class:`EnvError` when the header or statement is rejected.
        """

    @abstractmethod
    def check(self, theorem: Theorem, proof: Sequence[str]) -> CheckResult:
        """Re-check ``proof`` from scratch in a fresh prover process."""

    def start(self) -> None:
        """Start a prover process now (a run's preflight).

        Raises :class:`ProverStartError` when the process cannot start, so that a bad
        setting is reported once, before any theorem is searched. The process is kept
        for the first theorem.
        """

    def close(self) -> None:
        """Stop every process this prover started."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
