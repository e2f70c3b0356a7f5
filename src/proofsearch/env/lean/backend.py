"""The Lean 4 backend: :class:`LeanProver` and its sessions, over one REPL process.

Unlike coqidetop, the REPL keeps every environment and proof state it ever made, under
ids that only grow: any state can be extended at any time, so branching is free and a
node's handle is just ``(generation, proofState)``. The ids die with the process. After
a restart (death, timeout, recycling) the generation changes and a session rebuilds the
states the search still asks for by replaying their tactic paths from the root, reusing
the longest prefix already rebuilt, and checking that the replay reached the same goals.

A header (imports, opens) is run once per process, as a new environment, and every
theorem with that header is opened in it: ``{"cmd": statement + " sorry", "env": H}``,
whose only ``sorry`` gives the root proof state.
"""

from __future__ import annotations

import hashlib
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, ClassVar

from pydantic import TypeAdapter, ValidationError

from proofsearch.env.base import (
    CheckResult,
    EnvError,
    Outcome,
    ProofSession,
    ProofState,
    Proved,
    Prover,
    ProverStats,
    TacticError,
    TacticTimeout,
)
from proofsearch.env.lean.checker import (
    NATIVE_AXIOMS,
    STANDARD_AXIOMS,
    CheckLimits,
    check_whole_proof,
)
from proofsearch.env.lean.guard import (
    DEFAULT_ALLOWED_OPTIONS,
    GuardPolicy,
    TacticRejected,
    check_tactic,
)
from proofsearch.env.lean.protocol import (
    CommandReply,
    CommandRequest,
    ErrorReply,
    Reply,
    Request,
    TacticReply,
    TacticRequest,
)
from proofsearch.env.lean.repl import (
    LeanRepl,
    ReplDied,
    ReplError,
    ReplStartError,
    ReplTimeout,
    is_lake_env,
    lake_environment,
)
from proofsearch.env.lean.statements import sorry_command
from proofsearch.theorem import Theorem

#: The REPL built next to the Lake project (``../repl``), run inside the project's
#: environment so that it sees the project's (and Mathlib's) ``.olean`` files.
DEFAULT_REPL_COMMAND = "lake env ../repl/.lake/build/bin/repl"


@dataclass(frozen=True)
class LeanConfig:
    """Options of the Lean backend (plain values, so they travel to Ray actors)."""

    #: Command line that starts the REPL (split with :func:`shlex.split`), run in
    #: ``project_dir``.
    repl_command: str = DEFAULT_REPL_COMMAND
    #: Working directory of the REPL: the Lake project whose modules the theorems import.
    project_dir: str | None = None
    #: When ``repl_command`` is ``lake env PROGRAM ...``: read lake's environment once and
    #: start PROGRAM directly, so that the REPL is our child (killed with us, even by
    #: SIGKILL) and restarts skip lake. False: run the command as given.
    resolve_lake_env: bool = True
    #: Default wall-clock limit of one tactic, in seconds; past it the process is killed.
    tactic_timeout: float = 10.0
    #: Limit for opening a statement (``statement := by sorry``) and small commands.
    statement_timeout: float = 60.0
    #: Limit for running a header (``import Mathlib`` takes minutes on a cold cache).
    header_timeout: float = 600.0
    #: Limit for the whole-proof command of the re-check.
    check_timeout: float = 300.0
    #: Address-space cap of each REPL process in MiB (``import Mathlib`` needs ~9 GB);
    #: 0 disables it.
    memory_limit_mb: int = 16384
    #: Restart the process after this many requests (the REPL keeps every state it made,
    #: so its memory only grows); 0: never.
    recycle_after: int = 2000
    #: Accept ``native_decide`` / ``decide +native`` and the axioms they add.
    allow_native_decide: bool = False
    #: Axioms a proof may rest on (besides those a theorem lists in ``allowed_axioms``).
    allowed_axioms: tuple[str, ...] = STANDARD_AXIOMS
    #: Words added to / taken out of the tactic deny-list.
    denied_words: tuple[str, ...] = ()
    allowed_words: tuple[str, ...] = ()
    #: Options a tactic may set with ``set_option NAME VALUE in`` (never ``debug.*``).
    allowed_options: tuple[str, ...] = DEFAULT_ALLOWED_OPTIONS
    #: Longest tactic accepted, in characters.
    max_tactic_chars: int = 8192

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LeanConfig:
        """Build from plain options (lists become tuples); unknown names are an error."""
        known = {f.name for f in fields(cls)}
        unknown = set(options) - known
        if unknown:
            raise ValueError(
                f"unknown Lean options: {', '.join(sorted(unknown))}"
                f" (known: {', '.join(sorted(known))})"
            )
        converted = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
        try:
            config = TypeAdapter(cls).validate_python(converted)
        except ValidationError as exc:
            raise ValueError(f"invalid Lean options: {exc}") from None
        config.validate()
        return config

    def validate(self) -> None:
        if not self.command:
            raise ValueError("repl_command is empty")
        for name in ("tactic_timeout", "statement_timeout", "header_timeout", "check_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.memory_limit_mb < 0 or self.recycle_after < 0 or self.max_tactic_chars <= 0:
            raise ValueError("memory_limit_mb, recycle_after must be ≥ 0, max_tactic_chars > 0")

    @property
    def command(self) -> list[str]:
        return shlex.split(self.repl_command)

    @property
    def memory_limit(self) -> int | None:
        return self.memory_limit_mb * 1024 * 1024 if self.memory_limit_mb > 0 else None

    def policy(self) -> GuardPolicy:
        return GuardPolicy.build(
            self.denied_words,
            self.allowed_words,
            allow_native_decide=self.allow_native_decide,
            allowed_options=self.allowed_options,
            max_chars=self.max_tactic_chars,
        )


def state_key(goals: Sequence[str]) -> str:
    """Canonical key of a proof state: its goals, in order (identical states merge)."""
    return hashlib.blake2b("\x1e".join(goals).encode(), digest_size=16).hexdigest()


# -- reading tactic replies --------------------------------------------------------------


class StepKind(Enum):
    STATE = "state"
    PROVED = "proved"
    ERROR = "error"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class Step:
    """What one tactic reply means."""

    kind: StepKind
    message: str = ""
    goals: tuple[str, ...] = ()
    proof_state: int | None = None


_HEARTBEATS = ("maximum number of heartbeats", "(deterministic) timeout")


def classify_tactic_reply(reply: Reply) -> Step:
    """Read a reply to ``{"tactic": ..., "proofState": ...}``.

    * a top-level ``message`` (``Lean error: ...``, ``Unknown proof state.``): error;
    * any message of severity ``error`` (an elaboration error comes back as a new state
      with no goals and ``Incomplete: contains sorry``): error, or a timeout when Lean
      ran out of heartbeats;
    * any new ``sorry``: error (the guard refuses ``sorry``; this is the second line);
    * goals left: a new state;
    * no goals: a proof only when ``proofStatus`` is ``Completed`` (the REPL then
      kernel-checked the whole term); ``Incomplete: contains metavariable(s)``,
      ``Error: ...`` (kernel failure) and ``Not verified ...`` are errors.
    """
    if isinstance(reply, ErrorReply):
        return Step(StepKind.ERROR, reply.message)
    if not isinstance(reply, TacticReply):
        return Step(StepKind.ERROR, f"unexpected reply to a tactic: {reply!r}"[:500])
    if reply.errors:
        message = reply.errors[0].data
        kind = StepKind.TIMEOUT if any(h in message for h in _HEARTBEATS) else StepKind.ERROR
        return Step(kind, message)
    if reply.sorries or any("sorry" in m.data for m in reply.messages if m.severity == "warning"):
        return Step(StepKind.ERROR, "the tactic introduced `sorry`")
    if reply.goals:
        return Step(StepKind.STATE, goals=reply.goals, proof_state=reply.proofState)
    if reply.proofStatus == "Completed":
        return Step(StepKind.PROVED, proof_state=reply.proofState)
    return Step(StepKind.ERROR, f"no goals left, but not a proof: {reply.proofStatus}")


class _ReplayFailed(Exception):
    """Rebuilding a state after a restart did not reach the same state."""


def _hint(message: str, config: LeanConfig) -> str:
    lowered = message.lower()
    if "out of memory" in lowered or "bad_alloc" in lowered or "cannot allocate" in lowered:
        return (
            f" (the REPL may have hit its memory cap of {config.memory_limit_mb} MiB:"
            " raise memory_limit_mb)"
        )
    return ""


class LeanProver(Prover):
    """Lean 4 through leanprover-community/repl."""

    name: ClassVar[str] = "lean"

    def __init__(self, config: LeanConfig | None = None) -> None:
        self.config = config or LeanConfig()
        self.config.validate()
        self.policy = self.config.policy()
        self.stats = ProverStats()
        #: Bumped at every process start; a handle from another generation is stale.
        self.generation = 0
        self._repl: LeanRepl | None = None
        self._headers: dict[str, int] = {}
        self._lake_env: dict[str, str] | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LeanProver:
        return cls(LeanConfig.from_options(options))

    # -- process -----------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The pid of the live REPL process, if any (tests use it)."""
        return self._repl.pid if self._repl is not None else None

    @property
    def requests(self) -> int:
        """Requests sent to the current process."""
        return self._repl.requests if self._repl is not None else 0

    def _start(self) -> LeanRepl:
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

    def _process(self) -> LeanRepl:
        if self._repl is not None and not self._repl.alive():
            self._kill()
        if self._repl is None:
            repl = self._start()
            if self.generation:
                self.stats.restarts += 1
            self.generation += 1
            self._repl = repl
            self._headers = {}
        return self._repl

    def _kill(self) -> None:
        if self._repl is not None:
            self._repl.close()
            self._repl = None
        self._headers = {}

    def restart(self) -> None:
        """Kill the process; the next request starts a fresh one."""
        self._kill()

    def close(self) -> None:
        self._kill()

    def _maybe_recycle(self) -> None:
        limit = self.config.recycle_after
        if limit and self._repl is not None and self._repl.requests >= limit:
            self._kill()

    def _request(self, request: Request, timeout: float | None) -> Reply:
        """One request to the current process; any failure kills it and is raised.

        It never starts a process: ids from one operation (a header's environment, a
        replayed state) must not be sent to another process. Operations call
        :meth:`_process` once, at their start.
        """
        repl = self._repl
        if repl is None:
            raise ReplDied("the REPL was stopped during the operation")
        start = time.perf_counter()
        try:
            return repl.request(request, timeout)
        except ReplError:
            self._kill()
            raise
        finally:
            self.stats.prover_seconds += time.perf_counter() - start

    # -- opening -----------------------------------------------------------------

    def _header_env(self, header: str) -> int | None:
        """The environment of ``header`` in the current process (run once per process)."""
        if not header.strip():
            return None
        env = self._headers.get(header)
        if env is not None:
            return env
        try:
            reply = self._request(CommandRequest(cmd=header), self.config.header_timeout)
        except ReplTimeout:
            raise EnvError(
                f"the header took more than {self.config.header_timeout:g} s"
                " (raise header_timeout; a cold `import Mathlib` can take minutes)"
            ) from None
        if not isinstance(reply, CommandReply):
            raise EnvError(f"the REPL refused the header: {_message(reply)}")
        if reply.errors:
            raise EnvError(f"the header failed: {reply.errors[0].data}")
        self._headers[header] = reply.env
        return reply.env

    def _open_root(self, header: str, command: str) -> tuple[int, str]:
        """Run ``statement sorry`` in the header's environment: (proof state, goal)."""
        env = self._header_env(header)
        try:
            request = CommandRequest(cmd=command, env=env)
            reply = self._request(request, self.config.statement_timeout)
        except ReplTimeout:
            raise EnvError(
                f"the statement took more than {self.config.statement_timeout:g} s"
            ) from None
        if not isinstance(reply, CommandReply):
            raise EnvError(f"the REPL refused the statement: {_message(reply)}")
        if reply.errors:
            raise EnvError(f"the statement was rejected: {reply.errors[0].data}")
        if len(reply.sorries) != 1 or reply.sorries[0].proofState is None:
            raise EnvError(
                f"expected one `sorry` with a proof state, got {len(reply.sorries)}"
                " (does the statement itself contain `sorry`?)"
            )
        return reply.sorries[0].proofState, reply.sorries[0].goal

    def open(self, theorem: Theorem) -> LeanSession:
        try:
            command = sorry_command(theorem.statement)
        except ValueError as exc:
            raise EnvError(str(exc)) from None
        self._maybe_recycle()
        failure = ""
        for _ in range(2):
            try:
                self._process()
                proof_state, goal = self._open_root(theorem.header, command)
            except ReplStartError as exc:
                raise EnvError(f"cannot start the Lean REPL: {exc}") from None
            except ReplError as exc:  # died or garbled: once more in a fresh process
                failure = str(exc)
                continue
            root = ProofState((goal,), state_key((goal,)), (), (self.generation, proof_state))
            return LeanSession(self, theorem, command, root)
        raise EnvError(
            f"the Lean REPL failed twice while opening the theorem: {failure}"
            + _hint(failure, self.config)
        )

    # -- tactics and proofs ------------------------------------------------------

    def check_tactic(self, tactic: str) -> str:
        """The normalized tactic, or :class:`TacticRejected`."""
        return check_tactic(tactic, self.policy)

    def check(self, theorem: Theorem, proof: Sequence[str]) -> CheckResult:
        if not proof:
            return CheckResult(False, "empty proof")
        tactics: list[str] = []
        for tactic in proof:
            try:
                tactics.append(self.check_tactic(tactic))
            except TacticRejected as exc:
                return CheckResult(False, f"tactic {tactic!r} rejected: {exc}")
        allowed = set(self.config.allowed_axioms)
        allowed.update(theorem.extra.get("allowed_axioms") or ())
        if self.config.allow_native_decide:
            allowed.update(NATIVE_AXIOMS)
        limits = CheckLimits(
            self.config.header_timeout, self.config.check_timeout, self.config.statement_timeout
        )
        start = time.perf_counter()
        try:
            return check_whole_proof(
                self._start,
                theorem.header,
                theorem.statement,
                tactics,
                limits=limits,
                allowed_axioms=allowed,
            )
        finally:
            self.stats.prover_seconds += time.perf_counter() - start


def _message(reply: Reply) -> str:
    return reply.message if isinstance(reply, ErrorReply) else repr(reply)[:300]


class LeanSession(ProofSession):
    """One theorem opened in a :class:`LeanProver`."""

    def __init__(
        self, prover: LeanProver, theorem: Theorem, command: str, root: ProofState
    ) -> None:
        self.prover = prover
        self.theorem = theorem
        self.command = command
        self.root = root
        #: Proof-state ids by tactic path, valid in process generation ``_generation``.
        self._generation = prover.generation
        self._ids: dict[tuple[str, ...], int] = {(): root.handle[1]}

    def close(self) -> None:
        """Forget the ids (the REPL keeps its states; the process stays for reuse)."""
        self._ids = {}
        self._generation = -1

    def apply(self, state: ProofState, tactic: str, timeout: float | None = None) -> Outcome:
        prover = self.prover
        prover.stats.applications += 1
        try:
            text = prover.check_tactic(tactic)
        except TacticRejected as exc:
            return TacticError(f"rejected: {exc}")
        limit = timeout if timeout is not None else prover.config.tactic_timeout
        prover._maybe_recycle()
        failure = ""
        for _ in range(2):
            try:
                proof_state = self._reach(state)
            except _ReplayFailed as exc:
                return TacticError(str(exc))
            except ReplStartError as exc:
                return TacticError(f"cannot restart the Lean REPL: {exc}")
            except ReplTimeout as exc:
                return TacticError(f"replaying the path to this state timed out: {exc}")
            except ReplError as exc:
                failure = str(exc)
                continue
            try:
                reply = prover._request(TacticRequest(tactic=text, proofState=proof_state), limit)
            except ReplTimeout as exc:
                return TacticTimeout(f"{exc}; the REPL was killed")
            except ReplError as exc:  # died or garbled: rebuild and try once more
                failure = str(exc)
                continue
            return self._outcome(state, text, reply)
        return TacticError(
            f"the Lean REPL failed twice on this tactic: {failure}" + _hint(failure, prover.config)
        )

    def _outcome(self, state: ProofState, tactic: str, reply: Reply) -> Outcome:
        step = classify_tactic_reply(reply)
        path = (*state.path, tactic)
        if step.kind is StepKind.STATE:
            assert step.proof_state is not None
            if self._generation == self.prover.generation:
                self._ids[path] = step.proof_state
            handle = (self.prover.generation, step.proof_state)
            return ProofState(step.goals, state_key(step.goals), path, handle)
        if step.kind is StepKind.PROVED:
            return Proved(path)
        if step.kind is StepKind.TIMEOUT:
            return TacticTimeout(step.message)
        return TacticError(step.message)

    def _reach(self, state: ProofState) -> int:
        """The id of ``state`` in the live process, replaying its path if needed."""
        prover = self.prover
        prover._process()
        handle = state.handle
        if isinstance(handle, tuple) and len(handle) == 2 and handle[0] == prover.generation:
            return int(handle[1])
        if self._generation != prover.generation:
            self._ids = {}
            self._generation = prover.generation
        known = self._ids.get(state.path)
        if known is not None:
            return known
        if () not in self._ids:
            try:
                root_id, goal = prover._open_root(self.theorem.header, self.command)
            except EnvError as exc:
                raise _ReplayFailed(f"reopening the theorem after a restart failed: {exc}") from exc
            if state_key((goal,)) != self.root.key:
                raise _ReplayFailed("after a restart the statement opened a different goal")
            self._ids[()] = root_id
        path = state.path
        done = len(path)
        while path[:done] not in self._ids:
            done -= 1
        proof_state = self._ids[path[:done]]
        replay_limit = 2 * prover.config.tactic_timeout
        for index in range(done, len(path)):
            reply = prover._request(
                TacticRequest(tactic=path[index], proofState=proof_state), replay_limit
            )
            step = classify_tactic_reply(reply)
            if step.kind is not StepKind.STATE or step.proof_state is None:
                raise _ReplayFailed(
                    f"replaying tactic {index + 1} of the path ({path[index]!r}) failed:"
                    f" {step.message or step.kind.value}"
                )
            proof_state = step.proof_state
            self._ids[path[: index + 1]] = proof_state
            if index == len(path) - 1 and state_key(step.goals) != state.key:
                raise _ReplayFailed("replaying the path reached a different state")
        return proof_state
