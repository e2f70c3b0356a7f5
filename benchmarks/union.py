"""Rows and unions of several runs on one sample: how many each proved, and together.

A proof counts only when it was re-checked (``"checked": true`` and status
``proved``), for ``proofsearch search`` results and ``benchmarks/baselines.py`` results
alike. The denominator is the sample (``--sample THEOREMS.jsonl``) when given, else the
theorems named in any of the runs; a run that misses some of the sample's theorems is
flagged, so an unfinished run is never read as a weak one.

    python benchmarks/union.py --sample mc100.jsonl \\
        knn-portfolio=mc-kp.jsonl hammer=out/hammer/hammer.jsonl \\
        --union knn-portfolio,hammer
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def proved_names(path: Path) -> tuple[set[str], set[str]]:
    """(theorems with a re-checked proof, theorems the run has a record of)."""
    proved: set[str] = set()
    seen: set[str] = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{number}: not JSON: {exc}") from None
        name = record.get("name")
        if not isinstance(name, str):
            raise SystemExit(f"{path}:{number}: a record without a 'name'")
        seen.add(name)
        if record.get("status") == "proved" and record.get("checked") is True:
            proved.add(name)
    return proved, seen


def sample_names(path: Path) -> list[str]:
    names = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            name = json.loads(line).get("name")
            if not isinstance(name, str):
                raise SystemExit(f"{path}:{number}: a theorem without a 'name'")
            names.append(name)
    return names


def parse_run(text: str) -> tuple[str, Path]:
    label, sep, file = text.partition("=")
    if not sep or not label or not file:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LABEL=RESULTS.jsonl")
    path = Path(file)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r}: no such file {file}")
    return label, path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=parse_run, metavar="LABEL=RESULTS.jsonl")
    parser.add_argument("--sample", type=Path, help="the theorem file the runs share")
    parser.add_argument(
        "--union", action="append", default=[], metavar="A,B",
        help="repeatable: also count the theorems any of these runs proved",
    )  # fmt: skip
    args = parser.parse_args(argv)
    runs = dict(args.runs)
    if len(runs) != len(args.runs):
        parser.error("each LABEL once")
    results = {label: proved_names(path) for label, path in runs.items()}
    if args.sample:
        universe = set(sample_names(args.sample))
    else:
        universe = set().union(*(seen for _, seen in results.values()))
    total = len(universe)
    print(f"{'run':<40} {'proved':>8} {'share':>7}  note")
    for label, (proved, seen) in results.items():
        got = proved & universe
        missing = len(universe - seen)
        note = f"{missing} of the sample not in this run" if missing else ""
        print(f"{label:<40} {len(got):>8} {len(got) / total:>7.1%}  {note}")
    for union in args.union:
        labels = [label.strip() for label in union.split(",")]
        unknown = [label for label in labels if label not in results]
        if unknown:
            print(f"--union {union}: no run labelled {', '.join(unknown)}", file=sys.stderr)
            return 2
        together = set().union(*(results[label][0] for label in labels)) & universe
        name = "union of " + " + ".join(labels)
        print(f"{name:<40} {len(together):>8} {len(together) / total:>7.1%}")
    print(f"sample: {total} theorems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
