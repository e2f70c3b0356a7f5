"""The private folders of Coq lines (``proofsearch-coq-<pid>-…`` in the temporary
folder) and of re-checks (``proofsearch-check-<pid>-…``), and the removal of those whose
process died without removing its own.

A prover actor that Ray kills (a deadline, a crashed worker, the kernel's OOM killer)
never runs its line's ``close``: each left an empty folder behind, some 140 an hour
while the test suite ran; a worker killed during a re-check left its ``coqc`` folder
(audit 51). The first folder a process makes removes such folders.

A folder's process holds an exclusive ``flock`` on a file in it (:data:`LOCK`) for as
long as it lives: the kernel releases the lock when the process dies, however it dies,
so the sweep tells a dead owner's folder at once, whatever PID namespace the owner ran
in (the lock file gets its name only once locked, so an unlocked one is never seen).
Folders without one (made by an older version) go by their pid and age: their process
is gone and they have not changed for :data:`STALE_AFTER` seconds (a folder of another
PID namespace that shares this temporary folder is not taken for a dead one while in
use); folders named before the pid was part of the name go by age alone, four times as
old.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

PREFIX = "proofsearch-coq-"
#: A re-check's folder (:mod:`proofsearch.env.coq.checker`).
CHECK_PREFIX = "proofsearch-check-"
#: The file whose lock says the folder's process is alive.
LOCK = ".owner.lock"
#: Seconds a dead process's folder without a lock stays untouched before it is removed.
STALE_AFTER = 6 * 3600.0
_NAME = re.compile(rf"(?:{re.escape(PREFIX)}|{re.escape(CHECK_PREFIX)})(?:(\d+)-)?")
_swept = False


class PrivateFolder(tempfile.TemporaryDirectory[str]):
    """A temporary folder whose lock (:data:`LOCK`) is held until ``cleanup``."""

    def __init__(self, root: str | None = None, prefix: str = PREFIX) -> None:
        super().__init__(prefix=f"{prefix}{os.getpid()}-", dir=root)
        self._lock: BinaryIO | None = _hold_lock(Path(self.name))

    def cleanup(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        super().cleanup()


def _hold_lock(folder: Path) -> BinaryIO | None:
    """Lock a new file, then give it its name (``None`` where locks are not to be had:
    the folder then goes by its pid and age)."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".lock-")
    lock = os.fdopen(handle, "wb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(temporary, folder / LOCK)
    except OSError:
        lock.close()
        return None
    return lock


def private_folder(root: str | None = None, prefix: str = PREFIX) -> PrivateFolder:
    """A new private folder for a Coq line, or a re-check's (``prefix``
    :data:`CHECK_PREFIX`), under ``root`` (default the temporary folder); the first of a
    process sweeps stale ones."""
    global _swept
    if not _swept:
        _swept = True
        sweep_stale()
    return PrivateFolder(root, prefix)


def sweep_stale(root: str | Path | None = None, now: float | None = None) -> int:
    """Remove the stale private folders under ``root`` (the temporary folder); how many."""
    now = time.time() if now is None else now
    removed = 0
    folder = Path(root or tempfile.gettempdir())
    for path in [*folder.glob(f"{PREFIX}*"), *folder.glob(f"{CHECK_PREFIX}*")]:
        found = _NAME.match(path.name)
        if found is None or not path.is_dir():
            continue
        owner = _owner_gone(path / LOCK)
        if owner is not None:
            if owner:
                shutil.rmtree(path, ignore_errors=True)
                removed += 1
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


def _owner_gone(lock: Path) -> bool | None:
    """Whether the folder's owner is dead (its lock free), ``None`` without a lock file."""
    try:
        handle = lock.open("rb")
    except FileNotFoundError:
        return None
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its process is alive
            return False
        return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True
