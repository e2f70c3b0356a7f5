"""What a search returns, and its one-line JSON form in a results file."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from proofsearch.theorem import Theorem


class Status(StrEnum):
    """A theorem's final status.

    ``proved``: a proof was found (``checked`` says whether the re-check passed);
    ``failed``: the search tree was exhausted without a proof;
    ``open``: a budget (time, expansions) ran out first;
    ``error``: the theorem could not be searched (bad header, crashed worker, rejected
    re-check; ``error`` says why); ``invalid``: its input line was malformed.
    """

    PROVED = "proved"
    FAILED = "failed"
    OPEN = "open"
    ERROR = "error"
    INVALID = "invalid"


#: Record field set on an ``error`` whose prover could not start. Such a result is not
#: the theorem's: the CLI does not write it, so that ``--resume`` searches it again.
STARTUP_ERROR = "startup_error"

#: Record field set when a tactic closed every goal but the proof's closing check (Coq's
#: ``Qed``) did not finish within the theorem's budget: why that was not a proof.
UNFINISHED_PROOF = "unfinished_proof"

#: Record field set on an ``error`` whose theorem could not be opened (its header or
#: statement did not load: a missing library, a loadpath, a typo). When every theorem
#: of a run fails so with the same message, the CLI stops: see ``cli/header_watch.py``.
OPEN_ERROR = "open_error"

#: Record field set on an ``error`` whose tactic generator raised (a model that cannot
#: load, a server that does not answer or refuses the requests): the same rule as
#: :data:`OPEN_ERROR` stops a run whose first theorems all fail so.
GENERATOR_ERROR = "generator_error"

#: Record field: seconds past the theorem's deadline at which the tactic generator's
#: last call returned (a generator that does not bound its wait by the search's deadline,
#: such as an in-process vLLM engine or a user's own: the theorem took that much more
#: than ``--timeout``). Absent when it returned in time.
GENERATOR_LATE = "generator_late_s"
#: Record field, true when the deadline cut the generator's last call short (a model
#: server slower than the theorem's budget allows; the theorem ended on time).
GENERATOR_CUT = "generator_cut"
#: Record field, true when the deadline cut the generator's first call: it answered
#: nothing in the theorem's budget (a server that hangs, or one far too slow). The first
#: theorems of a run all so stop it, as generator errors do (:mod:`proofsearch.cli.header_watch`).
GENERATOR_UNANSWERED = "generator_unanswered"
#: Record fields: how many suggestions the prover's guard refused (a cheat, a command
#: such as ``Admitted`` or ``Axiom``), and the first with its reason. Absent when none.
GUARD_REFUSALS = "guard_refusals"
FIRST_REFUSAL = "first_refusal"
#: Lateness below this is the deadline check's own granularity, not worth a word.
LATE_GENERATOR_S = 1.0

#: Record field set when the search's prover accepted a proof (``Qed`` included) and the
#: from-scratch re-check rejected it for a reason other than a cheat (axioms, an
#: unfinished proof): a bug in one of the two, counted as a "search/check disagreement".
CHECK_DISAGREEMENT = "check_disagreement"


@dataclass
class SearchResult:
    """The outcome of searching one theorem (LeanAgent's fields, plus what users asked for).

    ``actor_time`` is time spent generating tactics, ``environment_time`` time spent in
    the prover, ``check_time`` time spent re-checking the proof from scratch.
    """

    theorem: Theorem
    status: Status
    proof: list[str] | None = None
    checked: bool = False
    error: str | None = None
    actor_time: float = 0.0
    environment_time: float = 0.0
    check_time: float = 0.0
    total_time: float = 0.0
    num_total_nodes: int = 0
    num_searched_nodes: int = 0
    num_tactic_applications: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        """The JSON object written to the results file (input's extra fields included)."""
        record: dict[str, Any] = {
            "name": self.theorem.name,
            "status": str(self.status),
            "proof": self.proof,
            "checked": self.checked,
            "error": self.error,
            "actor_time": round(self.actor_time, 6),
            "environment_time": round(self.environment_time, 6),
            "check_time": round(self.check_time, 6),
            "total_time": round(self.total_time, 6),
            "num_total_nodes": self.num_total_nodes,
            "num_searched_nodes": self.num_searched_nodes,
            "num_tactic_applications": self.num_tactic_applications,
        }
        record.update(self.extra)
        for key, value in self.theorem.extra.items():
            record.setdefault(key, value)
        return record


def error_result(theorem: Theorem, message: str, **extra: Any) -> SearchResult:
    """A result recording that ``theorem`` could not be searched."""
    return SearchResult(theorem, Status.ERROR, error=message, extra=dict(extra))
