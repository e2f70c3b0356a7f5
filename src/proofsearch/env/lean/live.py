"""The Lean REPL process of the moment, and the ids that are valid in it.

The REPL's environment and proof-state ids die with its process. :class:`LiveRepl` owns
the process, numbers each one it starts (the *generation*, which stamps every handle a
session gives out), and keeps the environment of each header run in it, so that a header
runs once per process however many theorems use it.
"""

from __future__ import annotations

import time

from proofsearch.env.base import EnvError, ProverStats
from proofsearch.env.lean.config import LeanConfig
from proofsearch.env.lean.protocol import CommandReply, CommandRequest, ErrorReply, Reply, Request
from proofsearch.env.lean.repl import (
    LeanRepl,
    ReplDied,
    ReplError,
    ReplTimeout,
    is_lake_env,
    lake_environment,
)


class LiveRepl:
    """One REPL process at a time: started on demand, killed on any failure, recycled."""

    def __init__(self, config: LeanConfig, stats: ProverStats) -> None:
        self.config = config
        self.stats = stats
        #: Bumped at every process start; a handle from another generation is stale.
        self.generation = 0
        self._repl: LeanRepl | None = None
        self._headers: dict[str, int] = {}
        self._lake_env: dict[str, str] | None = None

    @property
    def pid(self) -> int | None:
        """The pid of the live REPL process, if any (tests use it)."""
        return self._repl.pid if self._repl is not None else None

    @property
    def requests(self) -> int:
        """Requests sent to the current process."""
        return self._repl.requests if self._repl is not None else 0

    def new_process(self) -> LeanRepl:
        """A fresh REPL process, not this object's (the re-check runs in its own)."""
        command = self.config.command
        env: dict[str, str] | None = None
        if self.config.resolve_lake_env and is_lake_env(command):
            if self._lake_env is None:
                self._lake_env = lake_environment(
                    command[:2], self.config.project_dir, self.config.header_timeout
                )
            command, env = command[2:], self._lake_env
        return LeanRepl(
            command, cwd=self.config.project_dir, memory_limit=self.config.memory_limit, env=env
        )

    def begin(self) -> None:
        """Start a process unless one is live: call once at the start of an operation."""
        if self._repl is not None and not self._repl.alive():
            self.restart()
        if self._repl is None:
            repl = self.new_process()
            if self.generation:
                self.stats.restarts += 1
            self.generation += 1
            self._repl = repl
            self._headers = {}

    def restart(self) -> None:
        """Kill the process; the next operation starts a fresh one."""
        if self._repl is not None:
            self._repl.close()
            self._repl = None
        self._headers = {}

    def close(self) -> None:
        self.restart()

    def recycle_if_due(self) -> None:
        """Kill the process after ``recycle_after`` requests (its memory only grows)."""
        limit = self.config.recycle_after
        if limit and self._repl is not None and self._repl.requests >= limit:
            self.restart()

    def request(self, request: Request, timeout: float | None) -> Reply:
        """One request to the current process; any failure kills it and is raised.

        It never starts a process: ids from one operation (a header's environment, a
        replayed state) must not be sent to another process. Operations call
        :meth:`begin` once, at their start.
        """
        repl = self._repl
        if repl is None:
            raise ReplDied("the REPL was stopped during the operation")
        start = time.perf_counter()
        try:
            return repl.request(request, timeout)
        except ReplError:
            self.restart()
            raise
        finally:
            self.stats.prover_seconds += time.perf_counter() - start

    def _header_env(self, header: str) -> int | None:
        """The environment of ``header`` in the current process (run once per process)."""
        if not header.strip():
            return None
        env = self._headers.get(header)
        if env is not None:
            return env
        try:
            reply = self.request(CommandRequest(cmd=header), self.config.header_timeout)
        except ReplTimeout:
            raise EnvError(
                f"the header took more than {self.config.header_timeout:g} s"
                " (raise header_timeout; a cold `import Mathlib` can take minutes)"
            ) from None
        if not isinstance(reply, CommandReply):
            raise EnvError(f"the REPL refused the header: {reply_message(reply)}")
        if reply.errors:
            raise EnvError(f"the header failed: {reply.errors[0].data}")
        self._headers[header] = reply.env
        return reply.env

    def open_root(self, header: str, command: str) -> tuple[int, str]:
        """Run ``statement sorry`` in the header's environment: (proof state, goal)."""
        env = self._header_env(header)
        try:
            request = CommandRequest(cmd=command, env=env)
            reply = self.request(request, self.config.statement_timeout)
        except ReplTimeout:
            raise EnvError(
                f"the statement took more than {self.config.statement_timeout:g} s"
            ) from None
        if not isinstance(reply, CommandReply):
            raise EnvError(f"the REPL refused the statement: {reply_message(reply)}")
        if reply.errors:
            raise EnvError(f"the statement was rejected: {reply.errors[0].data}")
        if len(reply.sorries) != 1 or reply.sorries[0].proofState is None:
            raise EnvError(
                f"expected one `sorry` with a proof state, got {len(reply.sorries)}"
                " (does the statement itself contain `sorry`?)"
            )
        return reply.sorries[0].proofState, reply.sorries[0].goal


def reply_message(reply: Reply) -> str:
    return reply.message if isinstance(reply, ErrorReply) else repr(reply)[:300]
