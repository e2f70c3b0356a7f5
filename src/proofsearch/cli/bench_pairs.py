"""``proofsearch bench pairs``: state → tactic training pairs from traces, the held-out
lemmas' proofs (and what came after them) left out, split into train and valid.

Exit codes: 0 written; 2 bad usage or input before anything is written (a folder that is
no trace, a held-out theorem the traces cannot place, a non-empty ``--out`` that is not
an earlier ``pairs`` output, without ``--overwrite``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from proofsearch.cli.codes import EXIT_OK
from proofsearch.cli.errors import CommandError, error_line
from proofsearch.cli.export import prepare_out

#: The file that marks an earlier ``pairs`` output (``--overwrite`` empties only those).
SUMMARY = "summary.json"


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), got {text}")
    return value


def add_pairs_parser(bench: Any) -> None:
    """Register ``bench pairs``."""
    parser = bench.add_parser(
        "pairs",
        help="write state -> tactic training pairs from traces, held-out lemmas left out",
        description=(
            "Write each traced proof step as a training pair (the goals as the search "
            "sends them to a model, the tactic without its final period) to "
            "OUT/train.jsonl and OUT/valid.jsonl, with OUT/summary.json. The lemmas of "
            "each --held-out theorem file (the evaluation set: its entries' module, line "
            "and qualid) are left out, with what came after them by --leave-out."
        ),
    )
    parser.add_argument(
        "--index", action="append", required=True, metavar="TRACE_DIR",
        help="repeatable: a trace folder (proofsearch trace --out); several read as one",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="output folder (new or empty)")
    parser.add_argument(
        "--held-out", action="append", default=[], type=Path, metavar="THEOREMS",
        help="repeatable: a theorem file whose lemmas are evaluated (bench extract-coq's)",
    )  # fmt: skip
    parser.add_argument(
        "--leave-out", choices=("after", "proof"), default="after",
        help="after (default): a held-out lemma's proof, the later lemmas of its module and "
        "every module that requires it (what knn's scope rule hides); proof: its own "
        "proof only (LeanDojo's random split)",
    )  # fmt: skip
    parser.add_argument(
        "--valid", type=_fraction, default=0.05, metavar="FRACTION",
        help="share of lemmas (or modules) put in valid.jsonl (default 0.05; 0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--split-by", choices=("lemma", "module"), default="lemma",
        help="what the split keeps together (default lemma)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
    parser.add_argument(
        "--overwrite", action="store_true",
        help="replace an earlier pairs output (a folder with summary.json)",
    )  # fmt: skip
    parser.set_defaults(bench_func=run_pairs)


def _held_out_theorems(paths: list[Path]) -> list[Any]:
    from proofsearch.data.theorems import load_theorems

    theorems = []
    for path in paths:
        try:
            loaded = load_theorems(path)
        except OSError as exc:
            why = f"cannot read: {exc.strerror or exc}"
            raise CommandError(f"--held-out {path}", why, "give a theorem file (JSONL)") from None
        if loaded.invalid:
            first = loaded.invalid[0]
            raise CommandError(
                f"--held-out {path}", str(first), "fix the line: a held-out lemma must not be lost"
            )
        if not loaded.theorems:
            raise CommandError(f"--held-out {path}", "holds no theorem", "give a theorem file")
        theorems.extend(loaded.theorems)
    return theorems


def run_pairs(args: argparse.Namespace) -> int:
    from proofsearch.bench.pairs import (
        LeakRule,
        PairsError,
        held_out_places,
        unmatched,
        write_pairs,
    )
    from proofsearch.generate.knn.corpus import DuplicateModuleError, TraceSet
    from proofsearch.trace.schema import TraceFormatError

    start = time.monotonic()
    try:
        traces = TraceSet(args.index)
    except (TraceFormatError, DuplicateModuleError) as exc:
        fix = "give folders written by proofsearch trace"
        raise CommandError("--index", str(exc), fix) from None
    theorems = _held_out_theorems(args.held_out)
    try:
        held = held_out_places(theorems, traces)
    except PairsError as exc:
        raise CommandError(
            "--held-out", str(exc), "give the traces the lemmas come from (--index)"
        ) from None
    if held.unplaced:  # its proof cannot be told among the traces': nothing to leave out
        raise CommandError(
            "--held-out",
            f"theorem {held.unplaced[0]} names no module or file ({len(held.unplaced)} such)",
            "give each held-out theorem its 'module' and 'line' (bench extract-coq writes "
            "them), so that its proof can be left out",
        )
    rule = LeakRule.of(held, traces, args.leave_out)
    prepare_out(args.out, args.overwrite, SUMMARY, "an earlier pairs output")
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        (args.out / "train.jsonl").open("w", encoding="utf-8") as train,
        (args.out / "valid.jsonl").open("w", encoding="utf-8") as valid,
    ):
        counts = write_pairs(
            traces, rule, {"train": train, "valid": valid},
            seed=args.seed, valid=args.valid, split_by=args.split_by,
        )  # fmt: skip
    missing = unmatched(held, counts)
    summary = {
        **counts.summary(),
        "held_out_theorems": len(theorems),
        "held_out_without_steps": missing,
        "settings": {
            "index": [str(Path(i).resolve()) for i in args.index],
            "held_out": [str(p.resolve()) for p in args.held_out],
            "leave_out": args.leave_out, "valid": args.valid,
            "split_by": args.split_by, "seed": args.seed,
        },
    }  # fmt: skip
    (args.out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if missing:
        shown = ", ".join(missing[:3]) + (", …" if len(missing) > 3 else "")
        print(error_line("bench pairs", f"{len(missing)} held-out lemma(s) have no traced "
                         f"step ({shown}): see {args.out / SUMMARY}"), file=sys.stderr)  # fmt: skip
    written = counts.written
    kept = written["train"] + written["valid"]
    if args.leave_out == "after" and counts.left_out > kept:
        most = f"most steps ({counts.left_out} of {counts.left_out + kept})"
        print(error_line("bench pairs", f"{most} come after a held-out lemma; --leave-out "
                         "proof keeps the later proofs (only the held-out lemmas' own go)"),
              file=sys.stderr)  # fmt: skip
    print(
        f"wrote {written['train']} train and {written['valid']} valid pairs from "
        f"{len(counts.modules_written)} of the traces' {counts.modules} modules to {args.out}; "
        f"left out {counts.left_out} steps of {len(counts.lemmas_left_out)} lemmas "
        f"(--leave-out {args.leave_out}, {len(theorems)} held-out theorem(s)); took "
        f"{time.monotonic() - start:.0f} s"
    )
    return EXIT_OK
