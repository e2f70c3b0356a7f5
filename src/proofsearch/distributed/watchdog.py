"""A watchdog that stops the Ray processes of a run when its driver dies, even by SIGKILL.

Ray's raylet and GCS die with the driver that started them, but their helper agents
can linger after a SIGKILL. The watchdog runs in its own session, records the Ray
processes below the driver while the driver lives, and kills whatever is left of them
once its stdin (a pipe from the driver) closes: at the driver's exit, normal or not.

A driver can start one local Ray after another (a test suite does), so the watchdog of
an ended session must never take the next one's processes. The driver tells it, on the
pipe, the name of its Ray session once Ray is up (``session NAME``) and the time it
closes the pipe (``close TIME``, on the clock of process creation times); only
processes of that session (each carries the name in its command line, and its
descendants count with it) created before that time are killed. A driver killed
before it could say either is cleaned up by what was recorded until the pipe broke.

Run as ``python -m proofsearch.distributed.watchdog DRIVER_PID [GRACE]``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import psutil

_RAY_MARKERS = ("ray", "raylet", "gcs_server", "plasma")


@dataclass(frozen=True)
class Recorded:
    """A process below the driver: when it was created, and the command line of the
    driver's child it descends from (which names the Ray session)."""

    created: float
    origin: str


def _command_line(process: psutil.Process) -> str | None:
    try:
        return " ".join([process.name(), *process.cmdline()])
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def _is_ray(command_line: str) -> bool:
    return any(marker in command_line for marker in _RAY_MARKERS)


def record(driver: psutil.Process, seen: dict[int, Recorded]) -> None:
    """Remember every Ray process below the driver, and everything below those."""
    for child in driver.children(recursive=False):
        origin = _command_line(child)
        if child.pid == os.getpid() or origin is None or not _is_ray(origin):
            continue
        for process in [child, *child.children(recursive=True)]:
            try:
                seen.setdefault(process.pid, Recorded(process.create_time(), origin))
            except psutil.NoSuchProcess:
                continue


def victims(seen: dict[int, Recorded], session: str | None, closed_at: float) -> list[int]:
    """The recorded processes to kill: of ``session`` (any, if it was never told) and
    created before the driver closed the pipe."""
    return [
        pid
        for pid, entry in seen.items()
        if entry.created <= closed_at and (session is None or session in entry.origin)
    ]


def now() -> float:
    """Now, on the clock of psutil's ``create_time`` (boot time plus time since boot),
    which differs from ``time.time()`` by up to a second."""
    return psutil.boot_time() + time.clock_gettime(time.CLOCK_BOOTTIME)


def kill(seen: dict[int, Recorded], pids: list[int]) -> None:
    for pid in pids:
        try:
            process = psutil.Process(pid)
            if process.create_time() == seen[pid].created:  # not a reused pid
                process.kill()
        except psutil.NoSuchProcess:
            continue


class _Pipe:
    """What the driver says on the pipe, read by a thread of its own."""

    def __init__(self) -> None:
        self.session: str | None = None
        self.closed_at: float | None = None
        self.closed = threading.Event()

    def read(self) -> None:
        for raw in sys.stdin.buffer:
            word, _, value = raw.decode(errors="replace").strip().partition(" ")
            if word == "session" and value:
                self.session = value
            elif word == "close":
                with contextlib.suppress(ValueError):
                    self.closed_at = float(value)
        if self.closed_at is None:
            self.closed_at = now()
        self.closed.set()


def main(argv: list[str]) -> int:
    driver = psutil.Process(int(argv[1]))
    grace = float(argv[2]) if len(argv) > 2 else 3.0
    pipe = _Pipe()
    threading.Thread(target=pipe.read, daemon=True).start()
    seen: dict[int, Recorded] = {}
    while not pipe.closed.wait(0.5):
        try:
            record(driver, seen)
        except psutil.NoSuchProcess:
            break
    pipe.closed.wait()
    time.sleep(grace)  # let a clean shutdown finish on its own
    kill(seen, victims(seen, pipe.session, pipe.closed_at or now()))
    return 0


class Watchdog:
    """The driver's side: start the watchdog, name the session; :meth:`close` lets it
    clean up and exit."""

    def __init__(self, grace: float = 3.0) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "proofsearch.distributed.watchdog",
                str(os.getpid()),
                str(grace),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _say(self, line: str) -> None:
        if self.process.stdin is None or self.process.stdin.closed:
            return
        try:
            self.process.stdin.write(f"{line}\n".encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def name_session(self, session: str) -> None:
        """Only this Ray session's processes are the watchdog's to kill."""
        self._say(f"session {session}")

    def close(self) -> None:
        self._say(f"close {now()!r}")
        if self.process.stdin is not None and not self.process.stdin.closed:
            with contextlib.suppress(OSError):
                self.process.stdin.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
