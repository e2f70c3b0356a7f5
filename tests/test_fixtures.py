"""The shared fixtures measure this test run only, whatever else runs on the machine."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest

from proofsearch.env.coq.version import find_idetop
from tests.conftest import PR_SET_CHILD_SUBREAPER, coq_processes

#: A coqidetop in the background of a shell that exits at once (its stdin stays open
#: for 20 s, so it waits rather than exit on end of input); prints its pid.
IDETOP = find_idetop("coqidetop.opt")
BACKGROUND = f"sleep 20 2>/dev/null | {IDETOP} -main-channel stdfds >/dev/null 2>&1 & echo $!"


def start_foreign_coqidetop() -> int:
    """A coqidetop that is not our descendant (as another user's or test run's would be)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    try:
        # The shell starts coqidetop in the background and exits: it is re-parented away.
        done = subprocess.run(["sh", "-c", BACKGROUND], capture_output=True, text=True, check=True)
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    return int(done.stdout)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which(IDETOP) is None,
    reason="needs Linux and coqidetop",
)
def test_leftover_check_counts_only_our_descendants() -> None:
    pid = start_foreign_coqidetop()
    try:
        deadline = time.monotonic() + 10
        while psutil.Process(pid).ppid() == os.getpid() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert psutil.Process(pid).is_running()
        assert pid not in coq_processes()
    finally:
        os.kill(pid, signal.SIGKILL)
    # Ours are counted, even when their parent died (the test process is a subreaper).
    orphan = subprocess.run(["sh", "-c", BACKGROUND], capture_output=True, text=True, check=True)
    mine = int(orphan.stdout)
    try:
        assert mine in coq_processes()
    finally:
        os.kill(mine, signal.SIGKILL)
