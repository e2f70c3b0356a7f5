"""The ``proofsearch`` command line: one module per subcommand.

Each subcommand module defines ``add_parser(subparsers)`` which registers its parser and
sets ``func`` to a ``run(args) -> int`` function. Heavy imports (Ray, torch) happen inside
``run`` so that ``proofsearch --help`` stays instant.

Exit codes: 0 success (a ``search`` whose theorems end in ``error`` still succeeds: every
theorem has a result); 1 the command found a failure (``check`` rejected a proof;
``report``, ``export`` or ``bench`` met bad lines or errors) or ``search`` could not go on
(Ray or its workers would not start, or the prover cannot start: see
:mod:`proofsearch.cli.preflight`); 2 bad usage or bad input (unreadable or malformed
theorem file, unknown option); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS = ("search", "check", "report", "export", "bench", "trace", "prove")

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="proofsearch",
        description="Distributed best-first proof search for Coq and Lean 4.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"proofsearch.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
