"""``make bench``: engine figures and the proof-rate comparison, all under one folder.

    python benchmarks/run_all.py --out out/bench            # a slice: 15-30 minutes here
    python benchmarks/run_all.py --out out/bench --full     # the whole 500-lemma sample

Steps (each writes into OUT):

1. ``engine.json``: tactic applications/s per worker, prover share of wall time, 1-vs-2
   worker scaling, dispatch overhead (``benchmarks/engine.py``).
2. ``generator.json``: the ``hf`` generator's requests/s, batched vs not, and through a
   shared Ray ``GeneratorActor`` with 1 and 2 clients (``generator_throughput.py``).
3. The proof-rate comparison on a spread slice of the stdlib sample (the committed
   ``benchmarks/coq/stdlib-sample.index.jsonl``, headers restored into
   ``OUT/stdlib-sample.jsonl``; every k-th lemma, so every part of the library is in it),
   same wall-clock budget per theorem for everyone: the one-shot portfolio, CoqHammer's
   ``hammer`` and ``sauto`` (``baselines.py``), proofsearch's search with the portfolio,
   and with the portfolio plus ``sauto``; with ``--index TRACE_DIR`` (a traced stdlib,
   ``proofsearch trace``) also the ``knn`` search (nearest recorded states and premise
   templates) and ``knn-portfolio`` (the same merged with the portfolio). The sample's
   ``file``/``line`` fields put each lemma in its place, so its search sees only the
   files its file depends on and what its own file declared before it (no leak of its
   own proof or of later lemmas). Results files in ``results/``. Proofs that use
   ``sauto`` load CoqHammer's ``Tactics``, which loads libraries beyond the header: as for
   the ``sauto`` baseline, a proof that depends on one of them is recorded as an ``error``
   ("leak").
4. ``report/``: ``proofsearch report`` over every results file, with the published
   anchors; ``summary.md``: the table of proof rates (with per-part counts and the
   prover's share of search time) and engine figures.

Run it inside a network namespace (``make bench`` does): it starts Ray.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "benchmarks" / "coq" / "stdlib-sample.index.jsonl"
PYTHON = sys.executable
TACTICS_IMPORT = "From Hammer Require Import Tactics."
SEARCHES = ("portfolio", "portfolio-sauto", "knn", "knn-portfolio")


def step(title: str, command: list[str]) -> float:
    print(f"\n=== {title}\n$ {' '.join(command)}", flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT)
    spent = time.perf_counter() - start
    print(f"--- {title}: exit {done.returncode}, {spent:.0f} s", flush=True)
    return spent


def restore_sample(out: Path) -> Path:
    """The sample as a theorem file: the committed index with its headers restored."""
    sample = out / "stdlib-sample.jsonl"
    step("restore the stdlib sample's headers",
         [PYTHON, "-m", "proofsearch.cli", "bench", "restore-coq-stdlib", str(INDEX),
          "--out", str(sample)])  # fmt: skip
    expected = len(INDEX.read_text(encoding="utf-8").splitlines())
    got = len(sample.read_text(encoding="utf-8").splitlines()) if sample.exists() else 0
    if got != expected:
        sys.exit(f"restored {got} of the sample's {expected} lemmas (see the errors above)")
    return sample


def write_slice(sample: Path, out: Path, every: int) -> tuple[Path, Path]:
    """Every ``every``-th sample lemma, as is and with the Tactics import for ``sauto``."""
    lines = sample.read_text(encoding="utf-8").splitlines()[::every]
    plain = out / "stdlib-slice.jsonl"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with_sauto = out / "stdlib-slice-sauto.jsonl"
    entries = []
    for line in lines:
        entry = json.loads(line)
        header = entry.get("header", "").rstrip()
        entry["header"] = (header + "\n" if header else "") + TACTICS_IMPORT
        entries.append(json.dumps(entry, ensure_ascii=False))
    with_sauto.write_text("\n".join(entries) + "\n", encoding="utf-8")
    return plain, with_sauto


def portfolio_with_sauto(out: Path) -> Path:
    from proofsearch.generate.portfolio import default_tactics

    tactics = default_tactics("coq")
    lines = [f"{t.tactic}\t{t.logprob}" for t in tactics] + ["sauto\t-0.3"]
    path = out / "portfolio-sauto.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def leak_check(path: Path, plain: Path, with_sauto: Path) -> None:
    """Hold the search with ``sauto`` to the baselines' protocol: the Tactics import loads
    libraries beyond the header (often the lemma's own file), so a proof that depends on
    one of them is recorded as an ``error`` ("leak"), exactly as for the ``sauto`` baseline.
    """
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import baselines
    from proofsearch.data.theorems import load_theorems
    from proofsearch.search.result import SearchResult, Status

    originals = {t.name: t for t in load_theorems(plain).theorems}
    imported = {t.name: t for t in load_theorems(with_sauto).theorems}
    config = baselines.BaselineConfig()
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["status"] == "proved":
            name = record["name"]
            forbidden = baselines.forbidden_libraries(originals[name], config, TACTICS_IMPORT)
            result = SearchResult(imported[name], Status.PROVED, proof=record["proof"])
            result = baselines._leak_check(imported[name], forbidden, config, result)
            if result.status is Status.ERROR:
                record.update(
                    status="error", proof=None, checked=False, error=result.error,
                    rejected_proof=result.extra["rejected_proof"], leaks=result.extra["leaks"],
                )  # fmt: skip
                print(f"leak: {name}: {result.error}")
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n")


def stdlib_index(option: str, report_only: bool) -> str | None:
    """The trace folder of the knn rows (traced now when ``auto`` finds none), or ``None``."""
    import os

    if option == "none":
        return None
    if option != "auto":
        return option
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(cache) / "proofsearch" / "trace" / "coq-stdlib"
    exists = (folder / "files").is_dir()
    if report_only or not _trace_available():
        if not exists:
            print("knn rows skipped: no traced stdlib and no `proofsearch trace` here")
        return str(folder) if exists else None
    step("trace the stdlib (incremental: files already traced are skipped)",
         [PYTHON, "-m", "proofsearch.cli", "trace", "--coq-stdlib", "--out", str(folder),
          "--no-progress"])  # fmt: skip
    return str(folder) if (folder / "files").is_dir() else None


def _trace_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("proofsearch.trace.runner") is not None


def rates(path: Path) -> dict[str, object]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    proved = sum(r["status"] == "proved" and r.get("checked") for r in records)
    mean = sum(float(r.get("total_time") or 0) for r in records) / max(1, len(records))
    parts: dict[str, list[int]] = {}
    for r in records:
        counts = parts.setdefault(str(r.get("part", "?")), [0, 0])
        counts[0] += bool(r["status"] == "proved" and r.get("checked"))
        counts[1] += 1
    search = sum(float(r.get("total_time") or 0) - float(r.get("check_time") or 0)
                 for r in records)  # fmt: skip
    prover = sum(float(r.get("environment_time") or 0) for r in records)
    # A proof the search accepted and the re-check refused, not as a cheat: a bug.
    disagreements = sum(bool(r.get("check_disagreement")) for r in records)
    return {"theorems": len(records), "proved": proved, "rate": proved / max(1, len(records)),
            "mean_time_s": round(mean, 2), "disagreements": disagreements, "parts": parts,
            "prover_share": prover / search if search > 0 else None}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/bench")
    parser.add_argument("--full", action="store_true", help="the whole 500-lemma sample")
    parser.add_argument("--every", type=int, default=25, help="slice: every k-th lemma")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per theorem")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-engine", action="store_true")
    parser.add_argument(
        "--index", default="auto", metavar="TRACE_DIR",
        help="a traced stdlib for the knn and knn-portfolio rows; 'auto' (default): "
        "$XDG_CACHE_HOME/proofsearch/trace/coq-stdlib, traced first if missing "
        "(proofsearch trace --coq-stdlib, incremental); 'none': no knn rows",
    )  # fmt: skip
    parser.add_argument(
        "--searches", default=",".join(SEARCHES),
        help=f"which search rows to run (default: all of {','.join(SEARCHES)}; the knn "
        "ones need an index)",
    )  # fmt: skip
    parser.add_argument(
        "--reuse-baselines", action="store_true",
        help="keep the baseline results already in OUT/results (same slice and budget)",
    )  # fmt: skip
    parser.add_argument(
        "--report-only", action="store_true",
        help="run nothing: report and summarize the results already in OUT/results",
    )  # fmt: skip
    args = parser.parse_args()
    out = (ROOT / args.out).resolve() if not Path(args.out).is_absolute() else Path(args.out)
    results = out / "results"
    results.mkdir(parents=True, exist_ok=True)
    every = 1 if args.full else args.every
    spent: dict[str, float] = {}

    if args.report_only:
        args.skip_engine = args.reuse_baselines = True
        args.searches = ""
    searches = {name for name in args.searches.split(",") if name}
    if searches - set(SEARCHES):
        parser.error(f"--searches: unknown {sorted(searches - set(SEARCHES))}")
    args.index = stdlib_index(
        args.index, args.report_only or not searches & {"knn", "knn-portfolio"}
    )
    if not args.skip_engine:
        spent["engine"] = step("engine", [PYTHON, "benchmarks/engine.py", "--out", str(out)])
        spent["generator"] = step(
            "generator throughput",
            [PYTHON, "benchmarks/generator_throughput.py", "--ray", "--requests", "16",
             "--repeats", "2", "--json", str(out / "generator.json")],
        )  # fmt: skip

    sample = out / "stdlib-sample.jsonl"
    if not (args.report_only and sample.exists()):
        sample = restore_sample(out)
    plain, with_sauto = write_slice(sample, out, every)
    budget = str(args.budget)
    if not args.reuse_baselines:
        spent["baselines"] = step(
            "baselines: one-shot, hammer, sauto",
            [PYTHON, "benchmarks/baselines.py", "all", str(plain), "--budget", budget,
             "--out-dir", str(results), "--quiet"],
        )  # fmt: skip
    search = [PYTHON, "-m", "proofsearch.cli", "search", "--workers", str(args.workers),
              "--timeout", budget, "--budget-after-header", "--overwrite", "--quiet"]  # fmt: skip
    if "portfolio" in searches:
        spent["search"] = step(
            "search: portfolio",
            [*search, str(plain), "--output", str(results / "search-portfolio.jsonl")],
        )
    if "portfolio-sauto" in searches:
        spent["search+sauto"] = step(
            "search: portfolio + sauto",
            [*search, str(with_sauto), "--output", str(results / "search-portfolio-sauto.jsonl"),
             "--tactics-file", str(portfolio_with_sauto(out))],
        )  # fmt: skip
        leak_check(results / "search-portfolio-sauto.jsonl", plain, with_sauto)
    knn_rows = [g for g in ("knn", "knn-portfolio") if g in searches]
    if args.index and knn_rows:
        index = str(Path(args.index).resolve())
        spent["knn speed"] = step(
            "knn speed (median suggestion call on the whole index)",
            [PYTHON, "benchmarks/knn_speed.py", "--index", index, "--json",
             str(out / "knn_speed.json")],
        )  # fmt: skip
        for generator in knn_rows:
            spent[generator] = step(
                f"search: {generator} (index {index})",
                [*search, str(plain), "--generator", generator, "--index", index,
                 "--output", str(results / f"search-{generator}.jsonl")],
            )  # fmt: skip
    files = sorted(results.glob("*.jsonl"))
    step(
        "report",
        [PYTHON, "-m", "proofsearch.cli", "report", *map(str, files), "--out",
         str(out / "report"), "--stdlib-anchors"],
    )  # fmt: skip

    scope = "the full sample" if args.full else f"every {every}th lemma of the sample"
    lines = [f"# proofsearch benchmarks ({scope}, {args.budget:g} s per theorem)", "",
             "| run | proved | rate | mean time (s) | search/check disagreements | "
             "prover share | per part |",
             "|---|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    for path in files:
        r = rates(path)
        share = r["prover_share"]
        parts = ", ".join(f"{p} {c[0]}/{c[1]}" for p, c in sorted(r["parts"].items()))  # type: ignore[attr-defined]
        lines.append(f"| {path.stem} | {r['proved']}/{r['theorems']} | {r['rate']:.1%} | "
                     f"{r['mean_time_s']} | {r['disagreements']} | "
                     f"{'' if share is None else f'{share:.0%}'} | {parts} |")  # fmt: skip
    lines += ["", "Published anchors (whole stdlib): Tactician 39.3%, CoqHammer 40.8% (~40 s, "
              "8 CPUs), both together 56.7%.", ""]  # fmt: skip
    engine = out / "engine.json"
    if engine.exists():
        figures = json.loads(engine.read_text())
        single, scaling = figures["single_worker"], figures["scaling"]
        lines += [
            "| engine figure | value |", "|---|---:|",
            f"| tactic applications/s, one worker, demo set | {single['applications_per_s']} |",
            "| tactic applications/s, one worker in-process, prover-bound | "
            f"{scaling['in_process_1']['applications_per_s']} |",
            f"| prover share of search time | {single['prover_share']:.0%} |",
            f"| coqidetop wait share | {single['coqidetop_wait_share']:.0%} |",
            f"| 2-worker / 1-worker throughput (Ray) | {scaling['ratio_2_vs_1_ray']} |",
            "| the same, steady state (workers started) | "
            f"{scaling['steady_ratio_2_vs_1_ray']} |",
            f"| 2 workers (Ray) / 1 in-process | {scaling['ratio_2_ray_vs_1_in_process']} |",
            "| 2 workers on 2 `ray start` nodes / 2 on one local cluster | "
            f"{scaling.get('ratio_ray_start_2_nodes_vs_ray_2', 'not run')} |",
            "| dispatch overhead, Ray, ms/theorem | "
            f"{figures['dispatch']['ray_2_workers']['dispatch_overhead_ms_per_theorem']} |",
        ]  # fmt: skip
    speed = out / "knn_speed.json"
    if speed.exists():
        knn = json.loads(speed.read_text())
        lines += [
            "", "| knn figure (whole index) | value |", "|---|---:|",
            f"| recorded states / premises | {knn['states']} / {knn['premises']} |",
            f"| index arrays (MB) | {knn['corpus_mb']} |",
            f"| knn call, median / p90 (ms) | {knn['knn']['median_ms']} / {knn['knn']['p90_ms']} |",
            f"| knn-portfolio call, median / p90 (ms) | {knn['knn_portfolio']['median_ms']} / "
            f"{knn['knn_portfolio']['p90_ms']} |",
        ]  # fmt: skip
    lines += ["", "Wall time per step (s): " + ", ".join(f"{k} {v:.0f}" for k, v in spent.items())]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    print(f"\neverything is under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
