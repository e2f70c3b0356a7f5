"""Premises named after the theorem: ``big_seq_cond`` for ``big_seq``.

A lemma is often proved through a helper written for it, whose name says so:
``exact: big_nseq_cond`` proves ``big_nseq``, ``exact: comparable_contraPlt`` proves
``contraPlt``, ``rewrite fold_equiv_aux`` starts ``fold_equiv``. In the traces, 185 of
math-comp's lemmas and 343 of the stdlib's have a step that names a constant whose name
contains the lemma's own. BM25 over the goal cannot see that link: it lives in the
names, not the statements. So the premise templates also take, for a theorem named
``N``, the applicable premises the theorem may see whose last name component contains
``N`` (those of the theorem's own file first, where a helper is written just before
what it helps; then the shortest names: the closest variants), as if retrieved with a
fixed coverage (:data:`NAMESAKE_COVERAGE`).

Only names of four characters or more are looked up: a short name (``le``, ``sub``) is
inside too many others to mean anything.

**Siblings.** A lemma's proof also often names an earlier member of its family: a lemma
one short name edit away (:func:`proofsearch.generate.knn.analogy.name_edit`: ``lcmnMl``
for ``lcmnMr``, proved by ``by rewrite mulnC lcmnMl``; ``maxKx`` for ``minKx``). In the
traces (``benchmarks/knn_analogies.py``), the proofs of 1,528 of math-comp's 4,115
lemmas, 345 of Flocq's 1,283 and 602 of Coquelicot's 1,743 name such an earlier lemma of
their own file, the nearest one (the smallest edit, then the latest) for 754, 212 and
407. So the templates can also take,
by option ``siblings`` (0 by default: two proved no more on the tuning slices), that many
visible applicable premises one edit away from the theorem's name (not containing it:
those are namesakes): those of the theorem's own module first, then the smallest edits,
then the latest, as if retrieved with :data:`SIBLING_COVERAGE`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from proofsearch.generate.knn.analogy import name_edit, short_name
from proofsearch.generate.knn.inverted import StringTable
from proofsearch.theorem import Theorem

#: How a namesake ranks among retrieved premises: as one whose statement matches the
#: goal this well (a template's score adds the log of it).
NAMESAKE_COVERAGE = 0.7
#: How a sibling ranks among retrieved premises (below a namesake: a sibling is more
#: often a model to follow than a step of the proof).
SIBLING_COVERAGE = 0.5
#: Names shorter than this are not looked up.
MIN_NAME = 4
#: Results kept per theorem (the search asks the templates at every node).
_CACHE_SIZE = 4096


class Namesakes:
    """Applicable premises by the last component of their names."""

    def __init__(
        self, names: StringTable | Sequence[str], applicable: np.ndarray, module: np.ndarray
    ) -> None:
        self.numbers = np.flatnonzero(applicable)
        self.short = [names[int(i)].rsplit(".", 1)[-1] for i in self.numbers]
        self.module = module
        self._found: dict[str, list[tuple[int, int]]] = {}
        self._siblings: dict[str, list[tuple[int, int]]] = {}

    def of(
        self, theorem: Theorem, mask: np.ndarray | None, own_module: int | None, k: int
    ) -> list[int]:
        """Up to ``k`` premises whose name contains the theorem's (not equal to it) and
        that the theorem may see (``mask``; ``None``: all): those of ``own_module``
        first, then the shortest names."""
        own = short_name(theorem)
        if k <= 0 or len(own) < MIN_NAME:
            return []
        found = self._found.get(own)
        if found is None:
            found = [
                (len(s), int(self.numbers[i]))
                for i, s in enumerate(self.short)
                if own in s and s != own
            ]
            self._found = _cached(self._found, own, found)
        return self._best(found, mask, own_module, k)

    def siblings(
        self, theorem: Theorem, mask: np.ndarray | None, own_module: int | None, k: int
    ) -> list[int]:
        """Up to ``k`` premises one short name edit away from the theorem's name, that
        the theorem may see: those of ``own_module`` first, then the smallest edits, then
        the latest (the highest premise number)."""
        own = short_name(theorem)
        if k <= 0 or len(own) < MIN_NAME:
            return []
        found = self._siblings.get(own)
        if found is None:
            found = []
            for i, name in enumerate(self.short):
                edit = None if own in name else name_edit(name, own)  # namesakes: above
                if edit is not None:
                    number = int(self.numbers[i])
                    found.append((len(edit.old) + len(edit.new), -number))
            self._siblings = _cached(self._siblings, own, found)
        return self._best(found, mask, own_module, k)

    def _best(
        self,
        found: list[tuple[int, int]],
        mask: np.ndarray | None,
        own_module: int | None,
        k: int,
    ) -> list[int]:
        """The first ``k`` visible premises of ``found`` ((rank, number) pairs, a number
        negated to put the latest first), ``own_module``'s first, one per short name."""
        visible = sorted(
            (int(self.module[abs(n)]) != own_module, rank, n)
            for rank, n in found
            if mask is None or mask[abs(n)]
        )
        out: list[int] = []
        names: set[str] = set()
        for _, _, signed in visible:
            number = abs(signed)
            name = self.short[int(np.searchsorted(self.numbers, number))]
            if name not in names:  # one lemma re-exported under another module is one
                names.add(name)
                out.append(number)
                if len(out) == k:
                    break
        return out


def _cached(
    cache: dict[str, list[tuple[int, int]]], key: str, value: list[tuple[int, int]]
) -> dict[str, list[tuple[int, int]]]:
    """``cache`` with ``key`` set, emptied first when full (the search asks about one
    theorem many times in a row, then moves on)."""
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return cache
