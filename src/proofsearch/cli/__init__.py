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
cannot work; bare ``proofsearch`` too, which lists the subcommands); 130 interrupted
(Ctrl-C); 143 terminated (SIGTERM), stopped the same way.

Every error that stops a command is one line, ``proofsearch <command>: <what>: <why>;
<how to fix>`` (:mod:`proofsearch.cli.errors`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from proofsearch.cli.codes import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILURES,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from proofsearch.cli.errors import CommandError, error_line

__all__ = ["EXIT_FAILURES", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

#: The subcommands, in the order ``proofsearch --help`` lists them; each is the module
#: ``proofsearch.cli.<name>`` with an ``add_parser``.
SUBCOMMANDS = ("search", "check", "report", "export", "bench", "trace", "prove")


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors in the CLI's one-line style (and exit 2)."""

    #: The words this parser was given, so a "required" error can name a mistyped option.
    words: tuple[str, ...] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.words = tuple(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument "):
            message = message[len("argument ") :]
        command = self.prog.removeprefix("proofsearch").strip() or None
        if message.startswith("the following arguments are required"):
            # `report --outt x.md` is a typo of --out, not a missing --out: say so.
            mistyped = _mistyped_options(self, self.words)
            if mistyped:
                message = mistyped
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


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> Any:
    """The parser of subcommand ``command``, or None."""
    return next(
        (
            action.choices[command]
            for action in parser._actions
            if isinstance(action, argparse._SubParsersAction) and command in action.choices
        ),
        None,
    )


def _unrecognized(parser: argparse.ArgumentParser, command: str | None, extra: list[str]) -> str:
    """``unrecognized arguments: --time-out 5`` said by the subcommand it was given to,
    with the closest option it has (argparse said it as ``proofsearch:``, suggesting
    nothing)."""
    message = f"unrecognized arguments: {' '.join(extra)}"
    sub = _subparser(parser, command)
    if sub is None:
        return message
    return _with_closest(sub, extra, message)


def _with_closest(sub: argparse.ArgumentParser, words: Sequence[str], message: str) -> str:
    """``message`` with the option of ``sub`` closest to the first mistyped one in ``words``."""
    import difflib

    options = [o for action in sub._actions for o in action.option_strings]
    for word in words:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.6)
            if close:
                return f"{message}; did you mean {close[0]}?"
    return message


def _mistyped_options(sub: argparse.ArgumentParser, words: Sequence[str]) -> str | None:
    """``unrecognized arguments: --outt`` (with the closest option) when ``words`` hold an
    option ``sub`` does not have, or None."""
    options = {o for action in sub._actions for o in action.option_strings}
    unknown = [
        w
        for w in words
        if w.startswith("--")
        and w != "--"
        and w.split("=", 1)[0] not in options
        and not any(o.startswith(w.split("=", 1)[0]) for o in options)  # an abbreviation
    ]
    if not unknown:
        return None
    return _with_closest(sub, unknown, f"unrecognized arguments: {' '.join(unknown)}")


def _trailing_positionals(
    parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]
) -> list[str]:
    """Words after the options (``prove . --list B.v``) taken by the command's list
    positional, as ``prove . B.v --list`` takes them (argparse stops a positional at the
    first option and calls the rest unrecognized); what is left unrecognized."""
    command = getattr(args, "command", None)
    if not extra or any(word.startswith("-") for word in extra) or command is None:
        return extra
    sub = _subparser(parser, command)
    listed = [
        a for a in (sub._actions if sub else []) if not a.option_strings and a.nargs in ("+", "*")
    ]
    if len(listed) != 1:
        return extra
    action = listed[0]
    convert = action.type if callable(action.type) else str
    setattr(args, action.dest, [*getattr(args, action.dest), *map(convert, extra)])
    return []


#: Options whose values are Coq's own options (``-R``): argparse takes a value that
#: starts with ``-`` for an option only when written ``--coq-arg=-R``.
_DASHED_VALUES = ("--coq-arg",)


def _joined_dashed_values(argv: Sequence[str]) -> list[str]:
    """``--coq-arg -R`` as ``--coq-arg=-R`` (audit 55: argparse answered "expected one
    argument", and the README's wording invited the spaced form)."""
    words = list(argv)
    out: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else None
        dashed = following is not None and following.startswith("-") and following[1:2] != "-"
        if word in _DASHED_VALUES and dashed:
            out.append(f"{word}={following}")
            index += 2
            continue
        out.append(word)
        index += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = _joined_dashed_values(sys.argv[1:] if argv is None else argv)
    args, extra = parser.parse_known_args(words)
    extra = _trailing_positionals(parser, args, extra)
    if extra:
        command = getattr(args, "command", None)
        prog = f"proofsearch {command}" if command else "proofsearch"
        body = f"{_unrecognized(parser, command, extra)}; see {prog} --help"
        print(error_line(command, body), file=sys.stderr)
        return EXIT_USAGE
    if args.command is None:  # bare `proofsearch`: what can it do?
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    _TERMINATED.clear()
    try:
        with _sigterm_as_interrupt():
            code: int = args.func(args)
    except CommandError as exc:
        print(error_line(args.command, str(exc)), file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        # `prove . --list | head -1`: the reader has what it wanted. Python would print a
        # traceback, and another at exit flushing stdout: point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        # The flag, not the exception's type: Ray hands an exception raised in a signal
        # handler while the driver waits (``ray.wait``) back as a plain KeyboardInterrupt
        # (verification 53: a Ray run ended "interrupted", 130).
        terminated = _TERMINATED.is_set()
        hint = _resume_hint(args)
        print(f"{'terminated' if terminated else 'interrupted'}{hint}", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    return code


#: Set by the SIGTERM handler: what stopped the command, whatever exception reached ``main``.
_TERMINATED = threading.Event()


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's or CI's time limit), stopped as Ctrl-C stops a run: its
    prover processes and temporary folders cleaned up, one line. Killed by the default
    handler, a run said nothing and left its ``/tmp/proofsearch-coq-*`` folders."""


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        _TERMINATED.set()
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _resume_hint(args: argparse.Namespace) -> str:
    """How to go on after an interrupted run: "the same command" threw the work away
    when it held ``--overwrite``."""
    if args.command not in ("search", "prove", "trace"):
        return ""
    kept = "; the results so far are kept: "
    if args.command == "search":
        if getattr(args, "overwrite", False):
            return kept + "run the command again with --resume instead of --overwrite to go on"
        return (
            kept
            + "run the same command again"
            + ("" if args.resume else " with --resume")
            + " to go on"
        )
    if getattr(args, "overwrite", False):
        return kept + "run the command again without --overwrite to go on"
    return kept + "run the same command again to go on"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
