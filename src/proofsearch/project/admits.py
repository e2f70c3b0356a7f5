"""Holes with the user's own tactics: ``admit.`` steps, and goals left at ``Admitted``.

Each ``admit.`` is a goal of its own. The project's trace recorded the goal each
``admit.`` ran on (it is a tactic step); that goal, its hypotheses quantified
(``forall (h : T), …``, a hypothesis with a body as ``let h : T := b in …``), becomes
a lemma of its own to search, at the hole's place. A proof ``P`` of it replaces the
``admit.`` as ``{ revert h1 … hn. P. }``: reverting the context in order turns the live
goal into exactly that statement. The Section's variables the proof began with stay
free (in scope at the hole) and are not reverted, so the proof uses only those ``P``
needs, as ``Proof using`` requires.

A proof the user began and left (``intros n. induction n. - reflexivity. - simpl.
Admitted.``) is treated the same way: the trace also recorded the goals still open at
``Admitted`` (:attr:`~proofsearch.trace.schema.FileRecord.admitted`); each is searched
as a lemma, and its block goes after the user's last tactic, so their steps are kept.
Only when no goal is left outside the focus (in the background of a bullet, or
shelved): a block then continues exactly where the user stopped.

The hole is filled when every part has a proof; its ``Admitted.`` then becomes
``Qed.``; every other byte of the proof is kept. When the trace lacks a part's goal,
the hole is searched as a whole, from its statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofsearch.env.coq.vernac import command_of
from proofsearch.project.holes import Hole
from proofsearch.trace.schema import Goal, TraceDir, TraceFormatError
from proofsearch.trace.shards import read_record


@dataclass(frozen=True)
class OpenGoals:
    """The goals a hole's parts are: one per ``admit.``, then those left at ``Admitted``."""

    admits: tuple[Goal, ...]
    rest: tuple[Goal, ...]
    #: The hypotheses the proof began with (a Section's variables), as ``(name, type,
    #: body)``: left free in the parts' statements (they are in scope at the hole) and
    #: not reverted, so that a block uses only those its proof needs (under ``Proof
    #: using x.`` one that reverted them all broke at ``Qed``).
    fixed: frozenset[tuple[str, str, str | None]] = frozenset()


def open_goals(trace_dir: Path, hole: Hole) -> OpenGoals | None:
    """The hole's parts from the trace, or ``None`` to search it whole (no tactics of
    the user's, or the trace lacks a goal)."""
    if not hole.partial:
        return None
    module = hole.source.module
    name = f"{module}.{hole.qualid}"
    trace = TraceDir(trace_dir)
    try:
        steps = list(trace.steps(module))
    except (OSError, TraceFormatError):
        return None
    if hole.is_obligation:  # the trace has Coq's name for it (``f_obligation_2``)
        name = next((s.lemma for s in steps if s.lemma_offset == hole.statement_start), name)
    own = sorted((s for s in steps if s.lemma == name), key=lambda s: s.offset)
    # `Time admit.` too: the same sentences as the hole's (``Hole.admits``).
    steps = [step for step in own if command_of(step.tactic).bare == "admit." and step.goals]
    fixed = frozenset(
        (name, hypothesis.type, hypothesis.body)
        for hypothesis in (own[0].goals[0].hypotheses if own and own[0].goals else [])
        for name in hypothesis.names
        if name in hole.section_names
    )
    if len(steps) != len(hole.admits):
        return None
    admits = tuple(step.goals[0] for step in sorted(steps, key=lambda s: s.offset))
    record = read_record(trace, module)
    recorded = record.admitted if record is not None else None
    if recorded is None or name not in recorded:
        # A trace made before the goals at Admitted were recorded: the admits alone.
        return OpenGoals(admits, (), fixed) if admits else None
    rest = recorded[name]
    if rest is None:
        return None
    # No admit and no goal left: the user's tactics prove it (``Admitted`` kept it open,
    # perhaps because it uses a lemma still admitted): OpenGoals((), ()), nothing to search.
    return OpenGoals(admits, tuple(rest), fixed)


def _names(goal: Goal, fixed: frozenset[tuple[str, str, str | None]] = frozenset()) -> list[str]:
    return [
        name
        for hypothesis in goal.hypotheses
        for name in hypothesis.names
        if (name, hypothesis.type, hypothesis.body) not in fixed
    ]


#: A universe instance as ``Set Printing Universes`` prints it after a sort or a
#: constant (``Type@{Mine.A.1}``, ``list@{u}``): its universes cannot be named in a
#: statement, and Coq infers them when the instance is left out.
UNIVERSE_INSTANCE = re.compile(r"(?<=[\w'])@\{[^{}]*\}")


def goal_statement(goal: Goal, fixed: frozenset[tuple[str, str, str | None]] = frozenset()) -> str:
    """The goal as a proposition: its hypotheses quantified, in context order, but for
    the ``fixed`` ones (a Section's, in scope at the hole), universe instances the
    file's printing settings showed left out."""
    binders: list[str] = []
    for hypothesis in goal.hypotheses:
        for name in hypothesis.names:
            if (name, hypothesis.type, hypothesis.body) in fixed:
                continue
            if hypothesis.body is not None:
                binders.append(f"let {name} : {hypothesis.type} := {hypothesis.body} in")
            else:
                binders.append(f"forall ({name} : {hypothesis.type}),")
    return UNIVERSE_INSTANCE.sub("", " ".join([*binders, goal.conclusion]))


def part_names(hole: Hole, goals: OpenGoals) -> list[str]:
    """The results' names of the hole's parts, in the order their blocks are written."""
    admits = [f"{hole.name}#admit{i + 1}" for i in range(len(goals.admits))]
    return admits + [f"{hole.name}#rest{i + 1}" for i in range(len(goals.rest))]


def admit_records(hole: Hole, goals: OpenGoals, base: dict[str, Any]) -> list[dict[str, Any]]:
    """One theorem-file line per part, at the hole's place (``base``: its line). Each
    names every part of its hole (``parts``), so that the outcome knows them all."""
    records = []
    qualifier = hole.qualid[: -len(hole.ident)]
    names = part_names(hole, goals)
    for name, goal in zip(names, [*goals.admits, *goals.rest], strict=True):
        # An identifier even for an obligation's (``f_obligation@12`` → ``f_obligation_L12``).
        ident = f"{hole.ident.replace('@', '_L')}_{name.rsplit('#', 1)[1]}"
        # A part's block is checked in place by the rebuild: its own lemma has no clause.
        base = {key: value for key, value in base.items() if key != "proof_using"}
        records.append(
            {
                **base,
                "name": name,
                "statement": f"Lemma {ident} : {goal_statement(goal, goals.fixed)}.",
                "qualid": qualifier + ident,
                "admit_of": hole.name,
                "parts": names,
                "reverts": _names(goal, goals.fixed),
            }
        )
    return records


def is_part(name: str) -> bool:
    """Whether a result is one part of a hole (its proof is written as one block)."""
    return "#admit" in name or "#rest" in name


def admit_block(reverts: Sequence[str], proof: Sequence[str]) -> str:
    """What replaces one ``admit.``: ``{ revert h1 … hn. tac1. … }`` on one line."""
    steps = ([f"revert {' '.join(reverts)}."] if reverts else []) + [f"{t}." for t in proof]
    return "{ " + " ".join(steps) + " }"


def fill_admits(hole: Hole, blocks: Sequence[str]) -> str:
    """The hole's span with each ``admit.`` replaced by its block, the blocks of the
    goals left at ``Admitted`` after the user's last tactic, and ``Qed.`` at the end."""
    if len(blocks) < len(hole.admits):
        raise ValueError(f"{hole.name}: {len(hole.admits)} admit(s), {len(blocks)} proof(s)")
    if hole.ltac2_mode:  # the blocks are Ltac1's; the user's tactics around them Ltac2's
        blocks = [_in_classic_mode(block) for block in blocks]
    text = hole.original
    assert text.endswith("Admitted.")
    rest = blocks[len(hole.admits) :]
    text = text[: -len("Admitted.")]
    unclosed = _unclosed_braces(hole.partial)
    if rest or unclosed:
        body = text.rstrip()
        indent = _last_indent(body) or hole.tactic_indent
        closers = ["}"] * unclosed  # the user's `{` left open: Qed needs them closed
        text = body + "".join(f"{hole.newline}{indent}{block}" for block in [*rest, *closers])
        text += f"{hole.newline}{hole.qed_indent}"
    text += hole.ender
    for (start, end), block in sorted(zip(hole.admits, blocks, strict=False), reverse=True):
        text = text[:start] + block + text[end:]
    return text


def _in_classic_mode(block: str) -> str:
    """``{ tac. }`` run in Ltac1's proof mode inside a proof in Ltac2's (checked with
    ``coqc``: ``Proof Mode`` holds for the rest of the proof, so the block sets it back)."""
    inner = block.removeprefix("{ ").removesuffix(" }")
    return '{ Proof Mode "Classic". ' + inner + ' Proof Mode "Ltac2". }'


def _unclosed_braces(sentences: Sequence[str]) -> int:
    """How many ``{`` (``2: {`` too) the user's tactics leave open."""
    depth = 0
    for sentence in sentences:
        stripped = sentence.strip()
        if stripped.endswith("{"):
            depth += 1
        elif stripped == "}":
            depth = max(0, depth - 1)
    return depth


def _last_indent(text: str) -> str:
    """The indentation of the last line of ``text`` (where the user's script stopped),
    past a bullet that begins it: a block continues at that line's tactic."""
    line = text.rsplit("\n", 1)[-1]
    stripped = line.lstrip(" \t")
    indent = line[: len(line) - len(stripped)]
    bullet = len(stripped) - len(stripped.lstrip("-+*"))
    if bullet and stripped[bullet : bullet + 1] == " ":
        indent += " " * (bullet + 1)
    return indent
