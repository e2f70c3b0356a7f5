"""What the search learns from: the project's own trace (incremental, with the tracer's
shards and resume), and the traces given with ``--index``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from proofsearch.trace.runner import Limits, Summary, plan, run
from proofsearch.trace.schema import SHARD_KINDS, FileRecord, TraceDir
from proofsearch.trace.sources import Project, record_project


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
        line = _failure_line(failed[0], len(failed), project.build_dir is not None)
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


def _failure_line(record: FileRecord, count: int, dune: bool = False) -> str:
    """The line a failed project trace stops with; ``dune``: the project is described
    by dune files (a dune user was sent to "the _CoqProject's -R/-Q/-I lines")."""
    message = " ".join((record.error.message if record.error else "").split())[:400].rstrip(".")
    line = record.error.line if record.error else 1
    more = f" ({count - 1} more file(s) failed)" if count > 1 else ""
    where = (
        "the dune files' (coq.theory …) stanzas: name, theories, flags, modules"
        if dune
        else "the _CoqProject's -R/-Q/-I lines"
    )
    refused = re.search(r"Unknown option (\S+)", message)
    if refused:  # no file compiles: Coq stopped at an argument before reading any
        given = "the dune files' (flags ...)" if dune else "the _CoqProject"
        fix = "" if dune else f", or write it -arg {refused[1]} if it is one of Coq's"
        return (
            f"Coq does not know the option {refused[1]} that the project gives it (from "
            f"{given} or --coq-arg): remove it{fix} ({record.file}: {message})"
        )
    if message.startswith("Syntax error"):  # the text itself: no loadpath is to blame
        return f"{record.file}:{line}: the file does not compile: {message}{more}; fix it there"
    return (
        f"{record.file}:{line}: the file does not compile: {message}{more}; make the "
        f"project build with coqc (check {where} or --coq-arg, and the programs its "
        "commands run: Extraction or QuickChick need OCaml's tools)"
    )
