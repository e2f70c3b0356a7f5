"""How fast ``knn`` answers on a whole traced library: the median suggestion call.

    python benchmarks/knn_speed.py --index TRACE_DIR [--states 1000] [--json OUT.json]

Loads (or builds, then caches) the corpus, draws recorded proof states at random (fixed
seed), renders them as the search would show them, and times one ``generate`` call per
state for ``knn`` alone (nearest states), the premise templates alone, and the merged
default ``knn-portfolio``, each theorem placed in its own module and line (the no-leak
masks are part of the cost). Wall-clock figures depend on whatever else runs on the
machine; the CPU time of the process (``median_cpu_ms``) much less.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from proofsearch.generate.knn.corpus import (
    build_corpus,
    cache_dir,
    cache_key,
    load_corpus,
    save_corpus,
)
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.merged import MergedGenerator
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir


def sample_states(trace: TraceDir, count: int, seed: int) -> list[tuple[str, Theorem]]:
    states = []
    for record in trace.files():
        for step in trace.steps(record.module):
            if step.goals:
                text = "\n\n".join(g.render() for g in step.goals)
                extra = {"module": step.module, "line": step.line - step.index - 1}
                states.append((text, Theorem(step.lemma, "", extra=extra)))
    random.Random(seed).shuffle(states)
    return states[:count]


def time_calls(generator: object, states: list[tuple[str, Theorem]], n: int) -> dict[str, float]:
    times, cpu = [], []
    for text, theorem in states:
        start, start_cpu = time.perf_counter(), time.process_time()
        generator.generate(text, theorem, n)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    times.sort()
    cpu.sort()
    return {
        "median_ms": round(statistics.median(times), 3),
        # CPU time of this process: what the call costs, whatever else runs here.
        "median_cpu_ms": round(statistics.median(cpu), 3),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))], 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
        "p95_cpu_ms": round(cpu[int(0.95 * (len(cpu) - 1))], 3),
        "max_ms": round(times[-1], 3),
        "calls": len(times),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--states", type=int, default=1000)
    parser.add_argument("--n", type=int, default=64, help="tactics asked per call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    trace = TraceDir(args.index)
    cached = (cache_dir() / f"{cache_key(args.index)}.npz").exists()
    start = time.perf_counter()
    corpus = build_corpus(args.index) if not cached else load_corpus(args.index)
    load_s = time.perf_counter() - start
    if not cached:
        save_corpus(args.index, corpus)  # for the searches that follow
    states = sample_states(trace, args.states, args.seed)
    knn = KnnGenerator(corpus)
    templates = PremiseTemplateGenerator(corpus)
    merged = MergedGenerator([knn, templates, PortfolioGenerator(default_tactics("coq"))])
    time_calls(merged, states[:20], args.n)  # warm-up
    figures = {
        "index": str(Path(args.index).resolve()),
        "modules": len(corpus.table.modules),
        "states": int(corpus.arrays["state_module"].shape[0]),
        "premises": int(corpus.arrays["premise_module"].shape[0]),
        "corpus_mb": round(sum(a.nbytes for a in corpus.arrays.values()) / 2**20, 1),
        "load_s" if cached else "build_s": round(load_s, 2),
        "knn": time_calls(knn, states, args.n),
        "premise_templates": time_calls(templates, states, args.n),
        "knn_portfolio": time_calls(merged, states, args.n),
    }
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
