"""How long ``prove`` takes to present the proofs it found, trimming's versions run in a
session at the hole (the default) or each compiled from scratch (before 2026-12-07).

Reads a finished ``prove`` run (its ``theorems.jsonl`` in the project's cache folder
and its results file), presents every checked proof both ways with one thread, and
prints the time, the scratch compiles and how many written proofs differ::

    proofsearch prove PROJECT --index STDLIB_TRACE -o results.jsonl
    python benchmarks/presentation.py PROJECT --results results.jsonl

Compare the two rows of one run (a ratio), not runs of different days.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import proofsearch.project.written_proofs as written
from proofsearch.data.theorems import parse_theorem_lines
from proofsearch.project.config import load_project, project_key
from proofsearch.project.learn import cache_root
from proofsearch.trace.sources import SourceError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--results", type=Path, required=True, help="the prove run's -o")
    parser.add_argument("--coqc", default="coqc")
    parser.add_argument("--timeout", type=float, default=60.0, help="check timeout (s)")
    args = parser.parse_args()
    try:
        project = load_project([args.project], [], args.coqc)
    except SourceError as exc:
        parser.error(str(exc))
    theorems_path = cache_root() / "prove" / project_key(project) / "theorems.jsonl"
    if not theorems_path.is_file() or not args.results.is_file():
        parser.error(f"run `proofsearch prove {args.project} -o {args.results}` first")
    lines = theorems_path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    theorems = {t.name: t for t in parse_theorem_lines(lines, str(theorems_path)).theorems}
    results: dict[str, dict[str, Any]] = {}
    for line in args.results.read_text(encoding="utf-8").splitlines():
        if line.strip():
            result = json.loads(line)
            results[result["name"]] = result
    proved = sum(1 for r in results.values() if r.get("status") == "proved")
    how = written.Presentation(
        coqc=args.coqc, args=list(project.args), timeout=args.timeout,
        prover_options={"args": list(project.args), "coqc": args.coqc},
    )  # fmt: skip
    compiles = [0]
    names = vars(written)  # the module's own names, counted where it calls them
    check, compile_source = names["check_proof"], names["compile_source"]

    def counted_check(*a: Any, **k: Any) -> Any:
        compiles[0] += 1
        return check(*a, **k)

    def counted_compile(*a: Any, **k: Any) -> Any:
        compiles[0] += 1
        return compile_source(*a, **k)

    names["check_proof"], names["compile_source"] = counted_check, counted_compile
    outputs: dict[str, dict[str, Any]] = {}
    print(f"{args.project}: {proved} proofs found; one thread")
    print(f"{'trimming versions':<34} {'seconds':>8} {'compiles':>9} {'changed':>8}")
    for label, in_session in (("each compiled from scratch", False), ("run in a session", True)):
        compiles[0] = 0
        with tempfile.TemporaryDirectory() as scratch:
            start = time.perf_counter()
            out = written.present_found(
                records, theorems, results, Path(scratch) / "w.json",
                replace(how, in_session=in_session), jobs=1,
            )  # fmt: skip
            seconds = time.perf_counter() - start
        changed = sum(1 for name in out if out[name] is not results.get(name))
        outputs[label] = out
        print(f"{label:<34} {seconds:>8.1f} {compiles[0]:>9} {changed:>8}")
    first, second = outputs.values()
    differ = [n for n in first if first[n].get("proof") != second[n].get("proof")]
    print(f"written proofs that differ between the two: {len(differ)} {differ[:5]}")


if __name__ == "__main__":
    main()
