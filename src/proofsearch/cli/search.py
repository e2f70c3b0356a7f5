"""``proofsearch search``: best-first search over a theorem file, results to JSONL."""

from __future__ import annotations

import argparse
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console

from proofsearch.cli import auto_index, hammer_tactics
from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.console import message_console, print_notice
from proofsearch.cli.errors import CommandError
from proofsearch.cli.header_watch import HEADER_FIXES, HeaderFailed, HeaderWatch
from proofsearch.cli.options import (
    add_prover_options,
    at_least,
    default_check_timeout,
    generator_name,
    parse_key_values,
    positive,
    prover_options,
)
from proofsearch.cli.preflight import StartupFailed, StartupWatch, preflight
from proofsearch.cli.progress import ProgressDisplay

if TYPE_CHECKING:  # the runtime imports stay inside the functions: `--help` stays fast
    from proofsearch.data.theorems import InvalidLine
    from proofsearch.distributed.events import RunEvents
    from proofsearch.distributed.run import ResultSink
    from proofsearch.distributed.spec import WorkerSpec
    from proofsearch.search.prover import SearchConfig
    from proofsearch.theorem import Theorem


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "search",
        help="search proofs for every theorem of a file",
        description="Best-first proof search over a JSONL theorem file. Each result is "
        "appended and fsynced to the results file as soon as it is known.",
    )
    parser.add_argument("theorems", help="theorem file (JSONL: name, statement, header)")
    parser.add_argument(
        "--output", "-o", default="results.jsonl", help="results file (default: results.jsonl)"
    )
    parser.add_argument("--resume", action="store_true", help="skip theorems already in --output")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --output")
    parser.add_argument(
        "--retry-errors", action="store_true", help="with --resume: search 'error' results again"
    )
    parser.add_argument(
        "--skip-invalid", action="store_true",
        help="run the valid theorems and record bad lines with status 'invalid'",
    )  # fmt: skip
    parser.add_argument(
        "--limit", type=positive(int), default=None, help="only the first N theorems"
    )
    add_prover_options(parser)
    search = add_search_budgets(parser, "theorem", default_timeout=60.0)
    search.add_argument(
        "--no-check", action="store_true",
        help="do not re-check proofs from scratch (results then say checked: false)",
    )  # fmt: skip
    hammer_tactics.add_option(add_generator_options(parser))
    add_ray_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no table")
    parser.set_defaults(func=run)


def add_search_budgets(
    parser: argparse.ArgumentParser, unit: str, default_timeout: float
) -> argparse._ArgumentGroup:
    """The budget options ``search`` and ``prove`` share (one set of checks for both)."""
    group = parser.add_argument_group("search budgets")
    group.add_argument(
        "--timeout", type=positive(float), default=default_timeout,
        help=f"seconds per {unit} (default: {default_timeout:g})",
    )  # fmt: skip
    group.add_argument(
        "--budget-after-header", action="store_true",
        help="start --timeout once the header is loaded (the library benchmarks' protocol)",
    )  # fmt: skip
    group.add_argument(
        "--max-expansions", type=positive(int), default=None, help="nodes expanded at most"
    )
    group.add_argument(
        "--num-sampled-tactics", type=positive(int), default=64,
        help="tactics per expansion (default: 64)",
    )  # fmt: skip
    group.add_argument(
        "--max-sampled-tactics", type=positive(int), default=None,
        help="when the search tree is exhausted with time left, expand its nodes again "
        "asking twice as many tactics, up to this many (default: 4 × --num-sampled-tactics; "
        "equal to it: never)",
    )  # fmt: skip
    group.add_argument(
        "--slow-tactic-timeouts", type=at_least(0), default=None, metavar="N",
        help="stop trying a kind of tactic (firstorder, eauto, ...) in a theorem's search "
        "once it ran to --tactic-timeout N times (default: 1; 0: never stop)",
    )  # fmt: skip
    group.add_argument(
        "--stage-outcomes", choices=("rerun", "reuse"), default="rerun",
        help="a later stage of the generator's schedule (knn-portfolio after knn) runs "
        "again the tactics an earlier stage ran at a state (rerun, the default), or takes "
        "what they did then (reuse: saves their time; on the tuning slices it proved no "
        "more)",
    )  # fmt: skip
    group.add_argument(
        "--goal-penalty", type=at_least(0.0, float), default=None, metavar="W",
        help="order the search by a state's log-prob less W for each open goal beyond one "
        "(default: 0.5; 0: the log-prob alone)",
    )  # fmt: skip
    group.add_argument(
        "--depth-bonus", type=at_least(0.0, float), default=0.0, metavar="W",
        help="order the search by a state's log-prob plus W for each step from the root: "
        "a likely line is followed deeper before the search widens (default: 0)",
    )  # fmt: skip
    return group


def search_config(args: argparse.Namespace, check: bool) -> SearchConfig:
    """The search's budgets from the options :func:`add_search_budgets` added."""
    from proofsearch.search.prover import SearchConfig

    widest = args.max_sampled_tactics
    if widest is not None and widest < args.num_sampled_tactics:
        raise CommandError(
            "--max-sampled-tactics",
            f"{widest} is fewer than --num-sampled-tactics ({args.num_sampled_tactics})",
            f"give at least {args.num_sampled_tactics} (equal: never widen)",
        )
    return SearchConfig(
        timeout=args.timeout,
        max_expansions=args.max_expansions,
        num_sampled_tactics=args.num_sampled_tactics,
        max_sampled_tactics=args.max_sampled_tactics,
        tactic_timeout=args.tactic_timeout,
        check=check,
        budget_after_open=args.budget_after_header,
        slow_timeouts=_slow_timeouts(args.slow_tactic_timeouts),
        reuse_outcomes=args.stage_outcomes == "reuse",
        goal_penalty=_goal_penalty(args.goal_penalty),
        depth_bonus=args.depth_bonus,
    )


def _goal_penalty(given: float | None) -> float:
    """``--goal-penalty``: not given, the search's default."""
    from proofsearch.search.prover import GOAL_PENALTY

    return GOAL_PENALTY if given is None else given


def _slow_timeouts(given: int | None) -> int | None:
    """``--slow-tactic-timeouts``: not given, the search's default; 0, never."""
    from proofsearch.search.prover import SLOW_TIMEOUTS

    if given is None:
        return SLOW_TIMEOUTS
    return given or None


def add_generator_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    group = parser.add_argument_group("tactic generator")
    group.add_argument(
        "--generator", default=None, type=generator_name, metavar="NAME",
        help="portfolio (default; knn-portfolio for Coq with --index), knn, knn-portfolio, "
        "premises, fixed, hf, openai, vllm",
    )  # fmt: skip
    group.add_argument(
        "--index", action="append", default=None, metavar="TRACE_DIR",
        help="a trace folder (proofsearch trace); repeat it to read several as one index (the "
        "stdlib's, a library's, the project's): knn and premises read it; hf/openai/vllm "
        "put the premises retrieved from it in their prompts. search: 'auto' traces (once, "
        "cached) what the theorems' headers load from the installed libraries and uses that",
    )  # fmt: skip
    group.add_argument("--tactic", help="the tactic of --generator fixed")
    group.add_argument("--tactics-file", help="portfolio: one tactic a line, optional TAB logprob")
    group.add_argument("--model", help="hf/vllm: checkpoint folder; openai: model name")
    group.add_argument("--base-url", help="openai: server URL, e.g. http://127.0.0.1:8000/v1")
    group.add_argument(
        "--gen-option", action="append", default=[], metavar="KEY=VALUE",
        help="any other generator option (value parsed as JSON when it can be)",
    )  # fmt: skip
    return group


def add_ray_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("distribution (Ray)")
    group.add_argument(
        "--workers", type=positive(int), default=1,
        help="prover workers; 1 runs in this process, N >= 2 on Ray actors (default: 1)",
    )  # fmt: skip
    group.add_argument("--address", default=None, help="join this Ray cluster (or RAY_ADDRESS)")
    group.add_argument("--ray-tmpdir", default=None, help="Ray's temporary folder")
    group.add_argument(
        "--num-gpus", type=at_least(0.0, float), default=0.0, help="GPUs for the generators"
    )
    group.add_argument(
        "--generator-actors", type=at_least(0), default=0,
        help="shared GPU generator actors (0: each worker holds its own generator)",
    )  # fmt: skip
    group.add_argument(
        "--max-attempts", type=positive(int), default=3,
        help="a theorem whose worker crashes this many times is recorded as 'error'",
    )  # fmt: skip
    group.add_argument(
        "--deadline-grace", type=at_least(0.0, float), default=120.0, metavar="S",
        help="seconds past --timeout before a theorem's worker is killed (default: 120)",
    )  # fmt: skip
    group.add_argument("--verbose", action="store_true", help="show Ray's own logs")


def check_cluster_workers(args: argparse.Namespace, console: Any) -> None:
    """``--address`` with one worker ran in this process and never touched the cluster,
    exit 0 (an audit's evaluation on the driver machine). Refused; ``RAY_ADDRESS`` alone
    (it may be set for other tools) is said in a line."""
    if args.workers >= 2:
        return
    if args.address:
        raise CommandError(
            "--address",
            f"{args.address}: with --workers {args.workers} the search runs in this process, "
            "not on the cluster",
            "give --workers N (N >= 2: the prover workers the cluster runs)",
        )
    if os.environ.get("RAY_ADDRESS") and not args.quiet:
        print_notice(
            console,
            f"RAY_ADDRESS={os.environ['RAY_ADDRESS']} is set, but with --workers "
            f"{args.workers} the search runs in this process; give --workers N (N >= 2) to "
            "run on that cluster",
        )


def generator_options(args: argparse.Namespace) -> dict[str, Any]:
    """Plain options for :func:`proofsearch.generate.make_generator`, checked (a model
    generator's against its class, without loading the model)."""
    from proofsearch.generate.model_options import check_model_options
    from proofsearch.generate.registry import (
        INDEXED_GENERATORS,
        MODEL_GENERATORS,
        check_options,
    )

    options: dict[str, Any] = {}
    if args.generator in ("portfolio", "knn-portfolio"):
        options["prover"] = args.prover
        if args.tactics_file:
            options["tactics_file"] = os.path.abspath(args.tactics_file)
    if args.tactic is not None:
        options["tactic"] = args.tactic
    if args.model is not None:
        options["model"] = args.model
    if args.base_url is not None:
        options["base_url"] = args.base_url
    if args.index:
        if args.generator not in INDEXED_GENERATORS | MODEL_GENERATORS:
            raise ValueError(
                f"--index: generator {args.generator} does not read an index; drop --index, "
                "or use knn, knn-portfolio, premises, hf, openai or vllm"
            )
        paths = [os.path.abspath(path) for path in args.index]
        options["index"] = paths[0] if len(paths) == 1 else paths
    elif args.generator in INDEXED_GENERATORS:
        raise ValueError(
            f"--generator {args.generator}: reads a trace index; give --index TRACE_DIR "
            "(proofsearch trace writes one)"
        )
    given = parse_key_values(args.gen_option, "--gen-option")
    check_options(args.generator, given)
    options.update(given)
    takes_a_model = args.generator in MODEL_GENERATORS or ":" in args.generator
    for key, flag in (("model", "--model"), ("base_url", "--base-url")):
        if key in options and not takes_a_model:  # it was dropped without a word
            raise ValueError(
                f"{flag}: generator {args.generator} takes no {flag[2:]}; give --generator "
                "hf (a local checkpoint), openai (a server) or vllm"
            )
    check_model_options(args.generator, options)
    return options


def check_index(paths: Sequence[str]) -> str | None:
    """What is wrong with the ``--index`` folders (read their records only), or ``None``."""
    for path in paths:
        if not os.path.isdir(os.path.join(path, "files")):
            return f"--index {path}: not a trace folder (no files/ inside)"
    if len(paths) < 2:
        return None
    from proofsearch.generate.knn.corpus import TraceSet

    try:
        TraceSet(paths)
    except ValueError as exc:  # a module in two folders, a damaged record
        return f"--index: {exc}"
    return None


def check_generator_inputs(args: argparse.Namespace) -> None:
    """What a generator needs from the command line, checked before any work (each would
    otherwise be a traceback, or an ``error`` row per theorem, once the run started)."""
    import importlib.util

    generator = args.generator
    if generator == "fixed" and not args.tactic:
        raise CommandError(
            "--generator fixed", "needs a tactic", "give --tactic, e.g. --tactic auto"
        )
    given_model = args.model or any(o.startswith("model=") for o in args.gen_option)
    if generator in ("hf", "vllm") and not given_model:
        raise CommandError(f"--generator {generator}", "needs a model", "give --model CHECKPOINT")
    if ":" in generator:
        module = generator.partition(":")[0]
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        if not found:
            raise CommandError(
                f"--generator {generator}", f"no module {module!r} on the Python path",
                "install it, or add its folder to PYTHONPATH",
            )  # fmt: skip
        _check_factory(generator)


def _check_factory(generator: str) -> None:
    """The factory of ``module:factory`` must be in its module (a typo in its name was a
    traceback, audit 51). The module is imported here, as each worker would import it."""
    import importlib

    module, _, factory = generator.partition(":")
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:  # the user's module failed as it was imported
        raise CommandError(
            f"--generator {generator}",
            f"importing {module!r} failed: {type(exc).__name__}: {exc}",
        ) from None
    if not callable(getattr(loaded, factory, None)):
        names = sorted(n for n, v in vars(loaded).items() if callable(v) and not n.startswith("_"))
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        raise CommandError(
            f"--generator {generator}",
            f"module {module!r} has no function {factory!r}",
            f"name one of its functions: {shown}" if names else "name the module's factory",
        )


def default_generator(prover: str, index: str | Sequence[str] | None) -> str:
    """``knn-portfolio`` for Coq when a trace index is given, else ``portfolio``."""
    return "knn-portfolio" if index and prover == "coq" else "portfolio"


#: Said when a Coq search runs the portfolio alone because no index was given.
NO_INDEX_NOTE = (
    "no --index: searching with the bundled portfolio alone; --index auto learns from the "
    "installed libraries your headers load (traced once, cached), and proves about three "
    "times as many held-out stdlib lemmas"
)


def check_tactics_file(args: argparse.Namespace) -> None:
    """A ``--tactics-file`` must exist and read as one (a bad line was a traceback inside
    the run, after the prover had started); a ``--tactic`` must be text (a byte that is
    not UTF-8 in the shell's argument was dropped as a refused tactic at every state)."""
    tactic = getattr(args, "tactic", None)
    if tactic is not None:
        try:
            tactic.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise CommandError(
                f"--tactic {tactic.encode('utf-8', 'replace').decode()!r}",
                f"not UTF-8 text (character {exc.start + 1} of the argument)",
                "give the tactic as UTF-8 text",
            ) from None
    if args.tactics_file and not os.path.isfile(args.tactics_file):
        raise CommandError(
            f"--tactics-file {args.tactics_file}", "no such file",
            "give a file of tactics, one a line (optionally TAB and a log-probability)",
        )  # fmt: skip
    if args.tactics_file:  # its lines too: a bad one was a traceback inside the run
        from proofsearch.generate.portfolio import TacticsFileError, load_tactics

        try:
            load_tactics(args.tactics_file)
        except (TacticsFileError, OSError, UnicodeDecodeError) as exc:
            raise CommandError(
                f"--tactics-file {args.tactics_file}", " ".join(str(exc).split("\n")),
                "one tactic a line, optionally a TAB and a log-probability ≤ 0",
            ) from None  # fmt: skip


def check_files(args: argparse.Namespace) -> None:
    """The files the command line names, checked before any work: ``--output`` must be a
    file that is new (in a folder that can be written), or that ``--resume`` or
    ``--overwrite`` may reuse; a ``--tactics-file`` must read as one."""
    check_tactics_file(args)
    if os.path.isdir(args.output):
        fix = f"give a file name, e.g. --output {os.path.join(args.output, 'results.jsonl')}"
        raise CommandError(f"--output {args.output}", "is a folder", fix)
    if os.path.exists(args.output) and not (args.resume or args.overwrite):
        raise CommandError(
            f"--output {args.output}", "already exists",
            "pass --resume to continue that run, or --overwrite to start again",
        )  # fmt: skip
    if args.resume and args.overwrite:
        raise CommandError(
            "--resume --overwrite", "ask for opposite things",
            "give --resume to continue the run, or --overwrite to start again",
        )  # fmt: skip
    folder = os.path.dirname(os.path.abspath(args.output))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise CommandError(
            f"--output {args.output}", f"its folder cannot be made ({exc.strerror})",
            "give a path in a folder you can write",
        ) from None  # fmt: skip
    if not os.access(folder, os.W_OK):
        raise CommandError(
            f"--output {args.output}", "its folder is not writable",
            "give a path in a folder you can write",
        )  # fmt: skip


def _check_before_tracing(args: argparse.Namespace) -> None:
    """The generator's and the prover's settings, checked before ``--index auto`` traces
    libraries (minutes on a first run): the README promises them "before any work", and
    a bad ``--gen-option`` came after the tracing (audit 45). Checked as the run will
    see them, with an index standing for the folders the tracing will give."""
    ahead = argparse.Namespace(**vars(args))
    ahead.index = [os.path.join(os.getcwd(), "auto-index")]
    if ahead.generator is None:
        ahead.generator = default_generator(args.prover, ahead.index)
    check_generator_inputs(ahead)
    try:
        prover_options(args)
        generator_options(ahead)
    except ValueError as exc:
        raise CommandError("", str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from proofsearch.cli.theorem_input import read_theorem_file
    from proofsearch.cli.traces import check_places, index_list, open_traces, recorded_coq_args
    from proofsearch.data.summary import summarize, summary_table
    from proofsearch.distributed.store import ResultsFileError, ResultsStore
    from proofsearch.search.result import Status

    console = message_console()
    search_config(args, check=True)  # bad budgets stop the command before any work
    loaded = read_theorem_file(args)
    if loaded.invalid and not args.skip_invalid:
        for bad in loaded.invalid:
            console.print(f"  {bad}", markup=False)
        raise CommandError(
            str(args.theorems),
            f"{len(loaded.invalid)} bad line(s) (listed above), nothing was run",
            "fix them, or pass --skip-invalid to run the valid theorems",
        )
    check_files(args)
    check_cluster_workers(args, console)
    if auto_index.wants_auto(args.index):
        if args.prover == "coq":  # Lean's is refused by what follows, as it has none
            _check_before_tracing(args)
        args.index = auto_index.resolve(args, loaded.theorems, console)
    traces = open_traces(index_list(args.index))
    if args.prover == "coq" and not args.coq_arg:
        args.coq_arg = recorded_coq_args(traces)  # the traced project's loadpath
    try:
        prover_opts = prover_options(args)
        prover_opts.setdefault("check_timeout", default_check_timeout(args.timeout))
    except ValueError as exc:  # bad KEY=VALUE
        raise CommandError("", str(exc)) from None
    portfolio_alone = (
        args.generator is None and args.prover == "coq" and not args.index and not args.tactics_file
    )
    if args.generator is None:
        args.generator = default_generator(args.prover, args.index)
    index_problem = check_index(index_list(args.index))
    if index_problem:  # a module in two trace folders
        raise CommandError("", index_problem, "give each module's trace once")
    check_generator_inputs(args)
    try:
        gen_options = generator_options(args)
    except ValueError as exc:
        raise CommandError("", str(exc)) from None
    loaded.theorems = check_places(loaded.theorems, traces)
    theorems = loaded.theorems[: args.limit] if args.limit is not None else loaded.theorems
    if "hammer_tactics" not in gen_options or args.hammer_tactics != "off":
        coqc = str(prover_opts.get("coqc", "coqc"))
        if hammer_tactics.hammer_tactics_wanted(
            args.hammer_tactics, args.prover, args.generator, gen_options, coqc
        ):
            gen_options["hammer_tactics"] = True
    from proofsearch.distributed.spec import WorkerSpec

    spec = WorkerSpec(
        prover=args.prover,
        prover_options=prover_opts,
        generator=args.generator,
        generator_options=gen_options,
        search=search_config(args, check=not args.no_check),
    )
    retry = [Status.ERROR] if args.retry_errors else []
    try:
        store = ResultsStore(
            args.output, resume=args.resume, overwrite=args.overwrite, retry_statuses=retry
        )
    except ResultsFileError as exc:
        raise CommandError("--output", str(exc)) from None
    for problem in store.existing.problems:
        print_notice(console, problem)
    todo = [t for t in theorems if not store.done(t.name)]
    if todo:
        # Before the results file is touched: a prover that cannot start writes nothing.
        try:
            preflight(args.prover, prover_opts, check=not args.no_check)
        except StartupFailed as exc:
            raise CommandError("", str(exc), code=EXIT_FAILURES) from None
    store.on_open = _record_settings(args, spec, console, resumed=len(todo) < len(theorems))
    start = time.perf_counter()
    failure: str | None = None
    with store:
        invalid_records = invalid_result_records(loaded.invalid, {t.name for t in theorems})
        invalid_records = [r for r in invalid_records if not store.done(r["name"])]
        skipped = len(theorems) - len(todo)
        if skipped and not args.quiet:
            console.print(f"resuming: {skipped} theorem(s) already have a result in {args.output}")
        watch = StartupWatch(store, args.prover, len(todo))
        sources = {t.name: t.source for t in todo}
        fix = HEADER_FIXES.get(args.prover, "fix the header")
        headers = HeaderWatch(watch, str(args.theorems), sources, fix)
        notice = index_build_notice(spec) if todo and not args.quiet else None
        if notice:
            print_notice(console, notice, style="dim")
        display = ProgressDisplay(len(todo) + len(invalid_records), console, not args.quiet)
        with display:
            for record in invalid_records:
                store.append(record)
                display.result(record)
            try:
                _run(args, spec, todo, headers, display)
            except (RunFailed, StartupFailed, HeaderFailed) as exc:
                failure = str(exc)
            else:
                headers.release()
            if failure is None and watch.skipped:
                failure = watch.failure()
            if failure is not None:
                display.abandon()  # no bar drawn after (or below) a fatal error
    if failure is not None:
        raise CommandError("", failure, code=EXIT_FAILURES)
    wall = time.perf_counter() - start
    if not args.quiet:
        from proofsearch.distributed.store import read_results

        records = read_results(args.output).records.values()
        names = {t.name for t in theorems} | {r["name"] for r in invalid_records}
        ours = [r for r in records if r["name"] in names]
        Console().print(summary_table(summarize(ours), wall))
        notes = (generator_late_note(ours), guard_note(ours), axiom_note(ours),
                 open_error_note(ours, args.prover))  # fmt: skip
        for note in notes:
            if note:
                print_notice(console, note)
        if portfolio_alone and todo:
            print_notice(console, NO_INDEX_NOTE)  # after the run: never before an error
    return EXIT_OK


def generator_late_note(records: Sequence[dict[str, Any]]) -> str | None:
    """A line when the tactic generator was too slow for ``--timeout``: its calls were
    cut at the deadline (a model server), or returned past it (a generator that cannot
    be cut); a user who sees only open theorems learns what to change."""
    from proofsearch.search.result import GENERATOR_CUT, GENERATOR_LATE

    cut = sum(1 for r in records if r.get(GENERATOR_CUT))
    late = [float(r[GENERATOR_LATE]) for r in records if r.get(GENERATOR_LATE)]
    if late:
        return (
            f"{len(late)} theorem(s) ran past --timeout waiting for the tactic generator (up "
            f"to {max(late):.1f} s late: this generator's calls cannot be cut at the "
            "deadline); give its calls a shorter limit or the theorems a longer --timeout"
        )
    if cut:
        return (
            f"in {cut} theorem(s) the deadline came while the tactic generator was still "
            "answering (its call was cut, the theorem ended on time): the generator is too "
            "slow for this --timeout; give a longer --timeout or a faster server"
        )
    return None


#: Coq's message for a ``Require`` whose library the loadpath does not bind.
_UNBOUND = re.compile(r"logical path (?:matching suffix )?([\w'.]+?)\.?(?:\s|$)")


def open_error_note(records: Sequence[dict[str, Any]], prover: str) -> str | None:
    """A line when some theorems failed to open their header (fewer than all: the run
    did not stop on them), with the fix: the row alone said Coq's message (audit 55,
    a header ``Require Import Num.Ineq`` of the user's project without its loadpath)."""
    from proofsearch.cli.header_watch import HEADER_FIXES
    from proofsearch.search.result import OPEN_ERROR

    failed = [r for r in records if r.get("status") == "error" and r.get(OPEN_ERROR)]
    if not failed:
        return None
    message = " ".join(str(failed[0].get("error") or "").split())
    unbound = _UNBOUND.search(message) if prover == "coq" else None
    if unbound:
        library = unbound[1].split(".")[0]
        fix = (
            f"give the loadpath of {library}: --coq-arg -R --coq-arg DIR --coq-arg {library} "
            "(DIR: the folder of its .v files), or --index a trace of it, which records it"
        )
    else:
        fix = HEADER_FIXES.get(prover, "fix the header")
    return (
        f"{len(failed)} theorem(s) failed to open their header (the first: "
        f"{failed[0]['name']}: {message[:300]}); {fix}, and run again with --resume "
        "--retry-errors"
    )


def axiom_note(records: Sequence[dict[str, Any]]) -> str | None:
    """A line when found proofs were refused for the axioms they rest on: a theorem
    file over the Reals, whose every proof rests on the Reals' own axioms, ended each
    theorem ``error`` after its search (audit 44), the fix only inside each row."""
    refused = [r for r in records if "uses axioms not allowed" in str(r.get("error") or "")]
    if not refused:
        return None
    return (
        f"{len(refused)} theorem(s) had a proof refused for the axioms it rests on (the "
        f"first: {refused[0]['name']}); if the header's libraries are yours to trust (the "
        "Reals rest on axioms of their own), pass --any-axiom (or --allow-axiom NAME, or set "
        "the theorems' any_axiom: true or allowed_axioms), and run again with --resume "
        "--retry-errors"
    )


def guard_note(records: Sequence[dict[str, Any]]) -> str | None:
    """A line when the prover's guard refused suggestions (cheats, commands): a model
    author learns that the model writes them, which the counts alone do not say."""
    from proofsearch.search.result import FIRST_REFUSAL, GUARD_REFUSALS

    counts = [(int(r[GUARD_REFUSALS]), r) for r in records if r.get(GUARD_REFUSALS)]
    if not counts:
        return None
    first = counts[0][1]
    return (
        f"the guard refused {sum(n for n, _ in counts)} suggestion(s) in {len(counts)} "
        f"theorem(s) (a cheat or a command, never run; the first, in {first['name']}: "
        f"{first.get(FIRST_REFUSAL)}); each result's guard_refusals counts them"
    )


def _record_settings(
    args: argparse.Namespace, spec: Any, console: Any, *, resumed: bool
) -> Callable[[], None]:
    """On a resume, say now which settings differ from those of the run that wrote the
    earlier results (they would mix silently); what writes this run's settings beside
    the results file, called by the first result (a run that cannot start, such as one
    that cannot join its cluster, writes no line)."""
    from proofsearch.data.run_settings import differences, last_settings, record_run, settings_of

    settings = settings_of(
        args.prover, args.generator, spec.generator_options, spec.search, spec.prover_options
    )
    previous = last_settings(args.output) if resumed else None
    changed = differences(previous, settings) if previous is not None else []
    if changed:
        print_notice(
            console,
            f"resuming {args.output} with other settings than the run that wrote it "
            f"({'; '.join(changed)}): its results mix both runs; give another --output "
            "to keep them apart",
        )

    def record() -> None:
        try:
            record_run(args.output, settings, resumed=resumed)
        except OSError as exc:  # the results file is writable, so this is rare: say it
            print_notice(console, f"cannot record the run's settings: {exc}")

    return record


def invalid_result_records(
    invalid: Sequence[InvalidLine], valid_names: set[str]
) -> list[dict[str, Any]]:
    """One ``invalid`` result per bad line, named so it never clashes with a valid theorem."""
    from proofsearch.search.result import Status

    by_line: dict[tuple[str, int], list[InvalidLine]] = {}
    for bad in invalid:
        by_line.setdefault((bad.source, bad.line), []).append(bad)
    records = []
    for (source, line), problems in by_line.items():
        name = problems[0].name
        if not name or name in valid_names or any(p.field == "name" for p in problems):
            name = f"{source}:{line}"
        records.append(
            {
                "name": name,
                "status": str(Status.INVALID),
                "proof": None,
                "checked": False,
                "error": "; ".join(str(p) for p in problems),
            }
        )
    return records


class RunFailed(Exception):
    """The run could not go on (Ray would not start, ...): the message says why."""


def index_build_notice(spec: WorkerSpec) -> str | None:
    """A line for a run whose generator reads an index not built yet: the first run
    on a trace builds it before any result (a minute and more for the standard
    library's), and a bar standing at 0 said nothing of why."""
    from proofsearch.generate.knn.corpus import is_cached

    index = spec.generator_options.get("index")
    if not index or is_cached(index, bool(spec.generator_options.get("typed_features", True))):
        return None
    count = len(index) if isinstance(index, list) else 1
    return (
        f"index: building the search index of {count} trace folder(s) before the first "
        "result (once: it is cached until a trace changes)"
    )


def _run(
    args: argparse.Namespace,
    spec: WorkerSpec,
    todo: Sequence[Theorem],
    store: ResultSink,
    events: RunEvents,
) -> None:
    from proofsearch.distributed.pool import PoolError
    from proofsearch.distributed.ray_setup import RayOptions, RaySetupError
    from proofsearch.distributed.run import DistributionOptions, run_search

    options = DistributionOptions(
        workers=args.workers,
        ray=RayOptions(address=args.address, tmpdir=args.ray_tmpdir, verbose=args.verbose),
        num_gpus=args.num_gpus,
        generator_actors=args.generator_actors,
        max_attempts=args.max_attempts,
        deadline_grace=args.deadline_grace,
    )
    try:
        run_search(spec, todo, options, store=store, events=events)
    except (RaySetupError, PoolError, NotImplementedError) as exc:
        raise RunFailed(str(exc)) from exc
