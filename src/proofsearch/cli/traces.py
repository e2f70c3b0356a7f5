"""What the CLI takes from ``--index`` trace folders before a run: the project's Coq
arguments, and where each theorem's ``file``/``module`` field points.

Both are checked before any work, so that a theorem file that names a file the traces
do not hold is one line and exit 2, not an ``error`` row per theorem. ``--index`` may be
one folder or several (a list): every function here takes a list.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from proofsearch.cli.errors import CommandError
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir, TraceFormatError

#: How many traced files or modules a "matches no traced file" message suggests.
SUGGESTIONS = 3


def index_list(index: str | Sequence[str] | None) -> list[str]:
    """``--index`` as a list, whether the option gave one folder or several."""
    if index is None:
        return []
    return [index] if isinstance(index, str | os.PathLike) else [str(i) for i in index]


def open_traces(indexes: Sequence[str]) -> list[TraceDir]:
    """Each ``--index`` folder as a :class:`TraceDir`; a bad one is a usage error."""
    traces = []
    for index in indexes:
        try:
            traces.append(TraceDir(index))
        except TraceFormatError:
            raise CommandError(
                f"--index {index}",
                "not a trace folder (no files/ inside)",
                "give a folder written by proofsearch trace --out",
            ) from None
    return traces


def recorded_coq_args(traces: Sequence[TraceDir]) -> list[str]:
    """The Coq arguments the traces were made with, in order, each group once.

    Traces older than the record contribute nothing (their users give ``--coq-arg``).
    """
    args: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for trace in traces:
        try:
            project = trace.project()
        except TraceFormatError as exc:
            raise CommandError(f"--index {trace.root}", str(exc), "trace it again") from None
        if project is None:
            continue
        for group in _groups(project.coq_args):
            if group not in seen:
                seen.add(group)
                args += group
    return args


def _groups(args: Sequence[str]) -> list[tuple[str, ...]]:
    """``-R DIR LIB`` / ``-Q DIR LIB`` / ``-I DIR`` as one group each, other args alone."""
    arity = {"-R": 3, "-Q": 3, "-I": 2, "-include": 2}
    groups, i = [], 0
    while i < len(args):
        width = arity.get(args[i], 1)
        groups.append(tuple(args[i : i + width]))
        i += width
    return groups


@dataclass(frozen=True)
class TracedFile:
    """A file a trace holds: as recorded (relative to the project folder), its module,
    and its absolute path when the trace records the project folder."""

    file: str
    module: str
    path: str | None


def traced_files(traces: Sequence[TraceDir]) -> list[TracedFile]:
    found = []
    for trace in traces:
        project = trace.project()
        for record in trace.files():
            path = None
            if project is not None:
                path = os.path.normpath(os.path.join(project.root, record.file))
            found.append(TracedFile(record.file, record.module, path))
    return found


def find_traced(field: str, files: Sequence[TracedFile]) -> list[TracedFile]:
    """The traced files a theorem's ``file`` field names: the path relative to the
    project folder (as traced), an absolute path, or a unique path suffix."""
    if os.path.isabs(field):
        absolute = os.path.normpath(field)
        exact = [f for f in files if f.path == absolute]
        if exact:
            return exact
    posix = PurePosixPath(field.replace("\\", "/")).as_posix().removeprefix("./")
    exact = [f for f in files if f.file in (field, posix)]
    if exact:
        return exact
    return [f for f in files if posix.endswith("/" + f.file) or f.file.endswith("/" + posix)]


def _closest(word: str, candidates: Sequence[str]) -> str:
    names = sorted(set(candidates))
    close = difflib.get_close_matches(word, names, n=SUGGESTIONS, cutoff=0.0)
    return ", ".join(close) if close else "none (the traces hold no file)"


def _closest_file(field: str, files: Sequence[TracedFile]) -> str:
    """The traced files nearest to ``field``, compared as given: an absolute path with
    the traced absolute paths (where the trace records its project folder)."""
    if os.path.isabs(field) and any(f.path for f in files):
        by_path = {f.path: f.file for f in files if f.path}
        close = difflib.get_close_matches(field, sorted(by_path), n=SUGGESTIONS, cutoff=0.0)
        return ", ".join(by_path[path] for path in close)
    return _closest(field, [f.file for f in files])


def _where(theorem: Theorem) -> str:
    return theorem.source or f"theorem {theorem.name}"


def _missing_library(module: str, modules: set[str]) -> str:
    """The closest traced modules, or, when none shares the module's library (its first
    component: ``stdpp`` of ``stdpp.gmap``), that the library's trace is missing: the
    closest stdlib names were noise for an stdpp entry (audit 52)."""
    library = module.split(".")[0]
    if any(m.split(".")[0] == library for m in modules):
        return f"closest: {_closest(module, list(modules))}"
    return (
        f"no module of {library!r} is traced there: add its trace with another --index "
        f"(proofsearch trace its folder), or give --index auto"
    )


def check_places(theorems: Sequence[Theorem], traces: Sequence[TraceDir]) -> list[Theorem]:
    """Each theorem whose ``file`` or ``module`` field names no traced file or module is
    refused (one line naming the first, with the closest traced names); an accepted
    ``file`` is rewritten as the trace records it, so the generators' scope rules find it.
    """
    if not traces or not any("file" in t.extra or "module" in t.extra for t in theorems):
        return list(theorems)
    try:
        files = traced_files(traces)
    except TraceFormatError as exc:
        raise CommandError("--index", str(exc), "trace it again") from None
    modules = {f.module for f in files}
    where = " ".join(str(t.root) for t in traces)
    checked: list[Theorem] = []
    bad: list[str] = []
    for theorem in theorems:
        module = theorem.extra.get("module")
        file = theorem.extra.get("file")
        if module is not None:
            if module not in modules:
                bad.append(
                    f"{_where(theorem)}: field 'module': {module!r} is not a module traced in "
                    f"{where} ({_missing_library(str(module), modules)})"
                )
        elif file is not None:
            matches = find_traced(str(file), files)
            if len(matches) == 1:
                theorem = replace(theorem, extra={**theorem.extra, "file": matches[0].file})
            elif not matches:
                bad.append(
                    f"{_where(theorem)}: field 'file': {file!r} matches no file traced in "
                    f"{where} (closest: {_closest_file(str(file), files)})"
                )
            else:
                named = ", ".join(f"{f.file} ({f.module})" for f in matches[:SUGGESTIONS])
                bad.append(f"{_where(theorem)}: field 'file': {file!r} matches several: {named}")
        checked.append(theorem)
    if bad:
        more = f" (and {len(bad) - 1} more theorem(s))" if len(bad) > 1 else ""
        raise CommandError(
            "",
            bad[0] + more,
            "give 'file' relative to the project folder (as traced) or absolute, or "
            "'module'; or trace that file (proofsearch trace)",
        )
    return checked
