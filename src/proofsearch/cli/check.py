"""``proofsearch check``: re-verify every proved result from scratch."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from proofsearch.cli import EXIT_FAILURES, EXIT_OK, EXIT_USAGE
from proofsearch.cli.console import message_console, print_error, print_notice
from proofsearch.cli.options import add_prover_options, load_input, prover_options
from proofsearch.cli.preflight import StartupFailed, check_coq_version

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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proofsearch.distributed.store import read_results
    from proofsearch.env.registry import make_prover

    console = message_console(stderr=False)
    errors = message_console()
    try:
        loaded = load_input(args)
        options = prover_options(args)
    except OSError as exc:
        print_error(errors, f"cannot read {args.theorems}: {exc}")
        return EXIT_USAGE
    except ValueError as exc:
        print_error(errors, str(exc))
        return EXIT_USAGE
    try:
        check_coq_version(args.prover, options, idetop=False)
    except StartupFailed as exc:
        print_error(errors, str(exc))
        return EXIT_FAILURES
    if not Path(args.results).exists():
        print_error(errors, f"no such results file: {args.results}")
        return EXIT_USAGE
    existing = read_results(args.results)
    for problem in [*map(str, loaded.invalid), *existing.problems]:
        print_notice(errors, problem)
    theorems = {t.name: t for t in loaded.theorems}
    proved = [r for r in existing.records.values() if r["status"] == "proved"]
    failures: list[tuple[str, str]] = []
    with make_prover(args.prover, options) as prover:
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
                header = theorem.header.rstrip()
                theorem = replace(theorem, header=(header + "\n" if header else "") + suffix)
            verdict = prover.check(theorem, proof)
            if not verdict.ok:
                failures.append((record["name"], verdict.message))
    console.print(f"re-checked {len(proved)} proof(s): {len(proved) - len(failures)} passed")
    if failures:
        # One line per proof, never wrapped: the reasons quote Coq and paths.
        console.print("rejected proofs:")
        for name, why in failures:
            print_error(console, f"  {name}: {' '.join(why.split())}")
        return EXIT_FAILURES
    return EXIT_OK
