"""The private folders of Coq lines (``proofsearch-coq-<pid>-…`` in the temporary
folder), and the removal of those whose process died without removing its own.

A prover actor that Ray kills (a deadline, a crashed worker, the kernel's OOM killer)
never runs its line's ``close``: each left an empty folder behind, some 140 an hour
while the test suite ran. The first line a process opens removes such folders: their
process is gone and they have not changed for :data:`STALE_AFTER` seconds (a folder of
another PID namespace that shares this temporary folder is not taken for a dead one
while in use). Folders named before the pid was part of the name go by age alone, four
times as old.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "proofsearch-coq-"
#: Seconds a dead process's folder stays untouched before it is removed.
STALE_AFTER = 6 * 3600.0
_NAME = re.compile(rf"{re.escape(PREFIX)}(?:(\d+)-)?")
_swept = False


def private_folder() -> tempfile.TemporaryDirectory[str]:
    """A new private folder for a Coq line; the first of a process sweeps stale ones."""
    global _swept
    if not _swept:
        _swept = True
        sweep_stale()
    return tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-")


def sweep_stale(root: str | Path | None = None, now: float | None = None) -> int:
    """Remove the stale private folders under ``root`` (the temporary folder); how many."""
    now = time.time() if now is None else now
    removed = 0
    for path in Path(root or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        found = _NAME.match(path.name)
        if found is None or not path.is_dir():
            continue
        try:
            age = now - path.stat().st_mtime
        except OSError:
            continue
        pid = int(found[1]) if found[1] else None
        if age < (STALE_AFTER if pid is not None else 4 * STALE_AFTER):
            continue
        if pid is not None and _alive(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True
