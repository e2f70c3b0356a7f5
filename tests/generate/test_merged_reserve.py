"""A merged part with a reserve keeps its best suggestions whatever the others score."""

from __future__ import annotations

import pytest

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.merged import MergedGenerator
from proofsearch.theorem import Theorem

THEOREM = Theorem("t", "statement")


class Scored(TacticGenerator):
    """``prefix0``, ``prefix1``, ... (as many as asked), all scored ``score`` and falling."""

    def __init__(self, prefix: str, score: float) -> None:
        self.prefix, self.score = prefix, score

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(f"{self.prefix}{i}", self.score - 0.001 * i) for i in range(n)]


def test_a_reserved_part_keeps_its_share_against_a_boastful_part() -> None:
    boastful, modest = Scored("b", -0.01), Scored("k", -2.0)
    plain = MergedGenerator([modest, boastful]).generate("g", THEOREM, 8)
    assert [s.tactic for s in plain] == [f"b{i}" for i in range(8)]
    reserved = MergedGenerator([modest, boastful], reserve=[0.5, 0.0]).generate("g", THEOREM, 8)
    # Half the 8 are the modest part's best four; their scores are unchanged and still
    # order the list (the boastful part's four first).
    assert [s.tactic for s in reserved] == ["b0", "b1", "b2", "b3", "k0", "k1", "k2", "k3"]
    assert reserved[4].logprob == pytest.approx(-2.0)


def test_a_tactic_both_parts_suggest_counts_once_at_its_best_score() -> None:
    class Both(TacticGenerator):
        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            return [Suggestion("k0", -0.001), Suggestion("x", -0.5)]

    merged = MergedGenerator([Scored("k", -2.0), Both()], reserve=[0.5, 0.0])
    out = merged.generate("g", THEOREM, 4)
    assert [s.tactic for s in out] == ["k0", "x", "k1", "k2"]
    assert out[0].logprob == pytest.approx(-0.001)


def test_bad_reserves_are_refused() -> None:
    parts = [Scored("a", -1.0), Scored("b", -1.0)]
    with pytest.raises(ValueError, match="one reserve per part"):
        MergedGenerator(parts, reserve=[0.5])
    with pytest.raises(ValueError, match="1 at most in all"):
        MergedGenerator(parts, reserve=[0.7, 0.7])
    with pytest.raises(ValueError, match="1 at most in all"):
        MergedGenerator(parts, reserve=[-0.1, 0.0])
