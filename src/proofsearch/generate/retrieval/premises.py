"""BM25 over premise statements: which lemmas of the accessible library look relevant to
a goal.

The query is the goal's symbols (constants, inductives, notations; local names left
out), conclusion symbols counting double; documents are premise statements as Coq
prints them, indexed at corpus build time (:mod:`proofsearch.generate.knn.corpus`).
Rango (2024) found BM25 a stronger premise retriever than a learned dense one for Coq.
Only premises the theorem may see are ranked (:mod:`proofsearch.generate.knn.scope`).

BM25 alone favours long statements that repeat the goal's symbols (``add_shuffle0``
over ``add_comm`` for ``n + m = m + n``), and one lemma re-exported by several modules
(``PeanoNat.Nat.add_comm``, ``NPeano.Nat.add_comm``) filled several places. So BM25
picks the candidates and a second pass ranks them: by default (``match``) those that
fit the use first, then a premise whose conclusion has the goal's conclusion's shape
(local and bound names written ``$``), then by the cosine of the two symbol bags (each
symbol weighted by its rarity), BM25 breaking ties; with ``ranking="fitted"`` by a
fitted score (:mod:`.ranking`) over the same match, the fit, the premise's place and how
often the earlier proofs the theorem may see used it (:mod:`..knn.premise_uses`).
Copies of one lemma (the same short name and statement, re-exported by another module)
count once, the shortest name kept. ``ranking="bm25"`` leaves the second pass out
(BM25's order alone, copies still once): issue 19's ablation of the ranking fix.
Operators count typed too (``+@nat``, from hypotheses and binder annotations), so a
``Z`` lemma does not pass for a ``nat`` one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from proofsearch.generate.knn.admitted import AdmittedPremises
from proofsearch.generate.knn.corpus import TraceCorpus
from proofsearch.generate.knn.features import (
    binder_types,
    feature_hash,
    local_types,
    typed_operators,
    untyped,
)
from proofsearch.generate.knn.goals import ParsedGoal, bound_names
from proofsearch.generate.knn.notation import after_binders, matching_tokens
from proofsearch.generate.knn.premise_uses import PremiseUses
from proofsearch.generate.knn.scope import Scope, ScopeCache
from proofsearch.generate.retrieval import ranking
from proofsearch.generate.retrieval.naming import open_modules, own_file_name
from proofsearch.generate.retrieval.ranking import RANKINGS, CandidateFacts, Use
from proofsearch.generate.retrieval.skeleton import Sides, Skeleton, fits, rewrites, sides, skeleton
from proofsearch.theorem import Theorem

#: Query weight of a symbol by where it occurs in the goal.
CONCLUSION_WEIGHT, HYPOTHESIS_WEIGHT = 1.0, 0.5
#: Candidates BM25 hands the second pass, per premise asked for, by ranking: the fitted
#: score was fitted and measured on 16, the hand-fixed order on 8.
#: ``bm25`` has no second pass: BM25's own best are the candidates.
RERANK_FACTOR = {"fitted": 16, "match": 8, "bm25": 1}
#: Binder syntax: says nothing about what a statement is about.
_SYNTAX = frozenset({"(", ")", ",", ":", "forall", "fun", "=>", "exists", "∀", "λ"})


@dataclass(frozen=True)
class RetrievedPremise:
    """A premise, the name to use for it here, and its BM25 score."""

    name: str
    qualified_name: str
    statement: str
    score: float
    applicable: bool
    #: How well the premise matches the goal, in (0, 1]: 1 for a conclusion of the goal's
    #: shape, else the cosine of the two symbol bags (below 1).
    coverage: float = 1.0


class Candidate(NamedTuple):
    """A BM25 candidate on its way to being ranked for each use."""

    #: Per use: its features (fitted order only) and its place (smaller first, then the
    #: shorter name).
    features: dict[Use, tuple[float, ...]]
    key: dict[Use, tuple[float, ...]]
    premise: int
    qualified: str
    coverage: float


def query_terms(goal: ParsedGoal) -> dict[str, float]:
    """Symbol → query weight for ``goal``."""
    local = set(goal.hypothesis_names)
    terms: dict[str, float] = {}
    for text, weight in [(h.type, HYPOTHESIS_WEIGHT) for h in goal.hypotheses] + [
        (goal.conclusion, CONCLUSION_WEIGHT)
    ]:
        found = matching_tokens(text)
        hidden = local | bound_names(found)
        for token in found:
            if token in hidden or token in ("(", ")", ","):
                continue
            terms[token] = max(terms.get(token, 0.0), weight)
    return terms


def conclusion(term_tokens: list[str]) -> list[str]:
    """The tokens of a statement's conclusion: leading ``forall … ,`` binders and
    ``A -> …`` hypotheses (at depth 0) taken off."""
    return after_binders(term_tokens)


def shape(term_tokens: list[str], hidden: set[str]) -> str:
    """A conclusion with its local and bound names written ``$``."""
    return " ".join("$" if t in hidden else t for t in term_tokens)


def _symbols(term_tokens: list[str], hidden: set[str]) -> list[str]:
    return [t for t in term_tokens if t not in hidden and t not in _SYNTAX]


#: A constant a plugin named for itself: Hierarchy Builder's canonical instances and
#: unnamed ones. An audit's ``join true b = true`` was proved by ``apply
#: Datatypes_andb__canonical__Monoid_Law`` where ``by []`` does (audit 49).
GENERATED_NAME = re.compile(r"__canonical__|(?:^|\.)HB_unnamed")


class PremiseRetriever:
    """Ranks the premises a theorem may see by BM25 against its goal."""

    def __init__(self, corpus: TraceCorpus, ranking: str = "match") -> None:
        """``ranking``: ``fitted`` (the fitted score, :mod:`.ranking`), ``match`` (the
        hand-fixed order: fit to the use, coverage, BM25) or ``bm25`` (BM25 alone)."""
        if ranking not in RANKINGS:
            raise ValueError(f"premise ranking {ranking!r}: choose one of {', '.join(RANKINGS)}")
        self.fitted = ranking == "fitted"
        self.bm25_only = ranking == "bm25"
        self.typed = corpus.typed_features
        self.rerank_factor = RERANK_FACTOR[ranking]
        self.corpus = corpus
        self.index = corpus.premises
        self.names = corpus.premise_names
        self.statements = corpus.premise_statements
        self.module = corpus.arrays["premise_module"]
        self.applicable = corpus.arrays["premise_applicable"]
        self.line = corpus.arrays["premise_line"]
        self.scopes = ScopeCache(
            corpus.table, self.module, self.line, until=corpus.arrays.get("premise_until")
        )
        self.uses = PremiseUses(corpus.table, corpus.arrays)
        self.admitted = AdmittedPremises(
            self.names.__getitem__, corpus.arrays.get("premise_admitted")
        )
        #: Constants a plugin generated (Hierarchy Builder's canonical instances,
        #: ``Datatypes_andb__canonical__Monoid_Law``): never a premise to write.
        self.generated = np.array(
            [bool(GENERATED_NAME.search(self.names[i])) for i in range(len(self.names))],
            dtype=bool,
        )
        self._max_idf = float(self.index.weights.max()) if len(self.index.weights) else 1.0
        self._idf_cache: dict[str, float] = {}
        self._profiles: dict[int, tuple[str, Skeleton | None, Sides, dict[str, float], int]] = {}
        self._open_modules: dict[str, tuple[str, ...]] = {}

    def retrieve(
        self,
        goal: ParsedGoal,
        theorem: Theorem,
        k: int,
        applicable_only: bool = False,
        use: Use = "any",
    ) -> list[RetrievedPremise]:
        """The ``k`` best premises for ``goal`` that ``theorem`` may see, best first, for
        ``use`` (see :meth:`retrieve_for`)."""
        return self.retrieve_for(goal, theorem, k, applicable_only, (use,))[use]

    def retrieve_for(
        self,
        goal: ParsedGoal,
        theorem: Theorem,
        k: int,
        applicable_only: bool = False,
        uses: tuple[Use, ...] = ("any",),
    ) -> dict[Use, list[RetrievedPremise]]:
        """The ``k`` best premises for each use, from one BM25 pass, in the retriever's
        order (:mod:`.ranking`): whether the premise fits the use (``apply``: a
        conclusion that may unify with the goal's, :mod:`.skeleton`; ``rewrite``: an
        equation with a side whose symbols all occur in the goal's conclusion; ``any``
        and ``hints``: as ``apply``, ``any`` asking no fit) and how well it matches the
        goal, or the fitted score. On traced steps of the stdlib, math-comp, Flocq and
        Coquelicot the fitted score puts the premise a step used among the top 8 more
        often (``benchmarks/premise_recall.py --ranking``; figures in docs/generators.md).
        """
        rows, scope, scores = self.candidates(goal, theorem, k, applicable_only, uses)
        return {
            use: self._select(
                sorted(rows, key=lambda row: (*row.key[use], len(row.qualified), row.qualified)),
                scope,
                theorem,
                scores,
                k,
            )
            for use in uses
        }

    def candidates(
        self,
        goal: ParsedGoal,
        theorem: Theorem,
        k: int,
        applicable_only: bool = False,
        uses: tuple[Use, ...] = ("any",),
    ) -> tuple[list[Candidate], Scope | None, np.ndarray]:
        """BM25's best ``RERANK_FACTOR[ranking] * k`` premises for ``goal`` that ``theorem`` may
        see, each with its features and score per use (unordered); the scope and the
        BM25 scores of every premise come with them."""
        scope, mask = self.scopes.get(theorem.name, theorem.extra)
        terms = query_terms(goal)
        if not terms or k <= 0:
            return [], scope, np.zeros(len(self.names))
        keys = np.array([feature_hash(t) for t in terms], dtype=np.int64)
        weights = np.array(list(terms.values()), dtype=np.float64)
        positions, known = self.index.lookup(keys)
        scores = self.index.scores(positions, weights[known])
        if mask is not None:
            scores[~mask] = 0.0
        scores[self.admitted.hidden(theorem)] = 0.0
        scores[self.generated] = 0.0
        if applicable_only:
            scores[~self.applicable] = 0.0
        candidates = np.flatnonzero(scores > 0)
        wanted = self.rerank_factor * k
        if len(candidates) > wanted:
            candidates = candidates[np.argpartition(-scores[candidates], wanted - 1)[:wanted]]
        candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
        # A candidate's BM25 rank: how many score higher (copies of one lemma tie).
        descending = -scores[candidates]
        bm25_ranks = np.searchsorted(descending, descending, side="left").tolist()
        uses_seen: list[float] = []
        required: set[int] = set()
        goal_shape, goal_skeleton, goal_bag = self._goal_profile(goal)
        goal_symbols = set(matching_tokens(goal.conclusion))
        # Use counts and the other features matter only to the fitted score.
        if self.fitted:
            uses_seen = self.uses.visible_counts(candidates.tolist(), scope).tolist()
            required = set(self.corpus.table.requires[scope.module]) if scope else set()
        rows: list[Candidate] = []
        if self.bm25_only:
            for premise in candidates.tolist():
                order: dict[Use, tuple[float, ...]] = dict.fromkeys(
                    uses, (-float(scores[premise]),)
                )
                rows.append(Candidate({}, order, premise, self.names[premise], 1.0))
            return rows, scope, scores
        for row, premise in enumerate(candidates.tolist()):
            premise_shape, premise_skeleton, premise_sides, bag, length = self._premise_profile(
                premise
            )
            coverage = 1.0 if premise_shape == goal_shape else 0.99 * _cosine(goal_bag, bag)
            bm25 = float(scores[premise])
            facts: CandidateFacts | None = None
            if self.fitted:
                module = int(self.module[premise])
                facts = CandidateFacts(
                    coverage=coverage,
                    bm25=bm25,
                    bm25_rank=bm25_ranks[row],
                    lines_above=(
                        scope.line - int(self.line[premise])
                        if scope is not None and module == scope.module
                        else None
                    ),
                    statement_tokens=length,
                    required_directly=module in required,
                    uses=uses_seen[row],
                )
            ranked: dict[Use, tuple[float, ...]] = {}
            vectors: dict[Use, tuple[float, ...]] = {}
            for use in uses:
                if use in ("apply", "hints"):
                    fit = 2 if coverage == 1.0 else int(fits(premise_skeleton, goal_skeleton))
                elif use == "rewrite":
                    fit = int(rewrites(premise_sides, goal_symbols))
                else:
                    fit = 0
                if facts is not None and use != "hints":
                    vectors[use] = ranking.features(facts, fit)
                    ranked[use] = (-ranking.score(use, vectors[use]),)
                else:
                    ranked[use] = ranking.hand_order(use, fit, coverage, bm25)
            qualified = self.names[premise]
            rows.append(Candidate(vectors, ranked, premise, qualified, coverage))
        return rows, scope, scores

    def _select(
        self,
        rows: list[Candidate],
        scope: Scope | None,
        theorem: Theorem,
        scores: np.ndarray,
        k: int,
    ) -> list[RetrievedPremise]:
        """The first ``k`` of ``rows`` (ranked), one copy of each lemma."""
        out: list[RetrievedPremise] = []
        seen: set[str] = set()
        copies: set[tuple[str, str]] = set()
        opened = self._opened(theorem)
        for row in rows:
            premise, qualified, coverage = row.premise, row.qualified, row.coverage
            statement = self.statements[premise]
            name = self.local_name(qualified, int(self.module[premise]), scope, opened)
            copy = (qualified.rsplit(".", 1)[-1], statement)
            if name in seen or copy in copies:
                continue  # a copy: the same lemma re-exported under another module
            seen.add(name)
            copies.add(copy)
            out.append(
                RetrievedPremise(
                    name,
                    qualified,
                    statement,
                    float(scores[premise]),
                    bool(self.applicable[premise]),
                    max(coverage, 1e-4),
                )
            )
            if len(out) == k:
                break
        return out

    def named(
        self, premises: list[int], theorem: Theorem, coverage: float
    ) -> list[RetrievedPremise]:
        """``premises`` (found by name, not by BM25) as retrieved ones with a fixed
        ``coverage``, named as a tactic at ``theorem`` names them."""
        scope, _ = self.scopes.get(theorem.name, theorem.extra)
        opened = self._opened(theorem)
        hidden = set(self.admitted.hidden(theorem))
        return [
            RetrievedPremise(
                self.local_name(self.names[p], int(self.module[p]), scope, opened),
                self.names[p],
                self.statements[p],
                0.0,
                bool(self.applicable[p]),
                coverage,
            )
            for p in premises
            if p not in hidden and not self.generated[p]
        ]

    def _idf(self, symbol: str) -> float:
        weight = self._idf_cache.get(symbol)
        if weight is None:
            # A typed operator (``+@nat``) weighs what its operator weighs.
            untyped = symbol.split("@", 1)[0] if "@" in symbol[1:] else symbol
            key = np.array([feature_hash(untyped)], dtype=np.int64)
            positions, known = self.index.lookup(key)
            weight = float(self.index.weights[positions[0]]) if known[0] else self._max_idf
            if len(self._idf_cache) < 200_000:
                self._idf_cache[symbol] = weight
        return weight

    def _bag(self, symbols: dict[str, float]) -> dict[str, float]:
        # The typed operators (``+@nat``) count in the bags unless the corpus is untyped.
        if not self.typed:
            symbols = untyped(symbols)
        return {s: count * self._idf(s) for s, count in symbols.items()}

    def _goal_profile(self, goal: ParsedGoal) -> tuple[str, Skeleton | None, dict[str, float]]:
        local = set(goal.hypothesis_names)
        counts: dict[str, float] = {}
        for hypothesis in goal.hypotheses:
            found = matching_tokens(hypothesis.type)
            for symbol in _symbols(found, local | bound_names(found)):
                counts[symbol] = counts.get(symbol, 0.0) + HYPOTHESIS_WEIGHT
        found = matching_tokens(goal.conclusion)
        hidden = local | bound_names(found)
        types = {**local_types(goal), **binder_types(found)}
        for symbol in _symbols(found, hidden) + typed_operators(found, types):
            counts[symbol] = counts.get(symbol, 0.0) + CONCLUSION_WEIGHT
        ending = conclusion(found)
        return shape(ending, hidden), skeleton(ending, hidden), self._bag(counts)

    def _premise_profile(
        self, premise: int
    ) -> tuple[str, Skeleton | None, Sides, dict[str, float], int]:
        cached = self._profiles.get(premise)
        if cached is None:
            found = matching_tokens(self.statements[premise])
            hidden = bound_names(found)
            ending = conclusion(found)
            cached = (
                shape(ending, hidden),
                skeleton(ending, hidden),
                sides(ending, hidden),
                self._bag(
                    dict(
                        Counter(
                            _symbols(found, hidden) + typed_operators(found, binder_types(found))
                        )
                    )
                ),
                len(found),
            )
            if len(self._profiles) < 100_000:
                self._profiles[premise] = cached
        return cached

    def _opened(self, theorem: Theorem) -> tuple[str, ...]:
        opened = self._open_modules.get(theorem.name)
        if opened is None:
            opened = self._open_modules[theorem.name] = open_modules(theorem)
        return opened

    def local_name(
        self, qualified: str, module: int, scope: Scope | None, opened: tuple[str, ...] = ()
    ) -> str:
        """How a tactic names the premise: its qualified name when it comes from a
        required library (always unambiguous once loaded); when it comes from the
        theorem's own file, its path inside the file less the modules the theorem is
        inside (:mod:`.naming`)."""
        if scope is not None and module == scope.module:
            return own_file_name(qualified, self.corpus.table.modules[module], opened)
        return qualified


def _cosine(left: dict[str, float], right: dict[str, float]) -> float:
    dot = sum(weight * right.get(symbol, 0.0) for symbol, weight in left.items())
    norms = math.sqrt(sum(w * w for w in left.values()) * sum(w * w for w in right.values()))
    return dot / norms if norms > 0 else 0.0
