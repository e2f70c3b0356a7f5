"""Shared fixtures: paths, and helpers to find processes a test must not leave behind."""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from proofsearch.env.coq.version import find_idetop

#: prctl(2) option: orphaned descendants are re-parented to this process, not to init.
PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    """Keep orphans below the test process, so the leftover checks (which look only at
    this process's descendants) still see a prover whose parent died."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


_become_subreaper()

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DEMO = ROOT / "benchmarks" / "coq" / "demo.jsonl"
#: Whether a coqidetop is installed: 8.x's ``coqidetop.opt`` or Rocq 9's ``coqidetop``
#: (a test that looked for ``coqidetop.opt`` alone skipped on Rocq 9 without saying why).
COQ_INSTALLED = shutil.which(find_idetop("coqidetop.opt")) is not None


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The whole session's ``XDG_CACHE_HOME``: a folder of its own, empty at the start.

    Traces, knn caches and ``prove``'s results went to the user's ``~/.cache/proofsearch``,
    so a run found what earlier runs had left (warm caches, old tracer revisions) and CI,
    starting empty, saw what no developer's run did. A test that needs its own empty cache
    still sets one (``monkeypatch.setenv``); this one comes back after it.
    """
    patch = pytest.MonkeyPatch()
    folder = tmp_path_factory.mktemp("xdg-cache")
    patch.setenv("XDG_CACHE_HOME", str(folder))
    yield folder
    patch.undo()


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
    """Pids of the coqidetop processes below this test process that are not zombies.

    Only this process's own descendants: other test runs (and other users) run Coq on
    the same machine at the same time, and their processes come and go.
    """
    return [process.pid for process in descendants("coqidetop")]


@pytest.fixture
def no_new_coq_processes() -> Iterator[None]:
    """Fail the test if it leaves a coqidetop running that was not there before."""
    before = set(coq_processes())
    yield
    left = set(coq_processes()) - before
    assert not left, f"coqidetop processes left behind: {sorted(left)}"


_EXIT_STATUS: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave without interpreter finalization once pytest has reported everything.

    At finalization, a daemon thread of a third-party library that still holds torch
    tensors can be stopped mid-deallocation; Ray's C++ terminate handler then aborts the
    process *after* every test passed (seen once in 6 full runs: "532 passed", then
    SIGABRT, so `make test` failed). The verdict is already printed and the exit status
    is pytest's own, so nothing a test checks is lost by skipping finalization.
    """
    if _EXIT_STATUS and os.environ.get("PROOFSEARCH_PYTEST_FINALIZE") != "1":
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])
