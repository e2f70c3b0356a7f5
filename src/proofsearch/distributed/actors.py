"""The Ray actor that searches theorems: one prover (with its processes) and one generator."""

from __future__ import annotations

import os
from typing import Any

from proofsearch.distributed.spec import WorkerSpec
from proofsearch.generate.base import TacticGenerator
from proofsearch.search.result import SearchResult
from proofsearch.theorem import Theorem


class ProverActor:
    """Holds a :class:`~proofsearch.search.BestFirstSearchProver`; searches one theorem a call.

    Plain actor (no ``max_restarts``): when it dies, the pool sees it at once and
    replaces it; a restartable actor takes seconds to report a death.
    """

    def __init__(
        self,
        spec: WorkerSpec,
        uses_gpu: bool = False,
        generator_directory: Any = None,
        slot: int = 0,
        shared_index: tuple[list[str], Any] | None = None,
    ) -> None:
        if not uses_gpu:
            # Ray would otherwise leave the driver's GPUs visible to a CPU-only worker.
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
        self.spec = spec
        from proofsearch.distributed.shared_index import receive_index

        receive_index(shared_index)  # the machine's one copy of a trace index, if any
        generator: TacticGenerator | None = None
        if generator_directory is not None:
            from proofsearch.distributed.generators import RemoteGenerator

            generator = RemoteGenerator(generator_directory, slot)
        self.searcher = spec.build(generator)

    def ready(self) -> int:
        """The worker's pid, once the constructor is done (the pool waits for this)."""
        return os.getpid()

    def search(self, theorem: Theorem) -> SearchResult:
        try:
            return self.searcher.search(theorem)
        except BaseException:
            self.searcher.prover.close()  # the next theorem starts from fresh processes
            raise

    def prover_pids(self) -> list[int]:
        """Pids of the prover processes this actor runs (tests check for orphans)."""
        pid = getattr(self.searcher.prover, "pid", None)
        return [pid] if pid else []

    def close(self) -> None:
        self.searcher.prover.close()
        self.searcher.generator.close()


def remote_prover_actor(**options: Any) -> Any:
    """``ray.remote(ProverActor)`` with ``options`` (num_cpus, num_gpus, ...)."""
    import ray

    return ray.remote(ProverActor).options(max_restarts=0, **options)
