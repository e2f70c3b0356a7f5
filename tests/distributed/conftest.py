"""A local Ray cluster shared by the tests of this folder (starting one costs seconds)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from proofsearch.distributed.ray_setup import RayOptions, ray_session
from proofsearch.theorem import Theorem

_SESSION = contextlib.ExitStack()


@pytest.fixture
def local_ray() -> Iterator[None]:
    """Ray started on first use and kept for the session (re-started if a test stopped it).

    It declares two GPUs that do not exist: what is tested is Ray's scheduling.
    """
    import ray

    if not ray.is_initialized():
        _SESSION.close()
        # An empty CUDA_VISIBLE_DEVICES (set by a CPU-only CI, or left by a test) would
        # make Ray refuse the two declared GPUs.
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        _SESSION.enter_context(ray_session(RayOptions(num_cpus=2, num_gpus=2)))
    yield


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _SESSION.close()


def trivial_theorems(count: int, prefix: str = "t") -> list[Theorem]:
    """Theorems that ``reflexivity`` proves at once."""
    return [
        Theorem(f"{prefix}{i}", f"Theorem {prefix}{i} : {i} + 0 = {i}.", "") for i in range(count)
    ]


def write_theorems(path: Path, theorems: list[Theorem]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"name": t.name, "statement": t.statement, "header": t.header}) + "\n"
            for t in theorems
        )
    )
    return path


def wait_gone(pids: list[int], timeout: float = 15.0) -> list[int]:
    """The pids still alive (and not zombies) after waiting up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _alive(pid)]
        if alive:
            time.sleep(0.2)
    return alive


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
