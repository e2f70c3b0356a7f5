"""Analogous names: a neighbour's proof with its lemma's variant names swapped in.

Libraries prove families of lemmas alike, and the names say which member a lemma is:
``ex_filterdiff_minus`` is proved by ``eexists. by apply filterdiff_minus.`` as
``ex_filterdiff_plus`` is by ``... filterdiff_plus.``; ``ltW_homo_in`` by
``exact: homoW_in.`` as ``ltW_homo`` by ``exact: homoW.``; ``lcmnCA`` as ``gcdnCA``
with ``lcm`` for ``gcd`` throughout. knn finds the neighbour's state (the goals look
alike) but offers its tactic with the neighbour's names, which prove the neighbour.

So when a recorded step comes from a lemma whose name differs from the theorem's by one
short edit (``plus`` → ``minus``, ``+ _in``, ``gcd`` → ``lcm``), the same edit is made
to each name in the step, and a name is replaced only where the result names a premise
the theorem may see. In the traces, a lemma's whole proof is such an edit of an earlier
lemma's of its file (and not a copy of one) for 260 of math-comp's 4,115 lemmas, 491 of
the stdlib's 12,562, 67 of Coquelicot's 1,743 and 27 of Flocq's 1,283
(``benchmarks/knn_analogies.py``; docs/generators.md, "Analogous names").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from proofsearch.generate.knn.inverted import StringTable
from proofsearch.theorem import Theorem

#: The edit's two sides together are at most this long, and the names share at least
#: :data:`MIN_SHARED` characters: otherwise the two lemmas are not one family.
MAX_EDIT = 8
MIN_SHARED = 3
#: An analogous step scores this much below the neighbour's own.
ANALOGY_PENALTY = -0.05
_NAME = re.compile(r"[^\W\d][\w']*(?:\.[^\W\d][\w']*)*")


def short_name(theorem: Theorem) -> str:
    """The theorem's own name, without file or module: ``contraPlt`` for
    ``order.v:Order.TotalTheory.contraPlt``."""
    qualid = theorem.extra.get("qualid")
    name = qualid if isinstance(qualid, str) and qualid else theorem.name
    return re.split(r"[:.]", name)[-1]


@dataclass(frozen=True)
class NameEdit:
    """``source`` → ``target`` as one edit: ``old`` replaced by ``new``; an empty
    ``old`` appends ``new`` (``at_end``) or prepends it."""

    old: str
    new: str
    at_end: bool

    def apply(self, name: str) -> str:
        if self.old:
            return name.replace(self.old, self.new)
        return name + self.new if self.at_end else self.new + name


def name_edit(source: str, target: str) -> NameEdit | None:
    """The one short edit that turns lemma name ``source`` into ``target``, if any: the
    part between their common prefix and common suffix. ``None`` when the names are
    equal, too different, or differ only inside (an insertion mid-name has no place
    to go in other names)."""
    if source == target:
        return None
    shortest = min(len(source), len(target))
    prefix = 0
    while prefix < shortest and source[prefix] == target[prefix]:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and source[-1 - suffix] == target[-1 - suffix]:
        suffix += 1
    old = source[prefix : len(source) - suffix]
    new = target[prefix : len(target) - suffix]
    if len(old) + len(new) > MAX_EDIT or prefix + suffix < MIN_SHARED:
        return None
    if not old and prefix and suffix:
        return None
    return NameEdit(old, new, at_end=not old and suffix == 0)


def analogous(tactic: str, edit: NameEdit, exists: Callable[[str], bool]) -> str | None:
    """``tactic`` with ``edit`` made to every name whose edited form ``exists``; ``None``
    when no name changes."""
    changed = False

    def swap(match: re.Match[str]) -> str:
        nonlocal changed
        name = match.group(0)
        edited = edit.apply(name)
        if edited != name and exists(edited):
            changed = True
            return edited
        return name

    out = _NAME.sub(swap, tactic)
    return out if changed else None


class SuffixNames:
    """Every dotted suffix of some entries' names → those entries, to ask whether a
    name as a tactic writes it (``add_comm``, ``Nat.add_comm``) is one of them."""

    def __init__(self, names: StringTable | Sequence[str], selected: np.ndarray) -> None:
        self.by_suffix: dict[str, list[int]] = {}
        for number in np.flatnonzero(selected).tolist():
            parts = names[number].split(".")
            for cut in range(len(parts)):
                self.by_suffix.setdefault(".".join(parts[cut:]), []).append(number)

    def visible(self, name: str, mask: np.ndarray | None) -> bool:
        """Whether an entry the theorem may see (``mask``; ``None``: all) is named
        ``name`` or ends in ``.name``."""
        found = self.by_suffix.get(name)
        if not found:
            return False
        return mask is None or bool(mask[found].any())
