"""Reading the theorem file a subcommand was given, with the CLI's one-line errors.

The common mistakes get a message that says what happened: a results file given where
the theorem file belongs (``check THEOREMS RESULTS`` instead of ``check RESULTS
THEOREMS``, or a results file searched again), a file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from proofsearch.cli.errors import CommandError
from proofsearch.cli.options import load_input

if TYPE_CHECKING:
    from proofsearch.data.theorems import TheoremFile
    from proofsearch.theorem import Theorem

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
    if getattr(args, "prover", "coq") == "coq" and loaded.theorems:
        lean = _lean_sign(loaded.theorems[0])
        if lean:
            raise CommandError(
                path, f"its theorems look like Lean 4 ({lean}), and the prover is Coq",
                "add --prover lean",
            )  # fmt: skip
    if getattr(args, "prover", "coq") == "coq":
        from proofsearch.env.coq.header_scopes import with_implied_place

        loaded.theorems = [with_implied_place(theorem) for theorem in loaded.theorems]
    return loaded


def _lean_sign(theorem: Theorem) -> str:
    """What marks ``theorem`` as Lean's, or "": a statement ending ``:= by`` (a Coq
    statement ends with a period) or a header line ``import X`` (Coq's is ``Require
    Import``). Coq then failed on each theorem's header, with loadpath advice."""
    if re.search(r":=\s*by\s*$", theorem.statement):
        return "a statement ending ':= by'"
    first = re.search(r"(?m)^import \S+", theorem.header)
    return f"a header line '{first.group()}'" if first else ""
