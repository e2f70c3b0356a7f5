"""Header and generator errors are visible: a run whose theorems all fail the same way
stops on one line.

A header that does not compile (a missing library, a loadpath not given, a typo in a
shared prefix) makes every theorem an ``error`` row and the run still exits 0: the
reason is only inside the results file. So does a tactic generator that cannot work (a
model server not started or still loading, a wrong model name, a request limit the
server refuses). The rule: when the first :data:`HEADER_FAILURES_TO_STOP` results of a
run (or all of them, in a smaller run) are theorems that failed to open, or whose
generator failed (or answered nothing within the theorem's budget), with the same
message, the run stops with one line naming the
theorem file, the first such theorem, the message and the fix (exit 1). Those results
are held back, not written, so ``--resume`` searches them again once the cause is
fixed. As soon as one theorem opens and searches (or fails differently), the held
results are written and the rule is off for the rest of the run: then a failure is
that theorem's own problem, and its row says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from proofsearch.search.result import (
    GENERATOR_ERROR,
    GENERATOR_UNANSWERED,
    OPEN_ERROR,
    STARTUP_ERROR,
)

if TYPE_CHECKING:
    from proofsearch.distributed.run import ResultSink

#: The first results of a run that, all failing to open with one message, stop it.
HEADER_FAILURES_TO_STOP = 3


class HeaderFailed(Exception):
    """Every theorem so far failed to open with the same message: the message says why."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


_SENTENCE = re.compile(r"\s*\(sentence: .*\)$")
_NUMBER = re.compile(r"\b\d+\b")
_DOTTED = re.compile(r"\b[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)+\b")


def _shape(message: str) -> str:
    """The message without what differs from one theorem to the next on one cause: the
    failing sentence, its number, the module it names. A project benchmark's headers
    each load their own file's modules, so a loadpath not given failed every theorem
    with a different message, and the run went on, exit 0, every row an error."""
    return _DOTTED.sub("X", _NUMBER.sub("N", _SENTENCE.sub("", message)))


class HeaderWatch:
    """Stands between a run and its results sink until the first theorem opens."""

    def __init__(
        self, sink: ResultSink, theorem_file: str, sources: Mapping[str, str], fix: str
    ) -> None:
        self.sink = sink
        self.theorem_file = theorem_file
        #: theorem name -> ``file:line`` of its theorem-file line
        self.sources = sources
        todo = len(sources)
        self.limit = max(1, min(HEADER_FAILURES_TO_STOP, todo))
        self.fix = fix
        self.held: list[dict[str, Any]] = []
        self.decided = False

    def append(self, record: dict[str, Any]) -> None:
        if self.decided or record.get(STARTUP_ERROR):  # a prover that cannot start: not ours
            self.sink.append(record)
            return
        kind = _failure_kind(record)
        if kind is not None:
            message = _shape(_message(record))
            first = self.held[0] if self.held else None
            if first is None or (
                _failure_kind(first) == kind and _shape(_message(first)) == message
            ):
                self.held.append(record)
                if len(self.held) >= self.limit:
                    raise HeaderFailed(self.failure())
                return
        self.release()
        self.sink.append(record)

    def release(self) -> None:
        """Write the held results: the rule no longer applies to this run."""
        self.decided = True
        held, self.held = self.held, []
        for record in held:
            self.sink.append(record)

    def failure(self) -> str:
        first = self.held[0]
        name = str(first["name"])
        where = self.sources.get(name) or self.theorem_file
        message = _message(first)
        if first.get(GENERATOR_UNANSWERED):
            what, fix = "got no answer from the tactic generator", UNANSWERED_FIX
        elif first.get(GENERATOR_ERROR):
            what, fix = "failed in the tactic generator", GENERATOR_FIX
        else:
            what, fix = "failed to open", self.fix
        from proofsearch.env.coq.version import stdlib_missing_hint

        return (
            f"{self.theorem_file}: the first {len(self.held)} theorem(s) {what}, "
            f"each with the same message (the first: {name}, {where}): {message}"
            f"{stdlib_missing_hint(message)}; {fix}, then run again with --resume (these "
            "theorems were not written)"
        )


def _failure_kind(record: Mapping[str, Any]) -> str | None:
    """Which of the failures the rule counts ``record`` is, if any."""
    for kind in (OPEN_ERROR, GENERATOR_ERROR, GENERATOR_UNANSWERED):
        if record.get(kind):
            return kind
    return None


def _message(record: Mapping[str, Any]) -> str:
    if record.get(GENERATOR_UNANSWERED):
        return "the generator answered no call within the theorem's budget (--timeout)"
    return _one_line(str(record.get("error") or ""))


#: How to fix a generator that answers nothing within a theorem's budget.
UNANSWERED_FIX = (
    "check that the generator's server is up and answering (--base-url), "
    "or give the theorems a longer --timeout"
)

#: How to fix a generator that fails on every theorem.
GENERATOR_FIX = (
    "check the generator's settings (--model, --base-url, --gen-option) and that its server is up"
)

#: How to fix a header that does not open, by prover.
HEADER_FIXES = {
    "coq": "fix the header, or the loadpath (--coq-arg, or an --index trace that records it)",
    "lean": "fix the header, or --lean-project",
}
