"""Adapting a recorded tactic's local names to the goal at hand.

A recorded ``rewrite H0`` is useless where the equation is called ``Heq``. For each
hypothesis name a recorded tactic uses, the index keeps its *fingerprint* (its type with
local names written ``$``), its rank among the recorded goal's hypotheses with that
fingerprint, and how many there were. At suggestion time a name the current goal lacks
is mapped onto the current hypothesis with the same fingerprint: the only one, or, when
there are several, each of them (up to ``MAX_VARIANTS`` tactics, the one the recorded
rank picks first when the counts agree). Names the current goal has are left alone. A
name with no hypothesis of its fingerprint here cannot be mapped, and the suggestion is
dropped: left as it was, it named a hypothesis the goal does not have (about 30 % of
all suggestions on the stdlib did), a tactic that can only fail. Names the tactic
introduces (``move=> n``, ``intros H``, ``case: n => [|n IHn]``) that the goal already
has are renamed fresh (:mod:`.intro_patterns`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens
from proofsearch.generate.knn.intro_patterns import fresh_intros

#: A local name: not part of a qualified name (``Nat.add``), but ssreflect's ``n.+1``,
#: ``n.-1`` and ``x.1`` are uses of ``n`` and ``x``.
_IDENTIFIER = re.compile(r"(?<![\w'.])[^\W\d][\w']*(?![\w']|\.[^\W\d])")


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


#: Tactics one suggestion may become when its names map onto several hypotheses.
MAX_VARIANTS = 3


def adapt(
    tactic: str, record: str, goal: ParsedGoal, prints: list[tuple[str, str]] | None = None
) -> list[str]:
    """``tactic`` with the names of ``record`` mapped onto ``goal``'s (``prints``:
    ``fingerprints(goal)``, when the caller already has them): one tactic when the mapping
    is clear, a few when it is not, none when a name has no counterpart here."""
    present = goal.hypothesis_name_set
    if not record:
        return [fresh_intros(tactic, present)]
    if prints is None:
        prints = fingerprints(goal)
    choices: list[tuple[str, list[str]]] = []
    for name, fingerprint, rank, count in _parse(record):
        if name in present:
            continue
        same = [n for n, f in prints if f == fingerprint]
        if not same:
            return []
        if len(same) == count and count > 1:
            same.insert(0, same.pop(rank))
        choices.append((name, same))
    if not choices:
        return [fresh_intros(tactic, present)]
    variants: list[dict[str, str]] = [{}]
    for name, candidates in choices:
        variants = [
            {**mapping, name: candidate} for mapping in variants for candidate in candidates
        ][:MAX_VARIANTS]
    return [fresh_intros(_rename(tactic, mapping), present) for mapping in variants]


def _rename(tactic: str, mapping: dict[str, str]) -> str:
    return _IDENTIFIER.sub(lambda m: mapping.get(m.group(0), m.group(0)), tactic)
