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

The process, its generation and its header environments belong to a
:class:`~proofsearch.env.lean.live.LiveRepl`; the prover composes it with the guard and
the whole-proof re-check, and each session keeps the ids of the states it made.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Self

from proofsearch.env.base import (
    GUARD_REFUSAL,
    CheckResult,
    EnvError,
    Outcome,
    ProofSession,
    ProofState,
    Proved,
    Prover,
    ProverStartError,
    ProverStats,
    TacticError,
    TacticTimeout,
)
from proofsearch.env.lean.checker import NATIVE_AXIOMS, CheckLimits, check_whole_proof
from proofsearch.env.lean.config import LeanConfig
from proofsearch.env.lean.guard import TacticRejected, check_tactic
from proofsearch.env.lean.live import LiveRepl
from proofsearch.env.lean.protocol import ErrorReply, Reply, TacticReply, TacticRequest
from proofsearch.env.lean.repl import ReplDied, ReplError, ReplStartError, ReplTimeout
from proofsearch.env.lean.statements import sorry_command
from proofsearch.theorem import Theorem


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
        self.repl = LiveRepl(self.config, self.stats)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        return cls(LeanConfig.from_options(options))

    @property
    def pid(self) -> int | None:
        """The pid of the live REPL process, if any (tests use it)."""
        return self.repl.pid

    @property
    def requests(self) -> int:
        """Requests sent to the current process."""
        return self.repl.requests

    @property
    def generation(self) -> int:
        """The number of the current process; a handle from another one is stale."""
        return self.repl.generation

    def start(self) -> None:
        """Start the REPL now (a run's preflight); raises ProverStartError if it cannot."""
        try:
            self.repl.begin()
        except ReplStartError as exc:
            raise ProverStartError(f"cannot start the Lean REPL: {exc}") from None

    def restart(self) -> None:
        """Kill the process; the next request starts a fresh one."""
        self.repl.restart()

    def close(self) -> None:
        self.repl.close()

    def open(self, theorem: Theorem) -> LeanSession:
        try:
            command = sorry_command(theorem.statement)
        except ValueError as exc:
            raise EnvError(str(exc)) from None
        self.repl.recycle_if_due()
        failure = ""
        died_at_once = 0  # fresh processes that died on their first request
        for _ in range(2):
            fresh = False
            try:
                self.repl.begin()
                fresh = self.requests == 0
                proof_state, goal = self.repl.open_root(theorem.header, command)
            except ReplStartError as exc:
                raise ProverStartError(f"cannot start the Lean REPL: {exc}") from None
            except ReplError as exc:  # died or garbled: once more in a fresh process
                failure = str(exc)
                died_at_once += fresh and isinstance(exc, ReplDied)
                continue
            root = ProofState((goal,), state_key((goal,)), (), (self.generation, proof_state))
            return LeanSession(self, theorem, command, root)
        # A REPL that never answers anything is a setting's fault, not the theorem's.
        error = ProverStartError if died_at_once == 2 else EnvError
        raise error(
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
                self.repl.new_process,
                theorem.header,
                theorem.statement,
                tactics,
                limits=limits,
                allowed_axioms=allowed,
            )
        finally:
            self.stats.prover_seconds += time.perf_counter() - start


class LeanSession(ProofSession):
    """One theorem opened in a :class:`LeanProver`."""

    def __init__(
        self, prover: LeanProver, theorem: Theorem, command: str, root: ProofState
    ) -> None:
        self.prover = prover
        self.repl = prover.repl
        self.theorem = theorem
        self.command = command
        self.root = root
        #: Proof-state ids by tactic path, valid in process generation ``_generation``.
        self._generation = prover.repl.generation
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
            return TacticError(f"{GUARD_REFUSAL}{exc}")
        limit = timeout if timeout is not None else prover.config.tactic_timeout
        self.repl.recycle_if_due()
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
                request = TacticRequest(tactic=text, proofState=proof_state)
                reply = self.repl.request(request, limit)
            except ReplTimeout as exc:
                return TacticTimeout(f"{exc}; the REPL was killed", killed=True)
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
            if self._generation == self.repl.generation:
                self._ids[path] = step.proof_state
            handle = (self.repl.generation, step.proof_state)
            return ProofState(
                step.goals, state_key(step.goals), path, handle, goal_count=len(step.goals)
            )
        if step.kind is StepKind.PROVED:
            return Proved(path)
        if step.kind is StepKind.TIMEOUT:
            return TacticTimeout(step.message)
        return TacticError(step.message)

    def _reach(self, state: ProofState) -> int:
        """The id of ``state`` in the live process, replaying its path if needed."""
        repl = self.repl
        repl.begin()
        handle = state.handle
        if isinstance(handle, tuple) and len(handle) == 2 and handle[0] == repl.generation:
            return int(handle[1])
        if self._generation != repl.generation:
            self._ids = {}
            self._generation = repl.generation
        known = self._ids.get(state.path)
        if known is not None:
            return known
        if () not in self._ids:
            try:
                root_id, goal = repl.open_root(self.theorem.header, self.command)
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
        replay_limit = 2 * self.prover.config.tactic_timeout
        for index in range(done, len(path)):
            reply = repl.request(
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
