"""Classifying real replies: every tactic reply in the REPL transcripts, and every
whole-proof check in ``fixtures/lean-whole-proofs``.

The expected classes were decided by reading each reply (the table below says why for
the interesting ones); the whole-proof classes follow a rule stated in
:func:`expected_class`, computed from the raw JSON independently of the code under test,
plus a hand-checked list of the notable files.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from proofsearch.env.lean import Verdict, classify_tactic_reply, classify_whole_proof
from proofsearch.env.lean.backend import StepKind
from proofsearch.env.lean.protocol import CommandReply, TacticReply, parse_reply

SHARED = Path(os.environ.get("PROOFSEARCH_SHARED", Path(__file__).resolve().parents[3] / "shared"))
REPL = SHARED / "fixtures" / "lean-repl"
WHOLE = SHARED / "fixtures" / "lean-whole-proofs"

S, P, E = StepKind.STATE, StepKind.PROVED, StepKind.ERROR

#: (fixture, exchange number) -> expected kind, for EVERY tactic request recorded.
TACTIC_REPLIES: dict[tuple[str, int], StepKind] = {
    ("core/all_tactics-20250622", 2): P,
    ("core/app_type_mismatch", 3): S,
    ("core/app_type_mismatch", 4): S,
    ("core/app_type_mismatch", 5): E,  # Incomplete: contains metavariable(s)
    ("core/app_type_mismatch2", 3): S,
    ("core/app_type_mismatch2", 4): S,
    ("core/app_type_mismatch2", 5): E,  # Error: kernel type check failed
    ("core/app_type_mismatch2", 6): E,  # `have ... := sorry`: goals left, but a sorry
    ("core/app_type_mismatch2", 7): E,  # Lean error: could not unify
    ("core/assumption_proof", 2): P,
    ("core/by_cases", 2): S,
    ("core/by_cases", 3): S,
    ("core/by_cases", 4): E,  # all_goals sorry: Incomplete: contains sorry
    ("core/have_by_sorry", 3): E,  # goals left, but a sorry
    ("core/invalid_tactic", 2): E,  # error message; Incomplete: contains sorry
    ("core/name_generator", 2): E,  # sorry
    ("core/name_generator", 3): E,  # a sorry's goal closed: root still has metavariables
    ("core/name_generator", 4): E,
    ("core/name_generator", 5): E,
    ("core/name_generator", 6): E,
    ("core/name_generator", 7): E,
    ("core/name_generator", 8): E,  # error message "unsolved goals"
    ("core/name_generator", 9): E,
    ("core/pickle_proof_state_1", 5): S,
    ("core/pickle_proof_state_1", 8): P,
    ("core/pickle_proof_state_2", 2): P,
    ("core/pickle_proof_state_env", 5): S,
    ("core/pickle_proof_state_env", 8): P,
    ("core/proof_branching", 2): S,
    ("core/proof_branching", 3): S,
    ("core/proof_branching", 4): S,
    ("core/proof_branching", 5): P,
    ("core/proof_branching2", 2): S,
    ("core/proof_branching2", 3): S,
    ("core/proof_branching2", 4): S,
    ("core/proof_branching2", 5): S,
    ("core/proof_branching2", 6): S,
    ("core/proof_branching2", 7): P,
    ("core/proof_step", 2): S,
    ("core/proof_step", 3): S,
    ("core/proof_step", 4): P,
    ("core/proof_transitivity", 2): P,
    ("core/proof_transitivity", 4): P,
    ("core/readme", 2): S,
    ("core/readme", 3): P,
    ("core/root_goals", 2): P,
    ("core/root_goals", 3): P,
    ("core/self_proof_apply_check", 3): E,  # Error: kernel (free variables): self-reference
    ("core/self_proof_check", 3): E,  # exact? failed: top-level message
    ("core/self_proof_check", 5): E,
    ("core/self_proof_check", 7): E,
    ("core/self_proof_check", 9): E,
    ("core/self_proof_exact_check", 3): E,
    ("core/self_proof_rw", 3): E,
    ("core/sorry_hypotheses", 2): E,
    ("core/tactic_mode_sorry", 2): E,
    ("core/trace_simp", 6): S,  # `trace "37"`: traces, goal unchanged
    ("core/trace_simp", 7): P,  # simp with traces: Completed
    ("core/unknown_proof_state", 2): E,  # "Unknown proof state."
    ("core/unknown_tactic", 2): E,  # "Lean error: <input>:1:1: unknown tactic"
    ("mathlib/20240209", 2): E,  # unsolved goals error, Incomplete: contains sorry
    ("mathlib/H20231115", 3): S,
    ("mathlib/exact", 3): P,  # exact? with a "Try this" info message: Completed
    ("mathlib/exact", 5): E,
    ("mathlib/induction", 3): S,
    ("mathlib/induction", 4): S,
    ("mathlib/induction", 5): E,
    ("mathlib/on_goal", 3): E,  # goals left, but sorries
    ("mathlib/pickle_2", 2): S,
    ("mathlib/placeholder_synthesis", 4): S,
    ("mathlib/placeholder_synthesis", 5): E,  # Incomplete: contains metavariable(s)
}


@pytest.fixture(scope="module")
def transcripts(replay_module) -> dict[str, list[Any]]:
    """Every recorded transcript with replies, by name (``core/proof_branching``)."""
    found = {}
    for folder in ("core", "mathlib"):
        for requests in sorted((REPL / folder).glob("*.in")):
            replies = requests.with_name(requests.name[: -len(".in")] + ".expected.out")
            if replies.exists():
                found[f"{folder}/{requests.name[:-3]}"] = replay_module.load_transcript(
                    requests, replies
                )
    return found


def test_every_recorded_reply_parses(transcripts):
    shapes: Counter[str] = Counter()
    for exchanges in transcripts.values():
        for exchange in exchanges:
            shapes[type(parse_reply(json.loads(exchange.reply_text))).__name__] += 1
    # Counted independently from the .expected.out files (split on blank lines, keyed
    # on "message" / "goals"): 217 replies.
    assert shapes == {"CommandReply": 134, "TacticReply": 74, "ErrorReply": 9}


def test_every_recorded_tactic_reply_is_classified_as_expected(transcripts):
    seen = {}
    for name, exchanges in transcripts.items():
        for number, exchange in enumerate(exchanges, start=1):
            if "tactic" in exchange.request:
                reply = parse_reply(json.loads(exchange.reply_text))
                seen[(name, number)] = classify_tactic_reply(reply).kind
    assert seen == TACTIC_REPLIES


def test_tactic_reply_details():
    completed = parse_reply({"proofStatus": "Completed", "proofState": 4, "goals": []})
    assert classify_tactic_reply(completed).proof_state == 4
    heartbeats = parse_reply(
        {
            "proofState": 3,
            "goals": [],
            "proofStatus": "Incomplete: contains sorry",
            "messages": [
                {
                    "severity": "error",
                    "pos": {"line": 0, "column": 0},
                    "data": "(deterministic) timeout at `whnf`, maximum number of heartbeats"
                    " (200000) has been reached",
                }
            ],
        }
    )
    assert classify_tactic_reply(heartbeats).kind is StepKind.TIMEOUT
    not_verified = parse_reply(
        {"proofState": 2, "goals": [], "proofStatus": "Not verified: more than one initial goal"}
    )
    step = classify_tactic_reply(not_verified)
    assert step.kind is StepKind.ERROR and "Not verified" in step.message
    # A command reply where a tactic reply was due is not a proof either.
    assert classify_tactic_reply(CommandReply(env=1)).kind is StepKind.ERROR
    assert isinstance(completed, TacticReply)


# -- whole proofs ----------------------------------------------------------------------


def expected_class(result: dict[str, Any]) -> Verdict:
    """The rule, on the raw output JSON: a failed check (``error``) is rejected; so is
    any ``error`` message or any mention of ``sorry`` in a warning; then any warning
    means accepted with warnings; everything else (nothing, ``env`` only, ``info``
    messages) is accepted."""
    if result["error"]:
        return Verdict.REJECTED
    messages = result["response"].get("messages", [])
    severities = {m["severity"] for m in messages}
    if "error" in severities:
        return Verdict.REJECTED
    if any(m["severity"] == "warning" and "sorry" in m["data"] for m in messages):
        return Verdict.REJECTED
    if "warning" in severities:
        return Verdict.ACCEPTED_WITH_WARNINGS
    return Verdict.ACCEPTED


#: Checked by hand (reading input/NAME.lean and output/NAME.json).
HAND_CHECKED: dict[str, Verdict] = {
    # "Lean process timed out": the check did not finish, so nothing is proved.
    "goedel-lean_workbook_10036": Verdict.REJECTED,
    "goedel-lean_workbook_10090": Verdict.REJECTED,
    "goedel-lean_workbook_10303": Verdict.REJECTED,
    "goedel-lean_workbook_1036": Verdict.REJECTED,
    # `simp` proves 2 + 2 = 4; the reply is {"env": 1} (no messages).
    "proof1": Verdict.ACCEPTED,
    "proof2": Verdict.ACCEPTED,
    # Only "Try this: ring_nf" info messages.
    "goedel-lean_workbook_1008": Verdict.ACCEPTED,
    # Two info messages and six warnings ("this tactic is never executed", ...).
    "goedel-lean_workbook_10222": Verdict.ACCEPTED_WITH_WARNINGS,
    # No messages at all.
    "goedel-lean_workbook_10009": Verdict.ACCEPTED,
}


def whole_proof_results() -> dict[str, dict[str, Any]]:
    results = {}
    for path in sorted((WHOLE / "output").glob("*.json")):
        (result,) = json.loads(path.read_text())["results"]
        results[path.stem] = result
    return results


def test_all_102_whole_proofs_are_classified_by_the_rule():
    results = whole_proof_results()
    assert len(results) == 102
    assert {p.stem for p in (WHOLE / "input").glob("*.lean")} == set(results)
    got = {
        name: classify_whole_proof(result["response"], result["error"]).verdict
        for name, result in results.items()
    }
    assert got == {name: expected_class(result) for name, result in results.items()}
    assert Counter(got.values()) == {
        Verdict.ACCEPTED: 56,
        Verdict.ACCEPTED_WITH_WARNINGS: 42,
        Verdict.REJECTED: 4,
    }
    for name, verdict in HAND_CHECKED.items():
        assert got[name] is verdict, name


def test_whole_proof_reasons_name_the_warnings():
    result = whole_proof_results()["goedel-lean_workbook_10222"]
    verdict = classify_whole_proof(result["response"])
    assert len(verdict.reasons) == 6 and verdict.ok
    timed_out = whole_proof_results()["goedel-lean_workbook_1036"]
    rejected = classify_whole_proof(timed_out["response"], timed_out["error"])
    assert not rejected.ok and "timed out" in rejected.reasons[0]


@pytest.mark.parametrize(
    ("fixture", "number", "expected", "why"),
    [
        ("core/self_proof_check", 1, Verdict.REJECTED, "`exact?` could not close the goal"),
        ("core/self_proof_apply_check", 1, Verdict.REJECTED, "fail to show termination"),
        ("core/app_type_mismatch", 1, Verdict.REJECTED, "declaration has metavariables"),
        ("core/app_type_mismatch2", 1, Verdict.REJECTED, "(kernel) application type mismatch"),
        ("core/have_by_sorry", 1, Verdict.REJECTED, "unsolved goals"),
        ("core/tactic_sorry", 1, Verdict.REJECTED, "declaration uses `sorry`"),
        ("core/line_breaks", 1, Verdict.REJECTED, "expected command"),
        ("core/unknown_environment", 1, Verdict.REJECTED, "Unknown environment."),
        ("mathlib/placeholder_synthesis", 2, Verdict.REJECTED, "synthesize placeholder"),
        ("mathlib/H20231020", 2, Verdict.ACCEPTED, ""),
        ("mathlib/H20231020", 4, Verdict.ACCEPTED, ""),
        ("mathlib/H20231110", 2, Verdict.ACCEPTED, ""),
        ("core/trace_simp", 4, Verdict.ACCEPTED, ""),  # info (traces) only
        ("core/all_tactics-20250622", 1, Verdict.ACCEPTED, ""),
    ],
)
def test_recorded_whole_proof_commands(transcripts, fixture, number, expected, why):
    exchanges = transcripts[fixture]
    reply = json.loads(exchanges[number - 1].reply_text)
    verdict = classify_whole_proof(reply)
    assert verdict.verdict is expected
    assert why in " ".join(verdict.reasons)
