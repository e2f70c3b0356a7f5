"""``proofsearch export``: write found proofs as ``.v``/``.lean`` files that compile as is.

Exit codes: 0 every proof was exported; 1 some could not be (a malformed results line,
a theorem missing from the theorem file; each is named on stderr); 2 bad usage or an
unreadable or malformed theorem file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from proofsearch.cli import EXIT_FAILURES, EXIT_OK, EXIT_USAGE


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write found proofs as .v/.lean files",
        description=(
            "Write one source file per proved theorem of RESULTS (header, statement and "
            "proof, exactly as the re-checker compiles it), plus index.md, index.json "
            "and, for Coq, a _CoqProject. The prover is taken from --prover, else from a "
            "theorem's 'prover' field, else guessed from its statement (a Lean statement "
            "ends with ':= by', a Coq one with '.')."
        ),
    )
    parser.add_argument("results", type=Path, help="results file (JSONL)")
    parser.add_argument("theorems", type=Path, help="the theorem file the results came from")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--prover", choices=("coq", "lean"), default=None, help="force the output language"
    )
    parser.add_argument(
        "--only-checked",
        action="store_true",
        help="export only proofs that passed the re-check",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proofsearch.data.export import ExportError, export_proofs, read_proofs
    from proofsearch.data.theorems import load_theorems

    try:
        theorem_file = load_theorems(args.theorems)
    except OSError as exc:
        print(f"error: {args.theorems}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    if theorem_file.invalid:
        for invalid in theorem_file.invalid:
            print(f"error: {invalid}", file=sys.stderr)
        return EXIT_USAGE
    try:
        proofs, problems = read_proofs(args.results)
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    theorems = {theorem.name: theorem for theorem in theorem_file.theorems}
    result = export_proofs(
        proofs, theorems, args.out, prover=args.prover, only_checked=args.only_checked
    )
    problems += [f"{args.results}: {problem}" for problem in result.problems]
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    skipped = f", {result.skipped_unchecked} unchecked skipped" if result.skipped_unchecked else ""
    print(f"exported {len(result.files)} proof(s) to {args.out}{skipped}")
    return EXIT_FAILURES if problems else EXIT_OK
