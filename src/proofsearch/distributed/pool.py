"""A fault-tolerant pool of prover actors over ``ray.wait``: nothing lost, nothing twice.

``ray.util.ActorPool`` loses the theorem a dead actor held (its ``map_unordered`` stops
at the exception) and can drop queued work when every actor dies. This pool knows which
actor holds which theorem:

* an actor that dies (``RayActorError``: ``ActorDiedError``, ``ActorUnavailableError``;
  a node lost; the OOM killer) is killed for good and replaced, and its theorem goes
  back to the front of the queue; after ``max_attempts`` crashes the theorem is recorded
  as ``error`` ("worker crashed N times");
* a theorem still running past its deadline (search timeout plus a grace period) has
  its actor killed and replaced and is recorded as ``error`` (timeout);
* an exception inside a search (``RayTaskError``) is that theorem's ``error``; the
  actor carries on;
* work goes only to actors that finished starting, so an actor that cannot be placed
  (its node is gone) holds no theorem hostage.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError, RayTaskError

from proofsearch.distributed.affinity import WINDOW, take_best
from proofsearch.distributed.events import NoEvents, RunEvents
from proofsearch.search.result import SearchResult, error_result
from proofsearch.theorem import Theorem


class PoolError(Exception):
    """The pool cannot go on (its actors keep failing to start)."""


@dataclass
class _Task:
    theorem: Theorem
    crashes: int = 0
    ref: Any = None
    deadline: float = 0.0
    #: When it was handed to a worker (``time.monotonic``).
    started: float = 0.0


@dataclass
class _Slot:
    actor: Any
    ready_ref: Any
    pid: int | None = None
    task: _Task | None = None
    last_header: str | None = None

    @property
    def ready(self) -> bool:
        return self.ready_ref is None


class ProverPool:
    """Runs theorems on ``size`` actors made by ``new_actor``, yielding results as they come."""

    def __init__(
        self,
        new_actor: Callable[[], Any],
        size: int,
        *,
        deadline: Callable[[Theorem], float],
        max_attempts: int = 3,
        events: RunEvents | None = None,
        poll_interval: float = 0.5,
        affinity_window: int = WINDOW,
        max_start_failures: int | None = None,
        start_timeout: float = 300.0,
    ) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one actor")
        self.new_actor = new_actor
        self.size = size
        self.deadline = deadline
        self.max_attempts = max_attempts
        self.events = events or NoEvents()
        self.poll_interval = poll_interval
        self.affinity_window = affinity_window
        self.max_start_failures = max_start_failures or 3 * size
        self.start_timeout = start_timeout
        self._idle_since: float | None = None
        self.restarts = 0
        self._start_failures = 0
        self._slots: list[_Slot] = []

    # -- actors ------------------------------------------------------------------

    def _start(self) -> _Slot:
        actor = self.new_actor()
        return _Slot(actor, actor.ready.remote())

    def _replace(self, slot: _Slot, reason: str) -> None:
        with contextlib.suppress(RayError, ValueError):
            ray.kill(slot.actor, no_restart=True)
        fresh = self._start()
        slot.actor, slot.ready_ref, slot.pid, slot.task = fresh.actor, fresh.ready_ref, None, None
        slot.last_header = None
        self.restarts += 1
        self.events.worker_restarted(reason)

    def shutdown(self, grace: float = 5.0) -> None:
        """Kill every actor of the pool (their prover processes die with them). An idle
        one closes its prover first, within ``grace`` seconds: killed at once, each left
        its prover's private folder in the temporary folder after every run."""
        closing = []
        for slot in self._slots:
            if slot.task is None and slot.pid is not None:
                with contextlib.suppress(RayError, ValueError):
                    closing.append(slot.actor.close.remote())
        if closing:
            with contextlib.suppress(RayError, ValueError):
                ray.wait(closing, num_returns=len(closing), timeout=grace)
        for slot in self._slots:
            with contextlib.suppress(RayError, ValueError):
                ray.kill(slot.actor, no_restart=True)
        self._slots = []

    def actors(self) -> list[Any]:
        """The current actor handles (tests kill them to check that nothing is lost)."""
        return [slot.actor for slot in self._slots]

    def actor_pids(self) -> list[int]:
        """The pids of the actors that have started (tests check that none is left)."""
        return [slot.pid for slot in self._slots if slot.pid is not None]

    # -- the loop ----------------------------------------------------------------

    def map_unordered(self, theorems: Iterable[Theorem]) -> Iterator[SearchResult]:
        """Search every theorem once; yield each result as soon as it is known."""
        queue: deque[_Task] = deque(_Task(t) for t in theorems)
        if not self._slots:
            self._slots = [self._start() for _ in range(self.size)]
        try:
            while queue or any(slot.task for slot in self._slots):
                self._check_progress()
                self._dispatch(queue)
                yield from self._collect(queue)
                yield from self._expire()
        except BaseException:
            self.shutdown()
            raise

    def _check_progress(self) -> None:
        """Give up when no actor at all has started for ``start_timeout`` seconds."""
        if any(slot.ready for slot in self._slots):
            self._idle_since = None
            return
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        elif now - self._idle_since > self.start_timeout:
            resources = ray.available_resources()
            raise PoolError(
                f"no prover worker could start in {self.start_timeout:g} s "
                f"(Ray's free resources: {resources}); fewer --workers, or more nodes?"
            )

    def _dispatch(self, queue: deque[_Task]) -> None:
        for slot in self._slots:
            if not queue:
                return
            if slot.ready and slot.task is None:
                task = self._pick(queue, slot.last_header)
                task.ref = slot.actor.search.remote(task.theorem)
                task.started = time.monotonic()
                task.deadline = task.started + self.deadline(task.theorem)
                slot.task = task
                slot.last_header = task.theorem.header

    def _pick(self, queue: deque[_Task], last: str | None) -> _Task:
        return take_best(queue, last, lambda task: task.theorem.header, self.affinity_window)

    def _wait_timeout(self) -> float:
        now = time.monotonic()
        deadlines = [slot.task.deadline - now for slot in self._slots if slot.task]
        return max(0.0, min([self.poll_interval, *deadlines]))

    def _collect(self, queue: deque[_Task]) -> Iterator[SearchResult]:
        refs = {}
        for slot in self._slots:
            if slot.ready_ref is not None:
                refs[slot.ready_ref] = slot
            elif slot.task is not None:
                refs[slot.task.ref] = slot
        if not refs:
            return
        done, _ = ray.wait(list(refs), num_returns=1, timeout=self._wait_timeout())
        for ref in done:
            slot = refs[ref]
            if ref is slot.ready_ref:
                self._started(slot)
                continue
            task = slot.task
            assert task is not None
            slot.task = None
            try:
                result: SearchResult = ray.get(ref)
            except RayTaskError as exc:
                cause = exc.cause if exc.cause is not None else exc
                yield error_result(
                    task.theorem,
                    f"{type(cause).__name__}: {cause}".strip(),
                    attempts=task.crashes + 1,
                )
                continue
            except (RayActorError, GetTimeoutError, RayError) as exc:
                task.crashes += 1
                reason = f"worker died while searching {task.theorem.name}: {type(exc).__name__}"
                self._replace(slot, reason)
                if task.crashes >= self.max_attempts:
                    yield error_result(
                        task.theorem,
                        f"worker crashed {task.crashes} times",
                        attempts=task.crashes,
                    )
                else:
                    queue.appendleft(task)
                continue
            result.extra.setdefault("attempts", task.crashes + 1)
            yield result

    def _started(self, slot: _Slot) -> None:
        try:
            slot.pid = ray.get(slot.ready_ref)
            slot.ready_ref = None
            self._start_failures = 0
        except RayError as exc:
            # Only a constructor that raised counts against the pool: an actor killed
            # while starting (or lost with its node) is simply replaced.
            if getattr(exc, "actor_init_failed", False):
                self._start_failures += 1
                if self._start_failures >= self.max_start_failures:
                    raise PoolError(f"prover workers fail to start: {exc}") from exc
            self._replace(slot, f"worker failed to start: {type(exc).__name__}")

    def _expire(self) -> Iterator[SearchResult]:
        now = time.monotonic()
        for slot in self._slots:
            task = slot.task
            if task is not None and now > task.deadline:
                self._replace(slot, f"{task.theorem.name} ran past its deadline")
                killed = error_result(
                    task.theorem,
                    "timeout: the search ran past its deadline (a tactic or the generator's "
                    "call that did not return); its worker was killed",
                    attempts=task.crashes + 1,
                )
                killed.total_time = now - task.started  # what it cost, not 0.0
                yield killed
