"""An exhausted tree with time left is expanded again, asking more tactics at each node.

The winning tactic here is the generator's 100th suggestion at the root: a search asking
64 per node exhausts its tree without it, and one that widens finds it.
"""

from __future__ import annotations

from collections import Counter

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.search.graph_prover import QED, GraphProver

THEOREM = Theorem("t", "statement")
#: At the root, "t0".."t98" fail, "t99" leads to W, which "qed" closes.
EDGES = {"root": {"t99": "W"}, "W": {"qed": QED}}


class Ranked(TacticGenerator):
    """At the root, as many of ``t0``, ``t1``, ... as asked (an unending ranking)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        self.asked.append((goals, n))
        if goals == "goal W":
            return [Suggestion("qed", -0.1)]
        return [Suggestion(f"t{i}", -0.01 * (i + 1)) for i in range(n)]


def search(generator: TacticGenerator, **config: object) -> tuple[object, GraphProver]:
    prover = GraphProver(EDGES)
    result = BestFirstSearchProver(prover, generator, SearchConfig(**config)).search(THEOREM)  # type: ignore[arg-type]
    return result, prover


def test_an_exhausted_tree_is_widened_until_the_proof_is_found() -> None:
    generator = Ranked()
    result, prover = search(generator)
    assert result.status is Status.PROVED and result.proof == ["t99", "qed"]  # type: ignore[attr-defined]
    assert result.extra["widenings"] == 1  # type: ignore[attr-defined]
    # The root was asked 64, then 128; only the 64 new tactics were applied the second time.
    assert [n for goals, n in generator.asked if goals == "goal root"] == [64, 128]
    assert max(Counter(prover.applied).values()) == 1
    assert result.num_tactic_applications == 128 + 1  # type: ignore[attr-defined]


def test_without_widening_the_same_search_fails() -> None:
    result, _ = search(Ranked(), max_sampled_tactics=64)
    assert result.status is Status.FAILED and "widenings" not in result.extra  # type: ignore[attr-defined]


def test_widening_stops_at_its_limit() -> None:
    generator = Ranked()
    result, _ = search(generator, num_sampled_tactics=16, max_sampled_tactics=80)
    # 16, 32, 64, then 80 (the limit): t99 is never asked for, and the tree is exhausted.
    assert result.status is Status.FAILED  # type: ignore[attr-defined]
    assert [n for _, n in generator.asked] == [16, 32, 64, 80]
    assert result.extra["widenings"] == 3  # type: ignore[attr-defined]


def test_a_generator_that_gave_fewer_than_asked_is_not_asked_again() -> None:
    class Short(TacticGenerator):
        def __init__(self) -> None:
            self.calls = 0

        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            self.calls += 1
            return [Suggestion("t1", -0.1), Suggestion("t2", -0.2)]

    generator = Short()
    result, _ = search(generator)
    assert result.status is Status.FAILED and generator.calls == 1  # type: ignore[attr-defined]
    assert "widenings" not in result.extra  # type: ignore[attr-defined]


class Sampling(TacticGenerator):
    """A sampling model: each call draws two tactics, repeats among them; ``t99`` (the
    way on) comes only in the fourth draw."""

    stochastic = True

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        self.calls += 1
        if goals == "goal W":
            return [Suggestion("qed", -0.1)]
        drawn = "t99" if self.calls == 4 else f"t{self.calls % 2}"
        return [Suggestion(drawn, -0.5), Suggestion("t0", -0.7)]


def test_a_sampling_generator_that_gave_fewer_than_asked_is_asked_again() -> None:
    """Fewer distinct samples than asked is a draw of repeats, not "nothing more here":
    such a node is drawn again, wider, while the tree has nothing else (a search of a
    sampling model ended ``failed`` after one draw, in 0.03 s of a 10 s budget)."""
    generator = Sampling()
    result, _ = search(generator, num_sampled_tactics=8, max_sampled_tactics=64)
    assert result.status is Status.PROVED and result.proof == ["t99", "qed"]  # type: ignore[attr-defined]
    assert generator.calls == 5  # draws of 8, 16, 32, 64 at the root, then W
