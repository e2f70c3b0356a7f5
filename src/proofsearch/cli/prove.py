"""``proofsearch prove``: fill the ``Admitted`` proofs of a Coq project, and write them
back only where the whole project still builds.

Phases: read the project and find its holes; trace it (incrementally) so the search
learns from it; search the holes in dependency order, top to bottom (``search``'s
options, its progress bar, its results file, reused by later runs); compile the filled files and
their dependents in a scratch copy; print the diff and a table per file, or with
``--write`` replace the files atomically. See docs/prove.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proofsearch.cli import EXIT_FAILURES, EXIT_OK, EXIT_USAGE
from proofsearch.cli.console import message_console, print_error, print_notice
from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import (
    add_prover_options,
    default_check_timeout,
    positive,
    prover_options,
)
from proofsearch.cli.prove_reuse import record_theorems
from proofsearch.cli.search import add_generator_options, add_ray_options, add_search_budgets

if TYPE_CHECKING:
    from proofsearch.project.learn import TraceFailed
    from proofsearch.project.plan import HolePlan
    from proofsearch.trace.sources import Project


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prove",
        help="fill the Admitted proofs of a Coq project (dry run: a diff; --write: in place)",
        description="Find every proof ending in Admitted in a Coq project (a folder with a "
        "_CoqProject, _RocqProject or dune-project, a folder of .v files, or .v files), search a "
        "proof for each, and print a diff, or with --write replace them, only where the project "
        "still builds.",
    )
    parser.add_argument(
        "inputs", nargs="+", type=Path, metavar="PATH",
        help="the project folder (or .v files), then optionally some of its files: one "
        "project a run",
    )  # fmt: skip
    parser.add_argument(
        "--lemma", action="append", default=[], metavar="NAME",
        help="only holes whose name matches this glob (repeatable)",
    )  # fmt: skip
    parser.add_argument("--list", action="store_true", help="print the holes and exit")
    parser.add_argument("--write", action="store_true", help="write the proofs into the files")
    parser.add_argument("--patch", type=Path, default=None, help="write the diff to this file")
    parser.add_argument(
        "--strict", action="store_true",
        help="leave Admitted a proof that rests on another lemma still Admitted",
    )  # fmt: skip
    parser.add_argument(
        "--output", "-o", type=Path, default=None,
        help="results file (default: $XDG_CACHE_HOME/proofsearch/prove/<project>/results.jsonl)",
    )  # fmt: skip
    parser.add_argument(
        "--resume", action="store_true",
        help="the default: reuse the results of an earlier run (a dry run, a killed run) "
        "for the holes of files that did not change (holes it left open are searched again "
        "when the settings differ)",
    )  # fmt: skip
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="forget earlier results: search the selected holes again (every hole without "
        "--lemma or FILES)",
    )
    parser.add_argument(
        "--trace-jobs", type=positive(int), default=None, metavar="N",
        help="files traced, proofs presented and files rebuilt at once (default: the CPUs)",
    )  # fmt: skip
    parser.add_argument(
        "--full-names", action="store_true",
        help="write premises by the full paths the search used (Coq.Arith.PeanoNat.Nat.add_comm; "
        "Stdlib.… on Rocq 9) instead of the shortest name Coq resolves at the hole (Nat.add_comm)",
    )  # fmt: skip
    parser.add_argument(
        "--flat-proofs", action="store_true",
        help="write the tactics one per line as the search applied them, without bullets "
        "for the subgoals a step opens",
    )  # fmt: skip
    parser.add_argument(
        "--no-library-trace", action="store_true",
        help="do not trace the installed libraries the project requires (the stdlib…); "
        "learn from the project's own trace and --index only",
    )  # fmt: skip
    parser.add_argument(
        "--learn-from", choices=("project", "earlier"), default="project",
        help="which of the project's proofs a hole's search imitates: every other proof "
        "(project, the default; their tactics only: premises stay those Coq lets the hole "
        "use) or only the proofs above it and in the files it requires (earlier)",
    )  # fmt: skip
    add_prover_options(parser, coq_only=True)
    add_search_budgets(parser, "hole", default_timeout=30.0)
    add_generator_options(parser)
    add_ray_options(parser)
    parser.add_argument(
        "--no-refute", dest="refute", action="store_false",
        help="do not try to show the holes left open false as stated (their negation proved "
        "at small values: n := 0, true, nil), which is said as their reason",
    )  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(func=run)


#: The phases timed for the summary line and ``RESULTS.prove.json``.
PHASES = ("holes", "trace", "search", "header", "presentation", "rebuild", "write-back")


class Stop(CommandError):
    """Ends the command: the message (what, why and fix in one line), and the exit code.
    :func:`proofsearch.cli.main` prints it in the CLI's one error style."""

    def __init__(self, message: str, code: int) -> None:
        Exception.__init__(self, " ".join(message.split()))
        self.code = code


def run(args: argparse.Namespace) -> int:
    return _prove(args, message_console())


def _holes_elsewhere(plan: HolePlan) -> str:
    """What to say when the files named hold no hole and the project's others do."""
    files = sorted({hole.source.file for hole in plan.all_holes})
    return (
        f"no proof of the files named ends in Admitted; {len(plan.all_holes)} hole(s) are "
        f"in the project's other files ({', '.join(files)}): give the project's folder, "
        "or those files"
    )


def _load(args: argparse.Namespace) -> tuple[Project, HolePlan]:
    from proofsearch.cli.preflight import StartupFailed, check_coqc
    from proofsearch.project.config import load_project, locate, select_files
    from proofsearch.project.plan import plan_holes
    from proofsearch.trace.deps import requires
    from proofsearch.trace.sources import SourceError

    try:  # every compile and re-check would fail: say so before reading anything
        check_coqc(args.coqc)
    except StartupFailed as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    project_inputs, files, root = locate(list(args.inputs), args.coq_arg)
    try:
        project = load_project(project_inputs, args.coq_arg, args.coqc)
        chosen = select_files(project, files)
        if root is not None and not args.quiet:
            print_notice(
                message_console(),
                f"{args.inputs[0]}: inside the project at {root}: its holes in "
                f"{len(chosen)} file(s) of that project",
                style="dim",
            )
        graph = requires(project)
        return project, plan_holes(project, graph, chosen, args.lemma)
    except (SourceError, OSError) as exc:
        raise Stop(str(exc), EXIT_USAGE) from None


def _prove(args: argparse.Namespace, console: Any) -> int:
    from proofsearch.cli.search import check_cluster_workers, check_tactics_file, search_config
    from proofsearch.project.config import project_key
    from proofsearch.project.learn import cache_root

    search_config(args, check=True)  # bad budgets stop the command before any work
    check_tactics_file(args)
    if not args.list:
        check_cluster_workers(args, console)
    clock: dict[str, float] = dict.fromkeys(PHASES, 0.0)
    start = time.perf_counter()
    project, plan = _load(args)
    clock["holes"] = time.perf_counter() - start
    from proofsearch.cli.prove_output import loose_folder_note, second_project_file_note

    loose = loose_folder_note(args.inputs[0], project)
    if loose and not args.quiet:
        print_notice(console, loose, style="dim")
    second = second_project_file_note(project)
    if second:  # said even with --quiet: it changes which files are the project's
        print_notice(console, second)
    if args.list:
        plan = _named_by_earlier_trace(args, project, plan)
        for hole in plan.selected:
            print(f"{hole.source.file}:{hole.line} {hole.qualid}")
        from proofsearch.cli.prove_output import print_not_searched

        print_not_searched(plan)
        if not plan.selected and plan.all_holes and not args.quiet:
            print_notice(console, f"{_holes_elsewhere(plan)}", style="dim")
        return EXIT_OK
    if not plan.selected:
        from proofsearch.cli.prove_output import print_not_searched

        print_not_searched(plan)
        where = ", ".join(s.file for s in project.sources) or str(project.root)
        if plan.not_searched:
            what = (
                f"no hole to search: {len(plan.not_searched)} Admitted proof(s) are not "
                "holes (listed above)"
            )
        elif plan.all_holes:  # the files named have none; others do (audit 54)
            what = _holes_elsewhere(plan)
        else:
            what = f"no proof ends in Admitted ({where})"
        raise Stop(f"{project.root}: {what}: nothing to do", EXIT_USAGE)
    run_dir = cache_root() / "prove" / project_key(project)
    from proofsearch.project.run_lock import ProjectBusy, hold_project

    try:
        held = hold_project(run_dir)  # until this process ends
    except ProjectBusy as exc:
        raise Stop(
            f"{project.root}: another prove run of this project is going on ({exc}): its "
            "results are this run's to reuse, so run again when it ends",
            EXIT_FAILURES,
        ) from None
    output = args.output or run_dir / "results.jsonl"
    trace_dir = run_dir / "trace"
    step = time.perf_counter()
    indexes, broken = _trace(args, project, trace_dir)
    clock["trace"] = time.perf_counter() - step
    from proofsearch.project.libraries import admitted_lemmas

    plan.library_admitted = admitted_lemmas([Path(p) for p in indexes[1:]])
    unbuilt = _set_aside_unbuilt(plan, broken, console, args.write) if broken else []
    from proofsearch.trace.sources import SourceError

    try:  # the names only Coq knows (obligations'), and the --lemma patterns for them
        plan.read_trace(trace_dir)
    except SourceError as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    records = plan.theorem_records(trace_dir, learn_from_project=args.learn_from == "project")
    # `--lemma X --overwrite` (or some FILES): X's results are forgotten, not the others'.
    narrowed = len(plan.selected) < len(plan.all_holes)
    overwrite = args.overwrite and not narrowed
    theorems_path = run_dir / "theorems.jsonl"
    record_theorems(theorems_path, records, fresh=overwrite)
    step = time.perf_counter()
    results, searched = _search(
        args, project, records, output, indexes, overwrite, forget=args.overwrite and narrowed
    )
    retry = _unfinished_records(args, plan, results, console)
    if retry:
        more, searched_more = _search(
            args, project, retry, output, indexes, overwrite=False, say_reused=False
        )
        results.update(more)
        searched += searched_more
        records += retry
        record_theorems(theorems_path, retry, fresh=False)
    if args.refute:
        results = _refute(args, project, records, results)
    clock["search"] = time.perf_counter() - step
    clock["header"] = sum(float(results[n].get("open_time") or 0.0) for n in searched)
    unopened = _header_errors(plan, results)
    if not (args.full_names and args.flat_proofs):
        step = time.perf_counter()
        results = _present(args, project, records, results, run_dir / "written-proofs.json")
        clock["presentation"] = time.perf_counter() - step
    from proofsearch.cli.prove_output import write_back

    code = write_back(args, project, plan, results, output, clock, start, console, searched)
    held.close()
    for line in unbuilt + unopened:  # the other files' proofs are written all the same
        print_error(console, line)
    return EXIT_FAILURES if unopened or unbuilt else code


def _set_aside_unbuilt(plan: HolePlan, broken: TraceFailed, console: Any, write: bool) -> list[str]:
    """A file that does not compile (a user mid-edit) stops only its own holes and
    those of the files that load it: the others are searched and written all the same
    (until 2026-12-07 one leaf file's syntax error stopped every file, audit 43-b).
    Stops the run when no selected hole is left. Returns the line to say again at the
    end."""
    from proofsearch.project.rebuild import dependents

    plan.unbuilt = dependents(plan.graph, {record.module for record in broken.failed})
    kept = [hole for hole in plan.selected if hole.source.module not in plan.unbuilt]
    if not kept:
        raise Stop(str(broken), EXIT_FAILURES)
    left = sorted({h.source.file for h in plan.selected if h.source.module in plan.unbuilt})
    plan.selected = kept
    files = f": the holes of {', '.join(left)} are not searched" if left else ""
    line = f"{broken}{files}; the other files' holes are"
    print_error(console, line + " searched")
    shown = "written" if write else "shown in the diff"
    return [f"{line} searched, their proofs {shown} where found"]


def _named_by_earlier_trace(args: argparse.Namespace, project: Project, plan: HolePlan) -> HolePlan:
    """``--list`` traces nothing, so an obligation hole has only the name its place
    suggests (``f_obligation@12``); where an earlier run traced the file as it is now,
    the hole takes the name Coq gave it, as a run would show."""
    import copy

    from proofsearch.project.config import project_key
    from proofsearch.project.learn import cache_root
    from proofsearch.trace.runner import coq_version, source_key
    from proofsearch.trace.sources import SourceError

    trace_dir = cache_root() / "prove" / project_key(project) / "trace"
    if not any(hole.is_obligation for hole in plan.all_holes) or not trace_dir.is_dir():
        return plan
    version = coq_version(args.coqc)
    keys = {source.module: source_key(project, source, version) for source in project.sources}
    named = copy.copy(plan)
    named.traced_admitted = dict(plan.traced_admitted)
    try:
        named.read_trace(trace_dir, keys)
    except SourceError:  # a --lemma pattern for a name the stale trace lacks: the guesses
        return plan
    return named


def _say(line: str) -> None:
    print_notice(message_console(), line, style="dim")


def _trace(
    args: argparse.Namespace, project: Project, trace_dir: Path
) -> tuple[list[str], TraceFailed | None]:
    """Trace the project (and the libraries it requires): the index's trace folders,
    and the project's files that do not compile (``None``: every file traced)."""
    from proofsearch.cli.search import check_index
    from proofsearch.cli.trace import TraceProgress
    from proofsearch.project.learn import UNKNOWN_OPTION, TraceFailed, trace_project
    from proofsearch.project.libraries import trace_libraries
    from proofsearch.trace.sources import SourceError

    if "auto" in (args.index or []) and not Path("auto").is_dir():
        # What `search --index auto` does, prove always does: say so, and go on.
        args.index = [p for p in args.index if p != "auto"]
        print_notice(
            message_console(),
            "--index auto: prove always traces what the project loads from the "
            "installed libraries; nothing more to add",
        )
    problem = check_index(args.index or [])
    if problem:
        raise Stop(problem, EXIT_USAGE)
    progress = None if args.quiet else TraceProgress
    jobs = args.trace_jobs
    unsourced: list[str] = []
    broken: TraceFailed | None = None
    try:
        try:
            trace_project(project, trace_dir, jobs=jobs, coqc=args.coqc, progress=progress)
        except TraceFailed as exc:
            if str(exc).startswith(UNKNOWN_OPTION):  # no file of it, nor any library,
                raise Stop(str(exc), EXIT_FAILURES) from None  # compiles: said first
            broken = exc
        libraries = (
            []
            if args.no_library_trace
            else trace_libraries(
                project,
                jobs=jobs,
                coqc=args.coqc,
                progress=progress,
                given=[Path(p) for p in args.index or []],
                unsourced=unsourced,
                say=None if args.quiet else _say,
            )
        )
    except TraceFailed as exc:
        raise Stop(str(exc), EXIT_FAILURES) from None
    except SourceError as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    if not args.quiet:
        from proofsearch.cli.prove_output import untraced_lines
        from proofsearch.env.coq.version import coq_where

        for line in untraced_lines(libraries, coq_where(args.coqc)):
            print_notice(message_console(), line)
        from proofsearch.generate.library_tactics import LIBRARIES

        for prefix in unsourced:
            bundled = (
                f" (and the portfolio's {prefix} tactics, offered where a file loads it)"
                if prefix in LIBRARIES
                else ""
            )
            print_notice(
                message_console(),
                f"library {prefix}: installed without its .v files, so not traced: its "
                "lemmas are not premises, and its tactics come only from your own proofs "
                f"that use them{bundled}",
                style="dim",
            )
    return [str(trace_dir), *map(str, libraries), *(args.index or [])], broken


def _unfinished_records(
    args: argparse.Namespace, plan: HolePlan, results: dict[str, dict[str, Any]], console: Any
) -> list[dict[str, Any]]:
    """The holes whose own tactics could not be finished, to search from the statement."""
    from proofsearch.project.outcome import part_errors, unfinished

    holes = unfinished(plan.selected, results)
    if holes:  # not progress: what will be written (shown with --quiet too)
        errors = part_errors(holes, results)
        why = ""
        if errors:
            why = f"; {len(errors)} part(s) could not be searched, such as {errors[0]}"
        print_notice(
            console,
            f"{len(holes)} hole(s) whose own tactics could not be finished "
            f"(admit. or goals left at Admitted): searched again from the statement{why}",
        )
    learn = args.learn_from == "project"
    return plan.theorem_records(learn_from_project=learn, whole=holes) if holes else []


def _search(
    args: argparse.Namespace,
    project: Project,
    records: list[dict[str, Any]],
    output: Path,
    indexes: list[str],
    overwrite: bool,
    forget: bool = False,
    say_reused: bool = True,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Search the holes not done yet: (every hole's result, the names searched now).
    ``overwrite``: forget the results file's earlier lines first; ``forget``: only
    those of these ``records``' holes (and their parts)."""
    from proofsearch.cli.preflight import StartupFailed, StartupWatch, preflight
    from proofsearch.cli.progress import ProgressDisplay
    from proofsearch.cli.prove_reuse import (
        forget_holes,
        forget_stale,
        recheck_proofs,
        settings_changed,
    )
    from proofsearch.cli.search import (
        RunFailed,
        _run,
        default_generator,
        generator_options,
        index_build_notice,
        search_config,
    )
    from proofsearch.data.theorems import parse_theorem_lines
    from proofsearch.distributed.spec import WorkerSpec
    from proofsearch.distributed.store import ResultsFileError, ResultsStore, read_results
    from proofsearch.generate.registry import INDEXED_GENERATORS, MODEL_GENERATORS
    from proofsearch.project.plan import read_written

    args.prover = "coq"
    if args.generator is None:
        args.generator = default_generator("coq", indexes)
    if args.generator in INDEXED_GENERATORS | MODEL_GENERATORS:
        args.index = indexes  # the project's and libraries' traces, then --index
    prover_opts = project_prover_options(args, project)
    prover_opts.setdefault("check_timeout", default_check_timeout(args.timeout))
    try:
        gen_options = generator_options(args)
    except ValueError as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    loaded = parse_theorem_lines([json.dumps(r) for r in records], "holes")
    spec = WorkerSpec(
        prover="coq",
        prover_options=prover_opts,
        generator=args.generator,
        generator_options=gen_options,
        search=search_config(args, check=True),
    )
    try:
        store = ResultsStore(output, resume=not overwrite, overwrite=overwrite)
    except ResultsFileError as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    edited: list[str] = []
    unproved: list[str] = []
    suspect = forget_stale(store, records, read_written(output), edited, unproved)
    if forget:
        forget_holes(store, records)
    console = message_console()
    if edited and not args.quiet:
        print_notice(
            console,
            f"{len(edited)} hole(s) left open by an earlier run are searched again: their "
            f"file, or a file they load, changed since ({', '.join(edited[:3])}"
            f"{', …' if len(edited) > 3 else ''})",
            style="dim",
        )
    if unproved and not args.quiet:  # audit 54: a statement edited after the dry run
        print_notice(
            console,
            f"{len(unproved)} proof(s) an earlier run found are not reused: their file "
            f"changed since ({', '.join(unproved[:3])}{', …' if len(unproved) > 3 else ''}); "
            "searched again",
        )
    if suspect:
        theorems = {t.name: t for t in loaded.theorems}
        refuted = recheck_proofs(store, suspect, records, theorems, prover_opts)
        if refuted and not args.quiet:
            print_notice(
                console,
                f"{len(refuted)} proof(s) found by an earlier run no longer check after "
                f"edits to the files they load ({', '.join(refuted[:3])}"
                f"{', …' if len(refuted) > 3 else ''}): searched again",
            )
    selected = {str(r["name"]).split("#", 1)[0] for r in records}
    retried = settings_changed(store, output, spec, fresh=overwrite, selected=selected)
    if retried and not args.quiet:
        print_notice(console, retried)
    todo = [t for t in loaded.theorems if not store.done(t.name)]
    reused = len(loaded.theorems) - len(todo)
    if reused and say_reused and not args.quiet:  # a resumed run said nothing of it
        print_notice(
            console,
            f"{reused} of the {len(loaded.theorems)} hole(s) and part(s) keep an earlier "
            "run's result (docs/prove.md says when one is kept); --overwrite searches them "
            "again",
            style="dim",
        )
    if todo:
        try:
            preflight("coq", prover_opts, check=True)
        except StartupFailed as exc:
            raise Stop(str(exc), EXIT_FAILURES) from None
        if args.workers >= 2 and not args.quiet:
            print_notice(console, _learning_notice(args.workers, args.generator_actors))
    with store:
        watch = StartupWatch(store, "coq", len(todo))
        notice = index_build_notice(spec) if todo and not args.quiet else None
        if notice:
            print_notice(console, notice, style="dim")
        display = ProgressDisplay(len(todo), console, bool(todo) and not args.quiet)
        with display:
            try:
                _run(args, spec, todo, watch, display)
            except (RunFailed, StartupFailed) as exc:
                display.abandon()
                raise Stop(str(exc), EXIT_FAILURES) from None
            if watch.skipped:
                display.abandon()
                raise Stop(watch.failure(), EXIT_FAILURES)
    names = {r["name"] for r in records}
    results = {n: r for n, r in read_results(output).records.items() if n in names}
    return results, [t.name for t in todo if t.name in results]


def _present(
    args: argparse.Namespace,
    project: Project,
    records: list[dict[str, Any]],
    results: dict[str, dict[str, Any]],
    cache: Path,
) -> dict[str, dict[str, Any]]:
    """The proofs found as they are to be written: premises by the shortest name Coq
    resolves at the hole, subgoals bulleted (each change checked)."""
    from proofsearch.data.theorems import parse_theorem_lines
    from proofsearch.project.written_proofs import Presentation, present_found

    timeout = args.check_timeout or default_check_timeout(args.timeout)
    prover_opts = project_prover_options(args, project)
    how = Presentation(
        coqc=args.coqc, args=list(project.args), timeout=timeout, prover_options=prover_opts,
        short_names=not args.full_names, bullets=not args.flat_proofs,
    )  # fmt: skip
    theorems = {
        t.name: t for t in parse_theorem_lines([json.dumps(r) for r in records], "holes").theorems
    }
    jobs = args.trace_jobs or os.cpu_count() or 1
    return present_found(records, theorems, results, cache, how, jobs)


def project_prover_options(args: argparse.Namespace, project: Project) -> dict[str, Any]:
    """The prover options of the command line, with the project's Coq arguments (one
    place for the search, the presentation and the refutation)."""
    try:
        options: dict[str, Any] = prover_options(args)
    except ValueError as exc:
        raise Stop(str(exc), EXIT_USAGE) from None
    options["args"] = list(project.args)
    return options


#: Seconds a hole left open gets to be shown false (:mod:`proofsearch.project.refute`).
REFUTE_BUDGET = 5.0


def _refute(
    args: argparse.Namespace,
    project: Project,
    records: list[dict[str, Any]],
    results: dict[str, dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """``results`` with each hole left open that is false as stated marked ``refuted``
    (the reason said for it); nothing is written into the files for it."""
    from proofsearch.env.registry import make_prover
    from proofsearch.project.refute import refute_open

    opened: list[Any] = []

    def prover() -> Any:
        if not opened:
            opened.append(make_prover("coq", project_prover_options(args, project)))
        return opened[0]

    check = {
        "coqc": args.coqc, "args": list(project.args),
        "timeout": args.check_timeout or default_check_timeout(args.timeout),
    }  # fmt: skip
    try:
        found = refute_open(records, results, prover, budget=REFUTE_BUDGET, check=check)
    finally:
        for started in opened:
            started.close()
    out = dict(results)
    for name, refutation in found.items():
        out[name] = {**out[name], "refuted": refutation.reason()}
    return out


def _header_errors(plan: HolePlan, results: dict[str, dict[str, Any]]) -> list[str]:
    """One line per file none of whose holes could be opened (the same message for
    each): the run stops when that is every file, and goes on for the others otherwise
    (HoTT: one file's failure threw away twelve proofs of other files)."""
    from proofsearch.env.coq.data_probe import DATA_REASON

    lines: list[str] = []
    by_file: dict[str, list[dict[str, Any]]] = {}
    for hole in plan.selected:
        record = results.get(hole.name)
        if record is not None and record.get("error") != DATA_REASON:  # opened, then refused
            by_file.setdefault(hole.source.file, []).append(record)
    for file, records in by_file.items():
        messages = {
            str(r.get("error")) for r in records if r["status"] == "error" and "open_time" not in r
        }
        opened = [r for r in records if r["status"] != "error" or "open_time" in r]
        if len(messages) == 1 and not opened:
            message = " ".join(messages.pop().split())[:400]
            lines.append(
                f"{file}: no hole could be opened: {message}; make the file's prefix "
                "compile with the project's loadpath (_CoqProject -R/-Q or --coq-arg)"
            )
    if lines and len(lines) == len(by_file):
        raise Stop(lines[0] if len(lines) == 1 else "; ".join(lines), EXIT_FAILURES)
    return lines


def _learning_notice(workers: int, generator_actors: int) -> str:
    """Who learns a proof found on Ray: with shared generator actors every worker's next
    holes get it (the actors hold the index); without, only the worker that found it."""
    if generator_actors > 0:
        return (
            f"{workers} Ray workers, {generator_actors} generator actor(s): a proof found "
            "is learned by every generator actor, for every worker's next holes"
        )
    return (
        f"{workers} Ray workers: a proof found is learned by the worker that found it, "
        "for the holes it searches next (not by the other workers)"
    )
