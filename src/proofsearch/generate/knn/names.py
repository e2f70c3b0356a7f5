"""Adapting a recorded tactic's local names to the goal at hand.

A recorded ``rewrite H0`` is useless where the equation is called ``Heq``. For each
hypothesis name a recorded tactic uses, the index keeps its *fingerprint* (its type with
local names written ``$``), its rank among the recorded goal's hypotheses with that
fingerprint, and how many there were. At suggestion time a name the current goal lacks
is mapped onto the current hypothesis with the same fingerprint when that is clear: it
is the only one, or there are as many as in the recorded goal and the rank picks one.
Names the current goal has are left alone, and so is a name with no clear match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens

_IDENTIFIER = re.compile(r"(?<![\w'.])[^\W\d][\w']*(?![\w'.])")


def fingerprints(goal: ParsedGoal) -> list[tuple[str, str]]:
    """(name, fingerprint) of every hypothesis name, in order."""
    local = set(goal.hypothesis_names)
    out: list[tuple[str, str]] = []
    for hypothesis in goal.hypotheses:
        type_tokens = tokens(hypothesis.type)
        hidden = local | bound_names(type_tokens)
        fingerprint = " ".join("$" if t in hidden else t for t in type_tokens)
        out.extend((name, fingerprint) for name in hypothesis.names)
    return out


def record_names(tactic: str, goal: ParsedGoal) -> str:
    """What the index keeps to adapt ``tactic`` later: one line per hypothesis name the
    tactic uses, ``name<TAB>fingerprint<TAB>rank<TAB>count``."""
    used = set(_IDENTIFIER.findall(tactic))
    prints = fingerprints(goal)
    lines = []
    for name, fingerprint in prints:
        if name in used:
            same = [n for n, f in prints if f == fingerprint]
            lines.append(f"{name}\t{fingerprint}\t{same.index(name)}\t{len(same)}")
    return "\n".join(lines)


def _parse(record: str) -> Iterable[tuple[str, str, int, int]]:
    for line in record.splitlines():
        name, fingerprint, rank, count = line.split("\t")
        yield name, fingerprint, int(rank), int(count)


def adapt(
    tactic: str, record: str, goal: ParsedGoal, prints: list[tuple[str, str]] | None = None
) -> str:
    """``tactic`` with the names of ``record`` mapped onto ``goal``'s where clear
    (``prints``: ``fingerprints(goal)``, when the caller already has them)."""
    if not record:
        return tactic
    present = set(goal.hypothesis_names)
    if prints is None:
        prints = fingerprints(goal)
    mapping: dict[str, str] = {}
    for name, fingerprint, rank, count in _parse(record):
        if name in present:
            continue
        same = [n for n, f in prints if f == fingerprint]
        if len(same) == 1:
            mapping[name] = same[0]
        elif len(same) == count and count > 1:
            mapping[name] = same[rank]
    if not mapping:
        return tactic
    return _IDENTIFIER.sub(lambda m: mapping.get(m.group(0), m.group(0)), tactic)
