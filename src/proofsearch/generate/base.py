"""The tactic-generator interface: goals in, scored tactic suggestions out.

Generators know nothing of prover processes or Ray. The search calls :meth:`generate`;
servers that see many requests at once (a Ray generator actor, an HTTP front) call
:meth:`generate_batch`, which model generators override to run one batched forward
pass; :meth:`agenerate` lets asynchronous callers wait without blocking a thread.

A call made for a search carries the search's deadline (:func:`answer_by`): a generator
that waits on something else (a model server, a generator actor) bounds its wait by
:func:`time_left` and raises :class:`AnswerDeadline` when the time is up, so a slow
server cannot make a theorem overrun its ``--timeout``.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from proofsearch.theorem import Theorem


@dataclass(frozen=True)
class Suggestion:
    """A tactic and its log-probability (or any score where higher is better, ≤ 0)."""

    tactic: str
    logprob: float


@dataclass(frozen=True)
class GenerationRequest:
    """What a generator is asked: the goals as text, their theorem, how many tactics."""

    goals: str
    theorem: Theorem
    n: int
    #: Which stage of the generator's schedule answers (0 without a schedule).
    stage: int = 0


class AnswerDeadline(TimeoutError):
    """The caller's deadline came while the generator waited for its answer: the
    theorem's time is up, which is no failure of the generator."""


#: When (``time.perf_counter()``) the current call's caller needs its answer.
_ANSWER_BY: ContextVar[float | None] = ContextVar("answer_by", default=None)


@contextmanager
def answer_by(deadline: float | None) -> Iterator[None]:
    """Make ``deadline`` the time by which the generator calls made inside need their
    answer (the context goes with ``asyncio`` tasks and ``asyncio.to_thread``)."""
    token = _ANSWER_BY.set(deadline)
    try:
        yield
    finally:
        _ANSWER_BY.reset(token)


def time_left() -> float | None:
    """Seconds until the caller's deadline (≤ 0: passed); None when the call has none."""
    deadline = _ANSWER_BY.get()
    return None if deadline is None else deadline - time.perf_counter()


def wait_bound(limit: float) -> tuple[float, bool]:
    """The seconds a generator may wait for something that it would wait ``limit`` for,
    and whether the caller's deadline is what bounds it; raises :class:`AnswerDeadline`
    when no time is left."""
    left = time_left()
    if left is None or left >= limit:
        return limit, False
    if left <= 0:
        raise AnswerDeadline("the search's deadline came before the generator answered")
    return left, True


class TacticGenerator(ABC):
    """Proposes tactics for a proof state."""

    #: Lines this generator's tactics need after the theorem's header (CoqHammer's
    #: ``From Hammer Require Import Tactics.``); "" for none. The search opens the
    #: theorem with them for this generator alone, and the prover runs them in the
    #: re-check too (where it refuses a proof that uses what they load beyond the header).
    header_suffix: str = ""
    #: Whether another call may answer the same goals with other tactics (a model that
    #: samples). The search takes fewer suggestions than it asked for as "nothing more
    #: here" only from a generator that is not: a sampled node is asked again, wider,
    #: once the tree runs out (one draw of repeats ended the search in 0.03 s of 10).
    stochastic: bool = False

    @abstractmethod
    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        """Up to ``n`` distinct suggestions for ``goals``, best first."""

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        """Answer several requests; model generators override this to batch them."""
        return [self.generate(r.goals, r.theorem, r.n) for r in requests]

    async def agenerate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        """Asynchronous :meth:`generate` (runs it in a thread unless overridden)."""
        return await asyncio.to_thread(self.generate, goals, theorem, n)

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        """Take in a proof found during the run: its (goals, tactic) steps, in order.

        The search calls this after a proof passed its re-check; learning generators
        (``knn``) suggest these steps for the theorems searched later. Default: ignore.
        """

    def schedule(self) -> Sequence[tuple[str, float]]:
        """The stages that share a theorem's budget, as (name, share); empty: one search
        with this generator (:mod:`proofsearch.generate.schedule`)."""
        return ()

    def stage(self, index: int) -> TacticGenerator:
        """The generator of stage ``index`` of :meth:`schedule`."""
        return self

    def close(self) -> None:
        """Release what the generator holds (models, connections)."""


class BatchTacticGenerator(TacticGenerator):
    """A generator whose unit of work is a batch (a model's forward pass): a single
    request is answered as a batch of one."""

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return self.generate_batch([GenerationRequest(goals, theorem, n)])[0]

    @abstractmethod
    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        """Answer several requests together."""


def best_unique(suggestions: Sequence[Suggestion], n: int) -> list[Suggestion]:
    """Keep the best-scored copy of each tactic, best first, at most ``n`` of them."""
    best: dict[str, Suggestion] = {}
    for suggestion in suggestions:
        tactic = suggestion.tactic.strip()
        if not tactic:
            continue
        known = best.get(tactic)
        if known is None or suggestion.logprob > known.logprob:
            best[tactic] = Suggestion(tactic, suggestion.logprob)
    ranked = sorted(best.values(), key=lambda s: -s.logprob)
    return ranked[:n]
