"""The cluster's CPUs against the workers asked for (:class:`CpuWatch`), with the
cluster's CPU count given: the real clusters are in ``test_ray_start_cluster.py``."""

from __future__ import annotations

from typing import Any

import pytest

from proofsearch.distributed.capacity import CpuWatch
from proofsearch.distributed.ray_setup import RaySetupError


class Said:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def result(self, record: dict[str, Any]) -> None:
        pass

    def worker_restarted(self, reason: str) -> None:
        self.lines.append(f"restarted: {reason}")

    def notice(self, text: str) -> None:
        self.lines.append(text)


def watch(
    monkeypatch: pytest.MonkeyPatch,
    cpus: list[float],
    workers: int,
    per: float = 1.0,
    reserved: float = 0.0,
) -> Any:
    monkeypatch.setattr(CpuWatch, "_cpus", lambda self: cpus[0])
    said = Said()
    return CpuWatch(workers, per, reserved, said), said


def test_enough_cpus_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _, said = watch(monkeypatch, [4.0], workers=4)
    assert said.lines == []


def test_fewer_cpus_than_workers_is_said_once_and_again_when_a_node_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cpus = [2.0]
    cpu_watch, said = watch(monkeypatch, cpus, workers=3)
    assert said.lines == [
        "--workers 3: the Ray cluster has 2 CPU(s), room for 2 worker(s) at a time; "
        "1 wait(s) for a free CPU"
    ]
    cpu_watch.worker_restarted("a node died")  # still two CPUs: nothing more to say
    cpus[0] = 1.0
    cpu_watch.worker_restarted("a node died")
    assert said.lines[1:] == [
        "restarted: a node died",
        "restarted: a node died",
        "--workers 3: the Ray cluster has 1 CPU(s), room for 1 worker(s) at a time; "
        "2 wait(s) for a free CPU",
    ]
    cpus[0] = 0.0
    cpu_watch.worker_restarted("the last node died")
    assert said.lines[-1].startswith("the Ray cluster has no CPU left for workers")


def test_a_cluster_without_cpus_for_a_worker_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RaySetupError, match=r"has 1 CPU\(s\) free for workers.*asks for 2"):
        watch(monkeypatch, [1.0], workers=2, per=2.0)
    # A generator actor takes its CPU first.
    with pytest.raises(RaySetupError, match="start nodes with CPUs"):
        watch(monkeypatch, [1.0], workers=2, reserved=1.0)
