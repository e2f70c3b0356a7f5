"""The cluster's CPUs against the prover workers a run asks for.

Ray leaves an actor it cannot place waiting for a CPU without a word: ``--workers 3`` on
two CPUs ran on two, and a node that died took its CPUs, so its worker's replacement
never started (an audit's run went on at half speed, or waited five minutes in silence).
"""

from __future__ import annotations

import math
from typing import Any

from proofsearch.distributed.events import RunEvents


class CpuWatch:
    """Forwards a run's events, and says when fewer workers than asked for can run at
    once: at the start and after each restart. A cluster without a CPU for even one
    worker is refused (:class:`~proofsearch.distributed.ray_setup.RaySetupError`)."""

    def __init__(
        self, workers: int, cpus_per_worker: float, reserved: float, events: RunEvents
    ) -> None:
        self.workers = workers
        self.cpus_per_worker = cpus_per_worker
        #: CPUs the shared generator actors take first.
        self.reserved = reserved
        self.inner = events
        self.said: int | None = None
        placeable = self._placeable()
        if placeable == 0:
            from proofsearch.distributed.ray_setup import RaySetupError

            raise RaySetupError(
                f"the Ray cluster has {self._cpus():g} CPU(s) free for workers, and each "
                f"prover worker asks for {cpus_per_worker:g}: start nodes with CPUs "
                "(ray start --address … --num-cpus N) and run again"
            )
        self._say(placeable)

    def _cpus(self) -> float:
        import ray

        return float(ray.cluster_resources().get("CPU", 0.0))

    def _placeable(self) -> int:
        """How many workers the cluster's CPUs hold at once."""
        free = max(0.0, self._cpus() - self.reserved)
        return min(self.workers, math.floor(free / self.cpus_per_worker + 1e-9))

    def _say(self, placeable: int) -> None:
        if placeable >= self.workers or placeable == self.said:
            return
        self.said = placeable
        if placeable == 0:
            self.inner.notice(
                "the Ray cluster has no CPU left for workers: nothing runs until a node "
                "with CPUs joins (the run stops if no worker starts within 300 s)"
            )
        else:
            self.inner.notice(
                f"--workers {self.workers}: the Ray cluster has {self._cpus():g} CPU(s), room "
                f"for {placeable} worker(s) at a time; {self.workers - placeable} wait(s) for "
                "a free CPU"
            )

    def result(self, record: dict[str, Any]) -> None:
        self.inner.result(record)

    def worker_restarted(self, reason: str) -> None:
        self.inner.worker_restarted(reason)
        self._say(self._placeable())

    def notice(self, text: str) -> None:
        self.inner.notice(text)
