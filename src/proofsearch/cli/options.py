"""Options shared by subcommands: which prover, how to reach it, which generator."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from proofsearch.env.registry import PROVERS

#: The re-check's default limit on ``search``: ``CHECK_TIMEOUT_FACTOR`` × ``--timeout``,
#: at least ``MIN_CHECK_TIMEOUT`` (it also compiles the header, which ``--timeout``
#: need not count).
CHECK_TIMEOUT_FACTOR = 2.0
MIN_CHECK_TIMEOUT = 60.0


def default_check_timeout(timeout: float) -> float:
    """The re-check's limit on ``search`` when ``--check-timeout`` is not given."""
    return max(MIN_CHECK_TIMEOUT, CHECK_TIMEOUT_FACTOR * timeout)


def at_least(minimum: float, kind: type[int] | type[float] = int) -> Callable[[str], Any]:
    """An argparse ``type``: a number no smaller than ``minimum``.

    ``--workers 0`` or ``--timeout -1`` would otherwise run and report every theorem
    ``open`` or ``failed``: refused at parse time (exit 2) instead.
    """
    return _bounded(kind, lambda value: value >= minimum, f"is below {kind(minimum)}")


def positive(kind: type[int] | type[float] = float) -> Callable[[str], Any]:
    """An argparse ``type``: a number above 0 (a time limit, a count)."""
    return _bounded(kind, lambda value: value > 0, "is not above 0")


def _bounded(
    kind: type[int] | type[float], accept: Callable[[Any], bool], refusal: str
) -> Callable[[str], Any]:
    word = "an integer" if kind is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text} is not {word}") from None
        if not accept(value):  # NaN is refused too: every comparison with it is false
            raise argparse.ArgumentTypeError(f"{text} {refusal}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse


def generator_name(text: str) -> str:
    """An argparse ``type``: a registered generator, or ``module:factory`` (a user's own)."""
    from proofsearch.generate.registry import GENERATORS

    if text in GENERATORS or (":" in text and all(text.partition(":")[::2])):
        return text
    known = ", ".join(sorted(GENERATORS))
    raise argparse.ArgumentTypeError(
        f"unknown generator {text!r}; choose one of {known} (or give module:factory)"
    )


def add_prover_options(parser: argparse.ArgumentParser, coq_only: bool = False) -> None:
    """The prover's options; ``coq_only`` (``prove``, which fills Coq projects) keeps the
    Lean options out of ``--help`` (a user read them as applying to their project)."""
    group = parser.add_argument_group("prover")
    group.add_argument(
        "--prover", choices=sorted(PROVERS), default="coq",
        help=argparse.SUPPRESS if coq_only else "default: coq",
    )  # fmt: skip
    group.add_argument(
        "--tactic-timeout", type=positive(float), default=None, metavar="S",
        help="per-tactic time limit in seconds (default: Coq 2, Lean 10)",
    )  # fmt: skip
    group.add_argument(
        "--check-timeout", type=float, default=None, metavar="S",
        help="time limit of each proof's from-scratch re-check (default: search: twice "
        f"--timeout, at least {MIN_CHECK_TIMEOUT:g}; check: 300)",
    )  # fmt: skip
    group.add_argument(
        "--memory-limit-mb", type=positive(int), default=None, metavar="MB",
        help="address-space cap of each prover process (default: Coq 4096, Lean 16384)",
    )  # fmt: skip
    group.add_argument(
        "--allow-axiom", action="append", default=[], metavar="NAME",
        help="an axiom a proof may rest on (repeatable; Lean allows propext, "
        "Classical.choice, Quot.sound by default)",
    )  # fmt: skip
    group.add_argument(
        "--any-axiom", action="store_true",
        help="Coq: a proof may rest on any axiom its header loads (the Reals' own, a "
        "library's), as a theorem's any_axiom field says; it must still be closed",
    )  # fmt: skip
    coq = parser.add_argument_group("Coq")
    coq.add_argument(
        "--coq-binary",
        default="coqidetop.opt",
        help="default: coqidetop.opt, or coqidetop where only that is installed (Rocq 9)",
    )
    coq.add_argument("--coqc", default="coqc", help="compiler used to re-check proofs")
    coq.add_argument(
        "--coq-arg", action="append", default=[], metavar="ARG",
        help="argument for coqidetop and coqc, repeatable (e.g. --coq-arg=-R "
        "--coq-arg=theories --coq-arg=MyLib); default: the Coq arguments recorded in the "
        "--index trace(s)",
    )  # fmt: skip
    lean = parser.add_argument_group("Lean 4")

    def said(text: str) -> str:
        return argparse.SUPPRESS if coq_only else text

    lean.add_argument(
        "--lean-repl", default=None, metavar="COMMAND",
        help=said(
            "command line that starts the REPL (default: lake env ../repl/.lake/build/bin/repl)"
        ),
    )  # fmt: skip
    lean.add_argument(
        "--lean-project", default=None, metavar="DIR",
        help=said("the Lake project to run the REPL in"),
    )  # fmt: skip
    lean.add_argument(
        "--allow-native-decide", action="store_true", help=said("let tactics use native_decide")
    )
    lean.add_argument(
        "--leandojo-repo", default=None, metavar="DIR",
        help=said(
            "for a LeanDojo Benchmark 4 .json file: the checkout its statements are read from"
        ),
    )  # fmt: skip
    group.add_argument(
        "--prover-option", action="append", default=[], metavar="KEY=VALUE",
        help="any other prover option (value parsed as JSON when it can be), e.g. "
        "--prover-option recycle_after=500",
    )  # fmt: skip


def prover_options(args: argparse.Namespace) -> dict[str, Any]:
    """Plain options for :func:`proofsearch.env.make_prover` from parsed arguments."""
    options: dict[str, Any] = {}
    if args.tactic_timeout is not None:
        options["tactic_timeout"] = args.tactic_timeout
    if args.memory_limit_mb is not None:
        options["memory_limit_mb"] = args.memory_limit_mb
    if args.check_timeout is not None:
        if not args.check_timeout > 0:
            raise ValueError(f"--check-timeout {args.check_timeout:g}: must be more than 0 s")
        options["check_timeout"] = args.check_timeout
    if args.prover == "coq":
        options.update(binary=args.coq_binary, coqc=args.coqc, args=absolute_paths(args.coq_arg))
        if args.allow_axiom:
            options["allowed_axioms"] = list(args.allow_axiom)
        if args.any_axiom:
            options["any_axiom"] = True
    elif args.prover == "lean":
        if args.any_axiom:
            raise ValueError("--any-axiom is Coq's: for Lean give each axiom with --allow-axiom")
        if args.lean_repl:
            options["repl_command"] = args.lean_repl
        if args.lean_project:
            options["project_dir"] = args.lean_project
        if args.allow_native_decide:
            options["allow_native_decide"] = True
        if args.allow_axiom:
            from proofsearch.env.lean.checker import STANDARD_AXIOMS

            options["allowed_axioms"] = [*STANDARD_AXIOMS, *args.allow_axiom]
    options.update(parse_key_values(args.prover_option, "--prover-option"))
    return options


def parse_key_values(items: list[str], flag: str) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are JSON where they parse (numbers, lists), else text."""
    import json

    parsed: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} {item!r}: expected KEY=VALUE; e.g. {flag} timeout=30")
        try:
            parsed[key] = json.loads(value)
        except json.JSONDecodeError:
            parsed[key] = value
    return parsed


def load_input(args: argparse.Namespace) -> Any:
    """Read the theorem file: JSONL, or a LeanDojo Benchmark 4 ``.json`` list."""
    from proofsearch.data.theorems import load_theorems

    if str(args.theorems).endswith(".json"):
        from proofsearch.data.leandojo import load_leandojo

        return load_leandojo(args.theorems, args.leandojo_repo)
    return load_theorems(args.theorems)


def absolute_paths(coq_args: list[str]) -> list[str]:
    """Make the folder of ``-R DIR LIB``, ``-Q DIR LIB`` and ``-I DIR`` absolute.

    Coq runs in a private working folder (tactics such as ``lia`` write caches there),
    so folders given relative to where ``proofsearch`` was started must be resolved now.
    """
    import os

    resolved = list(coq_args)
    for index, arg in enumerate(resolved[:-1]):
        if arg in ("-R", "-Q", "-I", "-include"):
            resolved[index + 1] = os.path.abspath(resolved[index + 1])
    return resolved
