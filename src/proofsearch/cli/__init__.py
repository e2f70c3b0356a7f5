"""The ``proofsearch`` command line: one module per subcommand.

Each subcommand module defines ``add_parser(subparsers)`` which registers its parser and
sets ``func`` to a ``run(args) -> int`` function. Heavy imports (Ray, torch) happen inside
``run`` so that ``proofsearch --help`` stays instant.

Exit codes (:mod:`proofsearch.cli.codes`): 0 success (a ``search`` whose theorems end in
``error`` still succeeds: every theorem has a result); 1 the command found a failure
(``check`` rejected a proof; ``report``, ``export`` or ``bench`` met bad lines or
errors) or ``search`` could not go on (Ray or its workers would not start, the prover
cannot start, every theorem so far failed to open its header with the same message:
see :mod:`proofsearch.cli.preflight`); 2 bad usage or bad input, found before any work
(an unknown option or value, an unreadable or malformed theorem file, a Coq setup that
cannot work; bare ``proofsearch`` too, which lists the subcommands); 130 interrupted.

Every error that stops a command is one line, ``proofsearch <command>: <what>: <why>;
<how to fix>`` (:mod:`proofsearch.cli.errors`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from proofsearch.cli.codes import EXIT_FAILURES, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from proofsearch.cli.errors import CommandError, error_line

__all__ = ["EXIT_FAILURES", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

#: The subcommands, in the order ``proofsearch --help`` lists them; each is the module
#: ``proofsearch.cli.<name>`` with an ``add_parser``.
SUBCOMMANDS = ("search", "check", "report", "export", "bench", "trace", "prove")


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors in the CLI's one-line style (and exit 2)."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument "):
            message = message[len("argument ") :]
        command = self.prog.removeprefix("proofsearch").strip() or None
        fix = f"see {self.prog} --help"
        self.exit(EXIT_USAGE, error_line(command, f"{message}; {fix}") + "\n")


def build_parser() -> argparse.ArgumentParser:
    from proofsearch import __version__

    parser = Parser(
        prog="proofsearch",
        description="Distributed best-first proof search for Coq and Lean 4.",
    )
    parser.add_argument("--version", action="version", version=f"proofsearch {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"proofsearch.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `proofsearch`: what can it do?
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code: int = args.func(args)
    except CommandError as exc:
        print(error_line(args.command, str(exc)), file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
