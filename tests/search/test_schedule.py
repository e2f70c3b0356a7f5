"""A schedule's stages share one theorem's budget: fresh tree per stage, in order."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.merged import MergedGenerator
from proofsearch.generate.schedule import ScheduledGenerator, Stage, parse_schedule
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.search.graph_prover import QED, TIMEOUT, GraphProver, TableGenerator

THEOREM = Theorem("t", "statement")
#: Stage "a" only knows a dead end; stage "b" knows the proof.
EDGES = {"root": {"dead": "D", "win": "W"}, "D": {}, "W": {"qed": QED}}
DEAD_END = {"root": [("dead", -0.1)]}
WINNING = {"root": [("win", -0.1)], "W": [("qed", -0.1)]}


class Learner(TableGenerator):
    def __init__(self, table: dict[str, list[tuple[str, float]]]) -> None:
        super().__init__(table)
        self.learned: list[list[tuple[str, str]]] = []

    def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
        self.learned.append(list(steps))


def run(generator: TacticGenerator, **config: object) -> object:
    prover = GraphProver(EDGES)
    return BestFirstSearchProver(prover, generator, SearchConfig(**config)).search(THEOREM)  # type: ignore[arg-type]


def test_a_later_stage_proves_what_the_first_cannot() -> None:
    first, second = TableGenerator(DEAD_END), TableGenerator(WINNING)
    scheduled = ScheduledGenerator([Stage("a", 3, first), Stage("b", 1, second)])
    result = run(scheduled)
    assert result.status is Status.PROVED and result.proof == ["win", "qed"]  # type: ignore[attr-defined]
    assert result.extra["stage"] == "b"  # type: ignore[attr-defined]
    # Each stage starts from a fresh tree at the root.
    assert first.calls == ["root", "D"] and second.calls == ["root", "W"]
    stages = result.extra["stages"]  # type: ignore[attr-defined]
    assert [(s["name"], s["status"]) for s in stages] == [("a", "failed"), ("b", "proved")]
    # Expansions and nodes add up over the stages (2 + 2 of each).
    assert result.num_searched_nodes == 4 and result.num_total_nodes == 4  # type: ignore[attr-defined]


def test_a_later_stage_takes_the_outcomes_of_tactics_an_earlier_one_ran() -> None:
    """Stage "b" suggests at the root what stage "a" ran there: with outcomes reused it
    runs only its own tactic, searches in the same order, and the timeout "a" met is
    not counted twice; with ``reuse_outcomes=False`` everything runs again."""
    edges = {
        "root": {"dead": "D", "slow": TIMEOUT, "win": "W"},
        "D": {},
        "W": {"qed": QED},
    }
    first = {"root": [("dead", -0.1), ("slow", -0.2)]}
    second = {"root": [("dead", -0.1), ("slow", -0.2), ("win", -0.3)], "W": [("qed", -0.1)]}

    def search(reuse: bool) -> tuple[object, GraphProver, TableGenerator]:
        later = TableGenerator(second)
        scheduled = ScheduledGenerator([Stage("a", 1, TableGenerator(first)), Stage("b", 1, later)])
        prover = GraphProver(edges)
        config = SearchConfig(reuse_outcomes=reuse, slow_timeouts=None)
        return BestFirstSearchProver(prover, scheduled, config).search(THEOREM), prover, later

    reused, prover, later = search(reuse=True)
    assert reused.status is Status.PROVED and reused.proof == ["win", "qed"]  # type: ignore[attr-defined]
    assert later.calls == ["root", "D", "W"]
    assert prover.applied == [
        ("root", "dead"), ("root", "slow"),  # stage a (nothing to suggest at D)
        ("root", "win"), ("W", "qed"),  # stage b: only what a did not run at the state
    ]  # fmt: skip
    assert reused.extra["timeouts"] == {"slow": 1}  # type: ignore[attr-defined]
    assert reused.num_tactic_applications == 4  # type: ignore[attr-defined]

    rerun, prover, later = search(reuse=False)
    assert rerun.status is Status.PROVED and later.calls == ["root", "D", "W"]  # type: ignore[attr-defined]
    assert prover.applied.count(("root", "dead")) == 2
    assert rerun.extra["timeouts"] == {"slow": 2}  # type: ignore[attr-defined]


def test_a_later_stage_proves_what_the_re_check_refused_in_an_earlier_one() -> None:
    """Stage "a" finds a proof through an axiom the theorem may not use (refused); stage
    "b" proves it without; alone, stage "a"'s refusal is what is reported."""
    from proofsearch.env.base import CheckResult

    class AxiomChecking(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            if "axiom" in proof:
                return CheckResult(False, "uses axioms not allowed: classic")
            return CheckResult(True)

    edges = {**EDGES, "root": {**EDGES["root"], "axiom": QED}}
    refused_only = {"root": [("axiom", -0.1)]}
    scheduled = ScheduledGenerator(
        [Stage("a", 1, TableGenerator(refused_only)), Stage("b", 1, TableGenerator(WINNING))]
    )
    result = BestFirstSearchProver(AxiomChecking(edges), scheduled).search(THEOREM)
    assert result.status is Status.PROVED and result.proof == ["win", "qed"]
    assert [s["status"] for s in result.extra["stages"]] == ["error", "proved"]
    both_refused = ScheduledGenerator(
        [Stage("a", 1, TableGenerator(refused_only)), Stage("b", 1, TableGenerator(refused_only))]
    )
    result = BestFirstSearchProver(AxiomChecking(edges), both_refused).search(THEOREM)
    assert result.status is Status.ERROR and result.extra["rejected_proof"] == ["axiom"]
    assert result.extra["stage"] == "a"
    # Three stages refusing: still the first's refusal, with the whole search's counts.
    three = ScheduledGenerator([Stage(n, 1, TableGenerator(refused_only)) for n in "abc"])
    result = BestFirstSearchProver(AxiomChecking(edges), three).search(THEOREM)
    assert result.extra["stage"] == "a" and result.num_searched_nodes == 3

    # A disagreement (a prover's bug) after a refusal is what is reported, not hidden.
    class Disagreeing(AxiomChecking):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            if "win" in proof:
                return CheckResult(False, "coqc rejected the proof", disagreement=True)
            return super().check(theorem, proof)

    scheduled = ScheduledGenerator(
        [Stage("a", 1, TableGenerator(refused_only)), Stage("b", 1, TableGenerator(WINNING))]
    )
    result = BestFirstSearchProver(Disagreeing(edges), scheduled).search(THEOREM)
    assert result.status is Status.ERROR and result.extra.get("check_disagreement")
    assert result.extra["stage"] == "b"


def test_the_same_generator_alone_fails_and_failing_stages_fail() -> None:
    assert run(TableGenerator(DEAD_END)).status is Status.FAILED  # type: ignore[attr-defined]
    both_dead = ScheduledGenerator(
        [Stage("a", 1, TableGenerator(DEAD_END)), Stage("b", 1, TableGenerator(DEAD_END))]
    )
    result = run(both_dead)
    assert result.status is Status.FAILED and "stage" not in result.extra  # type: ignore[attr-defined]


def test_max_expansions_is_shared_by_the_stages() -> None:
    first, second = TableGenerator(DEAD_END), TableGenerator(WINNING)
    scheduled = ScheduledGenerator([Stage("a", 1, first), Stage("b", 1, second)])
    result = run(scheduled, max_expansions=3)
    # Stage a spends 2 expansions; stage b gets the one left: root only, no proof yet.
    assert second.calls == ["root"]
    assert result.status is Status.OPEN and result.num_searched_nodes == 3  # type: ignore[attr-defined]


def test_a_spent_stage_budget_passes_to_the_next_stage() -> None:
    """Stage a's share is 0.1 % of a 1000 s budget (1 s) but it keeps finding new states;
    it must stop by its share, and stage b must still run and prove the theorem."""

    class Endless(TacticGenerator):
        def __init__(self) -> None:
            self.calls = 0

        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            self.calls += 1
            return [Suggestion(f"t{self.calls}", -1.0)]

    edges = {"root": {"win": "W"}, "W": {"qed": QED}}
    prover = GraphProver(_Loop(edges), delay=0.05)
    endless = Endless()
    winning = TableGenerator(WINNING)
    scheduled = ScheduledGenerator([Stage("a", 1, endless), Stage("b", 999, winning)])
    result = BestFirstSearchProver(prover, scheduled, SearchConfig(timeout=1000)).search(THEOREM)
    assert result.status is Status.PROVED and result.extra["stage"] == "b"
    assert endless.calls >= 2
    assert result.extra["stages"][0]["seconds"] < 100


class _Targets(dict):  # type: ignore[type-arg]
    """A state's edges: the listed ones, and every other tactic to a new state."""

    def __init__(self, known: dict[str, str], fresh: itertools.count[int]) -> None:
        super().__init__(known)
        self.fresh = fresh

    def get(self, tactic: str, default: object = None) -> object:
        return super().get(tactic) or f"s{next(self.fresh)}"


class _Loop(dict):  # type: ignore[type-arg]
    """Edges as given, and every unknown tactic leads to a new state."""

    fresh = itertools.count()

    def get(self, key: str, default: object = None) -> _Targets:  # type: ignore[override]
        return _Targets(dict(super().get(key, {})), self.fresh)


def test_a_proof_is_learned_once_by_each_distinct_part() -> None:
    shared = Learner(WINNING)
    other = Learner(DEAD_END)
    merged = MergedGenerator([other, shared], names=["dead", "win"])
    scheduled = ScheduledGenerator([Stage("a", 1, merged), Stage("b", 1, shared)])
    result = run(scheduled)
    assert result.status is Status.PROVED  # type: ignore[attr-defined]
    assert len(shared.learned) == 1 and len(other.learned) == 1
    assert shared.learned[0] == [("goal root", "win"), ("goal W", "qed")]


def test_parse_schedule_and_its_errors() -> None:
    known = ("knn-portfolio", "knn", "portfolio")
    assert parse_schedule("knn-portfolio:3, knn:1", known) == [("knn-portfolio", 3.0), ("knn", 1.0)]
    assert parse_schedule("knn", known) == [("knn", 1.0)]
    with pytest.raises(ValueError, match="unknown stage 'knnn'"):
        parse_schedule("knn-portfolio:1,knnn:1", known)
    with pytest.raises(ValueError, match="share 'x' is not a number"):
        parse_schedule("knn:x", known)
    for bad in ("knn:0", "knn:-1", "knn:nan", "knn:inf"):
        with pytest.raises(ValueError, match="share must be positive"):
            parse_schedule(bad, known)
    with pytest.raises(ValueError, match="at least one stage"):
        ScheduledGenerator([])


def test_generator_options_are_checked_against_the_generator() -> None:
    from proofsearch.generate.registry import check_options

    check_options("knn-portfolio", {"schedule": "knn-portfolio:2,knn:1", "calibrate": True})
    check_options("knn", {"neighbours": 128, "premises": 0})
    check_options("portfolio", {"tactics_file": "t.txt"})
    check_options("hf", {"anything": 1})  # handed on to the model's class, which checks
    check_options("mypkg.mod:factory", {"anything": 1})  # a user's own: not ours to check
    with pytest.raises(ValueError, match="generator knn has no option 'schedule'"):
        check_options("knn", {"schedule": "knn:1"})
    with pytest.raises(ValueError, match="unknown stage 'knnn'"):
        check_options("knn-portfolio", {"schedule": "knnn:1"})


def test_the_stage_outcomes_option() -> None:
    from proofsearch.cli import build_parser
    from proofsearch.cli.search import search_config

    def reuse(*extra: str) -> bool:
        args = build_parser().parse_args(["search", "t.jsonl", "--index", "i", *extra])
        return search_config(args, check=True).reuse_outcomes

    assert reuse("--stage-outcomes", "reuse")
    assert not reuse() and not reuse("--stage-outcomes", "rerun")
    with pytest.raises(SystemExit):  # argparse names the option and its choices
        reuse("--stage-outcomes", "keep")
