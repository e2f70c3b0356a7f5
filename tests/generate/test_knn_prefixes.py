"""A compound sentence's prefixes are offered as steps after the sentence itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, step
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.prefixes import prefixes
from proofsearch.theorem import Theorem


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("by elim: n => //= n ->", ["elim: n => //= n ->"]),
        (
            "by rewrite -addn1 -modnDml IHm; case odd",
            ["rewrite -addn1 -modnDml IHm; case odd", "rewrite -addn1 -modnDml IHm"],
        ),
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
