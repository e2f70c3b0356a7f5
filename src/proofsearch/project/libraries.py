"""The installed libraries a project requires, traced once per library and Coq version.

``coqdep`` only resolves a ``Require`` of an installed library when that library is on
its loadpath, so the project's files are read once more with every installed library
mapped as ``coqc`` maps it (``-R $(coqc -where)/theories Coq``, ``-Q user-contrib/X
X``). The library modules they require, and what those require in turn, are traced (only those: the
whole standard library takes twenty minutes); a library without ``.v`` sources is
left out. The standard library's trace goes to ``trace --coq-stdlib``'s own folder
(``$XDG_CACHE_HOME/proofsearch/trace/coq-stdlib``), as the same project (so a full trace
made there is reused: the shards' keys agree); on Rocq 9 that is ``Stdlib`` and its
prelude ``Corelib`` together, as ``trace --coq-stdlib`` traces them. Another library's
goes to ``…/proofsearch/libraries/<coq version>/<name>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from proofsearch.env.coq.version import without_prelude
from proofsearch.project.learn import cache_root
from proofsearch.trace.deps import requires, run_coqdep
from proofsearch.trace.runner import Limits, Summary, coq_version, plan, run
from proofsearch.trace.schema import SHARD_KINDS, FileRecord, TraceDir, write_project
from proofsearch.trace.sources import (
    Project,
    Source,
    coq_where,
    installed_mappings,
    mapping_args,
    module_of,
    record_project,
    stdlib_project,
    theories_prefix,
)


@dataclass(frozen=True)
class Library:
    """An installed library: its logical prefix and its source folder."""

    prefix: str
    root: Path


#: Seconds one library file takes to trace on one core, roughly (the stdlib's 562 files
#: took 5 min 42 s on 2 cores, a quiet machine; its later files are the long ones, so
#: the progress line's early estimate is low: audit 55 read "about 0:00:53 left" of 4 min).
SECONDS_PER_FILE = 1.2


def _expected_time(files: int, jobs: int | None) -> str:
    """``; about 3 min on 2 core(s)`` for a trace long enough to wait for, else nothing."""
    cores = max(1, jobs or os.cpu_count() or 1)
    seconds = files * SECONDS_PER_FILE / cores
    return f"; about {round(seconds / 60)} min on {cores} core(s)" if seconds >= 90 else ""


def required_library_modules(project: Project, coqc: str = "coqc") -> dict[str, set[str]]:
    """Library prefix → the library modules the project's files require directly."""
    installed = installed_mappings(coq_where(coqc))
    args: list[str] = []
    for folder, prefix in installed:  # as coqc maps them
        args += mapping_args(folder, prefix)
    # The project's own bindings last: for coqdep the last one wins, so HoTT's short
    # ``Require Import Basics.`` is its own ``HoTT.Basics``, not ``Coq.Program.Basics``.
    args += project.args
    files = [str(source.path) for source in project.sources]
    found: dict[str, set[str]] = {}
    coqlib = coq_where(coqc).resolve()
    for start in range(0, len(files), 200):
        output = run_coqdep(["coqdep", *args], files[start : start + 200], project.root)
        for line in output.splitlines():
            head, sep, tail = line.partition(": ")
            if not sep or not head.split(" ", 1)[0].endswith(".vo"):
                continue
            for token in tail.split():
                path = Path(token)
                if not token.endswith(".vo") or not path.is_absolute():
                    continue
                if not path.resolve().is_relative_to(coqlib):
                    continue  # a COQPATH package: traced with the project's outside folders
                module = module_of(path.with_suffix(".v"), installed)
                if module is not None:
                    found.setdefault(module.split(".", 1)[0], set()).add(module)
    return found


def _closure(graph: dict[str, list[str]], roots: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in graph and module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen


#: The key :func:`library_project` and :func:`library_out` take for the standard library
#: whatever its prefixes (:func:`stdlib_prefixes`).
STDLIB = "Coq"


def stdlib_prefixes(coqlib: Path) -> frozenset[str]:
    """The logical prefixes ``trace --coq-stdlib`` traces as one project: ``Coq`` (8.x),
    or Rocq 9's ``Stdlib`` with its prelude ``Corelib``."""
    if theories_prefix(coqlib) == "Corelib":
        return frozenset({"Stdlib", "Corelib"})
    return frozenset({STDLIB})


def _library_key(prefix: str, coqlib: Path) -> str:
    return STDLIB if prefix in stdlib_prefixes(coqlib) else prefix


#: Arguments that change Coq's logic or its prelude: a library a project with them
#: requires was built with them too (UniMath: ``-noinit -indices-matter -type-in-type``;
#: HoTT: ``-noinit -indices-matter``), and its files fail to compile without them.
TYPING_FLAGS = frozenset(
    {"-noinit", "-nois", "-type-in-type", "-indices-matter", "-impredicative-set"}
)


def typing_flags(args: Sequence[str]) -> list[str]:
    """The project's arguments among :data:`TYPING_FLAGS`, in order, once each."""
    return list(dict.fromkeys(arg for arg in args if arg in TYPING_FLAGS))


def library_project(prefix: str, coqc: str = "coqc", flags: Sequence[str] = ()) -> Project | None:
    """The installed library ``prefix`` as a (never compiled) project, or ``None``
    when its sources are not installed. Each of the standard library's prefixes gives
    ``trace --coq-stdlib``'s project, so the two trace it with the same keys; another
    library is traced with ``flags`` (the requiring project's :func:`typing_flags`)."""
    coqlib = coq_where(coqc)
    if _library_key(prefix, coqlib) == STDLIB:
        return stdlib_project(coqc)
    root = coqlib / "user-contrib" / prefix
    paths = sorted(root.rglob("*.v")) if root.is_dir() else []
    if not paths:
        return None
    args = ["-R", str(root), prefix, *flags]
    project = Project(prefix, root, args, installed_mappings(coqlib))
    project.compile = False
    for path in paths:
        module = module_of(path, project.mappings)
        if module is not None:
            project.sources.append(Source(path, path.relative_to(root).as_posix(), module))
    return project


def library_out(prefix: str, coqc: str = "coqc") -> Path:
    if _library_key(prefix, coq_where(coqc)) == STDLIB:
        return cache_root() / "trace" / "coq-stdlib"
    return cache_root() / "libraries" / coq_version(coqc) / prefix


def trace_libraries(
    project: Project,
    *,
    jobs: int | None = None,
    coqc: str = "coqc",
    progress: Callable[[list[object], Summary], object] | None = None,
    given: Sequence[Path] = (),
    unsourced: list[str] | None = None,
    say: Callable[[str], None] | None = None,
) -> list[Path]:
    """Trace what the project requires of each installed library; their trace folders.
    ``say`` is told, before a library's files are traced, how many and why (a first run
    traced 212 stdlib files for a 5-file project without a word, audit 45).
    ``unsourced`` gets the libraries installed without their ``.v`` files (nothing to
    trace: Debian's Interval ships only compiled files).

    A module that one of the ``given`` trace folders (``--index``) already holds is left
    to it (one module may not come from two folders), module by module: a given trace of
    math-comp's ssreflect does not stand for fingroup, which shares its ``mathcomp``
    prefix, so fingroup's modules are still traced, and the index reads the library's
    folder through a view without the given modules (:func:`without_modules`). A library
    file that fails to trace is left out of the index (its shard says why); it does not
    stop the run.
    """
    outs: list[Path] = []
    coqlib = coq_where(coqc)
    prelude = theories_prefix(coqlib)  # Coq (8.x) or Corelib (Rocq 9)
    wanted: dict[str, set[str]] = (
        {} if without_prelude(project.args) else {STDLIB: {f"{prelude}.Init.Prelude"}}
    )
    for prefix, modules in required_library_modules(project, coqc).items():
        wanted.setdefault(_library_key(prefix, coqlib), set()).update(modules)
    held = held_modules(given)
    flags = typing_flags(project.args)
    for prefix, roots in sorted(wanted.items()):
        library = library_project(prefix, coqc, flags)
        if library is None:
            if unsourced is not None:
                unsourced.append(prefix)
            continue
        keep = _closure(requires(library), roots) - held
        if not keep:
            continue  # the given folders hold all of it
        out = library_out(prefix, coqc)
        # Shards of modules this library has not (``Coq.…`` left in the stdlib's folder
        # by Coq 8 when Rocq 9, whose modules are ``Stdlib.…``, traces there) stay unread.
        foreign = held_modules([out]) - {s.module for s in library.sources}
        _trace_modules(library, keep, out, coqc, jobs, progress, say)
        outs.append(without_modules(out, held | foreign))
    outs += _trace_external(project, coqc, coqlib, held, jobs, progress, say)
    return outs


def _trace_modules(
    library: Project,
    keep: set[str],
    out: Path,
    coqc: str,
    jobs: int | None,
    progress: Callable[[list[object], Summary], object] | None,
    say: Callable[[str], None] | None = None,
) -> None:
    """Trace the ``keep`` modules of ``library`` into ``out`` (what is fresh there stays)."""
    library.sources = [s for s in library.sources if s.module in keep]
    jobs_list, _ = plan(library, out, limits=Limits(timeout=1800.0), coqc=coqc)
    if not jobs_list:
        return
    # Where the library lives, as ``trace`` records it: what its failed files are told
    # (an installed library's source need not compile outside its own build, audit 49).
    record_project(library, out)
    if say is not None:
        # Of the files the project loads, those no earlier run traced (audit 47 read
        # "13 files" on a warm cache as all the project loads).
        done = len(library.sources) - len(jobs_list)
        before = f"; {done} more were traced before" if done else ""
        say(
            f"library {library.name or library.root}: tracing the {len(jobs_list)} file(s) of "
            f"it that the project loads{before}, to learn from their proofs (once: cached "
            f"in {out}{_expected_time(len(jobs_list), jobs)})"
        )
    summary = Summary(files=len(jobs_list))
    if progress is not None:
        with progress(list(jobs_list), summary) as bar:  # type: ignore[attr-defined]
            run(jobs_list, workers=jobs, on_record=bar.record)
    else:
        run(jobs_list, workers=jobs)


def external_libraries(project: Project, coqlib: Path) -> list[Project]:
    """The project's own ``-R``/``-Q`` bindings of folders outside it and outside Coq's
    installation (a sibling checkout, a plugin's theories unpacked elsewhere), each as a
    library (never compiled: building the project built it). They were never traced,
    so no lemma of theirs was a premise, and no proof of theirs was learned from."""
    root = project.root.resolve()
    found: list[Project] = []
    for folder, prefix in project.mappings:
        folder = folder.resolve()
        inside = (root, coqlib.resolve())
        if not folder.is_dir() or any(
            folder.is_relative_to(f) or f.is_relative_to(folder) for f in inside
        ):
            continue
        library = Project(prefix or folder.name, folder, list(project.args), list(project.mappings))
        library.compile = False
        for path in sorted(folder.rglob("*.v")):
            if module_of(path, [(folder, prefix)]) is not None:
                module = library.module_of(path)
                if module is not None:
                    library.sources.append(
                        Source(path, path.relative_to(folder).as_posix(), module)
                    )
        if library.sources:
            found.append(library)
    return found


def _trace_external(
    project: Project,
    coqc: str,
    coqlib: Path,
    held: set[str],
    jobs: int | None,
    progress: Callable[[list[object], Summary], object] | None,
    say: Callable[[str], None] | None = None,
) -> list[Path]:
    """Trace what the project requires of its :func:`external_libraries` (and what that
    requires of them), each into ``…/libraries/<coq version>/external/<name>-<folder
    hash>``; their trace folders."""
    libraries = external_libraries(project, coqlib)
    if not libraries:
        return []
    needed = {dep for deps in requires(project, coqlib=coqlib).values() for dep in deps}
    outs: list[Path] = []
    for library in libraries:
        own = {source.module for source in library.sources}
        keep = _closure(requires(library, coqlib=coqlib), needed & own) - held
        if not keep:
            continue
        digest = hashlib.sha256(str(library.root).encode()).hexdigest()[:12]
        name = f"{library.name or 'top'}-{digest}"
        out = cache_root() / "libraries" / coq_version(coqc) / "external" / name
        _trace_modules(library, keep, out, coqc, jobs, progress, say)
        outs.append(without_modules(out, held))
    return outs


def untraced_files(outs: Sequence[Path]) -> list[tuple[Path, FileRecord]]:
    """The library files that failed to trace (each trace folder's, with the folder):
    their lemmas are not premises. Said after every run, not only the one that met the
    failure (the failed shard is kept, and not traced again until the file changes)."""
    return [
        (out, record)
        for out in existing(outs)
        for record in TraceDir(out).files()
        if record.status == "failed"
    ]


def admitted_lemmas(outs: Sequence[Path]) -> dict[str, str]:
    """The proofs the trace folders ``outs`` record as ending in ``Admitted``: full name
    → module. A library's unfinished lemma is an axiom to ``Print Assumptions`` like
    any other; a proof resting on one is not finished either."""
    return {
        name: record.module
        for out in existing(outs)
        for record in TraceDir(out).files()
        for name in record.admitted or ()
    }


def held_modules(folders: Sequence[Path]) -> set[str]:
    """The modules the trace ``folders`` hold (none for a folder not made yet: a library
    traced for the first time)."""
    return {module for folder in existing(folders) for module in TraceDir(folder).modules()}


def without_modules(out: Path, held: set[str]) -> Path:
    """``out`` itself, or, when it holds some of the ``held`` modules (traced by an
    earlier run without ``--index``), a folder beside it whose ``files`` link to its
    other shards only: the index reads each module from one folder."""
    if not (out / "files").is_dir():
        return out
    trace = TraceDir(out)
    modules = trace.modules()
    excluded = sorted(modules & held)
    if not excluded:
        return out
    digest = hashlib.sha256("\n".join(excluded).encode()).hexdigest()[:12]
    view = out.with_name(f"{out.name}.without-{digest}") / "files"
    view.mkdir(parents=True, exist_ok=True)
    record = trace.project()
    if record is not None:
        write_project(view.parent, record)
    shards = [trace.shard(m, kind) for m in sorted(modules - held) for kind in SHARD_KINDS]
    linked = {shard.name: shard for shard in shards if shard.exists()}
    for stale in view.iterdir():
        if stale.name not in linked:
            stale.unlink(missing_ok=True)
    for name, shard in linked.items():
        link = view / name
        if not link.is_symlink():
            with contextlib.suppress(FileExistsError):  # another run made it meanwhile
                link.symlink_to(shard)
    return view.parent


def existing(paths: Sequence[Path]) -> list[Path]:
    return [path for path in paths if (path / "files").is_dir()]
