"""``proofsearch bench``: benchmark tooling, one sub-subcommand each.

``extract-coq`` builds a benchmark from any Coq project or installed library,
``extract-coq-stdlib`` is its shortcut for the standard library, and ``restore-coq-stdlib``
puts the headers back into its committed index (see
:mod:`proofsearch.bench`). Further tools (the engine benchmark) register
themselves in :data:`BENCH_COMMANDS`: each entry adds its parser to the ``bench``
group and sets ``bench_func``; :func:`run` dispatches to it, so ``func=run`` stays the
one entry point the top-level CLI calls.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proofsearch.cli.bench_pairs import add_pairs_parser
from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.errors import CommandError, error_line
from proofsearch.cli.options import positive

if TYPE_CHECKING:
    from proofsearch.bench.library import CoqLibrary


def _add_extract_options(parser: argparse.ArgumentParser) -> None:
    """The options ``extract-coq`` and ``extract-coq-stdlib`` share (one code path)."""
    parser.add_argument(
        "--sample",
        type=positive(int),
        default=None,
        metavar="N",
        help=(
            "draw N lemmas, stratified by part: each part gets at least one, the rest by "
            "size; fewer than the parts go one each to the largest (default: all)"
        ),
    )
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--out", type=Path, required=True, help="theorem file (JSONL) to write")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="repeatable: draw only from files whose path matches a glob (*/seq.v) or whose "
        "module has this prefix (mathcomp.ssreflect.seq); e.g. a library's later files",
    )
    parser.add_argument(
        "--no-validate",
        action="store_true",
        help="do not compile the lemmas (no allowed_axioms; fast, for exploring)",
    )
    parser.add_argument(
        "--jobs",
        type=positive(int),
        default=None,
        help="parallel coqc processes (default: CPU count)",
    )
    parser.add_argument(
        "--timeout",
        type=positive(float),
        default=300.0,
        help="seconds per coqc run (default 300)",
    )
    parser.add_argument("--coqc", default="coqc", help="the coqc binary (default coqc)")
    parser.add_argument(
        "--summary", type=Path, default=None, help="also write the counts (JSON) to this file"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep compile verdicts in this JSONL file and reuse them on the next run",
    )
    parser.add_argument(
        "--open-check",
        choices=("report", "reject", "off"),
        default="report",
        help="also open each kept lemma in CoqProver (coqidetop) as the search does: "
        "report the failures (default), reject and replace them, or skip the check",
    )
    parser.add_argument(
        "--index-out",
        type=Path,
        default=None,
        help="also write the index (every field but the header; see restore-coq-stdlib)",
    )
    parser.add_argument(
        "--instances",
        action="store_true",
        help="named Instances with a proof are entries too (as prove fills them); without "
        "it they are left out, and the summary counts them",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(bench_func=run_extract)


def add_extract_parser(bench: Any) -> None:
    """Register ``bench extract-coq-stdlib``, the stdlib's shortcut of ``extract-coq``."""
    parser = bench.add_parser(
        "extract-coq-stdlib",
        help="build a theorem file from the Coq standard library's lemmas",
        description=(
            "Turn each lemma of the installed Coq standard library into a theorem-file "
            "entry whose header is everything before it in its file. With --sample, draw "
            "a seeded sample stratified by the library's parts, compile every drawn "
            "lemma with its reference proof outside the library, replace the ones that "
            "fail, and record the axioms each reference proof rests on. The same as "
            "'extract-coq' on the standard library."
        ),
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the stdlib's source folder (default: $(coqc -where)/theories for Coq 8.x, "
        "$(coqc -where)/user-contrib/Stdlib for Rocq 9)",
    )
    parser.set_defaults(project=None, library=None)
    _add_extract_options(parser)


def add_extract_any_parser(bench: Any) -> None:
    """Register ``bench extract-coq``: any project or installed library."""
    parser = bench.add_parser(
        "extract-coq",
        help="build a theorem file from the lemmas of a Coq project or installed library",
        description=(
            "Turn each lemma of a Coq project (--project DIR, with its _CoqProject or dune "
            "coq.theory / rocq.theory) or of an installed library (--library "
            "mathcomp.ssreflect, sources "
            "under $(coqc -where)/user-contrib) into a theorem-file entry: header (its "
            "file's prefix), footer (closing the open Sections/Modules), module, file, line, "
            "and allowed_axioms from compiling the reference proof. A header never loads "
            "the lemma's own module or a later one (checked on what Coq loads). With "
            "--sample, a seeded sample stratified by file (by folder for nested libraries)."
        ),
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--project", type=Path, default=None, metavar="DIR",
        help="a project folder with a _CoqProject (or dune files); its .vo files must be "
        "built (make, or proofsearch trace DIR)",
    )  # fmt: skip
    where.add_argument(
        "--library", default=None, metavar="LOGICAL",
        help="an installed library by logical name, e.g. mathcomp.ssreflect",
    )  # fmt: skip
    where.add_argument(
        "--root", type=Path, default=None, metavar="DIR",
        help="the standard library's sources (as extract-coq-stdlib)",
    )  # fmt: skip
    _add_extract_options(parser)


def add_restore_parser(bench: Any) -> None:
    """Register ``bench restore-coq-stdlib``."""
    parser = bench.add_parser(
        "restore-coq-stdlib",
        help="turn a stdlib index (entries without headers) into a theorem file",
        description=(
            "Put back each index entry's header (its file's prefix) from the installed "
            "stdlib's sources. An entry whose statement or reference proof differs from "
            "the sources (another Coq version) is reported with its line and field and "
            "left out; the exit status is then 1."
        ),
    )
    parser.add_argument("index", type=Path, help="the index (JSONL), e.g. "
                        "benchmarks/coq/stdlib-sample.index.jsonl")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="theorem file (JSONL) to write")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the stdlib's source folder (default: $(coqc -where)/theories for Coq 8.x, "
        "$(coqc -where)/user-contrib/Stdlib for Rocq 9)",
    )
    parser.add_argument("--coqc", default="coqc", help="the coqc binary (default coqc)")
    parser.set_defaults(bench_func=run_restore)


def run_restore(args: argparse.Namespace) -> int:
    from proofsearch.bench.stdlib_index import restore_file

    root = stdlib_root(args.root, args.coqc)
    try:
        restored = restore_file(args.index, args.out, root)
    except OSError as exc:
        raise CommandError(str(args.index), str(exc), "check the index and --out paths") from None
    for error in restored.errors:
        print(error_line("bench", str(error)), file=sys.stderr)
    print(f"wrote {len(restored.records)} theorems to {args.out}"
          + (f"; {len(restored.errors)} index line(s) could not be restored"
             if restored.errors else ""))  # fmt: skip
    return EXIT_FAILURES if restored.errors else EXIT_OK


#: ``bench`` sub-subcommands: each function adds its parser and sets ``bench_func``.
BENCH_COMMANDS: list[Callable[[Any], None]] = [
    add_extract_parser,
    add_extract_any_parser,
    add_restore_parser,
    add_pairs_parser,
]


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench", help="benchmark tools", description="Benchmark tools (see the subcommands)."
    )
    bench = parser.add_subparsers(dest="bench_command", required=True, metavar="BENCH_COMMAND")
    for add in BENCH_COMMANDS:
        add(bench)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen ``bench`` sub-subcommand."""
    func: Callable[[argparse.Namespace], int] = args.bench_func
    return func(args)


def stdlib_root(root: Path | None, coqc: str) -> Path:
    """``root``, or the installed stdlib's sources (:class:`CommandError` if unusable)."""
    from proofsearch.bench import stdlib_extract
    from proofsearch.env.base import EnvError

    if root is None:
        try:
            root = stdlib_extract.default_root(coqc)
        except (OSError, subprocess.CalledProcessError, EnvError) as exc:
            raise CommandError(
                f"{coqc} -where", f"cannot find the stdlib: {exc}", "give --root DIR or --coqc"
            ) from None
    if not root.is_dir() or not any(root.rglob("*.v")):
        raise CommandError(str(root), "no .v files", "give --root DIR")
    return root


def library_of(args: argparse.Namespace) -> CoqLibrary:
    """The library the options name (:class:`CommandError` naming the option if unusable)."""
    from proofsearch.bench.library import (
        LibraryError,
        installed_library,
        project_library,
        stdlib_library,
    )

    try:
        if args.project is not None:
            library = project_library(args.project, args.coqc)
        elif args.library is not None:
            library = installed_library(args.library, args.coqc)
        else:
            library = stdlib_library(stdlib_root(args.root, args.coqc), args.coqc)
        library.select(args.only)
    except (LibraryError, OSError, subprocess.CalledProcessError) as exc:
        raise CommandError("", str(exc)) from None
    missing = library.uncompiled() if args.project is not None else None
    if missing is not None:
        raise CommandError(
            f"--project {args.project}",
            f"{missing.file} is not compiled (no .vo)",
            "build the project first (make, or proofsearch trace DIR)",
        )
    return library


def run_extract(args: argparse.Namespace) -> int:
    """``extract-coq`` and ``extract-coq-stdlib``: one pipeline for every library."""
    from proofsearch.bench import stdlib_build, stdlib_extract, stdlib_validate

    library = library_of(args)
    start = time.monotonic()
    done = [0]

    def progress(lemma: stdlib_extract.StdlibLemma, verdict: stdlib_validate.Validation) -> None:
        done[0] += 1
        if not args.quiet:
            status = "ok" if verdict.ok else f"REJECTED ({verdict.reason})"
            if verdict.reason == "idetop_fails":
                status += f": {verdict.message[-200:]}"
            print(
                f"[{done[0]}] {verdict.check} {lemma.name}: {status} {verdict.seconds:.1f}s",
                file=sys.stderr,
                flush=True,
            )

    benchmark = stdlib_build.build_benchmark(
        library,
        sample=args.sample,
        seed=args.seed,
        validate_sample=not args.no_validate,
        jobs=args.jobs,
        coqc=args.coqc,
        timeout=args.timeout,
        progress=progress,
        cache=args.cache,
        open_check=args.open_check,
        instances=args.instances,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for record in stdlib_build.iter_records(benchmark.sample):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    if args.index_out is not None:
        from proofsearch.bench.stdlib_index import index_record

        args.index_out.parent.mkdir(parents=True, exist_ok=True)
        with args.index_out.open("w", encoding="utf-8") as handle:
            for record in stdlib_build.iter_records(benchmark.sample):
                handle.write(json.dumps(index_record(record), ensure_ascii=False) + "\n")
    print(benchmark.summary())
    size = args.out.stat().st_size
    print(f"wrote {len(benchmark.sample)} theorems to {args.out} ({size / 1e6:.1f} MB)")
    print(f"took {time.monotonic() - start:.0f} s")
    if args.summary is not None:
        args.summary.write_text(json.dumps(benchmark.counts(), indent=2) + "\n")
    return EXIT_OK
