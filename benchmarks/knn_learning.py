"""Does online learning swamp the index? Learn a few arbitrary proofs, then count how
often their tactics appear among ``knn``'s suggestions for unrelated equality goals, and
how much the recorded neighbours' scores move.

    python benchmarks/knn_learning.py --index TRACE_DIR [--proofs 3] [--goals 128] [--seed 2]

The learned proofs are all the steps of ``--proofs`` lemmas drawn at random; the goals
are recorded states whose conclusion is an equation, drawn from other modules, each
placed at its own module and line; each is asked for 64 tactics by ``knn`` alone.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import defaultdict

from knn_speed import sample_states
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--proofs", type=int, default=3)
    parser.add_argument("--goals", type=int, default=128)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    trace = TraceDir(args.index)
    rng = random.Random(args.seed)
    modules = [r.module for r in trace.files()]
    lemmas: dict[str, list[tuple[str, str]]] = defaultdict(list)
    rng.shuffle(modules)
    learned_modules: list[str] = []
    for module in modules:
        if len(lemmas) == args.proofs:
            break
        by_lemma: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for step in trace.steps(module):
            if step.goals:
                shown = "\n\n".join(g.render() for g in step.goals)
                by_lemma[step.lemma].append((shown, step.tactic))
        if by_lemma:
            name = rng.choice(sorted(by_lemma))
            lemmas[name] = by_lemma[name]
            learned_modules.append(module)
    goals = [
        (text, theorem)
        for text, theorem in sample_states(trace, 20 * args.goals, args.seed)
        if theorem.extra["module"] not in learned_modules
        and " = " in parse_first_goal(text).conclusion
    ][: args.goals]
    knn = KnnGenerator(load_corpus(args.index))
    before = [{s.tactic: s.logprob for s in knn.generate(t, th, 64)} for t, th in goals]
    taught: set[str] = set()
    for name, steps in lemmas.items():
        knn.learn(Theorem(name, ""), steps)
        taught.update(s.strip().rstrip(".").strip() for _, s in steps)
    after = [{s.tactic: s.logprob for s in knn.generate(t, th, 64)} for t, th in goals]
    reached = 0
    drops: list[float] = []
    for old, new in zip(before, after, strict=True):
        reached += any(t in taught and t not in old for t in new)
        drops += [old[t] - new[t] for t in old if t in new and t not in taught]
    print(
        json.dumps(
            {
                "learned_lemmas": sorted(lemmas),
                "learned_steps": sum(len(s) for s in lemmas.values()),
                "goals": len(goals),
                "goals_given_a_learned_tactic": reached,
                "median_recorded_score_drop": round(statistics.median(drops), 4) if drops else 0,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
