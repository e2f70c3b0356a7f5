"""One Lean REPL process: typed requests in, parsed replies out, one at a time.

Requests are not pipelined: the REPL answers strictly in order, a Lean tactic costs far
more than a process wake-up, and one request in flight means a timeout names its
culprit exactly. Each request has a wall-clock deadline; past it the caller kills the
whole process group (``lake env`` starts the REPL as its child), which is the only way
to stop a Lean tactic that ignores heartbeats.

Framing: the REPL writes a pretty-printed JSON object and a blank line. A blank line
cannot occur inside the JSON (strings escape their newlines), so a reply is the bytes up
to the first blank line. Anything else on stdout (text that does not start a JSON
object) means the process is not a trustworthy REPL any more: it is reported at once,
not waited for.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from proofsearch.env.lean.protocol import (
    ProtocolError,
    Reply,
    Request,
    decode_reply,
    encode_request,
)
from proofsearch.env.process import ManagedProcess, ProcessDied


class ReplError(Exception):
    """Base of the REPL process's failures (the process must be killed after any)."""


class ReplStartError(ReplError):
    """The REPL command could not be started at all."""


class ReplTimeout(ReplError):
    """No reply before the deadline."""


class ReplDied(ReplError):
    """The process exited (or closed stdout) before replying; the message has its stderr."""


class ReplProtocolError(ReplError):
    """The process wrote something that is not a REPL reply."""


def resolve_command(
    command: Sequence[str], cwd: str | Path | None, env: Mapping[str, str] | None = None
) -> None:
    """Fail early, with a useful message, when the program cannot be found."""
    program = command[0]
    if os.sep in program:
        path = Path(program)
        if not path.is_absolute() and cwd is not None:
            path = Path(cwd) / path
        if not path.exists():
            raise ReplStartError(f"{program} does not exist (looked at {path})")
    elif shutil.which(program, path=(env or os.environ).get("PATH")) is None:
        hint = ""
        if program in {"lake", "lean"}:
            hint = (
                " (install elan, https://github.com/leanprover/elan, and make sure"
                " ~/.elan/bin is on PATH)"
            )
        raise ReplStartError(f"{program} not found on PATH{hint}")


def is_lake_env(command: Sequence[str]) -> bool:
    """Whether ``command`` is ``lake env PROGRAM ...``."""
    return len(command) >= 3 and Path(command[0]).name == "lake" and command[1] == "env"


def lake_environment(
    lake_env: Sequence[str], cwd: str | Path | None, timeout: float
) -> dict[str, str]:
    """The environment ``lake env`` gives the programs it runs (``LEAN_PATH`` ...).

    Why: ``lake env REPL`` keeps ``lake`` as the REPL's parent. The kernel's
    parent-death signal (``setpriv --pdeathsig``) then reaches ``lake`` only, and a REPL
    busy in a tactic would outlive a worker killed with SIGKILL. Reading the
    environment once and starting the REPL directly makes it our own child (and saves
    lake's start-up at every restart).
    """
    if cwd is not None and not Path(cwd).is_dir():
        raise ReplStartError(f"the Lean project directory {cwd} does not exist")
    resolve_command(lake_env, cwd)
    script = "import json, os; print(json.dumps(dict(os.environ)))"
    try:
        done = subprocess.run(
            [*lake_env, sys.executable, "-c", script],
            cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise ReplStartError(f"`{' '.join(lake_env)}` took more than {timeout:g} s") from None
    except OSError as exc:
        raise ReplStartError(f"cannot run `{' '.join(lake_env)}`: {exc}") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise ReplStartError(
            f"`{' '.join(lake_env)}` failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}"
            " (is the project built? set resolve_lake_env to false to run the command as given)"
        )
    try:
        environment = json.loads(lines[-1])
    except json.JSONDecodeError:
        raise ReplStartError(
            f"unexpected output of `{' '.join(lake_env)}`: {lines[-1]!r}"
        ) from None
    return {str(k): str(v) for k, v in environment.items()}


class LeanRepl:
    """A REPL process and its reply stream."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | Path | None = None,
        memory_limit: int | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not command:
            raise ReplStartError("empty REPL command")
        if cwd is not None and not Path(cwd).is_dir():
            raise ReplStartError(f"the Lean project directory {cwd} does not exist")
        resolve_command(command, cwd, env)
        try:
            self.process = ManagedProcess(command, cwd=cwd, memory_limit=memory_limit, env=env)
        except OSError as exc:
            raise ReplStartError(f"cannot start {' '.join(command)}: {exc}") from exc
        self._buffer = b""
        #: Requests sent to this process (recycling counts them).
        self.requests = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.alive()

    def request(self, request: Request, timeout: float | None) -> Reply:
        """Send ``request`` and wait up to ``timeout`` seconds for its reply."""
        if self._buffer.strip():
            raise ReplProtocolError(
                f"unexpected output before a request: {self._shown(self._buffer)}"
            )
        self._buffer = b""
        data = encode_request(request)
        self.requests += 1
        try:
            self.process.write(data)
        except ProcessDied as exc:
            raise ReplDied(str(exc)) from None
        deadline = None if timeout is None else time.monotonic() + timeout
        block = self._read_block(deadline, timeout)
        try:
            return decode_reply(block)
        except ProtocolError as exc:
            raise ReplProtocolError(str(exc)) from None

    def _read_block(self, deadline: float | None, timeout: float | None) -> bytes:
        while True:
            self._buffer = self._buffer.lstrip()
            if self._buffer and not self._buffer.startswith(b"{"):
                raise ReplProtocolError(
                    f"the REPL wrote text that is not JSON: {self._shown(self._buffer)}"
                    + self._stderr_note()
                )
            end = self._buffer.find(b"\n\n")
            if end >= 0:
                block, self._buffer = self._buffer[:end], self._buffer[end + 2 :]
                return block
            try:
                chunk = self.process.read(deadline)
            except ProcessDied as exc:
                partial = self._shown(self._buffer) if self._buffer else ""
                if partial:
                    partial = f" after a partial reply {partial}"
                raise ReplDied(f"{exc}{partial}") from None
            if chunk is None:
                raise ReplTimeout(f"no reply within {timeout or 0:g} s")
            self._buffer += chunk

    def _stderr_note(self) -> str:
        tail = self.process.stderr_tail
        return f" (stderr: {tail[-500:]})" if tail else ""

    @staticmethod
    def _shown(data: bytes) -> str:
        return repr(data[:300].decode("utf-8", "replace"))

    def close(self) -> None:
        """Kill the process group and reap it."""
        self.process.kill()
