"""Shared generator actors: a model on a GPU serves many CPU prover actors, in batches.

LeanAgent gives every prover actor its own copy of the model on a fraction of a GPU.
Here ``--generator-actors M`` starts M :class:`GeneratorActor` s that host the model;
each prover actor holds a :class:`RemoteGenerator` that sends its requests there. A
generator actor gathers the requests that arrive within a short window (up to a maximum
batch) and answers them with one ``generate_batch`` call, so the GPU sees large batches.

A :class:`GeneratorDirectory` actor owns the generator actors. When a client finds its
generator actor dead, it reports it; the directory replaces it (once, however many
clients report) and the client sends its request again: nothing is lost.

Online learning (``knn``) goes through the generator actors too: a proof a prover actor
finds is handed to every generator actor, so every prover actor's later theorems get it
(not only those of the worker that found it, as without generator actors).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError

from proofsearch.generate.base import (
    AnswerDeadline,
    GenerationRequest,
    Suggestion,
    TacticGenerator,
    wait_bound,
)
from proofsearch.generate.registry import make_generator
from proofsearch.theorem import Theorem


class GeneratorActor:
    """Hosts one generator; answers concurrent requests in batches."""

    def __init__(
        self,
        name: str,
        options: dict[str, Any],
        batch_window: float = 0.01,
        max_batch: int = 32,
        uses_gpu: bool = False,
    ) -> None:
        if not uses_gpu:
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
        self.generator = make_generator(name, options)
        self.batch_window = batch_window
        self.max_batch = max_batch
        self._queue: asyncio.Queue[tuple[GenerationRequest, asyncio.Future[Any]]] | None = None
        self.batches: list[int] = []
        self._clients: dict[int, float] = {}
        #: Seconds a client counts as active after its last request.
        self.client_horizon = 5.0
        #: One learned proof at a time (generators' learn() is not reentrant).
        self._learning = asyncio.Lock()

    def ready(self) -> int:
        return os.getpid()

    def schedule(self) -> list[tuple[str, float]]:
        """The hosted generator's stages (:mod:`proofsearch.generate.schedule`)."""
        return list(self.generator.schedule())

    def is_stochastic(self) -> list[bool]:
        """Whether each stage samples (:attr:`TacticGenerator.stochastic`)."""
        stages = range(max(1, len(self.generator.schedule())))
        return [self.generator.stage(i).stochastic for i in stages]

    def header_suffixes(self) -> list[str]:
        """What each stage needs after the theorem's header (``hammer``: its import)."""
        stages = range(len(self.generator.schedule()))
        return [self.generator.stage(i).header_suffix for i in stages]

    async def generate(
        self, goals: str, theorem: Theorem, n: int, client: int | None = None, stage: int = 0
    ) -> list[Suggestion]:
        if self._queue is None:
            self._queue = asyncio.Queue()
            asyncio.get_running_loop().create_task(self._serve())
        if client is not None:
            self._clients[client] = time.monotonic()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put((GenerationRequest(goals, theorem, n, stage), future))
        result: list[Suggestion] = await future
        return result

    def _active_clients(self) -> int:
        """Clients heard from in the last few seconds (at least one)."""
        horizon = time.monotonic() - self.client_horizon
        self._clients = {c: t for c, t in self._clients.items() if t >= horizon}
        return max(1, len(self._clients))

    async def _serve(self) -> None:
        assert self._queue is not None
        while True:
            batch = [await self._queue.get()]
            deadline = time.monotonic() + self.batch_window
            while len(batch) < self.max_batch:
                if not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                    continue
                # Waiting only pays while another active client may send a request: a
                # lone client (one request in flight) is served at once.
                remaining = deadline - time.monotonic()
                if len(batch) >= self._active_clients() or remaining <= 0:
                    break
                try:
                    batch.append(await asyncio.wait_for(self._queue.get(), remaining))
                except TimeoutError:
                    break
            # A request whose caller gave up (cut at its theorem's deadline, the call
            # cancelled) is not answered: the model's time goes to live ones.
            batch = [(request, future) for request, future in batch if not future.done()]
            if not batch:
                continue
            self.batches.append(len(batch))
            # One generate_batch call per stage of the schedule (one without a schedule).
            for stage in sorted({request.stage for request, _ in batch}):
                group = [(r, f) for r, f in batch if r.stage == stage]
                answerer = self.generator.stage(stage)
                requests = [request for request, _ in group]
                try:
                    answers = await asyncio.to_thread(answerer.generate_batch, requests)
                except Exception as exc:  # each waiting request gets the model's error
                    for _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), answer in zip(group, answers, strict=True):
                    if not future.done():  # cancelled while the batch ran
                        future.set_result(answer)

    async def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        """Take in a proof a prover actor found (``knn``'s online learning), off the loop."""
        async with self._learning:
            await asyncio.to_thread(self.generator.learn, theorem, steps)

    def batch_sizes(self) -> list[int]:
        """Sizes of the batches served so far (benchmarks and tests read them)."""
        return list(self.batches)


class GeneratorDirectory:
    """Owns the generator actors and replaces the dead ones."""

    def __init__(
        self,
        count: int,
        name: str,
        options: dict[str, Any],
        actor_options: dict[str, Any],
        batch_window: float,
        max_batch: int,
    ) -> None:
        uses_gpu = float(actor_options.get("num_gpus", 0) or 0) > 0
        self._make: Callable[[], Any] = lambda: (
            ray.remote(GeneratorActor)
            .options(max_restarts=0, max_concurrency=10_000, **actor_options)
            .remote(name, options, batch_window, max_batch, uses_gpu)
        )
        self.actors = [self._make() for _ in range(count)]
        self.generation = [0] * count
        self.replacements = 0

    def current(self) -> tuple[list[Any], list[int]]:
        """The generator actors and their generation numbers."""
        return self.actors, self.generation

    def report_dead(self, index: int, generation: int) -> tuple[list[Any], list[int]]:
        """Replace actor ``index`` unless a newer one already took its place."""
        if self.generation[index] == generation:
            with contextlib.suppress(RayActorError, ValueError):
                ray.kill(self.actors[index], no_restart=True)
            self.actors[index] = self._make()
            self.generation[index] += 1
            self.replacements += 1
        return self.actors, self.generation

    def replacement_count(self) -> int:
        return self.replacements


class RemoteGenerator(TacticGenerator):
    """The prover actor's side: a generator that asks the shared generator actors."""

    def __init__(self, directory: Any, slot: int, max_retries: int = 5) -> None:
        self.directory = directory
        self.slot = slot
        #: Who is asking: the generator actor batches for the clients it hears from.
        self.client = hash((os.getpid(), id(self), time.monotonic_ns()))
        self.max_retries = max_retries
        self.actors, self.generation = ray.get(directory.current.remote())
        self._schedule: list[tuple[str, float]] | None = None
        self._suffixes: list[str] | None = None
        self._stochastic: list[bool] = self._call(lambda actor: actor.is_stochastic.remote())
        self.stochastic = self._stochastic[0]

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return self.generate_stage(goals, theorem, n, 0)

    def generate_stage(self, goals: str, theorem: Theorem, n: int, stage: int) -> list[Suggestion]:
        """Ask a generator actor for ``n`` tactics from stage ``stage`` of its schedule."""
        result: list[Suggestion] = self._call(
            lambda actor: actor.generate.remote(goals, theorem, n, self.client, stage),
            bounded=True,
        )
        return result

    def schedule(self) -> list[tuple[str, float]]:
        if self._schedule is None:
            self._schedule = self._call(lambda actor: actor.schedule.remote())
        return self._schedule

    def stage(self, index: int) -> TacticGenerator:
        if self._suffixes is None:
            self._suffixes = self._call(lambda actor: actor.header_suffixes.remote())
        stage = _RemoteStage(self, index, self._suffixes[index])
        stage.stochastic = self._stochastic[index]
        return stage

    def _call(self, send: Callable[[Any], Any], bounded: bool = False) -> Any:
        """``send`` to this client's generator actor; a dead one is replaced and asked again.
        ``bounded``: wait no longer than the search's deadline (the actor's answer, once
        it comes, is dropped)."""
        last: Exception | None = None
        for _ in range(self.max_retries + 1):
            index = self.slot % len(self.actors)
            wait, cut = wait_bound(math.inf) if bounded else (math.inf, False)
            ref = send(self.actors[index])
            try:
                return ray.get(ref, timeout=wait if cut else None)
            except GetTimeoutError as exc:
                with contextlib.suppress(Exception):  # the actor need not answer it now
                    ray.cancel(ref)
                raise AnswerDeadline(
                    "the search's deadline came before the actor answered"
                ) from exc
            except RayActorError as exc:
                last = exc
                self.actors, self.generation = ray.get(
                    self.directory.report_dead.remote(index, self.generation[index])
                )
        raise RuntimeError(f"generator actors keep dying: {last}")

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        return [self.generate(r.goals, r.theorem, r.n) for r in requests]

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        """Hand a found proof to every generator actor, so that each serves it to every
        prover actor from now on. A dead actor is skipped: its replacement starts from
        the index again, without the proofs learned before."""
        calls = [actor.learn.remote(theorem, list(steps)) for actor in self.actors]
        for call in calls:
            with contextlib.suppress(RayActorError):
                ray.get(call)


class _RemoteStage(TacticGenerator):
    """One stage of the remote generator's schedule, as a generator of its own."""

    def __init__(self, remote: RemoteGenerator, index: int, header_suffix: str = "") -> None:
        self.remote = remote
        self.index = index
        self.header_suffix = header_suffix

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return self.remote.generate_stage(goals, theorem, n, self.index)

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        self.remote.learn(theorem, steps)
