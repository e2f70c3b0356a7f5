"""BM25 over premise statements: which lemmas of the accessible library look relevant to
a goal.

The query is the goal's symbols (constants, inductives, notations; local names left
out), conclusion symbols counting double; documents are premise statements as Coq
prints them, indexed at corpus build time (:mod:`proofsearch.generate.knn.corpus`).
Rango (2024) found BM25 a stronger premise retriever than a learned dense one for Coq.
Only premises the theorem may see are ranked (:mod:`proofsearch.generate.knn.scope`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proofsearch.generate.knn.corpus import TraceCorpus
from proofsearch.generate.knn.features import feature_hash
from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens
from proofsearch.generate.knn.scope import Scope, ScopeCache
from proofsearch.theorem import Theorem

#: Query weight of a symbol by where it occurs in the goal.
CONCLUSION_WEIGHT, HYPOTHESIS_WEIGHT = 1.0, 0.5


@dataclass(frozen=True)
class RetrievedPremise:
    """A premise, the name to use for it here, and its BM25 score."""

    name: str
    qualified_name: str
    statement: str
    score: float
    applicable: bool
    #: ``score`` over the score of a premise holding every query symbol once (≤ 1 or so).
    coverage: float = 1.0


def query_terms(goal: ParsedGoal) -> dict[str, float]:
    """Symbol → query weight for ``goal``."""
    local = set(goal.hypothesis_names)
    terms: dict[str, float] = {}
    for text, weight in [(h.type, HYPOTHESIS_WEIGHT) for h in goal.hypotheses] + [
        (goal.conclusion, CONCLUSION_WEIGHT)
    ]:
        found = tokens(text)
        hidden = local | bound_names(found)
        for token in found:
            if token in hidden or token in ("(", ")", ","):
                continue
            terms[token] = max(terms.get(token, 0.0), weight)
    return terms


class PremiseRetriever:
    """Ranks the premises a theorem may see by BM25 against its goal."""

    def __init__(self, corpus: TraceCorpus) -> None:
        self.corpus = corpus
        self.index = corpus.premises
        self.names = corpus.premise_names
        self.statements = corpus.premise_statements
        self.module = corpus.arrays["premise_module"]
        self.applicable = corpus.arrays["premise_applicable"]
        self.scopes = ScopeCache(corpus.table, self.module, corpus.arrays["premise_line"])

    def retrieve(
        self, goal: ParsedGoal, theorem: Theorem, k: int, applicable_only: bool = False
    ) -> list[RetrievedPremise]:
        """The ``k`` best premises for ``goal`` that ``theorem`` may see, best first."""
        scope, mask = self.scopes.get(theorem.name, theorem.extra)
        terms = query_terms(goal)
        if not terms or k <= 0:
            return []
        keys = np.array([feature_hash(t) for t in terms], dtype=np.int64)
        weights = np.array(list(terms.values()), dtype=np.float64)
        positions, known = self.index.lookup(keys)
        scores = self.index.scores(positions, weights[known])
        ideal = float(np.sum(weights[known] * self.index.weights[positions])) or 1.0
        if mask is not None:
            scores[~mask] = 0.0
        if applicable_only:
            scores[~self.applicable] = 0.0
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > 4 * k:
            candidates = candidates[np.argpartition(-scores[candidates], 4 * k - 1)[: 4 * k]]
        candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
        out: list[RetrievedPremise] = []
        seen: set[str] = set()
        for premise in candidates:
            qualified = self.names[int(premise)]
            name = self.local_name(qualified, int(self.module[premise]), scope)
            if name in seen:
                continue
            seen.add(name)
            out.append(
                RetrievedPremise(
                    name,
                    qualified,
                    self.statements[int(premise)],
                    float(scores[premise]),
                    bool(self.applicable[premise]),
                    min(1.0, float(scores[premise]) / ideal),
                )
            )
            if len(out) == k:
                break
        return out

    def local_name(self, qualified: str, module: int, scope: Scope | None) -> str:
        """How a tactic names the premise: its qualified name when it comes from a
        required library (always unambiguous once loaded); its short name when it comes
        from the theorem's own file (declared in the header, where the latest
        declaration of a short name is the one it denotes)."""
        if scope is not None and module == scope.module:
            return qualified.rsplit(".", 1)[-1]
        return qualified
