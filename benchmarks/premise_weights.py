"""Fit the premise ranking's weights (``generate/retrieval/ranking.py``) on traced steps.

For a seeded sample of traced steps that name one premise (``apply L``, ``rewrite L``
and their forms, as in ``premise_recall.py``), each step placed at its own lemma (so it
sees only what that lemma may see), the retriever's candidates and their features are
collected; a listwise logistic model (a softmax over each step's candidates, the used
premise the label) is fitted per use by gradient ascent. Steps are split by lemma (70 %
to fit, 30 % to check); recall@8 on the check split is printed for the weights in the
code and for the fitted ones, and the weights fitted on all steps are printed last (what
``ranking.WEIGHTS`` holds came from ``--index STDLIB_TRACE --exclude EVAL.jsonl``).

    python benchmarks/premise_weights.py --index TRACE [--index TRACE ...] \\
        [--modules-of TRACE] [--exclude SAMPLE.jsonl ...] [--steps 4000] [--seed 1]
"""

from __future__ import annotations

import argparse
import zlib
from dataclasses import dataclass
from typing import cast

import numpy as np

from premise_recall import match_end, named_steps
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.scope import ScopeError
from proofsearch.generate.retrieval import ranking
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.generate.retrieval.ranking import Use
from proofsearch.theorem import Theorem

#: Premises asked for (the templates ask for 8): the candidates are 16 times it.
K = 8


@dataclass
class Step:
    lemma: str
    use: Use
    features: np.ndarray  # candidates × features
    used: np.ndarray  # bool per candidate: the premise the step used
    score: np.ndarray  # the code's current score per candidate


def collect(args: argparse.Namespace) -> list[Step]:
    corpus = load_corpus(args.index)
    retriever = PremiseRetriever(corpus, "fitted")
    _, by_suffix, line_of, found = named_steps(
        corpus, args.modules_of or args.index, args.exclude, args.seed
    )
    out: list[Step] = []
    for step, name in found[: args.steps]:
        place = {"module": step.module, "line": line_of[step.lemma]}
        theorem = Theorem(step.lemma, "", extra=place)
        use: Use = "rewrite" if "rewrite" in step.tactic[: match_end(step.tactic)] else "apply"
        goal = parse_first_goal(step.goals[0].render())
        try:
            rows, _, _ = retriever.candidates(goal, theorem, K, True, (use, "any"))
        except ScopeError:
            continue
        targets = set(by_suffix[name])
        if not rows:
            continue
        each: Use
        for each in (use, "any"):
            out.append(
                Step(
                    step.lemma,
                    each,
                    np.array([row.features[each] for row in rows]),
                    np.array([row.premise in targets for row in rows]),
                    np.array([ranking.score(each, row.features[each]) for row in rows]),
                )
            )
    return out


def fit(steps: list[Step], use: Use, l2: float = 1e-2, rounds: int = 300) -> np.ndarray:
    """Weights maximising the mean log-probability of the used premise (softmax)."""
    groups = [(s.features, s.used) for s in steps if s.use == use and s.used.any()]
    weights = np.zeros(len(ranking.FEATURES))
    for _ in range(rounds):
        gradient = -l2 * weights
        for features, used in groups:
            logits = features @ weights
            p = np.exp(logits - logits.max())
            p /= p.sum()
            gradient += features[used].mean(axis=0) - p @ features
        weights += 0.5 * gradient / max(len(groups), 1)
    return weights


def recall(steps: list[Step], use: Use, scores: list[np.ndarray]) -> float:
    """Share of ``use``'s steps whose premise is among the 8 best by ``scores`` (copies of
    one lemma are not merged here, unlike the retriever: a slight underestimate)."""
    hits = [
        bool(step.used[np.argsort(-score, kind="stable")[:K]].any())
        for step, score in zip(steps, scores, strict=True)
        if step.use == use
    ]
    return sum(hits) / max(len(hits), 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="append", required=True)
    parser.add_argument("--modules-of", default=None)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    steps = collect(args)
    fitting = [s for s in steps if zlib.crc32(s.lemma.encode()) % 10 < 7]
    checking = [s for s in steps if zlib.crc32(s.lemma.encode()) % 10 >= 7]
    for use in cast(tuple[Use, ...], ("apply", "rewrite", "any")):
        weights = fit(fitting, use)
        mine = [s for s in checking if s.use == use]
        print(
            f"{use}: {len(mine)} check steps, recall@8 with the code's weights "
            f"{recall(mine, use, [s.score for s in mine]):.3f}, "
            f"fitted on the rest {recall(mine, use, [s.features @ weights for s in mine]):.3f}"
        )
        print(f"  fitted on all: {tuple(round(float(w), 3) for w in fit(steps, use))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
