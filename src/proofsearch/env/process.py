"""Child processes for prover backends: memory-capped, killable as a group, never orphaned.

Every prover process is started as a :class:`ManagedProcess`, which

* puts it in its own process group, so that killing it also kills what it started
  (``lake env`` starts the Lean REPL as a child);
* caps its address space (``RLIMIT_AS``) before it runs a single instruction, through
  util-linux's ``prlimit`` wrapper (setting the limit from Python after the start would
  race with the process's own children);
* asks the kernel to kill it when its parent dies (``setpriv --pdeathsig KILL``), so a
  worker killed with SIGKILL (as Ray does) leaves no prover behind;
* is registered so that :func:`kill_all` (run at interpreter exit) can stop it.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import select
import shutil
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

_LIVE: weakref.WeakSet[ManagedProcess] = weakref.WeakSet()


class ProcessDied(Exception):
    """The child process exited (or closed its output) while we waited for a reply."""


def _wrapper(memory_limit: int | None) -> list[str]:
    prefix: list[str] = []
    if shutil.which("setpriv"):
        prefix += ["setpriv", "--pdeathsig", "KILL"]
    if memory_limit and shutil.which("prlimit"):
        prefix += ["prlimit", f"--as={int(memory_limit)}", "--"]
    return prefix


class ManagedProcess:
    """A child process spoken to through pipes, with reads bounded by deadlines."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | Path | None = None,
        memory_limit: int | None = None,
        env: Mapping[str, str] | None = None,
        stderr_lines: int = 200,
    ) -> None:
        self.command = list(command)
        self.popen = subprocess.Popen(
            _wrapper(memory_limit) + self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
        self.pid = self.popen.pid
        self._stdout_fd = self.popen.stdout.fileno()  # type: ignore[union-attr]
        os.set_blocking(self._stdout_fd, False)
        self._stdin_fd = self.popen.stdin.fileno()  # type: ignore[union-attr]
        os.set_blocking(self._stdin_fd, False)
        #: Output read while a write waited for the process to take more input.
        self._early: list[bytes] = []
        self._stderr: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        _LIVE.add(self)

    def _drain_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        for raw in iter(stream.readline, b""):
            self._stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))

    @property
    def stderr_tail(self) -> str:
        """The last lines the process wrote to stderr."""
        return "\n".join(self._stderr)

    def _died_message(self, what: str) -> str:
        # The process is gone, but the thread may not have drained its last stderr
        # lines yet, and they usually say why it died: wait for them briefly.
        self._stderr_thread.join(timeout=1.0)
        tail = self.stderr_tail
        return f"{self.command[0]} {what}" + (f": {tail}" if tail else "")

    def alive(self) -> bool:
        return self.popen.poll() is None

    def write(self, data: bytes) -> None:
        """Send bytes; a closed pipe means the process is gone.

        Never blocks on a full pipe while the process waits on us: a batch of calls can
        be larger than the pipe, and the process answers the first calls before it reads
        the rest. If it is blocked writing replies that nobody reads, it reads no more
        input, and a blocking write would wait for ever (seen tracing stdpp's
        ``fin_maps.v``, whose goals are large). So while the pipe is full, whatever the
        process writes is read and kept for :meth:`read`.
        """
        if self._closed():  # after kill() the fd numbers may belong to other files now
            raise ProcessDied(f"{self.command[0]} was stopped")
        view = memoryview(data)
        while view:
            readable, writable, _ = select.select([self._stdout_fd], [self._stdin_fd], [])
            if writable:
                try:
                    view = view[os.write(self._stdin_fd, view) :]
                except BlockingIOError:
                    pass
                except OSError as exc:  # BrokenPipeError: the process is gone
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self.popen.wait(timeout=5)
                    raise ProcessDied(
                        self._died_message(f"exited with code {self.popen.returncode}")
                    ) from exc
            if readable and view:
                try:
                    chunk = os.read(self._stdout_fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not chunk:  # end of file: the process is gone
                    self._end_of_file()
                self._early.append(chunk)

    def read(self, deadline: float | None) -> bytes | None:
        """Bytes available before ``deadline`` (a ``time.monotonic`` value).

        Returns ``None`` when the deadline passed first; raises :class:`ProcessDied` at
        end of file.
        """
        if self._early:
            early, self._early = b"".join(self._early), []
            return early
        if self._closed():
            raise ProcessDied(f"{self.command[0]} was stopped")
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._stdout_fd], [], [], wait)
            if not ready:
                return None
            try:
                data = os.read(self._stdout_fd, 1 << 20)
            except BlockingIOError:
                continue
            if not data:
                return self._end_of_file()
            return data

    def _closed(self) -> bool:
        stdin, stdout = self.popen.stdin, self.popen.stdout
        return stdin is None or stdin.closed or stdout is None or stdout.closed

    def _end_of_file(self) -> bytes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        raise ProcessDied(self._died_message(f"exited with code {self.popen.returncode}"))

    def kill(self) -> None:
        """Kill the whole process group and reap it."""
        _LIVE.discard(self)
        if self.popen.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.popen.kill()
        else:
            # The leader is gone; its group may still hold children.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        for stream in (self.popen.stdin, self.popen.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=10)


def kill_all() -> None:
    """Kill every process started through :class:`ManagedProcess` that is still running."""
    for process in list(_LIVE):
        process.kill()


atexit.register(kill_all)
