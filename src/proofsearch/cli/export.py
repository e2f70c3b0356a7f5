"""``proofsearch export``: write found proofs as ``.v``/``.lean`` files that compile as is.

Exit codes: 0 every proof was exported; 1 some could not be (a malformed results line,
a theorem missing from the theorem file; each is named on stderr); 2 bad usage, an
unreadable theorem file or one that holds none of the proofs' theorems (nothing is
written), or an output folder that is not empty (without ``--overwrite``). A malformed
theorem line is named and skipped, as ``check`` does.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.errors import CommandError

#: What marks a folder as an earlier export's (``--overwrite`` empties only those).
INDEX = "index.json"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write found proofs as .v/.lean files",
        description=(
            "Write one source file per proved theorem of RESULTS (header, statement and "
            "proof, exactly as the re-checker compiles it), plus index.md, index.json "
            "and, for Coq, a _CoqProject that compiles them against their project "
            "(--coq-arg, else the Coq arguments recorded in the --index traces). The "
            "prover is taken from --prover, else from a theorem's 'prover' field, else "
            "guessed from its statement (a Lean statement ends with ':= by', a Coq one "
            "with '.')."
        ),
    )
    parser.add_argument("results", type=Path, help="results file (JSONL)")
    parser.add_argument("theorems", type=Path, help="the theorem file the results came from")
    parser.add_argument("--out", type=Path, required=True, help="output folder (new or empty)")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="empty an earlier export's folder (one with index.json) first",
    )
    parser.add_argument(
        "--prover", choices=("coq", "lean"), default=None, help="force the output language"
    )
    parser.add_argument(
        "--only-checked",
        action="store_true",
        help="export only proofs that passed the re-check",
    )
    parser.add_argument(
        "--coq-arg", action="append", default=[], metavar="ARG",
        help="the project's Coq arguments, for the _CoqProject (e.g. --coq-arg=-R "
        "--coq-arg=theories --coq-arg=MyLib)",
    )  # fmt: skip
    parser.add_argument(
        "--index", action="append", default=[], metavar="TRACE_DIR",
        help="a trace folder whose recorded Coq arguments are used without --coq-arg",
    )  # fmt: skip
    parser.set_defaults(func=run)


def prepare_out(
    out: Path, overwrite: bool, marker: str = INDEX, what: str = "an earlier export"
) -> None:
    """Refuse a non-empty folder (stale files would sit among the new ones), unless
    ``overwrite`` is given and it is ``what`` (it holds ``marker``), which is then
    emptied."""
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out}", "not a folder", "give a new or empty folder")
    if not out.exists() or not any(out.iterdir()):
        return
    if not overwrite:
        raise CommandError(
            f"--out {out}",
            "the folder is not empty",
            f"give a new folder, or --overwrite to replace {what}",
        )
    if not (out / marker).is_file():
        raise CommandError(
            f"--out {out}",
            f"not empty and not {what} (no {marker})",
            "give a new or empty folder",
        )
    for entry in out.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def run(args: argparse.Namespace) -> int:
    from proofsearch.cli.options import absolute_paths
    from proofsearch.cli.theorem_input import read_theorem_file
    from proofsearch.cli.traces import open_traces, recorded_coq_args
    from proofsearch.data.export import ExportError, export_proofs, read_proofs

    args.leandojo_repo = None  # read_theorem_file reads JSONL here
    theorem_file = read_theorem_file(args)
    for invalid in theorem_file.invalid:  # as check does: a proof of one is "not in" it
        print(f"proofsearch export: {invalid}", file=sys.stderr)
    coq_args = absolute_paths(args.coq_arg) or recorded_coq_args(open_traces(args.index))
    try:
        proofs, problems = read_proofs(args.results)
    except ExportError as exc:
        raise CommandError("", str(exc), "give the results file of proofsearch search") from None
    theorems = {theorem.name: theorem for theorem in theorem_file.theorems}
    if proofs and not any(found.name in theorems for found in proofs):
        raise CommandError(  # the wrong file: nothing is written (not even the folder)
            str(args.theorems),
            f"none of the {len(proofs)} proof(s) of {args.results} is of a theorem in it",
            "give the theorem file that was searched",
        )
    prepare_out(args.out, args.overwrite)
    result = export_proofs(
        proofs, theorems, args.out,
        prover=args.prover, only_checked=args.only_checked, coq_args=coq_args,
    )  # fmt: skip
    problems += [f"{args.results}: {problem}" for problem in result.problems]
    for problem in problems:
        print(f"proofsearch export: {problem}", file=sys.stderr)
    skipped = f", {result.skipped_unchecked} unchecked skipped" if result.skipped_unchecked else ""
    print(f"exported {len(result.files)} proof(s) to {args.out}{skipped}")
    return EXIT_FAILURES if problems else EXIT_OK
