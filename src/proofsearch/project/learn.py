"""What the search learns from: the project's own trace (incremental, with the tracer's
shards and resume), and the traces given with ``--index``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from proofsearch.env.coq.version import stdlib_missing_hint
from proofsearch.trace.runner import NOT_TRACED, Limits, Summary, plan, run
from proofsearch.trace.schema import SHARD_KINDS, FileRecord, TraceDir
from proofsearch.trace.sources import Project, project_file, record_project

#: Coq's message for ``From LF Require Import Basics`` where nothing is bound to ``LF``.
_LOGICAL_PREFIX = re.compile(r"bound to logical path \S+ with prefix (\S+)")


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/proofsearch`` (``~/.cache/proofsearch``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "proofsearch"


class TraceFailed(Exception):
    """A project file could not be traced (it does not compile): one line, its place,
    and every file that failed (``prove`` goes on with the files that load none)."""

    def __init__(self, line: str, failed: list[FileRecord]) -> None:
        super().__init__(line)
        self.failed = failed


def trace_project(
    project: Project,
    out: Path,
    *,
    jobs: int | None = None,
    coqc: str = "coqc",
    progress: Callable[[list[object], Summary], object] | None = None,
) -> Summary:
    """Trace the project's files whose shard is stale (every file the first time).

    Raises :class:`TraceFailed` naming the first file that failed, Coq's message and
    the fix; the other files' shards are written all the same.
    """
    prune(project, out)
    record_project(project, out)  # check/export --index of this trace load its files
    jobs_list, fresh = plan(
        project,
        out,
        limits=Limits(timeout=1800.0),
        coqc=coqc,
        retry_failed=True,
        outdated=_without_admitted_goals,
    )
    summary = Summary(files=len(project.sources))
    for record in fresh:
        summary.add(record, skipped=True)
    failed = [r for r in fresh if r.status == "failed"]
    if jobs_list:
        if progress is not None:
            with progress(list(jobs_list), summary) as bar:  # type: ignore[attr-defined]
                records = run(jobs_list, workers=jobs, on_record=bar.record)
        else:
            records = run(jobs_list, workers=jobs)
            for record in records:
                summary.add(record, skipped=False)
        failed += [r for r in records if r.status == "failed"]
    if failed:
        # The cause first: the files that load it were set aside, not traced.
        failed.sort(key=lambda r: r.error is not None and r.error.message.startswith(NOT_TRACED))
        line = _failure_line(failed[0], len(failed), project)
        raise TraceFailed(line, failed)
    return summary


def _without_admitted_goals(record: FileRecord) -> bool:
    """A shard written before the tracer recorded the goals open at ``Admitted`` (a proof
    the user began would be searched from its statement, their tactics dropped), or
    where each such proof is (an obligation's name): the file is traced again once."""
    if record.status != "traced":
        return False
    return record.admitted is None or (bool(record.admitted) and record.admitted_at is None)


def prune(project: Project, out: Path) -> None:
    """Remove the shards of modules the project no longer has (a file renamed or
    deleted): the index would still offer their steps and premises."""
    if not (out / "files").is_dir():
        return
    trace = TraceDir(out)
    for module in trace.modules() - {source.module for source in project.sources}:
        for kind in SHARD_KINDS:
            trace.shard(module, kind).unlink(missing_ok=True)


#: What a file's error reads like when Coq's setup, not the text, is to blame: a library
#: or ML module it cannot find, compiled files that disagree, a program a command runs.
_SETUP_ERROR = re.compile(
    r"Unable to locate library|Cannot find (?:a physical path|library)|Cannot load|"
    r"inconsistent assumptions|ML module|[Dd]ynlink|[Ff]indlib|ocamlfind|ocamlbuild|"
    r"No such file|command not found|Extraction|QuickChick"
)
#: How the line for an option Coq refuses begins: every file fails on it, the libraries'
#: traces too, so ``prove`` stops on it before tracing them.
UNKNOWN_OPTION = "Coq does not know the option"
#: ``Declare ML Module "x.plugin"`` of a plugin not installed: Findlib then lists every
#: folder it looked in (600 characters, cut mid-path: audit 47).
_PLUGIN_MISSING = re.compile(r"Findlib error: (\S+) not found in:.*", re.S | re.I)
_INCONSISTENT = re.compile(r"makes inconsistent assumptions over library (\S+)")
#: ``From mathcomp Require Import all_field`` where math-comp is installed without its
#: field part (8.20: "… logical path all_field with prefix mathcomp"; earlier: "…
#: matching suffix all_field and prefix mathcomp").
_NO_PART = re.compile(
    r"logical path (?:matching suffix )?([\w'.]+?)\.? (?:with|and) prefix ([\w'.]+?)\.?(?:\s|$)"
)


def stale_outside(project: Project) -> list[Path]:
    """Sources the project binds from outside its folder (``-Q ../base Base``) that are
    newer than their ``.vo``: edited and not rebuilt, so the project compiles against
    their old text, and an error in its files may be theirs (audit 47)."""
    from proofsearch.env.coq.version import coq_where

    inside = (project.root.resolve(), coq_where().resolve())  # the installed are built
    found = []
    for folder, _prefix in project.mappings:
        if not folder.is_dir() or any(folder.resolve().is_relative_to(f) for f in inside):
            continue
        for source in sorted(folder.rglob("*.v")):
            vo = source.with_suffix(".vo")
            if vo.is_file() and vo.stat().st_mtime < source.stat().st_mtime:
                found.append(source)
    return found


def _installed_prefix(prefix: str) -> bool:
    """Whether Coq's installation has a library under the logical name ``prefix``."""
    from proofsearch.env.coq.version import coq_where

    return (coq_where() / "user-contrib" / Path(*prefix.split("."))).is_dir()


def _closest_module(prefix: str, missing: str) -> str | None:
    """The installed module of library ``prefix`` whose name is closest to ``missing``
    (``Coquelicot`` for ``Coquelicott``: audit 55's typo was sent to the package manager)."""
    import difflib

    from proofsearch.env.coq.version import coq_where

    root = coq_where() / "user-contrib" / Path(*prefix.split("."))
    names = sorted(
        ".".join(path.relative_to(root).with_suffix("").parts) for path in root.rglob("*.vo")
    )
    last = {name.rsplit(".", 1)[-1]: name for name in names}
    close = difflib.get_close_matches(missing, names, n=1, cutoff=0.75)
    close = close or [last[n] for n in difflib.get_close_matches(missing, list(last), 1, 0.75)]
    return close[0] if close else None


def _failure_line(record: FileRecord, count: int, project: Project) -> str:
    """The line a failed project trace stops with: the loadpath advice names where the
    project's loadpath comes from (its dune files, its _CoqProject or _RocqProject, or
    --coq-arg), and only a setup error gets it: a type error is the file's to fix."""
    message = " ".join((record.error.message if record.error else "").split())
    plugin = _PLUGIN_MISSING.search(message)
    if plugin:
        message = (
            f"{message[: plugin.start()]}the OCaml plugin {plugin[1]} is not installed "
            "(Findlib knows no package of that name)"
        )
    message = message[:400].rstrip(".")
    line = record.error.line if record.error else 1
    more = f" ({count - 1} more file(s) failed)" if count > 1 else ""
    stale = stale_outside(project)
    if stale:  # the project's own text may well be fine
        names = ", ".join(str(p) for p in stale[:3]) + (" …" if len(stale) > 3 else "")
        more += (
            f"; {names} {'is' if len(stale) == 1 else 'are'} newer than the .vo the project "
            "compiles against: rebuild that project first (make there)"
        )
    if plugin:
        return (
            f"{record.file}:{line}: the file does not compile: {message}{more}; install the "
            "plugin (the Coq library's Debian or opam package), or remove the line loading it"
        )
    inconsistent = _INCONSISTENT.search(message)
    if inconsistent:  # a library rebuilt after the project's files were compiled
        return (
            f"{record.file}:{line}: the file does not compile: {message}{more}; "
            f"{inconsistent[1]} was compiled again after the files that load it: rebuild "
            "the project (make), after the project that provides it"
        )
    dune = project.build_dir is not None
    described = project_file(project.root)
    given = (
        "the dune files' (flags ...)"
        if dune
        else f"the {described.name}"
        if described
        else "--coq-arg"
    )
    where = (
        "the dune files' (coq.theory …) stanzas: name, theories, flags, modules"
        if dune
        else f"the {described.name}'s -R/-Q/-I lines"
        if described
        else "the -R/-Q/-I of --coq-arg"
    )
    refused = re.search(r"Unknown option (\S+)", message)
    if refused:  # no file compiles: Coq stopped at an argument before reading any
        option = refused[1]
        passed = described is not None and re.search(
            rf"-arg\s+[\"']?{re.escape(option)}(?![\w-])", described.read_text(errors="replace")
        )
        if passed and described is not None:  # `-arg X` is what the file says (audit 47)
            return (
                f"{UNKNOWN_OPTION} {option} that the {described.name} passes it "
                f"with -arg: remove it, or correct its spelling ({record.file}: {message})"
            )
        fix = f", or write it -arg {option} if it is one of Coq's" if described else ""
        return (
            f"{UNKNOWN_OPTION} {option} that the project gives it (from "
            f"{given} or --coq-arg): remove it{fix} ({record.file}: {message})"
        )
    part = _NO_PART.search(message)
    if part and _installed_prefix(part[2]):  # a library there, without this part of it
        closest = _closest_module(part[2], part[1])
        if closest is not None:
            return (
                f"{record.file}:{line}: the file does not compile: {message}{more}; {part[2]} "
                f"has no {part[1]}: did you mean {closest}?"
            )
        return (
            f"{record.file}:{line}: the file does not compile: {message}{more}; {part[2]} is "
            f"installed but has no {part[1]}: a part of it packaged apart may be missing "
            f"(Debian: apt-cache search libcoq-{part[2].split('.')[0].lower()}; opam: "
            f"coq-{part[2].split('.')[0].lower()}-…)"
        )
    if not _SETUP_ERROR.search(message):  # the text itself: no loadpath is to blame
        fix = "" if stale else "; fix it there"
        return f"{record.file}:{line}: the file does not compile: {message}{more}{fix}"
    prefix = _LOGICAL_PREFIX.search(message)
    if prefix and not dune and described is None:  # `From LF Require …` in a bare folder
        name = prefix[1].rstrip(".")
        return (
            f"{record.file}:{line}: the file does not compile: {message}{more}; the folder "
            f"has no _CoqProject to say its files are {name}.*: write one with the line "
            f"-Q . {name} (or give --coq-arg=-Q --coq-arg=FOLDER --coq-arg={name})"
        )
    check = f"{where} or --coq-arg" if described or dune else where
    return (
        f"{record.file}:{line}: the file does not compile: {message}{more}"
        f"{stdlib_missing_hint(message)}; make the project build with coqc (check {check}, "
        "and the programs its commands run: Extraction or QuickChick need OCaml's tools)"
    )
