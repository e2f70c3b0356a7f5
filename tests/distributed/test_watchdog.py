"""The watchdog kills only its own Ray session's processes, created before its driver closed.

A test suite starts one local Ray after another from the same process: a watchdog that
is slow to notice its pipe closing must not take the next session's processes (the
session-wide Ray of this suite was once killed mid-test, 18 s after it started, by
something never found: this is one way it could have happened).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest

from proofsearch.distributed import watchdog
from proofsearch.distributed.watchdog import Recorded, Watchdog


def fake_ray(session: str) -> subprocess.Popen[bytes]:
    """A process the watchdog takes for Ray's, of the named session (as Ray's command
    lines name theirs: ``--session-dir=/tmp/ray/session_…``)."""
    code = "import time; time.sleep(120)"
    return subprocess.Popen([sys.executable, "-c", code, "gcs_server", f"--session-name={session}"])


@pytest.fixture
def spawned() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def test_only_the_named_session_before_the_close_is_chosen(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    mine, other = fake_ray("session_a"), fake_ray("session_b")
    spawned += [mine, other]
    seen: dict[int, Recorded] = {}
    watchdog.record(psutil.Process(), seen)
    assert {mine.pid, other.pid} <= set(seen)
    closed_at = watchdog.now()
    time.sleep(0.05)
    later = fake_ray("session_a")  # the same name, but after the close: not this run's
    spawned.append(later)
    watchdog.record(psutil.Process(), seen)  # a watchdog slow to see the close
    assert later.pid in seen
    ours = {mine.pid, other.pid, later.pid}  # this suite may run Ray processes of its own
    assert set(watchdog.victims(seen, "session_a", closed_at)) & ours == {mine.pid}
    # Never told the session (its driver died during start-up): all it saw before.
    assert set(watchdog.victims(seen, None, closed_at)) & ours == {mine.pid, other.pid}


def test_a_closed_watchdog_spares_other_sessions_and_later_processes(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    """End to end through the pipe. That it kills its own session's processes is
    checked where it matters, after a SIGKILLed run (``test_cli_ray``)."""
    guard = Watchdog(grace=0.1)
    other = fake_ray("session_b")
    spawned.append(other)
    guard.name_session("session_a")
    time.sleep(3)  # several recording rounds
    guard.close()
    after = fake_ray("session_a")
    spawned.append(after)
    assert guard.process.wait(timeout=60) == 0
    assert other.poll() is None and after.poll() is None
