"""Re-checking a finished Lean proof from scratch, and classifying whole-proof replies.

The re-check starts a fresh REPL process, runs the header (if any) as a new environment,
then the statement and the tactics as ONE command in that environment, and finally
``#print axioms NAME`` as a separate command. Keeping the axiom query out of the proof's
command matters: a tactic can print any message (``trace "..."``), but not into the
reply of a later command.

A whole-proof reply is classified by :func:`classify_whole_proof` (tested against the
102 replies real Lean gave in ``fixtures/lean-whole-proofs``):

* **rejected**: the check itself failed (timeout, crash: ``error``), the REPL refused the
  command (top-level ``message``), a message has severity ``error``, or the proof uses
  ``sorry`` (a ``sorries`` entry or a "declaration uses 'sorry'" warning);
* **accepted with warnings**: otherwise, when a message has severity ``warning``
  (unused variables, deprecated lemmas, "this tactic is never executed"...);
* **accepted**: otherwise (``info`` messages such as "Try this" do not count).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from proofsearch.env.base import CheckResult
from proofsearch.env.lean.protocol import CommandReply, CommandRequest, ErrorReply
from proofsearch.env.lean.repl import LeanRepl, ReplDied, ReplError, ReplTimeout
from proofsearch.env.lean.statements import named_for_check, proof_text

#: Lean's standard axioms: what ``simp``, ``omega``, ``decide``... rest on.
STANDARD_AXIOMS: tuple[str, ...] = ("propext", "Classical.choice", "Quot.sound")
#: What ``native_decide`` adds (Lean < 4.22 used ``Lean.ofReduceBool`` alone).
NATIVE_AXIOMS: tuple[str, ...] = ("Lean.ofReduceBool", "Lean.trustCompiler")

_SORRY_WARNING = re.compile(r"declaration uses ['`]sorry['`]")
_AXIOMS = re.compile(
    r"^'(?P<name>.+?)' (?:depends on axioms: \[(?P<axioms>[^\]]*)\]|"
    r"(?P<none>does not depend on any axioms))\s*$",
    re.S,
)


class Verdict(StrEnum):
    ACCEPTED = "accepted"
    ACCEPTED_WITH_WARNINGS = "accepted_with_warnings"
    REJECTED = "rejected"


@dataclass(frozen=True)
class WholeProofVerdict:
    """The class of a whole-proof reply and the messages that decided it."""

    verdict: Verdict
    reasons: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.verdict is not Verdict.REJECTED


def classify_whole_proof(
    response: Mapping[str, Any] | None, error: str | None = None
) -> WholeProofVerdict:
    """Classify a REPL reply to a whole-proof command (rules in the module docstring)."""
    if error:
        return WholeProofVerdict(Verdict.REJECTED, (f"the check failed: {error}",))
    if response is None:
        return WholeProofVerdict(Verdict.REJECTED, ("no reply",))
    if isinstance(response.get("message"), str):
        return WholeProofVerdict(Verdict.REJECTED, (f"the REPL refused: {response['message']}",))
    messages = [m for m in response.get("messages") or [] if isinstance(m, Mapping)]
    errors = [str(m.get("data", "")) for m in messages if m.get("severity") == "error"]
    if errors:
        return WholeProofVerdict(Verdict.REJECTED, tuple(errors))
    warnings = [str(m.get("data", "")) for m in messages if m.get("severity") == "warning"]
    sorry = [w for w in warnings if _SORRY_WARNING.search(w)]
    if response.get("sorries") or sorry:
        return WholeProofVerdict(Verdict.REJECTED, tuple(sorry) or ("the proof uses sorry",))
    if warnings:
        return WholeProofVerdict(Verdict.ACCEPTED_WITH_WARNINGS, tuple(warnings))
    return WholeProofVerdict(Verdict.ACCEPTED)


def parse_axioms(reply: CommandReply, name: str) -> tuple[str, ...]:
    """The axioms ``#print axioms NAME`` listed; ``ValueError`` if the reply says otherwise.

    Lean prints ``'NAME' depends on axioms: [propext, Quot.sound]`` or ``'NAME' does not
    depend on any axioms`` (the name fully qualified, so it may carry a namespace).
    """
    if reply.errors:
        raise ValueError(f"#print axioms failed: {reply.errors[0].data}")
    found: list[tuple[str, tuple[str, ...]]] = []
    for message in reply.messages:
        match = _AXIOMS.match(message.data.strip())
        if match is None:
            continue
        axioms = () if match.group("none") else match.group("axioms").split(",")
        found.append((match.group("name"), tuple(a.strip() for a in axioms if a.strip())))
    if len(found) != 1:
        shown = "; ".join(m.data for m in reply.messages)[:500]
        raise ValueError(f"unexpected #print axioms output: {shown!r}")
    printed, axioms = found[0]
    plain = name.replace("«", "").replace("»", "")
    if printed.replace("«", "").replace("»", "") != plain and not printed.endswith("." + plain):
        raise ValueError(f"#print axioms described {printed!r}, not {name!r}")
    return axioms


@dataclass(frozen=True)
class CheckLimits:
    header_timeout: float
    check_timeout: float
    command_timeout: float


def check_whole_proof(
    start: Callable[[], LeanRepl],
    header: str,
    statement: str,
    proof: Sequence[str],
    *,
    limits: CheckLimits,
    allowed_axioms: Iterable[str],
) -> CheckResult:
    """Check ``proof`` (already guarded tactics) in a fresh REPL that ``start`` launches."""
    try:
        checked_statement, name = named_for_check(statement)
    except ValueError as exc:
        return CheckResult(False, str(exc))
    text = proof_text(checked_statement, proof)
    allowed = set(allowed_axioms)
    try:
        repl = start()
    except ReplError as exc:
        return CheckResult(False, f"cannot start the Lean REPL: {exc}")
    try:
        env: int | None = None
        if header.strip():
            reply = repl.request(CommandRequest(cmd=header), limits.header_timeout)
            if isinstance(reply, ErrorReply) or not isinstance(reply, CommandReply):
                return CheckResult(False, f"the header was refused: {_describe(reply)}")
            if reply.errors:
                return CheckResult(False, f"the header failed: {reply.errors[0].data}")
            env = reply.env
        reply = repl.request(CommandRequest(cmd=text, env=env), limits.check_timeout)
        verdict = classify_whole_proof(reply.model_dump(exclude_none=True))
        if not verdict.ok:
            return CheckResult(False, "Lean rejected the proof: " + "; ".join(verdict.reasons))
        if not isinstance(reply, CommandReply):
            return CheckResult(False, f"unexpected reply to the proof: {_describe(reply)}")
        printed = repl.request(
            CommandRequest(cmd=f"#print axioms {name}", env=reply.env), limits.command_timeout
        )
        if not isinstance(printed, CommandReply):
            return CheckResult(False, f"#print axioms was refused: {_describe(printed)}")
        try:
            axioms = parse_axioms(printed, name)
        except ValueError as exc:
            return CheckResult(False, str(exc))
    except ReplTimeout as exc:
        return CheckResult(False, f"the re-check timed out: {exc}")
    except (ReplDied, ReplError) as exc:
        return CheckResult(False, f"the Lean REPL failed during the re-check: {exc}")
    finally:
        repl.close()
    extra = [a for a in axioms if a not in allowed]
    if extra:
        return CheckResult(False, f"uses axioms not allowed: {', '.join(extra)}", axioms)
    summary = "accepted" if verdict.verdict is Verdict.ACCEPTED else "accepted with warnings"
    if verdict.reasons:
        summary += ": " + "; ".join(r.splitlines()[0] for r in verdict.reasons[:5])
    return CheckResult(True, summary, axioms)


def _describe(reply: object) -> str:
    if isinstance(reply, ErrorReply):
        return reply.message
    return repr(reply)[:300]


__all__ = [
    "NATIVE_AXIOMS",
    "STANDARD_AXIOMS",
    "CheckLimits",
    "Verdict",
    "WholeProofVerdict",
    "check_whole_proof",
    "classify_whole_proof",
    "parse_axioms",
]
