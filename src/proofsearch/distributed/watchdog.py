"""A watchdog that stops the Ray processes of a run when its driver dies, even by SIGKILL.

Ray's raylet and GCS die with the driver that started them, but their helper agents
can linger after a SIGKILL. The watchdog runs in its own session, records the Ray
processes below the driver while the driver lives, and kills whatever is left of them
once its stdin (a pipe from the driver) closes: at the driver's exit, normal or not.

Run as ``python -m proofsearch.distributed.watchdog DRIVER_PID``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import psutil

_RAY_MARKERS = ("ray", "raylet", "gcs_server", "plasma")


def _is_ray(process: psutil.Process) -> bool:
    try:
        text = " ".join([process.name(), *process.cmdline()[:3]])
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    return any(marker in text for marker in _RAY_MARKERS)


def _record(driver: psutil.Process, seen: dict[int, float]) -> None:
    """Remember every Ray process below the driver, and everything below those."""
    for child in driver.children(recursive=False):
        if child.pid == os.getpid() or not _is_ray(child):
            continue
        for process in [child, *child.children(recursive=True)]:
            try:
                seen.setdefault(process.pid, process.create_time())
            except psutil.NoSuchProcess:
                continue


def _kill(seen: dict[int, float]) -> None:
    for pid, created in seen.items():
        try:
            process = psutil.Process(pid)
            if process.create_time() == created:
                process.kill()
        except psutil.NoSuchProcess:
            continue


def main(argv: list[str]) -> int:
    driver = psutil.Process(int(argv[1]))
    grace = float(argv[2]) if len(argv) > 2 else 3.0
    closed = threading.Event()

    def wait_for_eof() -> None:
        sys.stdin.buffer.read()
        closed.set()

    threading.Thread(target=wait_for_eof, daemon=True).start()
    seen: dict[int, float] = {}
    while not closed.wait(0.5):
        try:
            _record(driver, seen)
        except psutil.NoSuchProcess:
            break
    time.sleep(grace)  # let a clean shutdown finish on its own
    _kill(seen)
    return 0


class Watchdog:
    """The driver's side: start the watchdog; :meth:`close` lets it clean up and exit."""

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

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
