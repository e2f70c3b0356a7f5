"""The native entry point of a run: theorems in, durable results out, locally or on Ray.

Both the CLI and :class:`~proofsearch.distributed.api.DistributedProver` come through
:func:`run_search`, so the in-process path and the Ray path share everything but the
executor.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from proofsearch.distributed.events import NoEvents, RunEvents
from proofsearch.distributed.local import run_local
from proofsearch.distributed.ray_setup import RayOptions
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.search.result import SearchResult
from proofsearch.theorem import Theorem

#: Generators that run a model and can use a GPU.
GPU_GENERATORS = frozenset({"hf", "vllm"})


@dataclass(frozen=True)
class DistributionOptions:
    """How many workers, where, and how failures are handled."""

    workers: int = 1
    ray: RayOptions = field(default_factory=RayOptions)
    #: GPUs for the tactic generators, split over the workers (LeanAgent's ``num_gpus``).
    num_gpus: float = 0.0
    #: Shared GPU generator actors (0: each worker holds its own generator).
    generator_actors: int = 0
    #: Crashes of a theorem's worker before it is recorded as ``error``.
    max_attempts: int = 3
    #: Seconds past the search timeout before a theorem's worker is killed.
    deadline_grace: float = 120.0
    #: CPUs each prover actor asks Ray for.
    cpus_per_worker: float = 1.0
    #: Use Ray even for one worker (benchmarks compare 1 and 2 actors).
    force_ray: bool = False
    #: Shared generator actors: batching window (seconds), largest batch, CPUs each.
    batch_window: float = 0.01
    max_batch: int = 32
    generator_cpus: float = 1.0


class ResultSink(Protocol):
    """Where results are written (a :class:`~proofsearch.distributed.store.ResultsStore`)."""

    def append(self, record: dict[str, Any]) -> None: ...


class _Collect:
    """Forwards events, writes results durably, and keeps them for the caller."""

    def __init__(self, store: ResultSink | None, events: RunEvents) -> None:
        self.store = store
        self.events = events
        self.results: list[SearchResult] = []

    def add(self, result: SearchResult) -> None:
        self.results.append(result)
        record = result.to_record()
        if self.store is not None:
            self.store.append(record)
        self.events.result(record)


def worker_gpus(spec: WorkerSpec, options: DistributionOptions) -> float:
    """GPUs each prover actor asks for: a share of ``num_gpus`` when it runs the model."""
    if options.generator_actors or spec.generator not in GPU_GENERATORS:
        return 0.0
    return options.num_gpus / max(1, options.workers)


def run_search(
    spec: WorkerSpec,
    theorems: Sequence[Theorem],
    options: DistributionOptions | None = None,
    *,
    store: ResultSink | None = None,
    events: RunEvents | None = None,
) -> list[SearchResult]:
    """Search ``theorems``; each result is written to ``store`` as soon as it is known."""
    options = options or DistributionOptions()
    sink = _Collect(store, events or NoEvents())
    if not theorems:  # all resumed: starting Ray (seconds) would do nothing
        return sink.results
    if options.workers <= 1 and not options.force_ray:
        run_local(spec, theorems, sink.add)
    else:
        _run_ray(spec, theorems, options, sink)
    return sink.results


def _run_ray(
    spec: WorkerSpec, theorems: Sequence[Theorem], options: DistributionOptions, sink: _Collect
) -> None:
    from proofsearch.distributed.actors import remote_prover_actor
    from proofsearch.distributed.capacity import CpuWatch
    from proofsearch.distributed.pool import ProverPool
    from proofsearch.distributed.ray_setup import ray_session

    gpus = worker_gpus(spec, options)
    actor_class = remote_prover_actor(num_cpus=options.cpus_per_worker, num_gpus=gpus)
    grace = options.deadline_grace
    from proofsearch.distributed.shared_index import share_index

    with ray_session(_local_size(options)):
        _check_gpus(options, gpus)
        sink.events = CpuWatch(
            options.workers,
            options.cpus_per_worker,
            options.generator_actors * options.generator_cpus,
            sink.events,
        )
        directory = _generator_directory(spec, options)
        shared = share_index(spec) if directory is None else None
        slots = iter(range(1 << 30))
        pool = ProverPool(
            lambda: actor_class.remote(spec, gpus > 0, directory, next(slots), shared),
            options.workers,
            deadline=lambda theorem: spec.search.timeout + grace,
            max_attempts=options.max_attempts,
            events=sink.events,
        )
        try:
            for result in pool.map_unordered(theorems):
                sink.add(result)
        finally:
            pool.shutdown()
            if directory is not None:
                import ray

                ray.kill(directory)  # its generator actors die with their owner


def _check_gpus(options: DistributionOptions, per_worker: float) -> None:
    """Refuse a GPU request the cluster cannot place: Ray would wait for it forever (an
    infeasible actor), and the run hung without a word."""
    import ray

    from proofsearch.distributed.ray_setup import RaySetupError

    per_generator = options.num_gpus / options.generator_actors if options.generator_actors else 0
    need = max(per_worker, per_generator)
    have = float(ray.cluster_resources().get("GPU", 0.0))
    if need > 0 and have < need:
        raise RaySetupError(
            f"--num-gpus {options.num_gpus:g}: the Ray cluster has {have:g} GPU(s), and each "
            f"{'generator actor' if per_generator else 'worker'} asks for {need:g}; run where "
            "the GPUs are (check CUDA_VISIBLE_DEVICES), or drop --num-gpus"
        )


def _generator_directory(spec: WorkerSpec, options: DistributionOptions) -> Any:
    """Start the shared generator actors (``--generator-actors M``), or return ``None``."""
    if not options.generator_actors:
        return None
    import ray

    from proofsearch.distributed.generators import GeneratorDirectory

    per_actor = options.num_gpus / options.generator_actors if options.num_gpus else 0.0
    directory = (
        ray.remote(GeneratorDirectory)
        .options(num_cpus=0, max_restarts=0)
        .remote(
            options.generator_actors,
            spec.generator,
            spec.generator_options,
            {"num_gpus": per_actor, "num_cpus": options.generator_cpus},
            options.batch_window,
            options.max_batch,
        )
    )
    actors, _ = ray.get(directory.current.remote())
    # Wait for the models to load: a checkpoint that cannot be loaded fails the run here,
    # with the model's own error, rather than in every prover's first request.
    try:
        ray.get([actor.ready.remote() for actor in actors])
    except ray.exceptions.RayError as exc:
        from proofsearch.distributed.pool import PoolError

        ray.kill(directory)
        raise PoolError(f"the generator actors failed to start: {exc}") from exc
    return directory


def _local_size(options: DistributionOptions) -> RayOptions:
    """A new local cluster gets the machine's CPUs, or what the run needs if that is more.

    Ray's CPUs are scheduling tokens: a prover worker mostly waits on its prover process
    and a generator actor on its model, so ``--workers 2`` plus a generator actor on a
    2-core machine should start rather than leave an actor waiting for a free CPU.
    """
    import os

    if options.ray.address or os.environ.get("RAY_ADDRESS") or options.ray.num_cpus:
        return options.ray
    needed = options.workers * options.cpus_per_worker
    needed += options.generator_actors * options.generator_cpus
    cpus = max(os.cpu_count() or 1, math.ceil(needed))
    return dataclasses.replace(options.ray, num_cpus=cpus)
