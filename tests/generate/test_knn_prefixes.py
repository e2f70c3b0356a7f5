"""A compound sentence's prefixes are offered as steps after the sentence itself."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, step
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.prefixes import PREFIX_PENALTY, PrefixPool, prefixes
from proofsearch.theorem import Theorem


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("by elim: n => //= n ->", ["elim: n => //= n ->"]),
        (
            "by rewrite -addn1 -modnDml IHm; case odd",
            [
                "rewrite -addn1 -modnDml IHm; case odd",
                "rewrite -addn1 -modnDml IHm",
                "rewrite -addn1 -modnDml",
                "rewrite -addn1",
            ],
        ),
        # A rewrite's rules are steps: ssreflect's and the stdlib's.
        (
            "by apply/setP=> x; rewrite !inE andbK",
            [
                "apply/setP=> x; rewrite !inE andbK",
                "apply/setP=> x; rewrite !inE",
                "apply/setP=> x",
            ],
        ),
        (
            "rewrite -[X in LHS]addnC !inE //=",
            ["rewrite -[X in LHS]addnC !inE", "rewrite -[X in LHS]addnC"],
        ),
        ("rewrite {2}addnC - foo", ["rewrite {2}addnC"]),  # ``-`` apart from its rule
        ("rewrite A, B, C", ["rewrite A, B", "rewrite A"]),
        ("rewrite H", []),
        ("rewrite A, B in H", []),  # in a hypothesis: not cut
        ("rewrite <- A, B by lia", []),
        ("induction n; simpl; auto", ["induction n; simpl", "induction n"]),
        ("intros; [auto | lia]", ["intros"]),
        ("now apply foo", ["apply foo"]),
        ("by []", []),
        ("apply (f (x; y))", []),
        ("exact H", []),
    ],
)
def test_prefixes(sentence: str, expected: list[str]) -> None:
    assert prefixes(sentence) == expected


def test_knn_offers_the_prefix_after_the_sentence(tmp_path: Path) -> None:
    state = goal("n.*2 = n + n", ("n", "nat"))
    steps = [step("Lib.S", "d", 10, 0, state, "by elim: n => //= n ->.")]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.S": []}, {"Lib.S": steps}, {}))
    new = Theorem("t", "Lemma t : True.")
    found = {s.tactic: s.logprob for s in KnnGenerator(corpus).generate(state.render(), new, 5)}
    assert found["by elim: n => //= n ->"] > found["elim: n => //= n ->"]
    plain = KnnGenerator(corpus, sentence_prefixes=False).generate(state.render(), new, 5)
    assert [s.tactic for s in plain] == ["by elim: n => //= n ->"]


def test_a_learned_compound_sentence_offers_its_prefix_too(tmp_path: Path) -> None:
    state = goal("n.*2 = n + n", ("n", "nat"))
    steps = [step("Lib.S", "d", 10, 0, goal("True"), "exact I.")]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.S": []}, {"Lib.S": steps}, {}))
    knn = KnnGenerator(corpus)
    knn.learn(Theorem("a", "Lemma a : True."), [(state.render(), "by elim: n => //= n ->.")])
    found = [s.tactic for s in knn.generate(state.render(), Theorem("b", "Lemma b : True."), 5)]
    assert found[:2] == ["by elim: n => //= n ->", "elim: n => //= n ->"]


def test_a_prefix_several_neighbours_share_pools_their_scores() -> None:
    """Fifteen sentences ``by apply/setP=> x; rewrite !inE L_i`` agree on ``apply/setP=>
    x; rewrite !inE``: it ranks with them, not 1.4 below; one neighbour's variants count
    once; a prefix is never above the best sentence it begins."""
    pool = PrefixPool()
    for i in range(15):
        pool.add(f"by apply/setP=> x; rewrite !inE L{i}", -0.3 - 0.01 * i, source=i)
    scores = {s.tactic: s.logprob for s in pool.suggestions()}
    assert scores["apply/setP=> x; rewrite !inE"] == -0.3  # capped at the best sentence
    assert scores["apply/setP=> x"] == -0.3
    assert scores["apply/setP=> x; rewrite !inE L3"] == pytest.approx(-0.33 + PREFIX_PENALTY)
    same, two = PrefixPool(), PrefixPool()
    for pool_, sources in ((same, (7, 7)), (two, (7, 8))):
        pool_.add("by move=> x; rewrite A", -1.0, source=sources[0])
        pool_.add("by move=> x; rewrite B", -1.0, source=sources[1])
    once = {s.tactic: s.logprob for s in same.suggestions()}["move=> x"]
    twice = {s.tactic: s.logprob for s in two.suggestions()}["move=> x"]
    assert once == pytest.approx(-1.0 + 2 * PREFIX_PENALTY)
    assert twice == pytest.approx(once + math.log(2))
    alone = PrefixPool()
    alone.add("by apply/setP=> x; rewrite !inE L0", -0.3, source=0)
    single = {s.tactic: s.logprob for s in alone.suggestions()}
    assert single["apply/setP=> x; rewrite !inE"] == pytest.approx(-0.3 + 2 * PREFIX_PENALTY)


def test_knn_never_names_a_plugins_made_up_hypothesis(tmp_path: Path) -> None:
    """A neighbour's ``case: fresh_name_3`` maps onto the goal's ``fresh_name_6`` (same
    type): offered, it named a hypothesis Hierarchy Builder calls otherwise in the
    checker's process (audit 49). Such a suggestion is dropped; the rest stays."""
    recorded = goal("op x one = x", ("fresh_name_3", "axioms T"), ("x", "T"))
    steps = [
        step("Lib.S", "d", 10, 0, recorded, "case: fresh_name_3."),
        step("Lib.S", "e", 20, 0, recorded, "by rewrite opC op1x."),
    ]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.S": []}, {"Lib.S": steps}, {}))
    current = goal("op x one = x", ("fresh_name_6", "axioms T"), ("x", "T"))
    tactics = {
        s.tactic
        for s in KnnGenerator(corpus).generate(current.render(), Theorem("t", "Lemma t : True."), 8)
    }
    assert "by rewrite opC op1x" in tactics
    assert not any("fresh_name" in t for t in tactics)
