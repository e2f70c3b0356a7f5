"""``admit.`` holes: a proof that ends in ``Admitted`` after ``admit.`` steps.

Each ``admit.`` is a goal of its own. The project's trace recorded the goal each
``admit.`` ran on (it is a tactic step); that goal, its hypotheses quantified
(``forall (h : T), …``, a hypothesis with a body as ``let h : T := b in …``), becomes
a lemma of its own to search, at the hole's place. A proof ``P`` of it replaces the
``admit.`` as ``{ revert h1 … hn. P. }``: reverting the context in order turns the live
goal into exactly that statement. The hole is filled when every ``admit.`` has a proof;
its ``Admitted.`` then becomes ``Qed.``; every other byte of the proof is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proofsearch.project.holes import Hole
from proofsearch.trace.schema import Goal, TraceDir, TraceFormatError


def admit_goals(trace_dir: Path, hole: Hole) -> list[Goal] | None:
    """The goal of each ``admit.`` of ``hole`` from the trace, or ``None`` when the
    trace does not have them all (the hole is then searched as a whole)."""
    module = hole.source.module
    name = f"{module}.{hole.qualid}"
    try:
        steps = [
            step
            for step in TraceDir(trace_dir).steps(module)
            if step.lemma == name and step.tactic.strip() == "admit." and step.goals
        ]
    except (OSError, TraceFormatError):
        return None
    if len(steps) != len(hole.admits):
        return None
    return [step.goals[0] for step in sorted(steps, key=lambda s: s.offset)]


def _names(goal: Goal) -> list[str]:
    return [name for hypothesis in goal.hypotheses for name in hypothesis.names]


def goal_statement(goal: Goal) -> str:
    """The goal as a closed proposition: its hypotheses quantified, in context order."""
    binders: list[str] = []
    for hypothesis in goal.hypotheses:
        for name in hypothesis.names:
            if hypothesis.body is not None:
                binders.append(f"let {name} : {hypothesis.type} := {hypothesis.body} in")
            else:
                binders.append(f"forall ({name} : {hypothesis.type}),")
    return " ".join([*binders, goal.conclusion])


def admit_ident(hole: Hole, index: int) -> str:
    return f"{hole.ident}_admit{index + 1}"


def admit_records(hole: Hole, goals: Sequence[Goal], base: dict[str, Any]) -> list[dict[str, Any]]:
    """One theorem-file line per ``admit.``, at the hole's place (``base``: its line)."""
    records = []
    qualifier = hole.qualid[: -len(hole.ident)]
    for index, goal in enumerate(goals):
        ident = admit_ident(hole, index)
        records.append(
            {
                **base,
                "name": f"{hole.name}#admit{index + 1}",
                "statement": f"Lemma {ident} : {goal_statement(goal)}.",
                "qualid": qualifier + ident,
                "admit_of": hole.name,
                "reverts": _names(goal),
            }
        )
    return records


def admit_block(reverts: Sequence[str], proof: Sequence[str]) -> str:
    """What replaces one ``admit.``: ``{ revert h1 … hn. tac1. … }`` on one line."""
    steps = ([f"revert {' '.join(reverts)}."] if reverts else []) + [f"{t}." for t in proof]
    return "{ " + " ".join(steps) + " }"


def fill_admits(hole: Hole, blocks: Sequence[str]) -> str:
    """The hole's span with each ``admit.`` replaced by its block and ``Qed.`` at the end."""
    if len(blocks) != len(hole.admits):
        raise ValueError(f"{hole.name}: {len(hole.admits)} admit(s), {len(blocks)} proof(s)")
    text = hole.original
    assert text.endswith("Admitted.")
    text = text[: -len("Admitted.")] + "Qed."
    for (start, end), block in sorted(zip(hole.admits, blocks, strict=True), reverse=True):
        text = text[:start] + block + text[end:]
    return text
