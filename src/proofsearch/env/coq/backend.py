"""The Coq backend: :class:`CoqProver` and its sessions, over one coqidetop process.

The prover composes a :class:`~proofsearch.env.coq.line.CoqLine` (the process and the
line of sentences it has run) with the header and guard caches and the ``coqc``
re-check. A session reaches a search node by asking the line for the node's sentences
(header, statement, path): only the sentences past the longest common prefix are run.

Siblings are cheap: every candidate tactic of an expansion is sent in one write as
``Add``/``Goal``/``Edit_at`` triples. A tactic that hangs past its limit, a dead process
or an anomaly costs a restart; the line is rebuilt on demand, and the search goes on.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
    ProverStats,
    TacticError,
    TacticTimeout,
)
from proofsearch.env.coq import xml
from proofsearch.env.coq.checker import FIRST_GOAL, check_proof, statement_name
from proofsearch.env.coq.data_probe import DATA_PROBE, DATA_REASON, NOT_PROPOSITION
from proofsearch.env.coq.guard import TacticRejected, check_tactic
from proofsearch.env.coq.header_load import load_sentences
from proofsearch.env.coq.idetop import Call, CallsInterrupted, Reply, ReplyTimeout
from proofsearch.env.coq.line import BOOKKEEPING_TIMEOUT, CoqLine, LineBroken
from proofsearch.env.coq.obligations import obligation_statement
from proofsearch.env.coq.sentences import SentenceError, split_sentences
from proofsearch.theorem import Theorem


@dataclass(frozen=True)
class CoqConfig:
    """Options of the Coq backend (all plain values, so they travel to Ray actors)."""

    binary: str = "coqidetop.opt"
    coqc: str = "coqc"
    #: Extra arguments for coqidetop and coqc, e.g. ``("-R", "theories", "MyLib")``.
    args: tuple[str, ...] = ()
    cwd: str | None = None
    #: Per-tactic limit, passed to Coq as ``Timeout N`` (whole seconds, at least 1). 2 s,
    #: not 5: in a 20 s search a few slow automation calls (``firstorder``, ``nia``) at
    #: 5 s each spent the budget of whole searches (docs/generators.md, "Schedule").
    tactic_timeout: float = 2.0
    #: Extra wall-clock seconds before a tactic that ignores ``Timeout`` gets its
    #: process killed.
    kill_grace: float = 3.0
    #: Address-space cap of each Coq process, in MiB (``vm_compute`` on a big term
    #: otherwise eats the machine).
    memory_limit_mb: int = 4096
    #: Time limit of the from-scratch ``coqc`` re-check (``proofsearch search`` sets it
    #: from ``--timeout``, see ``--check-timeout``); also the ``Qed``'s limit in a
    #: session without a deadline.
    check_timeout: float = 300.0
    #: Axioms a proof may rest on (besides those listed per theorem).
    allowed_axioms: tuple[str, ...] = ()
    #: Every theorem's proof may rest on any axiom its header loads, as the theorem
    #: field ``any_axiom`` says for one (``--any-axiom``: a theorem file over the Reals,
    #: whose proofs rest on the Reals' own axioms, needed one ``--allow-axiom`` each).
    any_axiom: bool = False
    #: Words added to / taken out of the tactic deny-list.
    denied_words: tuple[str, ...] = ()
    allowed_words: tuple[str, ...] = ()
    #: Printing width, wide so that a goal comes on few lines.
    printing_width: int = 1000
    #: Run a Coq outside the supported versions (with a warning) instead of refusing it.
    allow_unsupported_version: bool = False

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CoqConfig:
        """Build from plain options (lists become tuples); unknown names are an error."""
        unknown = set(options) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown Coq options: {', '.join(sorted(unknown))}")
        converted: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in options.items()
        }
        return cls(**converted)

    @property
    def memory_limit(self) -> int | None:
        return self.memory_limit_mb * 1024 * 1024 if self.memory_limit_mb > 0 else None


def header_suffix(theorem: Theorem) -> str:
    """What runs after the theorem's header (CoqHammer's import, added by ``search
    --hammer-tactics``): in the session, and in the re-check with its leak check."""
    return str(theorem.extra.get("header_suffix") or "").strip()


def _focused_goals(reply: Reply) -> tuple[str, ...]:
    """The focused goals of a ``Goal`` reply as text (parsed only when someone asks)."""
    goals = xml.parse_goals(reply.value)
    return tuple(g.render() for g in goals.focused) if goals else ()


def _is_timeout(message: str) -> bool:
    return message.strip().rstrip("!.").lower() in {"timeout", "tactic timeout"}


def _is_fatal(message: str) -> bool:
    """Messages after which the process is not trusted any more: it ran out of memory.

    An anomaly is not one. It is an exception a tactic raised (``firstorder``'s
    "decompose_prod_n_assum: not enough declarations" on math-comp's structures);
    coqidetop reports it as that sentence's error, as CoqIDE shows it, and the batch's
    ``Edit_at`` drops the failed state. Restarting for it cost a whole header replay
    each time (5 s in math-comp's ``order.v``, several times in one 20 s search), and
    a proof found afterwards is re-checked from scratch like any other.
    """
    return "Out of memory" in message


class HeaderFailed(EnvError):
    """A sentence of the theorem's header failed (the message names it)."""


class CoqProver(Prover):
    """Coq 8.16-8.20 and Rocq 9.0-9.2 through coqidetop's XML protocol."""

    name: ClassVar[str] = "coq"

    def __init__(self, config: CoqConfig | None = None) -> None:
        self.config = config or CoqConfig()
        self.stats = ProverStats()
        self.line = CoqLine(
            self.stats,
            binary=self.config.binary,
            args=self.config.args,
            memory_limit=self.config.memory_limit,
            cwd=self.config.cwd,
            printing_width=self.config.printing_width,
            allow_unsupported_version=self.config.allow_unsupported_version,
        )
        self._header_cache: dict[str, tuple[str, ...]] = {}
        self._guard_cache: dict[str, str | TacticRejected] = {}
        #: (scratch folder, header) → the header as the line runs it (see ``header_load``);
        #: a header whose loaded form failed maps to itself.
        self._loaded_cache: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Self:
        return cls(CoqConfig.from_options(options))

    @property
    def pid(self) -> int | None:
        """The pid of the live coqidetop, if any (tests use it to kill it)."""
        return self.line.pid

    def start(self) -> None:
        """Start coqidetop now (a run's preflight); raises ProverStartError if it cannot."""
        self.line.start()

    def restart(self) -> None:
        """Kill the process; the next call starts a fresh one and rebuilds the line."""
        self.line.restart()

    def close(self) -> None:
        self.line.close()

    # -- the interface -----------------------------------------------------------

    def header_sentences(self, header: str) -> tuple[str, ...]:
        """The header split into sentences (cached: many theorems share a header)."""
        cached = self._header_cache.get(header)
        if cached is None:
            try:
                cached = tuple(s.text for s in split_sentences(header))
            except SentenceError as exc:
                raise EnvError(f"cannot split the header: {exc}") from None
            self._header_cache[header] = cached
        return cached

    def open(self, theorem: Theorem) -> CoqSession:
        header = self.header_sentences(theorem.header) + self.header_sentences(
            header_suffix(theorem)
        )
        try:
            statement = [s.text for s in split_sentences(theorem.statement)]
        except SentenceError as exc:
            raise EnvError(f"cannot read the statement: {exc}") from None
        if len(statement) != 1:
            raise EnvError("the statement must be exactly one sentence ending in '.'")
        if statement_name(statement[0]) is None and obligation_statement(statement[0]) is None:
            raise EnvError(
                "the statement must declare a theorem (Theorem/Lemma/... NAME : TYPE.)"
                " or open a Program obligation (Next Obligation.)"
            )
        folder = self.line.scratch("header")
        key = (str(folder), header)
        loaded = self._loaded_cache.get(key)
        if loaded is None:
            loaded = tuple(load_sentences(header, folder))
            if len(self._loaded_cache) > 1000:
                self._loaded_cache.clear()
            self._loaded_cache[key] = loaded
        try:
            return self._open(theorem, loaded, statement[0])
        except HeaderFailed:
            if loaded == header:
                raise
        # A sentence inside a loaded file failed: run them one by one, to say which (and
        # to open the theorem all the same should only Load have refused them).
        self._loaded_cache[key] = header
        return self._open(theorem, header, statement[0])

    def _open(self, theorem: Theorem, header: Sequence[str], statement: str) -> CoqSession:
        prefix = (*header, FIRST_GOAL, statement)
        timeouts = [None] * len(prefix)
        for attempt in range(2):
            try:
                self.line.reach(prefix, timeouts)
                break
            except LineBroken as exc:
                if exc.index < len(header):
                    raise HeaderFailed(
                        f"header sentence {exc.index + 1} failed: {exc.message}"
                        f" (sentence: {header[exc.index][:200]!r})"
                    ) from None
                raise EnvError(f"statement rejected: {exc.message}") from None
            except (ReplyTimeout, CallsInterrupted) as exc:
                self.restart()
                if attempt:
                    raise EnvError(f"coqidetop failed while opening: {exc}") from None
        goals, goals_key = self._goals()
        if goals is None:
            raise EnvError("the statement did not open a proof")
        root = ProofState(tuple(g.render() for g in goals.focused), goals_key, ())
        session = CoqSession(self, theorem, prefix, root)
        if theorem.extra.get("propositions_only"):
            proposition = not _succeeds(session.apply(root, NOT_PROPOSITION))
            if not proposition and _succeeds(session.apply(root, DATA_PROBE)):
                raise EnvError(DATA_REASON)
            session.facts = {"proposition": proposition}
        return session

    def _goals(self) -> tuple[xml.Goals | None, str]:
        reply = self.line.calls([Call(xml.goal_call(), BOOKKEEPING_TIMEOUT)])[0]
        if not reply.good:
            raise EnvError(f"Goal failed: {reply.message}")
        return xml.parse_goals(reply.value), xml.goals_key(reply.element.raw) or ""

    def check(self, theorem: Theorem, proof: Sequence[str]) -> CheckResult:
        allowed = list(self.config.allowed_axioms)
        allowed += list(theorem.extra.get("allowed_axioms") or [])
        for tactic in proof:
            try:
                self.check_tactic(tactic)
            except TacticRejected as exc:
                return CheckResult(False, f"tactic {tactic!r} rejected: {exc}")
        return check_proof(
            theorem.header,
            theorem.statement,
            proof,
            coqc=self.config.coqc,
            args=self.config.args,
            timeout=self.config.check_timeout,
            memory_limit=self.config.memory_limit,
            allowed_axioms=allowed,
            footer=str(theorem.extra.get("footer") or ""),
            name=theorem.extra.get("qualid") or None,
            header_suffix=header_suffix(theorem),
            any_axiom=self.config.any_axiom or bool(theorem.extra.get("any_axiom")),
            functor_parameters=tuple(theorem.extra.get("functor_parameters") or ()),
            in_place=bool(theorem.extra.get("check_in_place")),
            proof_using=str(theorem.extra.get("proof_using") or ""),
        )

    def check_tactic(self, tactic: str) -> str:
        """The guard's verdict, remembered: a portfolio proposes the same tactics again and
        again, and a model repeats itself too."""
        verdict = self._guard_cache.get(tactic)
        if verdict is None:
            try:
                verdict = check_tactic(tactic, self.config.denied_words, self.config.allowed_words)
            except TacticRejected as exc:
                verdict = exc
            if len(self._guard_cache) > 100_000:
                self._guard_cache.clear()
            self._guard_cache[tactic] = verdict
        if isinstance(verdict, TacticRejected):
            raise verdict
        return verdict

    def tactic_limit(self, timeout: float | None) -> int:
        return max(1, math.ceil(timeout if timeout is not None else self.config.tactic_timeout))


def _succeeds(outcome: Outcome) -> bool:
    return isinstance(outcome, ProofState | Proved)


def batch_before(pending: list[int], limit: int, left: float | None) -> tuple[list[int], int]:
    """The tactics to send to coqidetop in one pipelined write, and their limit in
    seconds, with ``left`` seconds to the deadline: all of them without a deadline;
    otherwise as many as can each run to the limit in the time left (at least one, its
    limit cut to the time left), none once the deadline has passed. Sent calls cannot be
    taken back, so this keeps a search from running past its deadline by more than about
    one tactic's limit.
    """
    if left is None:
        return pending, limit
    if left <= 0:
        return [], limit
    count = max(1, int(left // limit))
    return pending[:count], min(limit, max(1, math.ceil(left)))


class CoqSession(ProofSession):
    """One theorem opened in a :class:`CoqProver`."""

    def __init__(
        self, prover: CoqProver, theorem: Theorem, prefix: tuple[str, ...], root: ProofState
    ) -> None:
        self.prover = prover
        self.line = prover.line
        self.theorem = theorem
        self.prefix = prefix
        self.root = root

    def apply(self, state: ProofState, tactic: str, timeout: float | None = None) -> Outcome:
        return self.apply_all(state, [tactic], timeout)[0]

    def apply_all(
        self,
        state: ProofState,
        tactics: Sequence[str],
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> list[Outcome]:
        prover = self.prover
        limit = prover.tactic_limit(timeout)
        outcomes: dict[int, Outcome] = {}
        sentences: dict[int, str] = {}
        for index, tactic in enumerate(tactics):
            try:
                sentences[index] = prover.check_tactic(tactic)
            except TacticRejected as exc:
                outcomes[index] = TacticError(f"{GUARD_REFUSAL}{exc}")
        pending = [i for i in range(len(tactics)) if i not in outcomes]
        attempts = 0
        crashes: dict[int, int] = {}
        while pending:
            left = None if deadline is None else deadline - time.perf_counter()
            batch, batch_limit = batch_before(pending, limit, left)
            if not batch:
                break
            done = self._run_batch(state, batch, sentences, batch_limit, outcomes, crashes)
            pending = [i for i in pending if i not in outcomes]
            if not done:
                attempts += 1
                if attempts > 3 + len(tactics):
                    for i in pending:
                        outcomes[i] = TacticError("coqidetop keeps failing")
                    break
        ran = next((i for i in range(len(tactics)) if i not in outcomes), len(tactics))
        prover.stats.applications += ran
        return [outcomes[i] for i in range(ran)]

    def _node_line(self, state: ProofState) -> list[str]:
        return [*self.prefix, *(self._wrap(t, None) for t in state.path)]

    def _wrap(self, tactic: str, limit: int | None) -> str:
        """``Timeout N (TACTIC ).``: the blank before ``)`` keeps a tactic that ends in
        ``*`` (ssreflect's ``case: n => [|n] in H *``) from making the ``*)`` token."""
        return f"Timeout {limit or self.prover.tactic_limit(None)} ({tactic} )."

    def _reach(self, state: ProofState) -> int:
        """Make ``state`` the tip (replaying its path) and return its state id."""
        line = self._node_line(state)
        guard = self.prover.config.tactic_timeout + self.prover.config.kill_grace
        timeouts = [None] * len(self.prefix) + [guard] * len(state.path)
        return self.line.reach(line, timeouts)

    def _run_batch(
        self,
        state: ProofState,
        pending: list[int],
        sentences: dict[int, str],
        limit: int,
        outcomes: dict[int, Outcome],
        crashes: dict[int, int],
    ) -> bool:
        """Run the pending tactics as one pipelined batch; False if it had to stop early."""
        prover = self.prover
        try:
            tip = self._reach(state)
        except LineBroken as exc:
            message = "replaying the path " + ("timed out" if exc.timed_out else "failed")
            for i in pending:
                outcomes[i] = TacticError(f"{message}: {exc.message}")
            return True
        except (ReplyTimeout, CallsInterrupted):
            prover.restart()
            return False
        guard = limit + prover.config.kill_grace
        calls: list[Call] = []
        for i in pending:
            calls += [
                Call(xml.add_call(self._wrap(sentences[i], limit), tip), BOOKKEEPING_TIMEOUT),
                Call(xml.goal_call(), guard),
                Call(xml.edit_at_call(tip), BOOKKEEPING_TIMEOUT),
            ]
        try:
            replies = self.line.calls(calls)
        except (ReplyTimeout, CallsInterrupted) as exc:
            replies = exc.replies
            stopped_at = len(replies) // 3
            self._read_replies(state, pending[:stopped_at], sentences, replies, outcomes)
            culprit = pending[stopped_at]
            if isinstance(exc, ReplyTimeout) and exc.index % 3 == 1:
                outcomes[culprit] = TacticTimeout(
                    f"no answer within {guard:g} s; process killed", killed=True
                )
            else:
                # The process died under this tactic: run it once more in a fresh process
                # (it may have been killed from outside); a second death is its own doing.
                crashes[culprit] = crashes.get(culprit, 0) + 1
                if crashes[culprit] >= 2:
                    outcomes[culprit] = TacticError(f"coqidetop died twice running it: {exc}")
            prover.restart()
            return False
        finished = self._read_replies(state, pending, sentences, replies, outcomes)
        for i in finished:
            outcomes[i] = self._close_proof(state, sentences[i], limit)
        return True

    def _read_replies(
        self,
        state: ProofState,
        pending: Iterable[int],
        sentences: dict[int, str],
        replies: list[Reply],
        outcomes: dict[int, Outcome],
    ) -> list[int]:
        """Turn (Add, Goal, Edit_at) reply triples into outcomes; list the finished ones.

        The process is restarted when it ran out of memory, or refused an ``Edit_at``
        back to the tip (it is then somewhere the line does not know).
        """
        finished: list[int] = []
        fatal = False
        for k, i in enumerate(pending):
            add, goal = replies[3 * k], replies[3 * k + 1]
            if 3 * k + 2 < len(replies) and not replies[3 * k + 2].good:
                fatal = True
            if not add.good:
                outcomes[i] = TacticError(add.message)
                continue
            if not goal.good:
                message = goal.message
                if _is_timeout(message):
                    outcomes[i] = TacticTimeout(message)
                else:
                    outcomes[i] = TacticError(message)
                fatal = fatal or _is_fatal(message)
                continue
            key = xml.goals_key(goal.element.raw)
            if key is None:
                outcomes[i] = TacticError("the tactic closed the proof mode")
            elif xml.goals_empty(goal.element.raw):
                finished.append(i)
            else:
                outcomes[i] = ProofState(
                    functools.partial(_focused_goals, goal),
                    key,
                    (*state.path, sentences[i]),
                    goal_count=xml.goal_count(goal.element.raw),
                )
        if fatal:
            self.prover.restart()
        return finished

    def qed_limit(self, limit: int) -> int:
        """Whole seconds ``Qed`` may take: what is left of the theorem's budget, but at
        least the tactic's own limit (a tactic started before the deadline may finish
        after it, and so may its ``Qed``); without a deadline, the re-check's limit.

        ``Qed`` re-types the whole proof term: ``exact_no_check`` and friends return at
        once and leave the real work to it (``slow 26 = true`` took 43 s).
        """
        if self.deadline is None:
            return max(1, math.ceil(self.prover.config.check_timeout))
        return max(limit, math.ceil(self.deadline - time.perf_counter()))

    def _close_proof(self, state: ProofState, sentence: str, limit: int) -> Outcome:
        """All goals are solved: the proof counts only if ``Qed.`` is accepted in time."""
        prover = self.prover
        child = ProofState((), "", (*state.path, sentence))
        qed_limit = self.qed_limit(limit)
        share = "the re-check's limit" if self.deadline is None else "the budget left"
        late = TacticTimeout(
            f"every goal was closed, but Qed did not finish within {qed_limit} s "
            f"({share}): not a proof",
            closing=True,
        )
        try:
            tip = self._reach(child)
            add, goal = self.line.calls(
                [
                    Call(xml.add_call(f"Timeout {qed_limit} Qed.", tip), BOOKKEEPING_TIMEOUT),
                    Call(xml.goal_call(), qed_limit + prover.config.kill_grace),
                ]
            )
        except LineBroken as exc:
            return TacticError(f"replay before Qed failed: {exc.message}")
        except ReplyTimeout as exc:
            prover.restart()
            return late if exc.index == 1 else TacticError(f"Qed did not complete: {exc}")
        except CallsInterrupted as exc:
            prover.restart()
            return TacticError(f"Qed did not complete: {exc}")
        try:
            if not self.line.rewind():
                prover.restart()
        except (ReplyTimeout, CallsInterrupted):
            prover.restart()
        if not add.good:
            return TacticError(f"Qed rejected: {add.message}")
        if not goal.good:
            return (
                late if _is_timeout(goal.message) else TacticError(f"Qed rejected: {goal.message}")
            )
        if xml.parse_goals(goal.value) is not None:
            return TacticError("Qed left a proof open")
        return Proved(child.path)
