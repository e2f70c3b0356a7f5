"""Training pairs from traces: each traced step as (state, tactic), with held-out lemmas'
leaks left out and a seeded split by lemma.

A model trained on every step of a trace has seen the proofs of the lemmas it is then
evaluated on. The evaluation's theorem file says which lemmas are held out (their
``module`` and ``line``, ``qualid``: what ``bench extract-coq`` writes); two rules say
what leaves with them:

- ``proof``: their own proofs only (LeanDojo's *random* split: later proofs that use a
  held-out lemma stay).
- ``after`` (the default): also everything traced after them: the later lemmas of their
  module and every module that requires it, directly or not. This is what ``knn``'s scope
  rule keeps from a held-out lemma (it also hides unrelated modules, which a model trained
  once for many held-out lemmas cannot), so a model trained on these pairs knows no more of
  the future than the ``knn`` runs it is compared with.

The split puts whole lemmas (or whole modules) into ``valid``, by a hash of the seed and
the lemma: the same seed gives the same split whatever else the traces hold.

The state is what the search sends a model: the goals rendered and joined by a blank line
(the generators' ``{goals}``); the tactic is the sentence without its final period. A
traced step's goals are those focused under the user's bullets, where the search shows
every open goal.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from proofsearch.generate.knn.corpus import TraceSet
from proofsearch.generate.knn.scope import ModuleTable, ScopeError
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import ProofStep

LeaveOut = Literal["proof", "after"]
SplitBy = Literal["lemma", "module"]


class PairsError(ValueError):
    """A held-out theorem cannot be placed in the traces."""


@dataclass(frozen=True)
class HeldOut:
    """Where the held-out lemmas are, by module."""

    #: Module → the lines their statements start at.
    lines: dict[str, list[int]]
    #: Module → the trace names of their lemmas (``module.qualid``, and ``module.name``).
    names: dict[str, set[str]]
    #: Held-out theorems that name no module or file: nothing of the traces is theirs.
    unplaced: list[str]


def held_out_places(theorems: Sequence[Theorem], traces: TraceSet) -> HeldOut:
    """Each held-out theorem's module (by its ``module``, else its ``file``) and line, as
    ``knn``'s scope rule places it (:class:`PairsError` when the traces cannot)."""
    records = traces.files()
    table = ModuleTable(
        [r.module for r in records], [r.file for r in records], [r.requires for r in records]
    )
    lines: dict[str, list[int]] = {}
    names: dict[str, set[str]] = {}
    unplaced: list[str] = []
    for theorem in theorems:
        try:
            scope = table.scope(theorem.name, theorem.extra)
        except ScopeError as exc:
            raise PairsError(f"{theorem.source}: {exc}" if theorem.source else str(exc)) from None
        if scope is None:
            unplaced.append(theorem.name)
            continue
        module = table.modules[scope.module]
        lines.setdefault(module, []).append(scope.line)  # 0 (no line): the whole module
        qualid = theorem.extra.get("qualid") or _declared_name(theorem.statement)
        if qualid:
            names.setdefault(module, set()).add(f"{module}.{qualid}")
    return HeldOut(lines, names, unplaced)


#: Words before a declared name: attributes and the declaring keyword.
_DECLARING = frozenset(
    ("Global", "Local", "Program", "Polymorphic", "Monomorphic", "Lemma", "Theorem", "Fact",
     "Remark", "Corollary", "Proposition", "Property", "Example", "Definition", "Instance",
     "Fixpoint", "CoFixpoint", "Let")
)  # fmt: skip


def _declared_name(statement: str) -> str:
    """``foo`` of ``Lemma foo n : …`` (``""`` when the statement declares no name)."""
    text = re.sub(r"#\[[^\]]*\]", " ", statement)
    if text.split()[:1] == ["Goal"]:
        return ""
    for word in re.findall(r"[A-Za-z_][\w']*|\S", text):
        if word not in _DECLARING:
            return word if re.fullmatch(r"[A-Za-z_][\w']*", word) else ""
    return ""


@dataclass(frozen=True)
class LeakRule:
    """Which traced steps a held-out set leaves out."""

    held: HeldOut
    leave_out: LeaveOut
    #: Modules that require a held-out lemma's module, directly or not (rule ``after``).
    later_modules: frozenset[str] = frozenset()

    @staticmethod
    def of(held: HeldOut, traces: TraceSet, leave_out: LeaveOut) -> LeakRule:
        later: set[str] = set()
        if leave_out == "after" and held.lines:
            requires = {record.module: record.requires for record in traces.files()}
            for module in requires:
                if _requires_any(module, requires, set(held.lines)):
                    later.add(module)
        return LeakRule(held, leave_out, frozenset(later))

    def leaks(self, step: ProofStep) -> bool:
        """Would training on ``step`` show a model something of a held-out lemma's proof
        (or, by rule ``after``, of what comes after it)?"""
        if step.lemma in self.held.names.get(step.module, ()):
            return True
        if self.leave_out == "proof":
            return False
        if step.module in self.later_modules:
            return True
        lines = self.held.lines.get(step.module)
        return lines is not None and step.line >= min(lines)


def _requires_any(module: str, requires: dict[str, list[str]], targets: set[str]) -> bool:
    """Does ``module`` require one of ``targets``, directly or not (itself excluded)?"""
    seen: set[str] = set()
    todo = list(requires.get(module, []))
    while todo:
        name = todo.pop()
        if name in targets:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(requires.get(name, []))
    return False


def split_of(seed: int, step: ProofStep, split_by: SplitBy, valid: float) -> str:
    """``"valid"`` or ``"train"``: a hash of the seed and the step's lemma (or module), so
    a lemma's steps stay together and the split does not depend on the traces' order."""
    unit = step.module if split_by == "module" else f"{step.module}@{step.lemma_offset}"
    digest = hashlib.sha256(f"{seed}\0{unit}".encode()).digest()
    return "valid" if int.from_bytes(digest[:8], "big") / 2**64 < valid else "train"


def pair(step: ProofStep) -> dict[str, object]:
    """One training pair: what the search would send, and what the user wrote."""
    return {
        "state": "\n\n".join(goal.render() for goal in step.goals),
        "tactic": step.tactic.strip().removesuffix("."),
        "module": step.module,
        "lemma": step.lemma,
        "lemma_offset": step.lemma_offset,
        "step": step.index,
        "file": step.file,
        "line": step.line,
    }


@dataclass
class PairCounts:
    """What was written, and what was left out."""

    written: dict[str, int] = field(default_factory=lambda: {"train": 0, "valid": 0})
    left_out: int = 0
    lemmas_left_out: set[tuple[str, int]] = field(default_factory=set)
    #: Trace names of held-out lemmas whose own proof steps were found (and left out).
    held_found: set[str] = field(default_factory=set)
    modules: int = 0
    #: The modules at least one pair was written from.
    modules_written: set[str] = field(default_factory=set)

    def summary(self) -> dict[str, object]:
        return {
            "pairs": dict(self.written),
            "left_out_steps": self.left_out,
            "left_out_lemmas": len(self.lemmas_left_out),
            "held_out_found": len(self.held_found),
            "modules": self.modules,
            "modules_written": len(self.modules_written),
        }


def unmatched(held: HeldOut, counts: PairCounts) -> list[str]:
    """Held-out lemmas no traced step was the proof of (a proof term, an untraced file,
    a name the trace spells otherwise): under rule ``proof`` their proofs may have stayed."""
    names = sorted(set().union(*held.names.values())) if held.names else []
    return [name for name in names if name not in counts.held_found]


def write_pairs(
    traces: TraceSet,
    rule: LeakRule,
    outputs: dict[str, TextIO],
    *,
    seed: int,
    valid: float,
    split_by: SplitBy,
    progress: Callable[[int, int], None] | None = None,
) -> PairCounts:
    """Write every traced step that ``rule`` keeps to ``outputs[split]`` (JSONL)."""
    counts = PairCounts()
    modules = sorted(record.module for record in traces.files())
    for done, module in enumerate(modules, 1):
        counts.modules += 1
        for step in _steps(traces, module):
            if rule.leaks(step):
                if step.lemma in rule.held.names.get(step.module, ()):
                    counts.held_found.add(step.lemma)
                counts.left_out += 1
                counts.lemmas_left_out.add((step.module, step.lemma_offset))
                continue
            split = split_of(seed, step, split_by, valid)
            outputs[split].write(json.dumps(pair(step), ensure_ascii=False) + "\n")
            counts.written[split] += 1
            counts.modules_written.add(step.module)
        if progress is not None:
            progress(done, len(modules))
    return counts


def _steps(traces: TraceSet, module: str) -> Iterator[ProofStep]:
    shard = traces.trace_of(module).shard(module, "steps")
    return traces.steps(module) if Path(shard).exists() else iter(())
