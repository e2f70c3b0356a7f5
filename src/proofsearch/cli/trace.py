"""``proofsearch trace``: Coq sources → proof steps, premises and file dependencies.

Exit codes: 0 every selected file is traced; 1 some files failed (each is listed with
its line and Coq's message; the others are traced); 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import at_least, positive


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trace",
        help="trace Coq sources into proof steps, premises and dependencies",
        description=(
            "Run every proof of the given Coq sources in coqidetop and write, per file, "
            "its proof steps (goals before each tactic), the constants it declares and "
            "the files it requires (see docs/trace.md). Incremental: a file whose shard "
            "is up to date is skipped, and a killed run resumes."
        ),
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        type=Path,
        help="a project folder (_CoqProject, _RocqProject, or dune's coq.theory/rocq.theory; "
        "a folder of .v files with none of these), or .v files (with --coq-arg for the "
        "loadpath)",
    )
    parser.add_argument(
        "--coq-stdlib", action="store_true", help="trace the installed standard library"
    )
    parser.add_argument(
        "--coq-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="argument for Coq, e.g. --coq-arg=-R --coq-arg=theories --coq-arg=MyLib",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default $XDG_CACHE_HOME/proofsearch/trace/<name>)",
    )
    parser.add_argument(
        "--only",
        "--files",
        dest="only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="trace only files matching a glob (Arith/*.v) or a module prefix "
        "(Coq.Arith); repeatable",
    )
    parser.add_argument(
        "--jobs",
        "--workers",
        dest="jobs",
        type=positive(int),
        default=None,
        help="files traced at once (default: the number of CPUs)",
    )
    parser.add_argument(
        "--ray", action="store_true",
        help="trace the files as Ray tasks (a new local cluster, or the one at --address); "
        "--jobs is then the tasks at once (default: the cluster's CPUs)",
    )  # fmt: skip
    parser.add_argument(
        "--address", default=None, metavar="ADDR",
        help="trace on this Ray cluster (implies --ray; RAY_ADDRESS also works with --ray); "
        "every node must see the sources and --out at the same paths",
    )  # fmt: skip
    parser.add_argument("--ray-tmpdir", default=None, help="Ray's temporary folder")
    parser.add_argument(
        "--timeout", type=positive(float), default=1800.0, help="seconds per file (default 1800)"
    )
    parser.add_argument(
        "--memory-limit-mb",
        type=at_least(0),
        default=4096,
        help="address-space cap of each Coq process in MiB (0: none; default 4096)",
    )
    parser.add_argument(
        "--retry-failed", action="store_true", help="trace again files that failed before"
    )
    parser.add_argument("--coqc", default="coqc", help="coqc binary (default coqc)")
    parser.add_argument("--no-progress", action="store_true", help="no live progress bar")
    parser.set_defaults(func=run)


def _project(args: argparse.Namespace) -> Any:
    from proofsearch.trace import sources

    if args.coq_stdlib:
        if args.inputs:
            raise CommandError("--coq-stdlib", "takes no other inputs", "trace them separately")
        return sources.stdlib_project(args.coqc)
    if not args.inputs:
        raise CommandError(
            "nothing to trace", "no input given", "give a project folder, .v files or --coq-stdlib"
        )
    if len(args.inputs) == 1 and args.inputs[0].is_dir():
        # Read as prove reads it: a dune project's compiled files go to the cache (dune
        # refuses a source tree holding .vo files it did not make); a folder of .v files
        # with no project file is read as coqc run there would.
        from proofsearch.project.config import load_project

        return load_project(args.inputs, args.coq_arg, args.coqc)
    for item in args.inputs:
        if item.is_dir():
            raise CommandError(str(item), "a folder among several inputs",
                               "give one project folder, or .v files")  # fmt: skip
    return sources.file_list(args.inputs, args.coq_arg, args.coqc)


def _fix(message: str) -> str:
    """How to fix a :class:`SourceError` (whose message names the file or option)."""
    if ";" in message:  # the message says it already
        return ""
    if message.startswith("--only"):
        return "give a glob over the project's paths (Arith/*.v) or a module prefix"
    if "no such folder" in message or "needs a" in message:
        return "fix that line of the _CoqProject, or the --coq-arg"
    if "not under any -R/-Q folder" in message:
        return "map its folder with --coq-arg=-Q --coq-arg=DIR --coq-arg=PREFIX"
    return (
        "give a folder with a _CoqProject, .v files (their loadpath with --coq-arg), "
        "or --coq-stdlib"
    )


def default_out(name: str) -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "proofsearch" / "trace" / name


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def run(args: argparse.Namespace) -> int:
    from proofsearch.cli.preflight import StartupFailed, check_coqc
    from proofsearch.trace.runner import Limits, Summary, plan
    from proofsearch.trace.runner import run as run_jobs
    from proofsearch.trace.sources import SourceError, record_project

    start = time.perf_counter()
    try:
        check_coqc(args.coqc)
    except StartupFailed as exc:
        raise CommandError("", str(exc)) from None
    try:
        project = _project(args)
        project.select(args.only)
        out = args.out or default_out(project.name)
        limits = Limits(timeout=args.timeout, memory_limit_mb=args.memory_limit_mb)
        jobs, fresh = plan(
            project, out, limits=limits, coqc=args.coqc, retry_failed=args.retry_failed
        )
    except (SourceError, OSError) as exc:
        raise CommandError("", str(exc), _fix(str(exc))) from None
    record_project(project, out)
    summary = Summary(files=len(project.sources))
    for record in fresh:
        summary.add(record, skipped=True)
    print(
        f"trace {project.name}: {len(project.sources)} file(s), {len(fresh)} up to date, "
        f"{len(jobs)} to do → {out}",
        file=sys.stderr,
    )
    with TraceProgress(jobs, summary, enabled=not args.no_progress) as progress:
        if args.ray or args.address:
            _run_on_ray(args, jobs, progress)
        else:
            run_jobs(jobs, workers=args.jobs, on_record=progress.record)
    summary.seconds = time.perf_counter() - start
    for record in summary.failed:
        assert record.error is not None
        message = " ".join(record.error.message.split())[:500]
        print(f"failed: {record.file}:{record.error.line}: {message}", file=sys.stderr)
    print(
        f"files {summary.files}: traced {summary.traced}, up to date {summary.skipped}, "
        f"failed {len(summary.failed)}; lemmas {summary.lemmas}, steps {summary.steps}, "
        f"premises {summary.premises}; {summary.seconds:.1f} s; "
        f"{_size(out) / 1e6:.1f} MB in {out}"
    )
    return EXIT_FAILURES if summary.failed else EXIT_OK


def _run_on_ray(args: argparse.Namespace, jobs: list[Any], progress: TraceProgress) -> None:
    from proofsearch.distributed.ray_setup import RayOptions, RaySetupError
    from proofsearch.trace.ray_runner import run_on_ray

    options = RayOptions(address=args.address, tmpdir=args.ray_tmpdir)
    try:
        run_on_ray(jobs, ray_options=options, workers=args.jobs, on_record=progress.record)
    except RaySetupError as exc:  # nothing was traced; a rerun resumes anyway
        raise CommandError("--address" if args.address else "--ray", str(exc),
                           code=EXIT_FAILURES) from None  # fmt: skip


#: Seconds of recent progress the plain lines' estimate also looks at.
RATE_WINDOW = 60.0


class TraceProgress:
    """The live bar: source bytes done (so the ETA weighs big files), files, counts."""

    def __init__(self, jobs: list[Any], summary: Any, enabled: bool = True) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from proofsearch.cli.progress import PlainTicker

        self.summary = summary
        self.total_files = len(jobs)
        self.done_files = 0
        console = Console(stderr=True, soft_wrap=True)
        #: No terminal (a log, CI): a plain line every few seconds instead of the bar.
        self.plain = enabled and not console.is_terminal
        self.ticker = PlainTicker(console)
        #: The heartbeat thread (plain lines only) and what it shares with the records.
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._beating: threading.Thread | None = None
        self.progress = Progress(
            TextColumn("[bold]trace"),
            BarColumn(),
            TextColumn("{task.fields[tally]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled or self.plain,
        )
        total = sum(job.source.path.stat().st_size for job in jobs) or 1
        self.total_bytes, self.done_bytes = total, 0
        #: (elapsed seconds, bytes done) at each file's end, for the recent rate.
        self._samples: list[tuple[float, int]] = [(0.0, 0)]
        self.task = self.progress.add_task("trace", total=total, tally="")
        self._refresh()

    def _tally(self, failed: str = "[red]failed {}[/]") -> str:
        s = self.summary
        return (
            f"files {self.done_files}/{self.total_files} · lemmas {s.lemmas} · "
            f"steps {s.steps} · " + failed.format(len(s.failed))
        )

    def _refresh(self) -> None:
        self.progress.update(self.task, tally=self._tally())

    def plain_line(self) -> str:
        from proofsearch.cli.progress import clock_text

        elapsed = self.ticker.elapsed()
        line = f"trace {self._tally('failed {}')} · elapsed {clock_text(elapsed)}"
        if 0 < self.done_bytes < self.total_bytes and self.done_files < self.total_files:
            line += f" · about {clock_text(self.seconds_left(elapsed))} left"
        return line

    def seconds_left(self, elapsed: float) -> float:
        """What is left, by source bytes as the bar's ETA (a log of a big library's trace
        showed no end in sight: UniMath, 231 of ~690 files after 6 minutes): at the whole
        run's rate, or at the last :data:`RATE_WINDOW` seconds' where that is slower. Later
        files load more and run heavier tactics, so the whole run's rate promised the
        stdlib's trace 1:44 more after 10 s and 1:40 after 3:46; it took 7:02 in all."""
        left = self.total_bytes - self.done_bytes
        estimate = elapsed * left / self.done_bytes
        recent = [(t, done) for t, done in self._samples if t >= elapsed - RATE_WINDOW]
        if len(recent) >= 2 and recent[-1][0] - recent[0][0] >= RATE_WINDOW / 2:
            (start, before), (end, after) = recent[0], recent[-1]
            if after > before:
                estimate = max(estimate, (end - start) * left / (after - before))
        return estimate

    def record(self, record: Any, skipped: bool, size: int) -> None:
        from rich.markup import escape

        self.summary.add(record, skipped)
        self.done_files += 1
        self.done_bytes += size
        self._samples.append((self.ticker.elapsed(), self.done_bytes))
        self.progress.advance(self.task, size)
        self._refresh()
        if self.plain:
            self.beat()
        if record.status == "failed" and record.error is not None:
            message = " ".join(record.error.message.split())[:200]
            # As it happens, above the bar; a line, not a log record (no time, no
            # source location): the final list says it again with the rest.
            self.progress.console.print(
                f"[red]failed[/] {escape(f'{record.file}:{record.error.line}: {message}')}",
                soft_wrap=True, highlight=False,
            )  # fmt: skip

    def beat(self) -> None:
        """A plain line if none was printed for the ticker's interval: after each file,
        and from the heartbeat while a long file is traced (a library's log stood at
        "17/22 · about 0:00:53 left" for 4 minutes while one big file was traced)."""
        with self._lock:
            self.ticker.tick(self.plain_line)

    def _heartbeat(self) -> None:
        from proofsearch.cli.progress import PLAIN_INTERVAL

        while not self._stopped.wait(PLAIN_INTERVAL):
            self.beat()

    def __enter__(self) -> TraceProgress:
        self.progress.start()
        if self.plain:
            self._beating = threading.Thread(target=self._heartbeat, daemon=True)
            self._beating.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        if self._beating is not None:
            self._beating.join()
        if self.plain:
            with self._lock:
                self.ticker.tick(self.plain_line, force=True)
        self.progress.stop()
