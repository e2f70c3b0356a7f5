"""How often the traced proofs use each premise, counted only where a theorem may look.

A lemma that earlier proofs used often is likely to be used again (``inE``, ``eqP``,
``Rle_trans``, ``Z.add_comm``): on traced steps of the stdlib, math-comp and Flocq, the
count of earlier uses is the strongest single signal of premise retrieval after the
goal match (docs/generators.md, "Premises ranked by a fitted model"). The counts must
not leak: a theorem sees the uses made by the modules it may see and, of its own
module, by the proofs above it (:mod:`proofsearch.generate.knn.scope`) - never its own
proof's, never a later file's.

A use is a name in a traced tactic sentence that resolves to a premise of the index by
a dotted suffix of its qualified name (``Nat.add_comm`` and ``add_comm`` both name
``Coq.Arith.PeanoNat.Nat.add_comm``). A name that fits more than :data:`MAX_READINGS`
premises says too little and is not counted; one that fits a few counts for each (the
re-exported copies of one lemma share their short name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from proofsearch.generate.knn.scope import ModuleTable, Scope

#: A name in a tactic (dotted paths kept whole).
NAME = re.compile(r"[^\W\d][\w']*(?:\.[^\W\d][\w']*)*")
#: A name fitting more premises than this is not counted as a use of any.
MAX_READINGS = 8


def suffix_table(premise_names: Sequence[str]) -> dict[str, list[int]]:
    """Every dotted suffix of every qualified premise name → the premises it names."""
    table: dict[str, list[int]] = {}
    for number, qualified in enumerate(premise_names):
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, -1, -1):
            table.setdefault(".".join(parts[cut:]), []).append(number)
    return table


def use_arrays(
    premise_names: Sequence[str],
    tactics: Sequence[str],
    state_tactic: np.ndarray,
    state_module: np.ndarray,
    state_line: np.ndarray,
) -> dict[str, np.ndarray]:
    """The uses of each premise (module and line of the step), grouped by premise (CSR:
    ``premise_uses.indptr``), from the corpus's recorded steps."""
    names = suffix_table(premise_names)
    readings: list[np.ndarray] = []
    for tactic in tactics:
        found: set[int] = set()
        for name in set(NAME.findall(tactic)):
            fits = names.get(name)
            if fits is not None and len(fits) <= MAX_READINGS:
                found.update(fits)
        readings.append(np.array(sorted(found), dtype=np.int64))
    premise_parts: list[np.ndarray] = []
    step_parts: list[np.ndarray] = []
    for step, tactic in enumerate(state_tactic.tolist()):
        used = readings[tactic]
        if len(used):
            premise_parts.append(used)
            step_parts.append(np.full(len(used), step, dtype=np.int64))
    premise = np.concatenate(premise_parts) if premise_parts else np.zeros(0, np.int64)
    step_of = np.concatenate(step_parts) if step_parts else np.zeros(0, np.int64)
    order = np.argsort(premise, kind="stable")
    premise, step_of = premise[order], step_of[order]
    indptr = np.zeros(len(premise_names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(premise, minlength=len(premise_names)), out=indptr[1:])
    return {
        "premise_uses.indptr": indptr,
        "premise_uses.module": np.asarray(state_module, dtype=np.int32)[step_of],
        "premise_uses.line": np.asarray(state_line, dtype=np.int32)[step_of],
    }


class PremiseUses:
    """Counts of a premise's uses that a theorem may see."""

    def __init__(self, table: ModuleTable, arrays: dict[str, np.ndarray]) -> None:
        self.table = table
        self.indptr = arrays["premise_uses.indptr"]
        self.module = arrays["premise_uses.module"]
        self.line = arrays["premise_uses.line"]

    def visible_counts(self, premises: Sequence[int], scope: Scope | None) -> np.ndarray:
        """For each premise, how many traced uses ``scope`` may see (all: ``None``)."""
        seen = self.table.dependencies(scope) if scope is not None else None
        out = np.zeros(len(premises), dtype=np.float64)
        for row, premise in enumerate(premises):
            start, end = int(self.indptr[premise]), int(self.indptr[premise + 1])
            if start == end:
                continue
            if seen is None or scope is None:
                out[row] = end - start
                continue
            modules = self.module[start:end]
            own = (modules == scope.module) & (self.line[start:end] < scope.line)
            out[row] = int(seen[modules].sum()) + int(own.sum())
        return out
