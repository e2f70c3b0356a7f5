"""``proofsearch check``: re-verify every proved result from scratch.

Exit codes: 0 every proof passed; 1 a proof was rejected (each is named with Coq's
reason); 2 bad usage or bad input, or a Coq setup that cannot work (a library that
cannot be found, a header that does not compile without any proof: one line, never
"rejected"; see :mod:`proofsearch.cli.coq_setup`).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_FAILURES, EXIT_OK
from proofsearch.cli.console import message_console, print_error, print_notice
from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import add_prover_options, prover_options
from proofsearch.cli.preflight import StartupFailed, check_coq_folders, check_coq_version
from proofsearch.theorem import Theorem

#: Header lines a results file may ask for (the CoqHammer baselines' proofs need their
#: import). Nothing else is taken from a results file: a line such as a ``Notation``
#: could change what the statement means.
TRUSTED_HEADER_SUFFIXES = frozenset(
    {"From Hammer Require Import Hammer.", "From Hammer Require Import Tactics."}
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "check",
        help="re-check every proved result from scratch",
        description="Re-verify each 'proved' result of RESULTS against THEOREMS with a fresh "
        "prover (Coq: coqc + Print Assumptions). Exit code 1 if any proof fails.",
    )
    parser.add_argument("results", help="results file written by proofsearch search")
    parser.add_argument("theorems", help="the theorem file that was searched")
    add_prover_options(parser)
    parser.add_argument(
        "--index", action="append", default=[], metavar="TRACE_DIR",
        help="a trace folder whose recorded Coq arguments are used without --coq-arg",
    )  # fmt: skip
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proofsearch.cli.theorem_input import read_theorem_file
    from proofsearch.cli.traces import open_traces, recorded_coq_args
    from proofsearch.distributed.store import read_results
    from proofsearch.env.registry import make_prover

    console = message_console(stderr=False)
    errors = message_console()
    order = "; the order is: proofsearch check RESULTS THEOREMS"
    loaded = read_theorem_file(args, order_hint=order)
    if args.prover == "coq" and not args.coq_arg:
        args.coq_arg = recorded_coq_args(open_traces(args.index))
    try:
        options = prover_options(args)
    except ValueError as exc:  # bad KEY=VALUE
        raise CommandError("", str(exc)) from None
    if args.prover == "coq":
        try:  # Coq only warns about a missing -R/-Q/-I folder: a setup problem
            check_coq_folders(list(options.get("args") or []))
        except StartupFailed as exc:
            raise CommandError("", str(exc)) from None
    try:
        check_coq_version(args.prover, options, idetop=False)
    except StartupFailed as exc:
        raise CommandError("", str(exc), code=EXIT_FAILURES) from None
    if not Path(args.results).is_file():
        raise CommandError(
            str(args.results), "no such file", "give the results file of proofsearch search"
        )
    if _first_line_is_theorem(args.results):
        raise CommandError(
            str(args.results), "this is a theorem file, not a results file", order[2:]
        )
    existing = read_results(args.results)
    for problem in [*map(str, loaded.invalid), *existing.problems]:
        print_notice(errors, problem)
    theorems = {t.name: t for t in loaded.theorems}
    proved = [r for r in existing.records.values() if r["status"] == "proved"]
    if proved and not any(r["name"] in theorems for r in proved):
        # Nothing could be re-checked: the wrong file, not rejected proofs (exit 1 reads
        # as a soundness failure to a script).
        raise CommandError(
            str(args.theorems),
            f"none of the {len(proved)} proved theorem(s) of {args.results} is in it",
            "give the theorem file that was searched",
        )
    failures: list[tuple[str, str]] = []
    with make_prover(args.prover, options) as prover:
        if proved and args.prover == "lean":
            _start_lean(prover)
        for record in proved:
            theorem = theorems.get(record["name"])
            if theorem is None:
                failures.append((record["name"], f"not in {args.theorems}"))
                continue
            proof = record.get("proof")
            if not isinstance(proof, list) or not all(isinstance(t, str) for t in proof):
                failures.append((record["name"], "no proof (list of tactics) recorded"))
                continue
            suffix = record.get("header_suffix")
            if suffix:
                if suffix not in TRUSTED_HEADER_SUFFIXES:
                    failures.append((record["name"], f"untrusted header_suffix {suffix!r}"))
                    continue
                # The prover runs it after the header, and refuses a proof that uses a
                # library it loads beyond the header (env/coq/leaks.py).
                theorem = replace(theorem, extra={**theorem.extra, "header_suffix": suffix})
            verdict = prover.check(theorem, proof)
            if not verdict.ok:
                _refuse_setup(args, theorem, options, verdict.message)
                failures.append((record["name"], verdict.message))
    console.print(f"re-checked {len(proved)} proof(s): {len(proved) - len(failures)} passed")
    if failures:
        # One line per proof, never wrapped: the reasons quote Coq and paths.
        console.print("rejected proofs:")
        for name, why in failures:
            print_error(console, f"  {name}: {' '.join(why.split())}")
        return EXIT_FAILURES
    return EXIT_OK


def _start_lean(prover: Any) -> None:
    """A Lean that cannot start is the setup's fault (exit 2), not the proofs': each was
    said to be rejected, "lake not found on PATH" as its reason (audit 43-a)."""
    from proofsearch.env.base import ProverStartError

    try:
        prover.start()
    except ProverStartError as exc:
        raise CommandError(
            "--prover lean", str(exc), "install Lean where check runs; no proof was judged"
        ) from None


def _first_line_is_theorem(path: str | Path) -> bool:
    import json

    try:
        with Path(path).open(encoding="utf-8") as handle:
            first = json.loads(next((line for line in handle if line.strip()), "null"))
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and "status" not in first and "statement" in first


def _refuse_setup(
    args: argparse.Namespace, theorem: Theorem, options: dict[str, Any], why: str
) -> None:
    """A proof coqc rejected: if the theorem does not compile with any proof either, the
    setup is at fault (exit 2), not the proof."""
    if args.prover != "coq" or not why.startswith("coqc rejected"):
        return
    from proofsearch.cli.coq_setup import setup_problem

    problem = setup_problem(theorem, options)
    if problem is not None:
        raise CommandError(
            f"{theorem.source or args.theorems} ({theorem.name})",
            f"the header and statement do not compile even without a proof: {problem}",
            "fix the header, or the loadpath (--coq-arg, or --index of the project's "
            "trace); no proof was judged",
        )
