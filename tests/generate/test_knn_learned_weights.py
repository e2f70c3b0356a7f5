"""Online learning must not swamp the index: the features the corpus build dropped as
too common (``MAX_DF_SHARE``) are seen features, not unseen ones, for learned states."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal
from tests.generate.strength_trace import write_big_trace

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.theorem import Theorem

NEW = Theorem("new", "Lemma new : True.")
LEARNED = [
    (goal("p1 (q1 y) = r1 y", ("y", "nat")), "apply learned_one."),
    (goal("p2 y = r2 (q2 y)", ("y", "nat")), "apply learned_two."),
    (goal("p3 (p3 y) = y", ("y", "nat")), "apply learned_three."),
]


def test_common_features_are_dropped_and_reported(tmp_path: Path) -> None:
    corpus = build_corpus(write_big_trace(tmp_path / "trace"))
    assert len(corpus.arrays["states.dropped_keys"]) > 0


def test_three_unrelated_learned_proofs_stay_out_of_an_unrelated_goal(tmp_path: Path) -> None:
    knn = KnnGenerator(build_corpus(write_big_trace(tmp_path / "trace")))
    query = goal("f3 (g5 x) = h7 x", ("x", "nat")).render()
    before = knn.generate(query, NEW, 10)
    for number, (state, tactic) in enumerate(LEARNED):
        knn.learn(Theorem(f"t{number}", "Lemma t : True."), [(state.render(), tactic)])
    after = knn.generate(query, NEW, 10)
    assert not any(s.tactic.startswith("apply learned_") for s in after), after
    # The recorded neighbours keep their scores: learning added nothing to the query.
    assert [(s.tactic, round(s.logprob, 6)) for s in after] == [
        (s.tactic, round(s.logprob, 6)) for s in before
    ]
    # A goal like a learned one still gets its learned tactic first.
    again = goal("p1 (q1 z) = r1 z", ("z", "nat")).render()
    assert knn.generate(again, NEW, 5)[0].tactic == "apply learned_one"


def test_the_ablation_switch_brings_the_swamping_back(tmp_path: Path) -> None:
    """``dropped_features="unseen"`` (issue 19's ablation) weighs dropped features as
    unseen ones, as before the fix: the learned proofs then reach the unrelated goal."""
    corpus = build_corpus(write_big_trace(tmp_path / "trace"))
    knn = KnnGenerator(corpus, dropped_features="unseen")
    query = goal("f3 (g5 x) = h7 x", ("x", "nat")).render()
    for number, (state, tactic) in enumerate(LEARNED):
        knn.learn(Theorem(f"t{number}", "Lemma t : True."), [(state.render(), tactic)])
    after = knn.generate(query, NEW, 10)
    assert any(s.tactic.startswith("apply learned_") for s in after), after


def test_an_unknown_dropped_features_choice_is_refused(tmp_path: Path) -> None:
    corpus = build_corpus(write_big_trace(tmp_path / "trace"))
    with pytest.raises(ValueError, match="dropped_features='often': choose one of ignored"):
        KnnGenerator(corpus, dropped_features="often")
