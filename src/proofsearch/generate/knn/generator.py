"""``knn``: the tactics of the recorded proof states nearest to the current one.

Similarity is the cosine of TF-IDF-weighted feature vectors (:mod:`.features`), found
through an inverted index, so a query touches only the states that share a feature with
it. A tactic's score is the log of its best neighbour's similarity (≤ 0; an identical
state scores 0), so knn suggestions merge by score with other generators'. Names are
adapted to the current goal (:mod:`.names`), and the theorem sees only what its scope
allows (:mod:`.scope`).

Online learning: :meth:`KnnGenerator.learn` adds the steps of a proof found during the
run; they are suggested for the theorems searched after it (in this process), under the
same visibility rule as recorded steps (a proof of a lemma of module M is visible where
M's own steps would be).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.generate.goals_text import UNSTABLE_NAME
from proofsearch.generate.knn.admitted import AdmittedPremises
from proofsearch.generate.knn.analogy import (
    ANALOGY_PENALTY,
    NameEdit,
    SuffixNames,
    analogous,
    name_edit,
    short_name,
)
from proofsearch.generate.knn.corpus import TraceCorpus, load_corpus
from proofsearch.generate.knn.features import goal_features, hash_features, untyped
from proofsearch.generate.knn.goals import ParsedGoal, parse_first_goal
from proofsearch.generate.knn.names import adapt, fingerprints, record_names
from proofsearch.generate.knn.parts import clean_tactic
from proofsearch.generate.knn.prefixes import PREFIX_PENALTY, PrefixPool, prefixes
from proofsearch.generate.knn.premise_uses import NAME
from proofsearch.generate.knn.scope import Scope, ScopeCache
from proofsearch.theorem import Theorem

#: A neighbour's tactic and its lemma's short name → the tactic with the theorem's
#: variant names, or ``None`` (:mod:`.analogy`).
Analogy: TypeAlias = Callable[[str, str], str | None]
#: How a learned state weighs the features the build dropped as too common: ``ignored``
#: (the default) or ``unseen`` (as a feature no state has: the ablation's old behaviour).
DROPPED_FEATURES = ("ignored", "unseen")


@dataclass
class _Learned:
    """States added during the run: a small inverted index in plain Python."""

    postings: dict[int, list[tuple[int, float]]] = field(default_factory=lambda: defaultdict(list))
    tactics: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    scopes: list[Scope | None] = field(default_factory=list)
    #: The short name of each state's theorem (for :mod:`.analogy`).
    lemmas: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Widened:
    """A theorem's states seen only through its ``learn_from``, and whether a step's
    named premises are all in the theorem's scope."""

    outside: np.ndarray
    in_scope: Callable[[str], bool]


class KnnGenerator(TacticGenerator):
    """Suggests the tactics of the nearest recorded (and learned) states."""

    def __init__(
        self,
        corpus: TraceCorpus,
        neighbours: int = 0,
        min_similarity: float = 1e-3,
        max_postings: int = 40_000,
        sentence_prefixes: bool = True,
        adapt_names: bool = True,
        dropped_features: str = "ignored",
        analogies: bool = True,
    ) -> None:
        """``adapt_names`` and ``dropped_features`` exist for issue 19's ablation: off
        (``False``, ``"unseen"``), a recorded tactic's names are left as they were, and a
        learned state's features the build dropped as too common weigh as much as unseen
        ones (the behaviour before the fixes, docs/generators.md). ``analogies=False``
        leaves out the steps with a neighbour lemma's variant names (:mod:`.analogy`)."""
        if dropped_features not in DROPPED_FEATURES:
            choices = ", ".join(DROPPED_FEATURES)
            raise ValueError(f"dropped_features={dropped_features!r}: choose one of {choices}")
        self.adapt_names = adapt_names
        self.weigh_dropped = dropped_features == "unseen"
        self.corpus = corpus
        self.index = corpus.states
        self.tactic_table = corpus.tactics
        self.name_table = corpus.state_names
        self.state_tactic = corpus.arrays["state_tactic"]
        #: Which states keep names to adapt, and the tactic texts decoded so far.
        self.has_record = np.diff(self.name_table.offsets) > 0
        self.tactic_text: dict[int, str] = {}
        self.unseen_weight = float(corpus.arrays["states.unseen_weight"][0])
        #: Features the build dropped as too common (sorted): they weigh nothing here
        #: either, learned states included.
        self.dropped_keys = corpus.arrays.get("states.dropped_keys", np.zeros(0, np.int64))
        self.scopes = ScopeCache(
            corpus.table, corpus.arrays["state_module"], corpus.arrays["state_line"], steps=True
        )
        #: The states a theorem sees without its ``learn_from`` (:mod:`.scope`): a step
        #: from outside them is offered only when the premises it names are in scope.
        self.regular_scopes = ScopeCache(
            corpus.table, corpus.arrays["state_module"], corpus.arrays["state_line"]
        )
        #: Neighbours looked at per call (0: four times the tactics asked for, at least 64).
        self.neighbours = neighbours
        #: Postings a first pass reads at most (the query's rarest features first); the
        #: candidates it finds are then scored exactly on all their features.
        self.max_postings = max_postings
        self.forward_indptr = corpus.arrays["states.forward_indptr"]
        self.forward_keys = corpus.arrays["states.forward_keys"]
        self.forward_values = corpus.arrays["states.forward_values"]
        self.min_similarity = min_similarity
        #: Offer the steps that begin a compound sentence too (:mod:`.prefixes`).
        self.sentence_prefixes = sentence_prefixes
        self.learned = _Learned()
        self.analogies = analogies and "state_lemma" in corpus.arrays
        self.state_lemma = corpus.arrays.get("state_lemma", np.zeros(0, np.int32))
        self.lemma_table = corpus.lemmas if self.analogies else None
        self.lemma_text: dict[int, str] = {}
        self.premise_scopes = ScopeCache(
            corpus.table,
            corpus.arrays["premise_module"],
            corpus.arrays["premise_line"],
            until=corpus.arrays.get("premise_until"),
        )
        self._premise_names: SuffixNames | None = None
        self.admitted = AdmittedPremises(
            corpus.premise_names.__getitem__, corpus.arrays.get("premise_admitted")
        )
        #: The theorem last asked about, and its name edits by neighbour lemma number.
        self._edits: tuple[str, dict[str, NameEdit | None]] = ("", {})

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        if n <= 0:
            return []
        scope, mask = self.scopes.get(theorem.name, theorem.extra)
        goal = parse_first_goal(goals)
        keys, scales = hash_features(self._features(goal))
        positions, known = self.index.lookup(keys)
        weights = self.index.weights[positions].astype(np.float64)
        learned_weights = self._learned_weights(keys, known, scales)
        squared = float(np.sum(weights**2)) + sum(w * w for w in learned_weights.values())
        if squared <= 0:
            return []
        norm = math.sqrt(squared)
        wanted = self.neighbours or max(64, 4 * n)
        scores = self._scores(positions, weights / norm, mask, wanted)
        analogy = self._analogy(theorem) if self.analogies else None
        widened = self._widened(theorem, scope, mask)
        suggestions = self._recorded(scores, wanted, goal, n, analogy, widened)
        suggestions += self._from_learned(
            keys, learned_weights, norm, scope, goal, analogy, widened
        )
        hidden = self.admitted.hidden_names(theorem)
        if hidden:  # a proof through one would be refused (knn/admitted.py)
            suggestions = [s for s in suggestions if not names_any(s.tactic, hidden, goal)]
        if any(UNSTABLE_NAME.fullmatch(name) for name in goal.hypothesis_names):
            suggestions = [s for s in suggestions if not UNSTABLE_NAME.search(s.tactic)]
        return best_unique(suggestions, n)

    def _widened(
        self, theorem: Theorem, scope: Scope | None, mask: np.ndarray | None
    ) -> _Widened | None:
        """The states visible only through the theorem's ``learn_from``, and the test
        their steps must pass: every premise they name is one the theorem may see (a
        later lemma's proof may use lemmas stated after the theorem, or the theorem)."""
        if scope is None or not scope.learn_from or mask is None:
            return None
        _, regular = self.regular_scopes.get(theorem.name, theorem.extra)
        outside = mask if regular is None else mask & ~regular
        _, premise_mask = self.premise_scopes.get(theorem.name, theorem.extra)
        names = self._visible_names()

        def in_scope(tactic: str) -> bool:
            return all(
                name not in names.by_suffix or names.visible(name, premise_mask)
                for name in set(NAME.findall(tactic))
            )

        return _Widened(outside, in_scope)

    def _scores(
        self, positions: np.ndarray, weights: np.ndarray, mask: np.ndarray | None, wanted: int
    ) -> np.ndarray:
        """Cosine similarity of every state (0 where not visible). When the query's
        posting lists are long, a first pass reads the rarest features' lists up to
        ``max_postings`` and the ``2 × wanted`` best states it finds are scored exactly."""
        lengths = self.index.indptr[positions + 1] - self.index.indptr[positions]
        capped = int(lengths.sum()) > self.max_postings
        if capped:
            order = np.argsort(-weights, kind="stable")
            within = np.cumsum(lengths[order]) <= self.max_postings
            within[0] = True
            kept = order[within]
            scores = self.index.scores(positions[kept], weights[kept])
        else:
            scores = self.index.scores(positions, weights)
        if mask is not None:
            scores[~mask] = 0.0
        if not capped:
            return scores
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > 2 * wanted:
            candidates = candidates[
                np.argpartition(-scores[candidates], 2 * wanted - 1)[: 2 * wanted]
            ]
        exact = np.zeros_like(scores)
        if len(candidates):
            exact[candidates] = self._exact(candidates, positions, weights)
        return exact

    def _exact(self, states: np.ndarray, positions: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Full cosine similarity of ``states`` with the query (key positions, weights)."""
        starts = self.forward_indptr[states]
        lengths = self.forward_indptr[states + 1] - starts
        shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        where = shift + np.arange(int(lengths.sum()), dtype=np.int64)
        keys = self.forward_keys[where]
        order = np.argsort(positions)
        sorted_positions, sorted_weights = positions[order], weights[order]
        slot = np.minimum(np.searchsorted(sorted_positions, keys), len(sorted_positions) - 1)
        hit = sorted_positions[slot] == keys
        contribution = np.where(hit, sorted_weights[slot] * self.forward_values[where], 0.0)
        owner = np.repeat(np.arange(len(states)), lengths)
        return np.bincount(owner, weights=contribution, minlength=len(states))

    def _recorded(
        self,
        scores: np.ndarray,
        wanted: int,
        goal: ParsedGoal,
        n: int,
        analogy: Analogy | None = None,
        widened: _Widened | None = None,
    ) -> list[Suggestion]:
        candidates = np.flatnonzero(scores >= self.min_similarity)
        if len(candidates) > wanted:
            top = np.argpartition(-scores[candidates], wanted - 1)[:wanted]
            candidates = candidates[top]
        candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
        # Log similarities (≤ 0) to 6 decimals: the postings are float32, and the exact
        # and capped passes should not differ in digits that are only rounding.
        logs = np.minimum(0.0, np.round(np.log(scores[candidates]), 6)).tolist()
        tactic_ids = self.state_tactic[candidates].tolist()
        has_record = self.has_record[candidates].tolist()
        tactic_text = self.tactic_text
        prints: list[tuple[str, str]] | None = None
        seen: set[tuple[int, str]] = set()
        tactics: set[str] = set()
        out = []
        pool = PrefixPool()
        for state, tactic_id, score, named in zip(
            candidates.tolist(), tactic_ids, logs, has_record, strict=True
        ):
            record = self.name_table[state] if named else ""
            if (tactic_id, record) in seen:
                continue  # a better-scored neighbour gave the same suggestion
            seen.add((tactic_id, record))
            tactic = tactic_text.get(tactic_id)
            if tactic is None:
                tactic = tactic_text[tactic_id] = self.tactic_table[tactic_id]
            if widened is not None and widened.outside[state] and not widened.in_scope(tactic):
                continue
            if not self.adapt_names:
                variants = [tactic]
            elif record:
                if prints is None:
                    prints = fingerprints(goal)
                variants = adapt(tactic, record, goal, prints)
            elif "=>" in tactic or "intro" in tactic or " as " in tactic:
                variants = adapt(tactic, record, goal, prints)
            else:
                variants = [tactic]  # nothing to map, nothing introduced
            scored = [
                (variant, score - math.log1p(rank) + 0.0 if rank else score + 0.0)
                for rank, variant in enumerate(variants)
            ]
            if analogy is not None and variants:
                analogue = analogy(self._lemma(state), variants[0])
                if analogue is not None:
                    scored.insert(1, (analogue, score + ANALOGY_PENALTY))
            for variant, variant_score in scored:
                if variant in tactics:
                    continue
                tactics.add(variant)
                out.append(Suggestion(variant, variant_score))
                if self.sentence_prefixes:  # ``prefixes`` says which sentences have any
                    pool.add(variant, variant_score, state)
            if len(out) >= n:
                break
        return out + pool.suggestions()

    # -- analogous names -------------------------------------------------------------

    def _analogy(self, theorem: Theorem) -> Analogy:
        """For this theorem: a neighbour's tactic (given with its lemma's short name) with
        the edit from that name to the theorem's made to its names (:mod:`.analogy`), or
        ``None``."""
        own = short_name(theorem)
        last = self._edits  # read once: a concurrent caller may replace it meanwhile
        edits = last[1] if last[0] == own else {}
        self._edits = (own, edits)
        _, mask = self.premise_scopes.get(theorem.name, theorem.extra)
        names = self._visible_names()

        def exists(name: str) -> bool:
            return names.visible(name, mask)

        def analogue(lemma: str, tactic: str) -> str | None:
            if lemma not in edits:
                edits[lemma] = name_edit(lemma, own)
            edit = edits[lemma]
            return None if edit is None else analogous(tactic, edit, exists)

        return analogue

    def _lemma(self, state: int) -> str:
        """The short name of the lemma whose proof recorded ``state``."""
        number = int(self.state_lemma[state])
        text = self.lemma_text.get(number)
        if text is None:
            assert self.lemma_table is not None
            text = self.lemma_text[number] = self.lemma_table[number]
        return text

    def _visible_names(self) -> SuffixNames:
        """Every premise's name, built on first use (a second or two on the stdlib)."""
        if self._premise_names is None:
            names = self.corpus.premise_names
            self._premise_names = SuffixNames(names, np.ones(len(names), dtype=bool))
        return self._premise_names

    # -- online learning -----------------------------------------------------------

    def _learned_weights(
        self, keys: np.ndarray, known: np.ndarray, scales: np.ndarray
    ) -> dict[int, float]:
        """Weights of the query's features that only learned states have."""
        if not self.learned.tactics:
            return {}
        dropped = self._dropped(keys) & (not self.weigh_dropped)
        return {
            int(key): self.unseen_weight * float(scale)
            for key, is_known, is_dropped, scale in zip(keys, known, dropped, scales, strict=True)
            if not is_known and not is_dropped and int(key) in self.learned.postings
        }

    def _features(self, goal: ParsedGoal) -> dict[str, float]:
        """The goal's features, as the index has them (typed, but for the ablation)."""
        features = goal_features(goal)
        return features if self.corpus.typed_features else untyped(features)

    def _dropped(self, keys: np.ndarray) -> np.ndarray:
        """Which of ``keys`` the build dropped as too common."""
        if len(self.dropped_keys) == 0:
            return np.zeros(len(keys), dtype=bool)
        at = np.minimum(np.searchsorted(self.dropped_keys, keys), len(self.dropped_keys) - 1)
        return np.asarray(self.dropped_keys[at] == keys)

    def _feature_weights(self, goal: ParsedGoal) -> dict[int, float]:
        """A learned state's feature weights: the index's where it has them, the unseen
        weight for new features, and none for the features the build dropped."""
        keys, scales = hash_features(self._features(goal))
        positions, known = self.index.lookup(keys)
        weights = np.full(len(keys), self.unseen_weight, dtype=np.float64) * scales
        weights[known] = self.index.weights[positions]
        kept = ~self._dropped(keys) | self.weigh_dropped
        return {int(k): float(w) for k, w in zip(keys[kept], weights[kept], strict=True)}

    def _from_learned(
        self,
        keys: np.ndarray,
        learned_weights: dict[int, float],
        norm: float,
        scope: Scope | None,
        goal: ParsedGoal,
        analogy: Analogy | None = None,
        widened: _Widened | None = None,
    ) -> list[Suggestion]:
        if not self.learned.tactics:
            return []
        positions, known = self.index.lookup(keys)
        query = dict(learned_weights)
        for key, weight in zip(keys[known], self.index.weights[positions], strict=True):
            query[int(key)] = float(weight)
        totals: dict[int, float] = defaultdict(float)
        for key, weight in query.items():
            for state, value in self.learned.postings.get(key, ()):
                totals[state] += weight / norm * value
        out = []
        table = self.corpus.table
        for state, similarity in totals.items():
            origin = self.learned.scopes[state]
            if similarity < self.min_similarity or not table.sees(scope, origin):
                continue
            tactic = self.learned.tactics[state]
            if (
                widened is not None
                and not table.sees(scope, origin, widened=False)
                and not widened.in_scope(tactic)
            ):
                continue
            variants = (
                adapt(tactic, self.learned.names[state], goal) if self.adapt_names else [tactic]
            )
            score = _log_similarity(similarity)
            scored = [(v, score - math.log1p(rank)) for rank, v in enumerate(variants)]
            if analogy is not None and variants:
                analogue = analogy(self.learned.lemmas[state], variants[0])
                if analogue is not None:
                    scored.insert(1, (analogue, score + ANALOGY_PENALTY))
            for variant, variant_score in scored:
                out.append(Suggestion(variant, variant_score))
                if self.sentence_prefixes:
                    out += [
                        Suggestion(p, variant_score + PREFIX_PENALTY * (i + 1))
                        for i, p in enumerate(prefixes(variant))
                    ]
        return out

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        """Add a found proof's (goals, tactic) steps for the theorems searched later.

        A proof whose theorem cannot be placed in the index (a ``module`` it does not
        know) is not learned: it could be any module's later lemma. The postings are
        added last, so a concurrent :meth:`generate` never finds a half-added state.
        """
        try:
            origin, _ = self.scopes.get(theorem.name, theorem.extra)
        except ValueError:
            return
        for goals, raw_tactic in steps:
            tactic = clean_tactic(raw_tactic)
            if not tactic:
                continue
            goal = parse_first_goal(goals)
            weights = self._feature_weights(goal)
            norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            state = len(self.learned.tactics)
            self.learned.names.append(record_names(tactic, goal))
            self.learned.scopes.append(origin)
            self.learned.lemmas.append(short_name(theorem))
            self.learned.tactics.append(tactic)
            for key, weight in weights.items():
                self.learned.postings[key].append((state, weight / norm))


def names_any(tactic: str, names: frozenset[str], goal: ParsedGoal) -> bool:
    """Whether ``tactic`` names one of ``names`` (by a name's last component), not
    counting the goal's own hypotheses."""
    return any(
        found.rsplit(".", 1)[-1] in names and found not in goal.hypothesis_name_set
        for found in NAME.findall(tactic)
    )


def _log_similarity(similarity: float) -> float:
    """A similarity's log (≤ 0), to 6 decimals: the postings are float32, and the exact
    and capped passes should not differ in digits that are only rounding."""
    return min(0.0, round(math.log(similarity), 6)) + 0.0


def make_knn(index: str, **options: object) -> KnnGenerator:
    """The ``knn`` generator on the trace folder ``index``."""
    return KnnGenerator(load_corpus(index), **options)  # type: ignore[arg-type]
