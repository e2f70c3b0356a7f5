"""The order of premise candidates: a linear score over a few features of (goal, premise).

Not the default (``--gen-option premise_ranking=fitted`` turns it on): it finds the
premise a traced step used more often than the hand-fixed order, on every library
measured, but did not pass the tuning-slice rule for a new default (docs/generators.md).

BM25 picks the candidates; what decides which of them a tactic gets is a score
``w · f`` with one weight vector per use (``apply``, ``rewrite``, ``any``). The features
say how well the premise matches the goal (coverage, same conclusion shape, BM25 score
and rank), whether it fits the use (:mod:`.skeleton`), where it sits (the theorem's own
file, how far above it, a file the theorem's file requires directly), how long its
statement is, and how often earlier proofs used it (:mod:`..knn.premise_uses`, counted
only where the theorem may look).

The weights were fitted once, by a listwise logistic model (softmax over a step's
candidates), on 3,964 traced stdlib steps that name one premise (``apply L``,
``rewrite L`` and their forms), the stdlib evaluation sample's lemmas left out
(``benchmarks/premise_weights.py``). Fitted on the stdlib alone, they were checked on
math-comp's and Flocq's steps, which they never saw (figures in docs/generators.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

#: What a premise is wanted for (:meth:`PremiseRetriever.retrieve_for`). ``hints``: the
#: hint list of ``eauto using …``, always in the hand-fixed order (:func:`hand_order`).
Use = Literal["any", "apply", "rewrite", "hints"]

#: The features, in the order of the weights.
FEATURES = (
    "coverage",
    "same_shape",
    "log_bm25",
    "log_bm25_rank",
    "fits",
    "fits_exactly",
    "own_file",
    "own_file_log_distance",
    "log_length",
    "required_directly",
    "log_uses",
)

#: The orders a retriever may use (``premise_ranking`` of the knn generators). ``bm25``
#: (BM25's order alone, no second pass) is for the ablation of the second pass.
RANKINGS = ("fitted", "match", "bm25")

#: Fitted weights (``benchmarks/premise_weights.py --index STDLIB_TRACE --exclude
#: EVAL.jsonl``; seed 1, 300 steps of gradient ascent, L2 0.01). ``any`` has no fit
#: features: a premise wanted for anything is not asked to fit.
WEIGHTS: dict[str, tuple[float, ...]] = {
    "apply": (0.054, 2.191, 1.048, -0.419, 3.195, 2.191, 2.922, -0.296, -0.163, 0.969, 0.872),
    "rewrite": (0.359, 0.005, 1.228, -0.523, 1.977, 0.0, 2.539, -0.313, -0.235, 0.602, 0.885),
    "any": (0.989, 2.351, 1.378, -0.474, 0.0, 0.0, 2.684, -0.353, -0.427, 0.631, 0.861),
}


@dataclass(frozen=True)
class CandidateFacts:
    """What the features are computed from, for one candidate premise."""

    coverage: float
    bm25: float
    #: 0 for BM25's best candidate.
    bm25_rank: int
    #: In the theorem's own file: how many lines above the theorem (else ``None``).
    lines_above: int | None
    statement_tokens: int
    required_directly: bool
    uses: float


def features(facts: CandidateFacts, fit: int) -> tuple[float, ...]:
    """The feature vector; ``fit``: 0 (does not fit the use), 1 (fits), 2 (same shape)."""
    own = facts.lines_above is not None
    return (
        facts.coverage,
        float(facts.coverage == 1.0),
        math.log(max(facts.bm25, 1e-9)),
        math.log1p(facts.bm25_rank),
        float(fit == 1),
        float(fit == 2),
        float(own),
        math.log1p(max(facts.lines_above or 0, 0)) if own else 0.0,
        math.log1p(facts.statement_tokens),
        float(facts.required_directly),
        math.log1p(facts.uses),
    )


def score(use: Use, vector: tuple[float, ...]) -> float:
    """The candidate's score for ``use`` (higher first)."""
    return sum(w * f for w, f in zip(WEIGHTS[use], vector, strict=True))


def hand_order(use: Use, fit: int, coverage: float, bm25: float) -> tuple[float, ...]:
    """Where a candidate goes in the hand-fixed order (smaller first): fits the goal
    exactly, then fits the use (``any`` asks no fit), then coverage, then BM25.

    The default (``--gen-option premise_ranking=match``), and always the order of
    ``hints``: the weights were fitted to find the one premise a step names, and on the
    tuning slices the proofs that hint lists found were lost when the hint lists
    followed them (docs/generators.md)."""
    return (-(0.0 if use == "any" else float(fit)), -coverage, -bm25)
