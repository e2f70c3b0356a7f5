"""One trace folder's states and premises, parsed once and cached on their own.

Building a corpus is mostly parsing: each recorded goal's features and hypothesis
fingerprints, each premise's symbols (20 of the stdlib's 22 s). Several folders make one
corpus (:mod:`.corpus`), and that corpus was cached as a whole: a project's trace changes
with every edit, so each ``prove`` after an edit parsed the whole stdlib again and wrote
another 100 MB file. The parsed parts of each folder are cached under the folder's own
key instead; a corpus over several folders joins them (the weights and posting lists,
which depend on every folder, are computed again: seconds).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proofsearch.generate.knn.features import goal_features, untyped
from proofsearch.generate.knn.goals import bound_names, parse_first_goal
from proofsearch.generate.knn.inverted import StringTable
from proofsearch.generate.knn.names import record_names
from proofsearch.generate.knn.notation import matching_tokens
from proofsearch.trace.schema import TraceDir

#: Bumped when what a part holds, or how it is parsed, changes.
PARTS_VERSION = 5  # 2: premise_until; 3: premise_admitted; 4: folded laws read; 5: n.+1, \\sum_
#: Kinds of premise that cannot be applied or rewritten with.
NOT_APPLICABLE = frozenset(
    {"Definition", "Fixpoint", "CoFixpoint", "Inductive", "CoInductive", "Record", "Instance"}
)


def clean_tactic(text: str) -> str:
    """A tactic sentence without its final period."""
    text = text.strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def strings(table: StringTable) -> list[str]:
    return [table[i] for i in range(len(table))]


@dataclass(frozen=True)
class FolderParts:
    """A folder's parsed states and premises: arrays over its own numbering (modules in
    the folder's order, vocabularies in first-seen order), joined by :mod:`.corpus`."""

    arrays: dict[str, np.ndarray]

    def table(self, name: str) -> list[str]:
        return strings(StringTable.from_arrays(self.arrays, name))

    @property
    def modules(self) -> list[str]:
        return self.table("modules")


class _Ragged:
    """Rows of ids (and counts) gathered into ``indptr`` + values, ids first-seen."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.lengths: list[int] = []
        self.ids: list[int] = []
        self.counts: list[int] = []

    def add(self, items: Collection[str]) -> None:
        if isinstance(items, Counter):
            self.counts += items.values()
        self.ids += [self.vocabulary.setdefault(item, len(self.vocabulary)) for item in items]
        self.lengths.append(len(items))

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        indptr = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=indptr[1:])
        out: dict[str, np.ndarray] = {
            f"{prefix}.indptr": indptr,
            f"{prefix}.ids": np.array(self.ids, dtype=np.int32),
            **StringTable.build(self.vocabulary).arrays(f"{prefix}.vocabulary"),
        }
        if self.counts:
            out[f"{prefix}.counts"] = np.array(self.counts, dtype=np.int32)
        return out


def premise_terms(statement: str) -> Counter[str]:
    """The symbols of a statement, bound names and punctuation left out, in the form
    goals and statements are compared in (:mod:`.notation`)."""
    found = matching_tokens(statement)
    bound = bound_names(found)
    return Counter(t for t in found if t not in bound and t not in ("(", ")", ","))


def parse_folder(trace: TraceDir, modules: Sequence[str], typed: bool) -> FolderParts:
    """Parse the steps and premises of the folder's ``modules``, in that order."""
    features = _Ragged()
    tactics: dict[str, int] = {}
    lemmas: dict[str, int] = {}
    state_module: list[int] = []
    state_line: list[int] = []
    state_tactic: list[int] = []
    state_lemma: list[int] = []
    names: list[str] = []
    steps = ((i, step) for i, module in enumerate(modules) for step in trace.steps(module))
    for module_index, step in steps:
        tactic = clean_tactic(step.tactic)
        if not step.goals or not tactic:
            continue
        goal = parse_first_goal(step.goals[0].render())
        found = goal_features(goal) if typed else untyped(goal_features(goal))
        features.add(found)
        state_module.append(module_index)
        state_line.append(step.line)
        state_tactic.append(tactics.setdefault(tactic, len(tactics)))
        names.append(record_names(tactic, goal))
        state_lemma.append(lemmas.setdefault(step.lemma.rsplit(".", 1)[-1], len(lemmas)))
    terms = _Ragged()
    premise_module: list[int] = []
    premise_line: list[int] = []
    premise_until: list[int] = []
    applicable: list[bool] = []
    definition: list[bool] = []
    premise_names: list[str] = []
    statements: list[str] = []
    admitted: list[bool] = []
    unfinished = {record.module: set(record.admitted or ()) for record in trace.files()}
    premises = (
        (i, premise) for i, module in enumerate(modules) for premise in trace.premises(module)
    )
    for module_index, premise in premises:
        terms.add(premise_terms(premise.statement))
        premise_module.append(module_index)
        premise_line.append(premise.line)
        premise_until.append(premise.until or 0)
        applicable.append(premise.kind not in NOT_APPLICABLE)
        definition.append(premise.kind == "Definition")
        premise_names.append(premise.name)
        statements.append(premise.statement)
        admitted.append(premise.name in unfinished.get(modules[module_index], ()))
    return FolderParts(
        {
            **StringTable.build(modules).arrays("modules"),
            **features.arrays("features"),
            **StringTable.build(tactics).arrays("tactics"),
            **StringTable.build(lemmas).arrays("lemmas"),
            **StringTable.build(names).arrays("state_names"),
            "state_module": np.array(state_module, dtype=np.int32),
            "state_line": np.array(state_line, dtype=np.int32),
            "state_tactic": np.array(state_tactic, dtype=np.int32),
            "state_lemma": np.array(state_lemma, dtype=np.int32),
            **terms.arrays("terms"),
            **StringTable.build(premise_names).arrays("premise_names"),
            **StringTable.build(statements).arrays("premise_statements"),
            "premise_module": np.array(premise_module, dtype=np.int32),
            "premise_line": np.array(premise_line, dtype=np.int32),
            # Inside a functor: seen from its own module up to this line only (0: a
            # constant of the library).
            "premise_until": np.array(premise_until, dtype=np.int32),
            "premise_applicable": np.array(applicable, dtype=bool),
            "premise_definition": np.array(definition, dtype=bool),
            # Proofs ended by ``Admitted``: axioms to ``Print Assumptions``.
            "premise_admitted": np.array(admitted, dtype=bool),
        }
    )


def load_parts(path: Path) -> FolderParts | None:
    """The parts cached at ``path`` (``None``: none, or damaged)."""
    try:
        with np.load(path) as data:
            parts = FolderParts({k: data[k] for k in data.files})
        os.utime(path)  # recently used (the cache gives up the least recent first)
        return parts
    except (OSError, ValueError, KeyError):
        return None


def save_parts(parts: FolderParts, path: Path) -> None:
    """Write atomically; a read-only cache only costs the next run the parsing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(partial, **parts.arrays)  # type: ignore[arg-type]
        os.replace(partial, path)
    except OSError:
        pass
