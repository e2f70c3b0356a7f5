"""Reading the theorem file a subcommand was given, with the CLI's one-line errors.

The common mistakes get a message that says what happened: a results file given where
the theorem file belongs (``check THEOREMS RESULTS`` instead of ``check RESULTS
THEOREMS``, or a results file searched again), a file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import load_input

if TYPE_CHECKING:
    from proofsearch.data.theorems import TheoremFile

#: Fields of a results line that a theorem line never has together.
RESULT_FIELDS = frozenset({"status", "proof"})


def looks_like_results(path: str | Path) -> bool:
    """Whether the first line of ``path`` is a results line (``status`` and ``proof``,
    no ``statement``) rather than a theorem."""
    try:
        with Path(path).open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        value = json.loads(first)
    except (OSError, ValueError):
        return False
    return (
        isinstance(value, dict)
        and value.keys() >= RESULT_FIELDS
        and not {"statement", "formal_statement"} & value.keys()
    )


def read_theorem_file(args: argparse.Namespace, order_hint: str = "") -> TheoremFile:
    """``args.theorems`` read (JSONL, or a LeanDojo ``.json``); :class:`CommandError` if
    it cannot be read at all or holds results instead of theorems."""
    path = str(args.theorems)
    try:
        loaded: TheoremFile = load_input(args)
    except OSError as exc:
        why = f"cannot read: {exc.strerror or exc}"
        raise CommandError(path, why, "give the path of a theorem file (JSONL)") from None
    except ValueError as exc:  # a LeanDojo file without --leandojo-repo, or malformed
        raise CommandError("", str(exc), "see docs/benchmarks.md for the file format") from None
    if loaded.invalid and not loaded.theorems and looks_like_results(path):
        fix = "give the theorem file that was searched (name, statement, header)"
        raise CommandError(
            path,
            "this is a results file (its lines have 'status' and 'proof', no 'statement')",
            f"{fix}{order_hint}",
        )
    if not loaded.invalid and not loaded.theorems:
        raise CommandError(path, "holds no theorem", "one JSON object a line (name, statement)")
    if getattr(args, "prover", "coq") == "coq":
        from proofsearch.env.coq.header_scopes import with_implied_place

        loaded.theorems = [with_implied_place(theorem) for theorem in loaded.theorems]
    return loaded
