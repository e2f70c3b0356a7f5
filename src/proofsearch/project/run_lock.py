"""One ``prove`` run at a time per project: the second says so instead of doing the
work again.

Two runs on one project (two terminals, an editor's hook and a manual run) each searched
every hole, and the later one then found the files changed under it and wrote nothing
(audit 43-b: ten searches done twice, exit 1). The run's cache folder holds a lock file;
the kernel lets it go when the process ends, however it ends, so a killed run never
leaves the project locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import BinaryIO

#: The lock file in the project's run folder (``…/proofsearch/prove/<project>/``).
LOCK = "run.lock"


class ProjectBusy(Exception):
    """Another run holds the project: the message names its pid and start time."""


def hold_project(run_dir: Path) -> BinaryIO:
    """Lock ``run_dir`` for this process (keep the returned file open while the run
    goes on); :class:`ProjectBusy` when another run holds it."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK
    handle = path.open("a+b")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().decode("utf-8", "replace").strip() or "another process"
        handle.close()
        raise ProjectBusy(holder) from None
    handle.seek(0)
    handle.truncate()
    started = time.strftime("%H:%M:%S")
    handle.write(f"pid {os.getpid()}, started {started}".encode())
    handle.flush()
    return handle
