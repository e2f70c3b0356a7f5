"""Shared fixtures: paths, and helpers to find processes a test must not leave behind."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DEMO = ROOT / "benchmarks" / "coq" / "demo.jsonl"


def descendants(name_part: str) -> list[psutil.Process]:
    """Live (non-zombie) descendants of this test process whose name contains ``name_part``."""
    found = []
    for child in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if name_part in child.name() and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def coq_processes() -> list[int]:
    """Pids of every coqidetop on the machine that is not a zombie."""
    pids = []
    for process in psutil.process_iter(["name", "status"]):
        name = process.info["name"] or ""
        if "coqidetop" in name and process.info["status"] != psutil.STATUS_ZOMBIE:
            pids.append(process.pid)
    return pids


@pytest.fixture
def no_new_coq_processes() -> Iterator[None]:
    """Fail the test if it leaves a coqidetop running that was not there before."""
    before = set(coq_processes())
    yield
    left = set(coq_processes()) - before
    assert not left, f"coqidetop processes left behind: {sorted(left)}"
