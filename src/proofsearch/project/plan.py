"""The holes of a project in the order they are searched: files in dependency order,
then top to bottom, so a proof found early is learned before later holes are searched.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from proofsearch.env.coq.sentences import SentenceError
from proofsearch.env.coq.version import without_prelude
from proofsearch.project.holes import Hole, Skipped, find_holes, select_lemmas
from proofsearch.project.project_hints import Kind, hole_names
from proofsearch.trace.deps import order
from proofsearch.trace.sources import Project, Source, SourceError


@dataclass
class HolePlan:
    """Every hole of the project, those selected for this run, and the file texts."""

    graph: dict[str, list[str]]
    #: Module → the file's text as read (bytes decoded, line endings kept).
    texts: dict[str, str]
    #: Module → sha256 of the file's bytes as read.
    digests: dict[str, str]
    all_holes: list[Hole] = field(default_factory=list)
    selected: list[Hole] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: The ``skipped`` proofs of the selected files: said to the user, never passed over.
    not_searched: list[Skipped] = field(default_factory=list)
    #: Modules that do not compile, and those that load one: their holes are not
    #: searched, and the rebuild leaves them out (the others are served all the same).
    unbuilt: set[str] = field(default_factory=set)
    #: Holes whose own tactics leave no goal (the user wrote ``Admitted`` after a whole
    #: proof): not searched, written with ``Qed`` in place of ``Admitted`` and checked by
    #: the rebuild like every other fill (:meth:`theorem_records` finds them).
    complete: list[Hole] = field(default_factory=list)
    #: Refuse holes whose type is data (theorem field ``propositions_only``). Not in a
    #: project without the prelude (HoTT, UniMath): its propositions are types (``paths
    #: x y : Type``), which the probe, asking for ``Prop``, would call data.
    propositions_only: bool = True
    #: The trace's ``Admitted`` proofs, full name → module (:meth:`read_trace`).
    traced_admitted: dict[str, str] = field(default_factory=dict)
    #: The ``Admitted`` proofs of the libraries traced for the project (a sibling
    #: project bound with ``-Q ../base Base``, an installed library with sources), full
    #: name → module: a proof resting on one is marked, and refused by ``--strict``, as
    #: one resting on the project's own (audit 47: a workspace's two projects).
    library_admitted: dict[str, str] = field(default_factory=dict)
    #: ``--lemma`` patterns that matched no hole but may match an obligation's name,
    #: which is Coq's once the project is traced (:meth:`read_trace`), and all of them.
    pending_patterns: list[str] = field(default_factory=list)
    lemma_patterns: list[str] = field(default_factory=list)

    def read_trace(self, trace_dir: Path, keys: dict[str, str] | None = None) -> None:
        """Learn from the project's trace what only Coq knows: the name Coq gave each
        obligation hole (``f_obligation_2``, found by its statement's place: the
        file's text cannot tell which obligation a ``Next Obligation`` opens, nor an
        anonymous instance's name), and every ``Admitted`` proof's full name. Then
        apply the ``--lemma`` patterns that waited for those names (raises
        :class:`SourceError` for one that still matches nothing).

        ``keys``: module → the shard key of the file as it is now; a shard with another
        key (the file changed since) is not read. ``--list``, which does not trace, reads
        an earlier run's trace this way; after a trace every shard is fresh."""
        from proofsearch.trace.schema import TraceDir
        from proofsearch.trace.shards import read_record

        trace = TraceDir(trace_dir)
        renamed: dict[Hole, Hole] = {}
        obligations: dict[str, list[Hole]] = {}
        for hole in self.all_holes:
            if hole.is_obligation:
                obligations.setdefault(hole.source.module, []).append(hole)
        for module in self.texts:
            record = read_record(trace, module)
            if record is None or record.admitted is None:
                continue
            if keys is not None and keys.get(module) != record.key:
                continue
            self.traced_admitted.update(dict.fromkeys(record.admitted, module))
            names = {offset: name for name, offset in (record.admitted_at or {}).items()}
            for hole in obligations.get(module, ()):
                name = names.get(hole.statement_start, "")
                if name.startswith(f"{module}."):
                    qualid = name.removeprefix(f"{module}.")
                    ident = qualid.rsplit(".", 1)[-1]
                    renamed[hole] = replace(hole, qualid=qualid, ident=ident)
        self.all_holes = [renamed.get(h, h) for h in self.all_holes]
        self.selected = [renamed.get(h, h) for h in self.selected]
        if self.pending_patterns:
            self.selected = select_lemmas(self.selected, self.lemma_patterns)
            for pattern in self.pending_patterns:
                if not select_lemmas(self.selected, [pattern]):
                    raise SourceError(f"--lemma {pattern}: {NO_MATCH}")

    def admitted_modules(self) -> dict[str, str]:
        """Every proof of the project that ends in ``Admitted``, by its full name
        (``Proj.A.L.lemma``) → its module: the holes, the trace's (which knows the names
        Coq gave, inside Modules too), and the other ``Admitted`` proofs."""
        found = {f"{s.source.module}.{s.ident}": s.source.module for s in self.skipped if s.ident}
        found.update(self.traced_admitted)
        found.update({n: m for n, m in self.library_admitted.items() if n not in found})
        found.update({f"{h.source.module}.{h.qualid}": h.source.module for h in self.all_holes})
        return found

    def admitted_names(self) -> list[str]:
        """Every lemma of the project that ends in ``Admitted`` (qualified in its file)."""
        skipped = {s.ident for s in self.skipped if s.ident}
        return sorted({h.qualid for h in self.all_holes} | skipped)

    def theorem_records(
        self,
        trace_dir: Path | None = None,
        learn_from_project: bool = False,
        whole: Sequence[Hole] | None = None,
    ) -> list[dict[str, Any]]:
        """The theorem-file lines of the selected holes (``whole``: of these holes,
        each searched from its statement), in search order.

        ``learn_from_project``: each hole may imitate every traced proof of the project
        (field ``learn_from``, :mod:`proofsearch.generate.knn.scope`), not only those
        above it: the user has them all.

        A proof may rest on another ``Admitted`` lemma (it is an axiom to ``Print
        Assumptions``): allowed here so that it is found, reported, and refused by
        ``--strict``. A hole with tactics of the user's whose goals the trace recorded
        gives one line per ``admit.`` and per goal left at ``Admitted`` instead
        (:mod:`.admits`), unless it is among ``whole``.
        """
        from proofsearch.project.admits import admit_records, open_goals

        allowed = [name.rsplit(".", 1)[-1] for name in self.admitted_names()]
        records = []
        requires: dict[str, list[str]] = {}  # each module's, worked out once
        for hole in self.selected if whole is None else whole:
            record = hole.to_record(allowed)
            if not self.propositions_only:
                record.pop("propositions_only", None)
            kinds: tuple[Kind, ...] = ("rewrite_databases", "setoid_relations")
            for kind in kinds:
                names = hole_names(kind, hole.source.module, hole.start, self.texts, self.graph)
                if names:
                    record[kind] = names
            record["source_sha256"] = self.digests[hole.source.module]
            module = hole.source.module
            if module not in requires:
                requires[module] = self.requires(module)
            record["deps_sha256"] = {dep: self.digests[dep] for dep in requires[module]}
            if learn_from_project:
                record["learn_from"] = sorted(self.graph)
            goals = open_goals(trace_dir, hole) if trace_dir and whole is None else None
            if goals is not None and not (goals.admits or goals.rest):
                self.complete.append(hole)  # its tactics close it: only Qed to write
            else:
                records += admit_records(hole, goals, record) if goals else [record]
        return records

    def changed_load(
        self, module: str, paths: Mapping[str, Path], written: Mapping[str, str] | None = None
    ) -> str | None:
        """A project module that ``module`` loads, directly or not, whose file changed
        since it was read (``paths``: module → file; ``written``: module → sha256 of what
        this run wrote there), or ``None``. A proof found and rebuilt against the text
        read may not hold against the new one (audit 43-b: an edit to ``magic := 7``
        during a run, and ``magic = 6`` was written ``Qed``)."""
        expected = {**self.digests, **(written or {})}
        for dep in self.requires(module):
            if dep in paths and file_changed(paths[dep], expected[dep]):
                return dep
        return None

    def requires(self, module: str) -> list[str]:
        """The project's modules that ``module`` loads, directly or not (sorted)."""
        seen: set[str] = set()
        todo = list(self.graph.get(module, ()))
        while todo:
            dep = todo.pop()
            if dep not in seen and dep in self.digests:
                seen.add(dep)
                todo += self.graph.get(dep, ())
        return sorted(seen)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


NO_MATCH = "no hole of the selected files matches; --list shows the holes"


def plan_holes(
    project: Project,
    graph: Mapping[str, Sequence[str]],
    files: Sequence[Source],
    lemmas: Sequence[str],
) -> HolePlan:
    """Find every hole; select those of ``files`` matching ``lemmas`` (globs)."""
    plan = HolePlan(graph={k: list(v) for k, v in graph.items()}, texts={}, digests={})
    plan.propositions_only = not without_prelude(project.args)
    by_module = {source.module: source for source in project.sources}
    chosen = {source.module for source in files}
    for module in order(plan.graph):
        source = by_module[module]
        data = source.path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceError(f"{source.file}: not UTF-8 text ({exc})") from None
        plan.texts[module] = text
        plan.digests[module] = digest(data)
        try:
            holes, skipped = find_holes(source, text)
        except SentenceError as exc:
            where = f"{source.file}:{exc.line}" if exc.line else source.file
            raise SourceError(f"{where}: cannot be split into sentences: {exc}") from None
        plan.all_holes += holes
        plan.skipped += skipped
        if module in chosen:
            plan.selected += holes
            plan.not_searched += skipped
    if lemmas:
        chosen_holes = plan.selected
        plan.selected = select_lemmas(chosen_holes, lemmas)
        # Obligations named by their line until the trace names them as Coq does.
        unnamed = [h for h in chosen_holes if h.is_obligation and "@" in h.qualid]
        for pattern in lemmas:
            if not select_lemmas(plan.selected, [pattern]) and unnamed:
                plan.pending_patterns.append(pattern)
            elif not select_lemmas(plan.selected, [pattern]):
                skipped = [s for s in plan.not_searched if _named(s, [pattern])]
                why = (
                    f"{skipped[0].ident} ({skipped[0].source.file}:{skipped[0].line}) is not "
                    f"searched: {skipped[0].reason}"
                    if skipped
                    else NO_MATCH
                )
                raise SourceError(f"--lemma {pattern}: {why}")
        if plan.pending_patterns:
            plan.lemma_patterns = list(lemmas)
            plan.selected += [h for h in unnamed if h not in plan.selected]
        # Said only of the proofs the run was narrowed to (audit 47: an Equations
        # obligation of another file was said "not searched" on every --lemma run).
        plan.not_searched = [s for s in plan.not_searched if _named(s, lemmas)]
    return plan


def _named(skipped: Skipped, patterns: Sequence[str]) -> bool:
    """Whether a ``--lemma`` pattern names this proof, as :func:`select_lemmas` a hole."""
    names = (skipped.ident, f"{skipped.source.file}:{skipped.ident}",
             f"{skipped.source.file.rsplit('/', 1)[-1]}:{skipped.ident}")  # fmt: skip
    return bool(skipped.ident) and any(
        fnmatch.fnmatchcase(name, pattern) for pattern in patterns for name in names
    )


def written_path(results: Path) -> Path:
    """Beside the results: each file's sha256 before ``prove --write`` → after."""
    return results.with_name(results.name + ".written.json")


def record_written(results: Path, written: Mapping[str, str]) -> None:
    """Remember what ``--write`` made of each file it wrote, so that the next run reuses
    the results of the holes it left (the file changed only by that write)."""
    if not written:
        return
    known = read_written(results)
    known.update(written)
    written_path(results).write_text(json.dumps(known, indent=0) + "\n", encoding="utf-8")


def read_written(results: Path) -> dict[str, str]:
    try:
        data = json.loads(written_path(results).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def same_but_written(before: str, now: str, written: Mapping[str, str]) -> bool:
    """Whether a file read as ``before`` is ``now`` through ``prove --write``s alone."""
    seen = {before}
    while before in written and before != now:
        before = written[before]
        if before in seen:
            return False
        seen.add(before)
    return before == now


def file_changed(path: Path, expected: str) -> bool:
    """Whether the file's bytes differ from those read (sha256 ``expected``)."""
    return digest(path.read_bytes()) != expected
