"""Tracing one ``.v`` file through coqidetop: its proof steps and its declarations.

The file is sent sentence by sentence, each ``Add`` followed by a ``Goal``, in
pipelined batches (one write, replies read in order; state ids are predicted, since
coqidetop numbers the states it adds one after the other). The ``Goal`` after each
sentence gives the goals before the next one, so every tactic step gets the goals it
ran on without a second call. A batch ends after a sentence that may declare something
(or ends a proof, or an ``End``): the queries of :mod:`~proofsearch.trace.premises`
about what it declared then run while it is the tip, before anything can shadow them.

A sentence that fails, a process that dies or a file over its time budget stops the
file: it is reported as failed with the line and Coq's message.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from proofsearch.env.base import EnvError
from proofsearch.env.coq import vernac, xml
from proofsearch.env.coq.idetop import Call, CallsInterrupted, CoqIdeTop, Reply, ReplyTimeout
from proofsearch.env.coq.sentences import Sentence, SentenceError, split_sentences
from proofsearch.trace.declarations import About, announced_names
from proofsearch.trace.goals import goal
from proofsearch.trace.premises import Place, PremiseCollector
from proofsearch.trace.schema import FileError, Goal, Premise, ProofStep

#: Sentences per pipelined batch when no declaration ends it earlier.
BATCH = 64
_STRUCTURE = re.compile(r"^(?:-+|\++|\*+|\{|\}|(?:\d+|\[\s*[\w']+\s*\])\s*:\s*\{)$")
#: Sentences after which the batch ends, besides declarations: what the queries that
#: follow must see as the tip.
_BOUNDARY_WORDS = frozenset({"End", "Proof", "Add", "Obligation", "Existing", "Module", "Include"})
#: Commands whose ``x is defined`` announcements are not about constants.
_NOT_CONSTANTS = frozenset(
    {"Ltac", "Ltac2", "Tactic", "Notation", "Infix", "Reserved", "Module", "Section",
     "End", "Require", "Import", "Export", "Hint", "Create", "Declare"}
)  # fmt: skip

#: ``Redirect "file"`` before a command, after optional control prefixes and comments.
#: The replay runs the command without it: in coqidetop the command's output goes to the
#: feedback channel, so a redirect there emptied the file that ``make`` wrote in the
#: project (a dry run's trace did; audit 44). The file is the user's, not the trace's.
_REDIRECT = re.compile(
    r"""^((?:\s|\(\*.*?\*\))*(?:(?:Time|Fail|Succeed|Timeout\s+\d+)\s+)*)"""
    r"""Redirect\s+"(?:[^"]|"")*"\s*""",
    re.DOTALL,
)


def replayed(text: str) -> str:
    """The sentence as the trace sends it: its ``Redirect "file"`` left out (the command
    alone is run, its output unread), so that no file of the project is written."""
    return _REDIRECT.sub(r"\1", text, count=1)


class FileFailed(Exception):
    """The file cannot be traced further: ``line`` and Coq's ``message``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class FileTrace:
    """What tracing one file produced (``error`` set when it stopped early)."""

    steps: list[ProofStep] = field(default_factory=list)
    premises: list[Premise] = field(default_factory=list)
    lemmas: int = 0
    error: FileError | None = None
    #: The goals open at each ``Admitted`` (see :attr:`FileRecord.admitted`).
    admitted: dict[str, list[Goal] | None] = field(default_factory=dict)
    #: Each ``Admitted`` proof → its statement's offset (:attr:`FileRecord.admitted_at`).
    admitted_at: dict[str, int] = field(default_factory=dict)


@dataclass
class _Query:
    """An ``About``/``Print`` to ask at the tip, and what to do with the answer."""

    text: str
    done: Callable[[str], None]


@dataclass
class _Proof:
    """An open proof: its statement sentence and the steps recorded so far."""

    sentence: Sentence
    command: vernac.Command
    scope_path: list[str]
    #: Where its premise goes (:meth:`PremiseCollector.place`).
    place: Place
    steps: list[dict[str, object]] = field(default_factory=list)
    #: The name Coq gave the proof, when the statement does not say it.
    given_name: str = ""

    def named(self, conjectures: str) -> None:
        words = conjectures.split()
        self.given_name = words[0] if words else ""


class FileTracer:
    """Trace one file in an already started coqidetop (``-topfile`` set to the file)."""

    def __init__(
        self,
        top: CoqIdeTop,
        path: Path,
        file: str,
        module: str,
        *,
        deadline: float,
    ) -> None:
        self.top = top
        self.text = path.read_text(encoding="utf-8")
        self.file = file
        self.module = module
        self.deadline = deadline
        self.limit = round(deadline - time.monotonic())
        self.result = FileTrace()
        self.scopes = vernac.ScopeStack()
        self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]
        self._queries: list[_Query] = []
        self.premises = PremiseCollector(file, module, self.scopes, self.line_of, self._ask)
        self._proof: _Proof | None = None
        self._structure: list[str] = []
        self._sentences: list[Sentence] = []

    def _ask(self, text: str, done: Callable[[str], None]) -> None:
        """Queue a query for the next batch, while the sentence it is about is the tip."""
        self._queries.append(_Query(text, done))

    # -- positions ------------------------------------------------------------------

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self._line_starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if self._line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1

    def _budget(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    # -- the run ----------------------------------------------------------------------

    def run(self) -> FileTrace:
        try:
            sentences = split_sentences(self.text)
        except SentenceError as exc:
            message = f"cannot split into sentences: {exc}"
            self.result.error = FileError(line=exc.line or 1, message=message)
            return self.result
        self._sentences = sentences
        current = 0
        state = self.top.root_state
        goals_before: xml.Goals | None = None
        try:
            while current < len(sentences) or self._queries:
                queries, self._queries = self._queries, []
                calls = [Call(xml.query_call(q.text, state), self._budget()) for q in queries]
                batch: list[Sentence] = []
                if not queries or not any(q.text.startswith("Print") for q in queries):
                    in_proof = goals_before is not None
                    while current + len(batch) < len(sentences) and len(batch) < BATCH:
                        sentence = sentences[current + len(batch)]
                        batch.append(sentence)
                        if self._ends_batch(vernac.command_of(sentence.text), in_proof):
                            break
                base = state
                for k, sentence in enumerate(batch):
                    add_call = xml.add_call(replayed(sentence.text), base + k, verbose=True)
                    calls.append(Call(add_call, self._budget()))
                    calls.append(Call(xml.goal_call(), self._budget()))
                replies = self._calls(calls, current, len(queries))
                for query, reply in zip(queries, replies, strict=False):
                    query.done(_notice(reply))
                done = 0
                for k, sentence in enumerate(batch):
                    add, run = replies[len(queries) + 2 * k : len(queries) + 2 * k + 2]
                    if state != base + k:
                        # The previous sentence made more than one state (a command with
                        # side effects inside a proof): the rest of the batch was sent on
                        # a wrong parent. Drop whatever it added and send it again.
                        self._edit_at(state, sentence)
                        break
                    line = self.line_of(sentence.start)
                    if not add.good:
                        raise FileFailed(line, add.message)
                    errors = [message for _, message in run.errors]
                    if not run.good or errors:
                        raise FileFailed(line, run.message or errors[0])
                    got = add.value.find("pair/state_id")
                    if got is None:
                        raise FileFailed(line, "Add answered no state id")
                    state = int(got.get("val", "0"))
                    goals_after = self._goals_of(run)
                    self._sentence(sentence, goals_before, goals_after, [add, run])
                    goals_before = goals_after
                    done += 1
                current += done
        except FileFailed as exc:
            self.result.error = FileError(line=exc.line, message=exc.message)
        except TimeoutError:
            line = self.line_of(sentences[min(current, len(sentences) - 1)].start)
            message = f"time limit of the file reached ({self.limit:g} s)"
            self.result.error = FileError(line=line, message=message)
        return self.result

    def _ends_batch(self, command: vernac.Command, in_proof: bool) -> bool:
        """Whether a batch ends after this sentence.

        After a declaration, the queries about it must run while it is the tip. Inside
        a proof, a command with side effects (``Open Scope``, ``Opaque``) makes two
        states instead of one, so the state ids after it cannot be predicted.
        """
        return (
            command.word in vernac.DECLARING_KINDS
            or vernac.is_proof_ender(command)
            or command.word in _BOUNDARY_WORDS
            or (in_proof and command.word in vernac.NON_TACTIC_WORDS)
        )

    def _edit_at(self, state: int, sentence: Sentence) -> None:
        reply = self._calls([Call(xml.edit_at_call(state), self._budget())], 0, 0)[0]
        if not reply.good:
            raise FileFailed(self.line_of(sentence.start), f"Edit_at failed: {reply.message}")

    def _calls(self, calls: list[Call], current: int, queries: int) -> list[Reply]:
        """Send a batch; a timeout or a dead process becomes :class:`FileFailed`."""
        sentences = self._sentences

        def line_at(index: int) -> int:
            sentence_index = current + max(0, index - queries) // 2
            return self.line_of(sentences[min(sentence_index, len(sentences) - 1)].start)

        try:
            return self.top.calls(calls)
        except ReplyTimeout as exc:
            if time.monotonic() >= self.deadline:
                raise TimeoutError from None
            raise FileFailed(line_at(exc.index), "no reply in time") from None
        except CallsInterrupted as exc:
            raise FileFailed(line_at(len(exc.replies)), f"coqidetop died: {exc}") from None

    @staticmethod
    def _goals_of(reply: Reply) -> xml.Goals | None:
        if b'<option val="some">' not in reply.element.raw:
            return None
        return xml.parse_goals(reply.value)

    # -- one sentence -----------------------------------------------------------------

    def _sentence(
        self,
        sentence: Sentence,
        before: xml.Goals | None,
        after: xml.Goals | None,
        replies: list[Reply],
    ) -> None:
        command = vernac.command_of(sentence.text)
        messages = [
            text for reply in replies for _, level, text in reply.messages if level == "info"
        ]
        if before is None and after is not None:
            proof = _Proof(sentence, command, self.scopes.module_path(), self.premises.place())
            self._proof = proof
            self._structure = []
            # ``Next Obligation`` / ``Obligation 2 of g`` open a proof Coq names
            # (``g_obligation_1``): each was traced as ``M.Obligation`` (audit 52).
            unnamed = command.word in ("Goal", "Next", "Obligation") or not command.ident
            if unnamed or command.word not in vernac.DECLARING_KINDS:
                # Coq named it (``Foo_instance_0``, ``Unnamed_thm``): ask while it is open.
                self._queries.append(_Query("Show Conjectures.", proof.named))
        elif before is not None and self._proof is not None:
            text = sentence.text.strip()
            if _STRUCTURE.match(text):
                self._structure.append(text)
            elif command.word not in vernac.NON_TACTIC_WORDS and after is not None:
                self._step(sentence, text, before, after)
            if after is None:
                self._end_proof(command, announced_names(messages), before)
        closing = (
            self.scopes.scopes[-1]
            if command.word == "End"
            and self.scopes.scopes
            and command.words[1:2] == (self.scopes.scopes[-1].name,)
            else None
        )
        if command.word == "Include":
            self.premises.include(sentence)
        depth = len(self.scopes.scopes)
        self.scopes.apply(command)
        if len(self.scopes.scopes) > depth and self.scopes.scopes[-1].kind == "functor":
            self.premises.functor_opened(sentence)
        if closing is not None and closing.kind == "functor":
            self.premises.functor_closed(sentence)
        if closing is not None and closing.kind == "section":
            self.premises.section_closed()
        elif closing is not None and closing.kind == "module" and not self.premises.in_signature():
            self.premises.module_closed(closing.name, sentence)
        elif (
            command.word == "Module"
            and command.words[1:2] != ("Type",)
            and ":=" in command.bare
            and not self.premises.in_signature()
        ):
            imports = command.words[1:2] in (("Import",), ("Export",))
            name = command.words[2] if imports and len(command.words) > 2 else command.ident
            if name:
                self.premises.module_contents(name, sentence)
        if before is None and after is None and command.word in vernac.DECLARING_KINDS:
            self.premises.declare(sentence, command, announced_names(messages))
        elif before is None and after is None and command.word not in _NOT_CONSTANTS:
            # A command that is not a declaration keyword declared something anyway
            # (``Add Morphism``, a ``Program`` whose obligations were solved).
            names = announced_names(messages)
            if names:
                self.premises.declare(sentence, command, names)

    def _step(self, sentence: Sentence, text: str, before: xml.Goals, after: xml.Goals) -> None:
        assert self._proof is not None
        open_before = len(before.focused) + len(before.background)
        open_after = len(after.focused) + len(after.background)
        self._proof.steps.append(
            {
                "index": len(self._proof.steps),
                "line": self.line_of(sentence.start),
                "offset": sentence.start,
                "goals": [goal(g) for g in before.focused],
                "background": len(before.background),
                "shelved": len(before.shelved),
                "given_up": len(before.given_up),
                "tactic": text,
                "structure": self._structure,
                "closed_goal": open_after < open_before,
            }
        )
        self._structure = []

    def _end_proof(self, ender: vernac.Command, announced: list[str], before: xml.Goals) -> None:
        proof, self._proof = self._proof, None
        assert proof is not None
        left: list[Goal] | None = None
        if not (before.background or before.shelved):
            left = [goal(g) for g in before.focused]
        ident = proof.given_name or proof.command.ident
        if announced:
            ident = announced[0]
        self.result.lemmas += 1
        fallback = ".".join([self.module, *proof.scope_path, ident])

        def finish(about: About | None) -> None:
            name = fallback
            if about is not None and about.what == "Constant":
                last = about.kernel_name.split(".")[-1]
                name = ".".join([self.module, *proof.scope_path, last])
                # An obligation's constant is no premise (its name is Coq's, and proofs
                # use the definition it belongs to).
                if not proof.place.skip and proof.command.word not in ("Next", "Obligation"):
                    kind = vernac.DECLARING_KINDS.get(proof.command.word, "Lemma")
                    premise = self.premises.premise_name(proof.place, last)
                    functor = proof.place.functor
                    self.premises.add(premise, kind, about.statement, proof.sentence, functor)
            if ender.word == "Admitted":
                self.result.admitted[name] = left
                self.result.admitted_at[name] = proof.sentence.start
            for step in proof.steps:
                self.result.steps.append(
                    ProofStep(
                        file=self.file,
                        module=self.module,
                        lemma=name,
                        lemma_offset=proof.sentence.start,
                        **step,
                    )
                )

        if ender.word == "Abort" or not ident:
            finish(None)
        else:
            self.premises.about(ident, finish)

    def finish(self) -> FileTrace:
        """The result, premises in file order (ties kept in declaration order)."""
        self.result.premises = self.premises.finish()
        return self.result


def _notice(reply: Reply) -> str:
    """The text a query answered (its messages, joined)."""
    return "\n\n".join(text for _, level, text in reply.messages if level != "error")


def trace_file(
    path: Path,
    file: str,
    module: str,
    args: list[str],
    *,
    timeout: float,
    memory_limit_mb: int,
    cwd: str | None = None,
    printing_width: int = 1000,
) -> FileTrace:
    """Start coqidetop for ``path`` (``-topfile``, so names get the file's module) and trace."""
    deadline = time.monotonic() + timeout
    memory = memory_limit_mb * 1024 * 1024 if memory_limit_mb > 0 else None
    try:
        top = CoqIdeTop(
            args=[*args, "-topfile", str(path)],
            memory_limit=memory,
            cwd=cwd,
            keep_messages=True,
        )
    except EnvError as exc:
        return FileTrace(error=FileError(line=1, message=str(exc)))
    try:
        width = xml.set_int_option_call(("Printing", "Width"), printing_width)
        top.calls([Call(width, 30.0)])
        tracer = FileTracer(top, path, file, module, deadline=deadline)
        tracer.run()
        return tracer.finish()
    except (ReplyTimeout, CallsInterrupted) as exc:
        return FileTrace(error=FileError(line=1, message=f"coqidetop: {exc}"))
    finally:
        top.close()
