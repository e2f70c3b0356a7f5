"""Tracing a whole project: files in dependency order, independent ones in parallel.

Each file is a job for a worker process (one coqidetop each), started once every file
it requires inside the selection is done. A file whose shard is fresh (same key) is
skipped. For a user project, ``.vo`` files must exist before a dependent can be traced:
after tracing a file the worker compiles it with ``coqc`` (in place, next to the
source, as ``make`` would; a dune project's into a folder of the cache, see
``Project.build_dir``) when its ``.vo`` is missing or older than the source; the
installed standard library is already compiled and is never written to.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from proofsearch.env.coq.version import NATIVE_OFF, coq_env, without_native_warning
from proofsearch.trace.deps import order, requires
from proofsearch.trace.file_trace import trace_file
from proofsearch.trace.require_lines import require_lines
from proofsearch.trace.schema import FileError, FileRecord, TraceDir
from proofsearch.trace.shards import (
    open_trace_dir,
    read_record,
    shard_key,
    write_record,
    write_shard,
)
from proofsearch.trace.sources import Project, Source, SourceError, coq_where

_COQC_LINE = re.compile(r'File "[^"]*", line (\d+)')


@dataclass(frozen=True)
class Limits:
    """Per-file limits: wall-clock seconds and the address space of each Coq process."""

    timeout: float = 1800.0
    memory_limit_mb: int = 4096


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to trace one file (plain values: it crosses processes)."""

    source: Source
    args: tuple[str, ...]
    requires: tuple[str, ...]
    key: str
    coq_version: str
    out: str
    cwd: str
    limits: Limits
    #: Compile the file with coqc after tracing it (its ``.vo`` is out of date).
    build: bool
    trace: bool = True
    coqc: str = "coqc"
    #: The ``.vo`` to write when it is not beside the source (``coqc -o``; dune projects).
    vo: str = ""


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def outside_vo(project: Project, module: str) -> Path | None:
    """The ``.vo`` of a module the project binds from outside its folder (``-Q ../base
    Base``: ``Base.B`` is ``../base/B.vo``), where one exists."""
    root = project.root.resolve()
    for folder, prefix in project.mappings:
        if module != prefix and not module.startswith(f"{prefix}."):
            continue
        if folder.resolve().is_relative_to(root):
            continue
        parts = module.removeprefix(prefix).lstrip(".").split(".") if module != prefix else []
        vo = folder.joinpath(*parts).with_suffix(".vo") if parts else None
        if vo is not None and vo.is_file():
            return vo
    return None


def needs_build(project: Project, graph: dict[str, list[str]], ordered: list[str]) -> set[str]:
    """Modules whose ``.vo`` must be (re)built, as ``make`` decides: missing, older than
    the source or than a required ``.vo`` (the project's, or one it binds from outside
    its folder: a sibling project rebuilt since, audit 47), or requiring one rebuilt."""
    if not project.compile:
        return set()
    paths = {source.module: source.path for source in project.sources}
    stale: set[str] = set()
    for module in ordered:
        path = paths[module]
        vo = _mtime(project.vo_path(path))
        deps = [dep for dep in graph[module] if dep in paths]
        dep_vos = [_mtime(project.vo_path(paths[dep])) for dep in deps]
        outside = (outside_vo(project, dep) for dep in graph[module] if dep not in paths)
        dep_vos += [_mtime(found) for found in outside if found is not None]
        if (
            vo is None
            or vo < path.stat().st_mtime
            or any(dep in stale for dep in deps)
            or any(dep_vo is not None and dep_vo > vo for dep_vo in dep_vos)
        ):
            stale.add(module)
    return stale


def _compile(job: Job) -> FileError | None:
    """``coqc`` the file so that files requiring it can load it."""
    memory = job.limits.memory_limit_mb
    prefix = ["prlimit", f"--as={memory * 1024 * 1024}", "--"] if memory > 0 else []
    output: list[str] = []
    if job.vo:
        Path(job.vo).parent.mkdir(parents=True, exist_ok=True)
        output = ["-o", job.vo]
    command = [
        *prefix, job.coqc, *job.args, *job.source.extra_args, *NATIVE_OFF, *output,
        str(job.source.path),
    ]  # fmt: skip
    try:
        done = subprocess.run(  # one OCaml domain: OCaml 5 cannot start under the cap otherwise
            command,
            cwd=job.cwd,
            capture_output=True,
            text=True,
            timeout=job.limits.timeout,
            check=False,
            env=coq_env(),
        )
    except subprocess.TimeoutExpired:
        return FileError(line=1, message=f"coqc took more than {job.limits.timeout:g} s")
    if done.returncode == 0:
        return None
    stderr = without_native_warning(done.stderr)
    match = _COQC_LINE.search(stderr)
    message = stderr.strip()[-2000:] or f"coqc exited with code {done.returncode}"
    return FileError(line=int(match.group(1)) if match else 1, message=message)


def _require_lines(path: Path, requires: Sequence[str]) -> dict[str, int]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    return require_lines(text, requires)


def refreshed(
    trace: TraceDir, record: FileRecord, requires: Sequence[str], path: Path
) -> FileRecord:
    """A fresh shard whose record predates what ``plan`` now knows of its file (its
    requires on the installed libraries, ``require_lines``): the record is brought up to
    date (read from the source, no Coq run) and rewritten, instead of tracing again."""
    requires = list(requires)
    if record.requires == requires and record.require_lines is not None:
        return record
    lines = _require_lines(path, requires)
    updated = record.model_copy(update={"requires": requires, "require_lines": lines})
    write_record(trace, updated)
    return updated


def run_job(job: Job) -> FileRecord:
    """Trace one file, compile it if needed, write its shard; runs in a worker."""
    start = time.perf_counter()
    trace_dir = TraceDir(job.out)
    fields = {
        "file": job.source.file,
        "module": job.source.module,
        "requires": list(job.requires),
        "require_lines": _require_lines(job.source.path, job.requires),
        "key": job.key,
        "coq_version": job.coq_version,
    }
    if not job.trace:  # the shard is fresh; only the .vo is out of date
        error = _compile(job)
        old = read_record(trace_dir, job.source.module)
        assert old is not None
        old = refreshed(trace_dir, old, job.requires, job.source.path)
        if error is None:
            return old
        return old.model_copy(update={"status": "failed", "error": error})
    trace = trace_file(
        job.source.path,
        job.source.file,
        job.source.module,
        [*job.args, *job.source.extra_args],
        timeout=job.limits.timeout,
        memory_limit_mb=job.limits.memory_limit_mb,
        cwd=job.cwd,
    )
    error = trace.error
    if error is None and job.build:
        error = _compile(job)
    record = FileRecord(
        **fields,
        status="failed" if error is not None else "traced",
        error=error,
        lemmas=trace.lemmas,
        steps=len(trace.steps),
        premises=len(trace.premises),
        seconds=round(time.perf_counter() - start, 3),
        admitted=trace.admitted,
        admitted_at=trace.admitted_at,
    )
    write_shard(trace_dir, record, trace.steps, trace.premises)
    return record


@dataclass
class Summary:
    """What a run did (skipped: fresh shards left as they were)."""

    files: int = 0
    traced: int = 0
    skipped: int = 0
    failed: list[FileRecord] = field(default_factory=list)
    lemmas: int = 0
    steps: int = 0
    premises: int = 0
    seconds: float = 0.0

    def add(self, record: FileRecord, skipped: bool) -> None:
        if skipped:
            self.skipped += 1
        elif record.status == "traced":
            self.traced += 1
        if record.status == "failed":
            self.failed.append(record)
        self.lemmas += record.lemmas
        self.steps += record.steps
        self.premises += record.premises


#: Called with each file's record as it is done, and whether it was skipped.
OnRecord = Callable[[FileRecord, bool, int], None]


def coq_version(coqc: str = "coqc") -> str:
    done = subprocess.run([coqc, "--print-version"], capture_output=True, text=True, check=True)
    return done.stdout.split()[0]


def _working_folder(project: Project, out: Path, coqc: str) -> str:
    """Where Coq runs: the project's folder, as ``make`` runs it, except for a library
    traced for its lemmas (never compiled: the stdlib, a ``user-contrib`` package, a
    folder the project binds from outside) or one inside Coq's installation: there
    ``lia`` left its ``.lia.cache`` in the system's folders, and a package purged later
    left its folder behind for it. Such a trace runs in its own output folder (its
    paths are absolute)."""
    root = project.root.resolve()
    try:
        installed = root.is_relative_to(coq_where(coqc).resolve())
    except SourceError:  # no coqc -where: the project's folder, as before
        installed = False
    if project.compile and not installed:
        return str(project.root)
    out.mkdir(parents=True, exist_ok=True)
    return str(out.resolve())


def source_key(project: Project, source: Source, version: str) -> str:
    """The key a fresh shard of ``source`` has: its bytes, the project's and its own
    Coq arguments, the Coq version (``prove --list`` reads an earlier trace with it)."""
    return shard_key(source.path.read_bytes(), (*project.args, *source.extra_args), version)


def plan(
    project: Project,
    out: Path,
    *,
    limits: Limits,
    coqc: str = "coqc",
    retry_failed: bool = False,
    outdated: Callable[[FileRecord], bool] | None = None,
) -> tuple[list[Job], list[FileRecord]]:
    """Jobs to run in dependency order, and the fresh records that need nothing.

    ``outdated``: a shard of the same source that this caller still traces again (one
    written before the tracer recorded something the caller needs)."""
    trace_dir = open_trace_dir(out)
    version = coq_version(coqc)
    graph = requires(project)
    by_module = {source.module: source for source in project.sources}
    jobs: list[Job] = []
    fresh: list[FileRecord] = []
    ordered = order(graph)
    build = needs_build(project, graph, ordered)
    cwd = _working_folder(project, Path(out), coqc)
    for module in ordered:
        source = by_module[module]
        key = source_key(project, source, version)
        old = read_record(trace_dir, module)
        job = Job(
            source=source,
            args=tuple(project.args),
            requires=tuple(graph[module]),
            key=key,
            coq_version=version,
            out=str(out),
            cwd=cwd,
            limits=limits,
            build=module in build,
            coqc=coqc,
            vo=str(project.vo_path(source.path)) if project.build_dir is not None else "",
        )
        # A module the file loaded when it was traced that no longer resolves (its
        # library uninstalled since): traced again, so that the file's failure is said
        # as a fresh project's is, not hole by hole (audit 44 #6).
        lost = old is not None and bool(set(old.requires) - set(graph[module]))
        reusable = (
            old is not None
            and old.key == key
            and (old.status == "traced" or not retry_failed)
            and not (outdated is not None and outdated(old))
            and not lost
        )
        if old is not None and reusable:
            if module in build and old.status == "traced":
                jobs.append(Job(**{**job.__dict__, "trace": False}))
            else:
                fresh.append(refreshed(trace_dir, old, graph[module], source.path))
            continue
        jobs.append(job)
    return jobs, fresh


#: Handle of one running job (a future, a Ray object reference).
_H = TypeVar("_H", bound=Hashable)


def schedule(
    jobs: list[Job],
    submit: Callable[[Job], _H],
    wait: Callable[[list[_H]], Sequence[_H]],
    result: Callable[[_H], FileRecord],
    *,
    workers: int,
    on_record: OnRecord | None = None,
) -> list[FileRecord]:
    """Run ``jobs`` in dependency order, at most ``workers`` at once: a job is submitted
    once every file it requires inside the selection is done. ``submit``, ``wait`` (some
    of the running handles that are done) and ``result`` are the executor's: a process
    pool here, Ray tasks in :mod:`proofsearch.trace.ray_runner`."""
    waiting = {job.source.module: job for job in jobs}
    blocking = {
        name: {dep for dep in job.requires if dep in waiting} for name, job in waiting.items()
    }
    records: list[FileRecord] = []
    running: dict[_H, Job] = {}

    def submit_ready() -> None:
        for name in [n for n, deps in blocking.items() if not deps]:
            if len(running) >= workers:
                return
            del blocking[name]
            job = waiting.pop(name)
            running[submit(job)] = job

    submit_ready()
    while running:
        for handle in wait(list(running)):
            job = running.pop(handle)
            try:
                record = result(handle)
            except Exception as exc:  # a worker crashed: report the file, go on
                record = _crashed(job, exc)
            records.append(record)
            for deps in blocking.values():
                deps.discard(job.source.module)
            if on_record is not None:
                on_record(record, False, job.source.path.stat().st_size)
            if record.status == "failed":
                for skipped in _set_aside(job, waiting, blocking):
                    records.append(skipped)
                    if on_record is not None:
                        on_record(skipped, False, 0)
        submit_ready()
    return records


#: How the record of a file set aside after a file it loads failed begins.
NOT_TRACED = "not traced:"


def _set_aside(
    failed: Job, waiting: dict[str, Job], blocking: dict[str, set[str]]
) -> list[FileRecord]:
    """The files that load ``failed`` (directly or not), taken out of the queue: they
    cannot load it, and tracing them only said "Unable to locate library" of a file
    whose own error is the cause (audit 45)."""
    out: list[FileRecord] = []
    causes = {failed.source.module: failed.source.file}
    changed = True
    while changed:
        changed = False
        for name, job in list(waiting.items()):
            cause = next((causes[dep] for dep in job.requires if dep in causes), None)
            if cause is None:
                continue
            del waiting[name]
            blocking.pop(name, None)
            causes[name] = cause
            message = f"{NOT_TRACED} it loads {cause}, which failed"
            out.append(failed_record(job, message))
            changed = True
    return out


def _crashed(job: Job, exc: Exception) -> FileRecord:
    return failed_record(job, f"worker failed: {exc!r}")


def failed_record(job: Job, message: str) -> FileRecord:
    """The record of a file that could not be traced at all (``message`` says why)."""
    return FileRecord(
        file=job.source.file,
        module=job.source.module,
        requires=list(job.requires),
        key=job.key,
        coq_version=job.coq_version,
        status="failed",
        error=FileError(line=1, message=message),
    )


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """While the pool's processes start: a spawned child runs ``python -c …``, which puts
    the working folder first on its path, so a user's ``select.py`` there shadowed the
    standard library's and crashed the pool (``BrokenProcessPool``). ``PYTHONSAFEPATH``
    (Python 3.11) leaves it out; the variable is restored after, so that nothing else
    this process starts changes."""
    before = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONSAFEPATH"]
        else:
            os.environ["PYTHONSAFEPATH"] = before


#: Seconds the workers have to leave after a Ctrl-C before they are killed.
WORKER_EXIT_GRACE = 15.0
#: Set in a worker by its first Ctrl-C: the worker leaves once its file's cleanup is done.
_interrupted = False
#: Set in a worker while it traces a file (whose prover a Ctrl-C must close first).
_busy = False


def _leave_quietly_on_interrupt() -> None:
    """A worker's Ctrl-C (the terminal sends it to the whole process group) ends it
    without a word. An idle worker leaves at once: raised there, the exit was taken for
    an error in whatever the worker ran (a queue's read: "EOFError"; a weak reference's
    callback: "Exception ignored in …", which also swallowed it), each printed with a
    traceback under the one-line message (seen on loaded machines). A worker tracing a
    file leaves as ``SystemExit`` does, its ``finally`` blocks closing the prover; if
    that exit is swallowed the same way, nothing is printed, and the worker leaves when
    its file is done (:func:`_run_job_in_worker`), or the parent kills it."""

    def leave(signum: int, frame: object) -> None:
        global _interrupted
        _interrupted = True
        if not _busy:
            os._exit(130)
        raise SystemExit(130)

    default_hook = sys.unraisablehook

    def quiet(unraisable: sys.UnraisableHookArgs) -> None:
        if not (_interrupted and isinstance(unraisable.exc_value, SystemExit)):
            default_hook(unraisable)

    sys.unraisablehook = quiet
    signal.signal(signal.SIGINT, leave)


def _run_job_in_worker(job: Job) -> FileRecord:
    """:func:`run_job`, but an interrupted worker then leaves at once rather than take
    the next file queued for it (the pool runs every file already handed to a worker,
    so a stopped trace went on for minutes)."""
    global _busy
    _busy = True
    try:
        if _interrupted:
            raise SystemExit(130)
        return run_job(job)
    finally:
        if _interrupted:
            os._exit(130)  # the file's own cleanup has run: its prover is closed
        _busy = False


@contextlib.contextmanager
def _cancel_on_interrupt(pool: concurrent.futures.ProcessPoolExecutor) -> Iterator[None]:
    """On Ctrl-C, drop the files not yet started and stop the workers (those a terminal's
    Ctrl-C did not reach too): the pool's own exit waits for every file submitted."""
    try:
        yield
    except KeyboardInterrupt:
        workers = list((pool._processes or {}).values())  # no public handle on them
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            with contextlib.suppress(OSError):
                if worker.pid is not None:
                    os.kill(worker.pid, signal.SIGINT)
        # Wait for them to leave (a file's prover closed first) before this process
        # exits: a worker still reading a queued file when its parent was gone printed
        # "EOFError: Ran out of input" with a traceback under the one-line message
        # (seen once, on a loaded machine, Python 3.14).
        deadline = time.monotonic() + WORKER_EXIT_GRACE
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                worker.kill()
        raise


def run(
    jobs: list[Job],
    *,
    workers: int | None = None,
    on_record: OnRecord | None = None,
) -> list[FileRecord]:
    """Run the jobs on ``workers`` processes of this machine, each once its requires are done."""
    workers = max(1, workers or os.cpu_count() or 1)
    context = multiprocessing.get_context("spawn")
    with (
        _safe_path(),
        concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=context, initializer=_leave_quietly_on_interrupt
        ) as pool,
        _cancel_on_interrupt(pool),
    ):

        def finished(
            running: list[concurrent.futures.Future[FileRecord]],
        ) -> Sequence[concurrent.futures.Future[FileRecord]]:
            done, _ = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED
            )
            return list(done)

        return schedule(
            jobs,
            lambda job: pool.submit(_run_job_in_worker, job),
            finished,
            lambda future: future.result(),
            workers=workers,
            on_record=on_record,
        )
