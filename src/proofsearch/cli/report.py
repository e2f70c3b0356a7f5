"""``proofsearch report``: compare results files in Markdown, HTML and PNG plots.

Exit codes: 0 the report was written; 1 it was written but some lines could not be read
(each is named on stderr as ``file:line: why`` and listed in the report); 2 bad usage or
a file that cannot be read at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.errors import CommandError


def _anchor(text: str) -> tuple[str, float]:
    label, sep, value = text.rpartition("=")
    try:
        percent = float(value)
    except ValueError:
        percent = -1.0
    if not sep or not label or not 0 <= percent <= 100:
        raise argparse.ArgumentTypeError(f"expected LABEL=PERCENT, got {text!r}")
    return label, percent


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="compare results files (Markdown, HTML, plots)",
        description=(
            "Write index.html (open it from disk), report.md, summary.json and PNG plots "
            "comparing one or more results files: proof rates, times, expansions, "
            "proved-versus-time curves, status breakdown, and a per-theorem table."
        ),
    )
    parser.add_argument("results", nargs="+", type=Path, help="results files (JSONL)")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        help="name of a run, in the order of the files (repeat; default: file stem)",
    )
    parser.add_argument("--title", default="proofsearch report", help="the report's title")
    parser.add_argument(
        "--anchor",
        action="append",
        type=_anchor,
        default=[],
        metavar="LABEL=PERCENT",
        help="a published proof rate to print beside the runs (repeat)",
    )
    parser.add_argument(
        "--stdlib-anchors",
        action="store_true",
        help="add the published Coq stdlib results (Tactician 39.3%%, CoqHammer 40.8%%, "
        "both 56.7%%)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proofsearch.data import report

    if len(args.name) > len(args.results):
        raise CommandError(
            "--name", f"{len(args.name)} names for {len(args.results)} results file(s)",
            "give at most one --name per results file, in their order",
        )  # fmt: skip
    names = report.run_names(args.results, args.name)
    runs = []
    for path, name in zip(args.results, names, strict=True):
        try:
            run_ = report.load_run(path, name)
        except report.ReportError as exc:
            raise CommandError("", str(exc), "give results files of proofsearch search") from None
        for problem in run_.problems:
            print(f"proofsearch report: {problem}", file=sys.stderr)
        if run_.duplicates:
            print(
                f"proofsearch report: warning: {path}: {run_.duplicates} theorem(s) "
                "listed more than once; the last line counts",
                file=sys.stderr,
            )
        runs.append(run_)
    covered = [set(r.results) for r in runs]
    if len(runs) > 1 and any(names != covered[0] for names in covered):
        common = set.intersection(*covered)
        sizes = ", ".join(f"{r.name} {len(names)}" for r, names in zip(runs, covered, strict=True))
        print(
            f"proofsearch report: warning: the runs cover different theorems ({sizes}; "
            f"{len(common)} in common): each proof rate is over its own run's theorems "
            "(a run not finished, or another theorem file?)",
            file=sys.stderr,
        )
    anchors = list(args.anchor)
    if args.stdlib_anchors:
        anchors += list(report.STDLIB_ANCHORS)
    if args.out.exists() and not args.out.is_dir():
        raise CommandError(f"--out {args.out}", "not a folder", "give a folder (made if new)")
    try:
        index = report.write_report(runs, args.out, title=args.title, anchors=anchors)
    except OSError as exc:
        why = f"cannot write: {exc.strerror or exc}"
        raise CommandError(f"--out {args.out}", why, "give a folder you can write to") from None
    for summary in (report.run_summary(r) for r in runs):
        print(
            f"{summary['name']}: {summary['proved']}/{summary['theorems']} proved "
            f"({100 * summary['proof_rate']:.1f}%), {summary['checked']} checked"
        )
    print(f"report: {index}")
    return EXIT_FAILURES if any(r.problems for r in runs) else EXIT_OK
