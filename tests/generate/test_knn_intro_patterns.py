"""knn's name adaptation and ssreflect (and Coq) intro patterns: introduced names that
the goal already has are renamed fresh, discharged ones are not, views are not names."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, step
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.knn.intro_patterns import fresh_intros
from proofsearch.generate.knn.names import adapt, record_names
from proofsearch.theorem import Theorem


@pytest.mark.parametrize(
    ("tactic", "present", "expected"),
    [
        ("move=> n m", {"n"}, "move=> n0 m"),
        ("move=> x y /eqP ->", {"x", "eqP"}, "move=> x0 y /eqP ->"),
        ("move=> /eqP H; rewrite H", {"H"}, "move=> /eqP H0; rewrite H0"),
        ("case: n => [|n IHn]", {"n"}, "case: n => [|n IHn]"),
        ("elim: n => //= n IHn", {"n", "IHn"}, "elim: n => //= n IHn0"),
        ("move: H => /eqP H", {"H"}, "move: H => /eqP H"),
        ("move=> {H} H", {"H"}, "move=> {H} H"),
        ("rewrite H; move=> H", {"H"}, "rewrite H; move=> H0"),
        ("move=> n; rewrite n.+1", {"n", "n0"}, "move=> n1; rewrite n1.+1"),
        ("apply: (fun x => x)", {"x"}, "apply: (fun x => x)"),
        ("intros n H", {"H"}, "intros n H0"),
        ("induction n as [|n IHn]; simpl", {"n", "IHn"}, "induction n as [|n IHn0]; simpl"),
        ("move=> m", set(), "move=> m"),
    ],
)
def test_introduced_names_that_clash_are_renamed(
    tactic: str, present: set[str], expected: str
) -> None:
    assert fresh_intros(tactic, present) == expected


def test_adaptation_maps_ssreflect_uses_and_keeps_patterns_consistent() -> None:
    recorded = parse_first_goal(goal("n.+1 > 0", ("n", "nat")).render())
    here = parse_first_goal(goal("k.+1 > 0", ("k", "nat")).render())
    for tactic, expected in [
        ("case: n => [|n IHn]", "case: k => [|k IHn]"),
        ("exact: (ltn0Sn n.+1)", "exact: (ltn0Sn k.+1)"),
        ("elim: n => //= n IHn; rewrite IHn", "elim: k => //= k IHn; rewrite IHn"),
    ]:
        assert adapt(tactic, record_names(tactic, recorded), here) == [expected]


def test_knn_suggests_a_recorded_intro_pattern_with_fresh_names(tmp_path: Path) -> None:
    steps = [
        step("Lib.S", "c", 10, 0, goal("forall n m : nat, n + m = m + n"), "move=> n m."),
        step("Lib.S", "c", 10, 1, goal("n + m = m + n", ("n, m", "nat")), "by rewrite addnC."),
    ]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.S": []}, {"Lib.S": steps}, {}))
    here = goal("forall a m : nat, a + m = m + a", ("n", "nat")).render()
    found = KnnGenerator(corpus).generate(here, Theorem("t", "Lemma t : True."), 5)
    assert found[0].tactic == "move=> n0 m"
