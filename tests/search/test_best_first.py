"""Best-first search semantics, pinned down on explicit state graphs."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence

import pytest

from proofsearch.cli import build_parser
from proofsearch.cli.search import search_config
from proofsearch.env.base import ProofSession
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.search.graph_prover import QED, GraphProver, TableGenerator

THEOREM = Theorem("t", "statement")


def search(
    edges: Mapping[str, Mapping[str, str]],
    table: Mapping[str, Sequence[tuple[str, float]]],
    **config: object,
) -> tuple[object, GraphProver, TableGenerator]:
    prover = GraphProver(
        edges,
        delay=float(config.pop("delay", 0.0)),  # type: ignore[arg-type]
        goal_counts=config.pop("goal_counts", None),  # type: ignore[arg-type]
    )
    generator = TableGenerator(table)
    searcher = BestFirstSearchProver(prover, generator, SearchConfig(**config))  # type: ignore[arg-type]
    return searcher.search(THEOREM), prover, generator


def test_expands_by_cumulative_logprob() -> None:
    edges = {"root": {"a": "A", "b": "B"}, "A": {"a2": "A2"}, "B": {"b2": QED}, "A2": {}}
    table = {"root": [("a", -0.1), ("b", -0.5)], "A": [("a2", -0.2)], "B": [("b2", -0.1)]}
    result, _, generator = search(edges, table)
    # A (-0.1), then A2 (-0.3), then B (-0.5): B's child proves it.
    assert generator.calls == ["root", "A", "A2", "B"]
    assert result.status is Status.PROVED and result.proof == ["b", "b2"] and result.checked


def test_goal_penalty_puts_a_state_with_fewer_goals_first() -> None:
    # A is likelier (-0.1) but opened three goals; B (-0.5) has one. Goal counts are only
    # a tie-breaker of sorts: with no penalty the log-prob alone decides, as above.
    edges = {"root": {"a": "A", "b": "B"}, "A": {}, "B": {"b2": QED}}
    table = {"root": [("a", -0.1), ("b", -0.5)], "B": [("b2", -0.1)]}
    counts = {"A": 3, "B": 1}
    _, _, plain = search(edges, table, goal_counts=counts, goal_penalty=0.0)
    assert plain.calls == ["root", "A", "B"]
    result, _, penalised = search(edges, table, goal_counts=counts, goal_penalty=0.25)
    # A: -0.1 - 2 × 0.25 = -0.6 < B's -0.5.
    assert penalised.calls == ["root", "B"] and result.proof == ["b", "b2"]
    # A state whose backend does not count its goals is taken as one goal.
    _, _, unknown = search(edges, table, goal_counts={"B": 1}, goal_penalty=0.25)
    assert unknown.calls == ["root", "A", "B"]


def configured(command: str, *extra: str) -> SearchConfig:
    """The search's config as ``proofsearch COMMAND t.jsonl EXTRA…`` would build it."""
    return search_config(build_parser().parse_args([command, "t.jsonl", *extra]), check=True)


def test_the_ordering_options_reach_the_search() -> None:
    default = SearchConfig()
    assert configured("search").goal_penalty == 0.5 == default.goal_penalty
    assert configured("search", "--goal-penalty", "0").goal_penalty == 0.0
    assert configured("prove", "--goal-penalty", "1").goal_penalty == 1.0
    assert configured("search").depth_bonus == 0.0 == default.depth_bonus
    assert configured("search", "--depth-bonus", "0.4").depth_bonus == 0.4
    assert configured("prove", "--depth-bonus", "1").depth_bonus == 1.0


def test_depth_bonus_follows_a_likely_line_deeper_before_widening() -> None:
    # Without a bonus, B (-0.9) comes before A2 (-1.0); with 0.4 a step, A2 (-1.0 + 0.8)
    # comes before B (-0.9 + 0.4), and the proof is found along A's line.
    edges = {"root": {"a": "A", "b": "B"}, "A": {"a2": "A2"}, "A2": {"a3": QED}, "B": {"b2": QED}}
    table = {
        "root": [("a", -0.5), ("b", -0.9)],
        "A": [("a2", -0.5)],
        "A2": [("a3", -0.5)],
        "B": [("b2", -0.5)],
    }
    plain, _, plain_generator = search(edges, table)
    assert plain_generator.calls == ["root", "A", "B"] and plain.proof == ["b", "b2"]
    deep, _, deep_generator = search(edges, table, depth_bonus=0.4)
    assert deep_generator.calls == ["root", "A", "A2"] and deep.proof == ["a", "a2", "a3"]


def test_a_shorter_but_less_likely_path_keeps_a_queued_state_in_the_queue() -> None:
    # C is first reached at depth 3 (log-prob -3.2), then at depth 2 by a less likely
    # path (-6.0): its depth, and so its priority, fall while it waits in the queue. It
    # must still be expanded (its one tactic proves the theorem), by its shortest path.
    edges = {
        "root": {"x": "X", "z": "Z"},
        "X": {"x2": "Y"},
        "Y": {"y2": "C"},
        "Z": {"z2": "C"},
        "C": {"c": QED},
    }
    table = {
        "root": [("x", -0.1), ("z", -1.0)],
        "X": [("x2", -0.1)],
        "Y": [("y2", -3.0)],
        "Z": [("z2", -5.0)],
        "C": [("c", -0.1)],
    }
    result, _, generator = search(edges, table, depth_bonus=0.4)
    assert generator.calls == ["root", "X", "Y", "Z", "C"]
    assert result.status is Status.PROVED and result.proof == ["z", "z2", "c"]


def test_failed_when_tree_exhausted_and_open_when_budget_spent() -> None:
    edges = {"root": {"a": "A"}, "A": {}}
    table = {"root": [("a", -1.0), ("x", -1.0)], "A": [("y", -1.0)]}
    result, _, _ = search(edges, table)
    assert result.status is Status.FAILED and result.proof is None
    result, _, _ = search(edges, table, max_expansions=1)
    assert result.status is Status.OPEN


class FreshStates(TacticGenerator):
    """Every expansion yields new states: the tree never runs out."""

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        self.calls += 1
        return [Suggestion(f"t{i}", -1.0) for i in range(2)]


class InfiniteGraph(dict):  # type: ignore[type-arg]
    counter = itertools.count()

    def get(self, key: str, default: object = None) -> dict[str, str]:  # type: ignore[override]
        return {"t0": f"s{next(self.counter)}", "t1": f"s{next(self.counter)}"}


def test_max_expansions_is_exact() -> None:
    for limit in (1, 2, 7):
        prover = GraphProver(InfiniteGraph())
        generator = FreshStates()
        result = BestFirstSearchProver(
            prover, generator, SearchConfig(max_expansions=limit)
        ).search(THEOREM)
        assert result.status is Status.OPEN
        assert result.num_searched_nodes == limit == generator.calls
        assert result.num_total_nodes == 1 + 2 * limit


def test_proof_found_in_the_step_that_crosses_the_deadline_counts() -> None:
    edges = {"root": {"slow": "S"}, "S": {"done": QED}}
    table = {"root": [("slow", -0.1)], "S": [("done", -0.1)]}
    # Each tactic takes 0.3 s against a 0.4 s budget: the second expansion starts in time
    # and its proof arrives after the deadline.
    result, _, _ = search(edges, table, timeout=0.4, delay=0.3)
    assert result.status is Status.PROVED and result.proof == ["slow", "done"]
    assert result.total_time > 0.4


def test_no_tactic_starts_after_the_deadline() -> None:
    # One expansion of ten tactics of 0.1 s each against a 0.25 s budget: the tactics
    # that would start after the deadline are not run. Starts are at least 0.1 s apart
    # and all within the budget, so at most three run whatever the machine's load.
    edges = {"root": {f"t{i}": f"S{i}" for i in range(10)}}
    table = {"root": [(f"t{i}", -0.1 * i) for i in range(10)]}
    result, prover, _ = search(edges, table, timeout=0.25, delay=0.1)
    assert result.status is Status.OPEN
    assert 1 <= len(prover.started) <= 3
    assert result.num_tactic_applications == len(prover.started)
    assert prover.started[-1] - prover.started[0] < 0.25


def test_identical_states_merge_and_better_path_raises_priority() -> None:
    edges = {
        "root": {"bad": "X", "a": "A", "c": "C"},
        "A": {"good": "X"},
        "X": {"x": "Y"},
        "C": {},
        "Y": {},
    }
    table = {
        "root": [("a", -0.1), ("c", -0.5), ("bad", -3.0)],
        "A": [("good", -0.1)],
        "X": [("x", -0.1)],
    }
    result, _, generator = search(edges, table)
    # X is first reached with -3.0 (after C would come), then via A with -0.2: X jumps
    # ahead of C.
    assert generator.calls[:3] == ["root", "A", "X"]
    assert result.num_total_nodes == 5  # root, A, C, X (once), Y
    assert result.status is Status.FAILED


def test_reported_proof_is_the_shortest_found() -> None:
    edges = {
        "root": {"long": "L1", "short": "M"},
        "L1": {"l2": "M"},
        "M": {"qed": QED},
    }
    # M is first reached through the long path (better log-probability) ...
    table = {
        "root": [("long", -0.01), ("short", -2.0)],
        "L1": [("l2", -0.01)],
        "M": [("qed", -0.01)],
    }
    result, prover, _ = search(edges, table)
    assert result.status is Status.PROVED
    # ... but the proof uses the one-step path to M.
    assert result.proof == ["short", "qed"]
    assert prover.checked[0] == ["short", "qed"]


def test_of_proofs_as_short_the_plainest_is_reported() -> None:
    """Audit 49: ``mone = 0 :> nat`` was written ``apply: mop1x.`` (through ``0 + ?x``),
    where ``by []``, closing the same goal at the same expansion, is what a person
    writes. Of the proofs with the fewest steps, the one with the least text is
    re-checked first."""
    edges = {"root": {"apply: mop1x": QED, "by []": QED, "a": "A"}, "A": {"b": QED}}
    table = {"root": [("apply: mop1x", -0.1), ("a", -0.2), ("by []", -0.9)]}
    result, prover, _ = search(edges, table)
    assert result.status is Status.PROVED and result.proof == ["by []"]
    assert prover.checked == [["by []"]]


def test_rejected_proof_is_never_reported() -> None:
    class Rejecting(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            from proofsearch.env.base import CheckResult

            return CheckResult(False, "kernel says no")

    prover = Rejecting({"root": {"cheat": QED}})
    result = BestFirstSearchProver(prover, TableGenerator({"root": [("cheat", 0.0)]})).search(
        THEOREM
    )
    assert result.status is Status.ERROR and result.proof is None and not result.checked
    assert "kernel says no" in (result.error or "")
    assert result.extra["rejected_proof"] == ["cheat"]


def test_search_goes_on_after_a_proof_the_recheck_refuses() -> None:
    """A proof resting on an axiom the theorem may not use is refused; another route
    without it, found later, is reported. A disagreement (a prover's bug) still stops."""
    from proofsearch.env.base import CheckResult

    class AxiomChecking(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            self.checked.append(list(proof))
            if "axiom" in proof:
                return CheckResult(False, "uses axioms not allowed: classic")
            return CheckResult(True)

    edges = {"root": {"axiom": QED, "a": "A"}, "A": {"b": QED}}
    table = {"root": [("axiom", -0.1), ("a", -0.5)], "A": [("b", -0.1)]}
    prover = AxiomChecking(edges)
    result = BestFirstSearchProver(prover, TableGenerator(table)).search(THEOREM)
    assert result.status is Status.PROVED and result.proof == ["a", "b"] and result.checked
    assert prover.checked == [["axiom"], ["a", "b"]]

    # Nothing else to find: the refusal is what is reported.
    prover = AxiomChecking({"root": {"axiom": QED}})
    result = BestFirstSearchProver(prover, TableGenerator({"root": [("axiom", 0.0)]})).search(
        THEOREM
    )
    assert result.status is Status.ERROR and "axioms not allowed" in (result.error or "")
    assert result.extra["rejected_proof"] == ["axiom"]


def test_a_search_stops_after_three_refusals_and_reports_the_first() -> None:
    from proofsearch.env.base import CheckResult
    from proofsearch.search.prover import MAX_REJECTIONS

    class AxiomChecking(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            self.checked.append(list(proof))
            if proof[-1].startswith("ax"):
                return CheckResult(False, f"uses axioms not allowed: {proof[-1]}")
            return CheckResult(True)

    # Three branches close through a refused axiom, one at a time; the fourth, last by
    # score, would close without one, but the search stops at the third refusal.
    edges = {
        "root": {f"go{i}": f"B{i}" for i in range(4)},
        **{f"B{i}": {f"ax{i}": QED} for i in range(3)},
        "B3": {"ok": QED},
    }
    table = {
        "root": [(f"go{i}", -0.1 * (i + 1)) for i in range(4)],
        **{f"B{i}": [(f"ax{i}", -0.1)] for i in range(3)},
        "B3": [("ok", -0.1)],
    }
    prover = AxiomChecking(edges)
    result = BestFirstSearchProver(prover, TableGenerator(table)).search(THEOREM)
    assert MAX_REJECTIONS == 3
    assert result.status is Status.ERROR and result.extra["rejected_proof"] == ["go0", "ax0"]
    assert "ax0" in (result.error or "")
    assert prover.checked == [["go0", "ax0"], ["go1", "ax1"], ["go2", "ax2"]]
    # The counts are the whole search's, not those at the first refusal.
    assert result.num_searched_nodes == 4 and result.num_total_nodes == 5


def test_generator_failure_is_that_theorems_error() -> None:
    class Broken(TacticGenerator):
        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            raise RuntimeError("model exploded")

    result = BestFirstSearchProver(GraphProver({}), Broken()).search(THEOREM)
    assert result.status is Status.ERROR and "model exploded" in (result.error or "")


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ([Suggestion("a", -0.1), ("b", -0.2)], "generate returned ('b', -0.2) among its"),
        ([Suggestion("a", float("nan"))], "a tactic must be text, a score finite"),
        ("auto", "generate returned str, not a list"),
    ],
)
def test_a_malformed_answer_is_the_generators_failure(answer: object, said: str) -> None:
    """A custom generator's tuple among its suggestions was an ``error`` row blamed on
    the theorem (``AttributeError``), so a broken generator never stopped the run."""
    from proofsearch.search.result import GENERATOR_ERROR

    class Malformed(TacticGenerator):
        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            return answer  # type: ignore[return-value]

    result = BestFirstSearchProver(GraphProver({"root": {"a": QED}}), Malformed()).search(THEOREM)
    assert result.status is Status.ERROR and said in (result.error or "")
    assert result.extra[GENERATOR_ERROR] is True


def test_the_search_goes_on_after_a_disagreement_and_still_says_so() -> None:
    """A proof naming a hypothesis a plugin named differently in the checker's process
    (HB's ``fresh_name_6`` there, ``fresh_name_2`` in ``coqc``) was a disagreement that
    ended the search, although another proof was one tactic away (audit 49). The search
    goes on; the proof it then finds is reported, and the disagreement with it."""
    from proofsearch.env.base import CheckResult

    class Disagreeing(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            if proof == ["fragile"]:
                return CheckResult(False, "coqc rejected the proof", disagreement=True)
            return super().check(theorem, proof)

    edges = {"root": {"fragile": QED, "sound": QED}}
    table = TableGenerator({"root": [("fragile", -0.1)]})
    alone = BestFirstSearchProver(Disagreeing(edges), table).search(THEOREM)
    assert alone.status is Status.ERROR and alone.extra["check_disagreement"] is True
    both = TableGenerator({"root": [("fragile", -0.1), ("sound", -0.2)]})
    config = SearchConfig(num_sampled_tactics=1)  # one tactic per expansion: fragile first
    result = BestFirstSearchProver(Disagreeing(edges), both, config).search(THEOREM)
    assert result.status is Status.PROVED and result.proof == ["sound"]
    assert result.extra["check_disagreement"] is True
    assert result.extra["disagreement"]["proof"] == ["fragile"]


def test_a_proof_the_recheck_refuses_without_a_cheat_is_a_disagreement() -> None:
    from rich.console import Console

    from proofsearch.data.summary import summarize, summary_table
    from proofsearch.env.base import CheckResult

    class Disagreeing(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            return CheckResult(False, "coqc rejected the proof", disagreement=True)

    class Cheated(GraphProver):
        def check(self, theorem, proof):  # type: ignore[no-untyped-def]
            return CheckResult(False, "uses axioms not allowed: cheat", ("cheat",))

    edges = {"root": {"a": QED}}
    records = []
    for prover in (Disagreeing(edges), Cheated(edges)):
        searcher = BestFirstSearchProver(prover, TableGenerator({"root": [("a", -0.1)]}))
        result = searcher.search(THEOREM)
        assert result.status is Status.ERROR
        records.append(result.to_record())
    assert records[0].get("check_disagreement") is True
    assert "check_disagreement" not in records[1]
    summary = summarize(records)
    assert summary.disagreements == 1
    console = Console(width=200, record=True)
    console.print(summary_table(summary))
    row = [line for line in console.export_text().splitlines() if "disagreements" in line]
    assert row and row[0].split("│")[2].strip() == "1", row


def test_budget_after_open_leaves_the_header_out_of_the_timeout() -> None:
    edges = {"root": {"done": QED}}
    table = {"root": [("done", -0.1)]}

    class SlowOpen(GraphProver):
        def open(self, theorem: Theorem) -> ProofSession:
            time.sleep(1.0)  # a header that takes longer than the whole budget
            return super().open(theorem)

    for after_open, expected in ((False, Status.OPEN), (True, Status.PROVED)):
        config = SearchConfig(timeout=0.9, budget_after_open=after_open)
        searcher = BestFirstSearchProver(SlowOpen(edges), TableGenerator(table), config)
        assert searcher.search(THEOREM).status is expected


def test_a_generator_call_that_returns_past_the_deadline_is_recorded() -> None:
    """The search cannot cut a call short: a slow model server made each theorem take
    twice its --timeout with nothing said (audit 43-a). The result says how late."""
    from proofsearch.cli.search import generator_late_note
    from proofsearch.search.result import GENERATOR_LATE

    class Slow(TacticGenerator):
        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            time.sleep(2.0)
            return [Suggestion("a", -0.1)]

    prover = GraphProver({"root": {"a": "A"}, "A": {}})
    result = BestFirstSearchProver(prover, Slow(), SearchConfig(timeout=0.5)).search(THEOREM)
    assert result.status is Status.OPEN
    assert result.extra[GENERATOR_LATE] >= 1.5 - 0.1
    note = generator_late_note([result.to_record()])
    assert note is not None and note.startswith("1 theorem(s) ran past --timeout waiting")
    assert generator_late_note([{"name": "t", "status": "open"}]) is None


def test_a_generator_call_cut_at_the_deadline_ends_the_theorem_on_time() -> None:
    """A generator that bounds its wait by the search's deadline (a model server's
    client, a generator actor's) stops at the deadline: the theorem ends ``open`` on
    time, the cut is recorded, and the run's note says the generator was too slow."""
    from proofsearch.cli.search import generator_late_note
    from proofsearch.generate.base import AnswerDeadline, time_left, wait_bound
    from proofsearch.search.result import GENERATOR_CUT, GENERATOR_LATE

    waits: list[float] = []

    class Server(TacticGenerator):
        """Answers the root at once and then takes 30 s for each answer."""

        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            if goals == "goal root":
                return [Suggestion("a", -0.1)]
            wait, cut = wait_bound(30.0)
            waits.append(wait)
            time.sleep(wait)
            if cut:
                raise AnswerDeadline("cut")
            return []

    prover = GraphProver({"root": {"a": "A"}, "A": {}})
    start = time.perf_counter()
    result = BestFirstSearchProver(prover, Server(), SearchConfig(timeout=0.5)).search(THEOREM)
    assert time.perf_counter() - start < 15  # not the 30 s answer
    assert result.status is Status.OPEN and result.num_searched_nodes == 2
    assert len(waits) == 1 and 0 < waits[0] <= 0.5
    assert result.extra[GENERATOR_CUT] is True and GENERATOR_LATE not in result.extra
    note = generator_late_note([result.to_record()])
    assert note is not None and "was still answering (its call was cut" in note
    assert time_left() is None  # outside a search's call there is no deadline


def test_the_generator_never_sees_the_answer_the_result_keeps() -> None:
    """A benchmark's theorem holds its lemma's own proof (``reference_proof``), which a
    user's generator got with the theorem and could put in its prompt (audit 51): the
    generator sees the theorem without it; the result keeps it."""

    class Recording(TableGenerator):
        def __init__(self, table: Mapping[str, Sequence[tuple[str, float]]]) -> None:
            super().__init__(table)
            self.seen: list[Theorem] = []
            self.learned: list[Theorem] = []

        def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
            self.seen.append(theorem)
            return super().generate(goals, theorem, n)

        def learn(self, theorem: Theorem, steps: Sequence[tuple[str, str]]) -> None:
            self.learned.append(theorem)

    extra = {"reference_proof": "exact I.", "module": "M", "line": 3}
    theorem = Theorem("t", "statement", extra=extra)
    generator = Recording({"root": [("a", -0.1)]})
    prover = GraphProver({"root": {"a": QED}})
    result = BestFirstSearchProver(prover, generator).search(theorem)
    assert result.status is Status.PROVED
    assert generator.seen and generator.learned
    for seen in [*generator.seen, *generator.learned]:
        assert dict(seen.extra) == {"module": "M", "line": 3} and seen.name == "t"
    assert result.theorem.extra["reference_proof"] == "exact I."
