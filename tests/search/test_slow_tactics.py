"""A tactic that keeps running to the per-tactic limit stops being tried.

Measured at the roots of held-out lemmas, ``firstorder`` spent most of the prover's
time, nearly all of it in 2 s timeouts (docs/generators.md, "Slow tactics")."""

from __future__ import annotations

from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.search.prover import SLOW_TIMEOUTS, tactic_kind
from proofsearch.theorem import Theorem
from tests.search.graph_prover import KILLED, QED, TIMEOUT, GraphProver, TableGenerator

THEOREM = Theorem("t", "statement")
#: A chain root → A → B → C → D → QED by `step`; at every state, `firstorder using`
#: with that state's own hint that times out is suggested first, then `rewrite slow`,
#: which times out only at the root, `rewrite fast`, which fails, and `step`.
STATES = ["root", "A", "B", "C", "D"]
EDGES = {
    key: {f"firstorder using h{key}": TIMEOUT, "step": nxt}
    for key, nxt in zip(STATES, [*STATES[1:], QED], strict=True)
}
EDGES["root"]["rewrite slow"] = TIMEOUT
TABLE = {
    key: [
        (f"firstorder using h{key}", -0.1), ("rewrite slow", -0.2), ("rewrite fast", -0.3),
        ("step", -1.0),
    ]
    for key in STATES
}  # fmt: skip


def run(edges: dict[str, dict[str, str]] = EDGES, **config: object) -> tuple[object, GraphProver]:
    prover = GraphProver(edges)
    searcher = BestFirstSearchProver(prover, TableGenerator(TABLE), SearchConfig(**config))  # type: ignore[arg-type]
    return searcher.search(THEOREM), prover


def test_by_default_a_tactic_that_timed_out_once_is_not_tried_again() -> None:
    result, prover = run()
    assert SLOW_TIMEOUTS == 1
    assert result.status is Status.PROVED and result.proof == ["step"] * 5  # type: ignore[attr-defined]
    tried = [tactic for _, tactic in prover.applied]
    # `firstorder using` at the root only; `rewrite slow` timed out there, so not again.
    assert [t for t in tried if "firstorder" in t] == ["firstorder using hroot"]
    assert tried.count("rewrite slow") == 1 and tried.count("rewrite fast") == 5
    assert result.extra["timeouts"] == {"firstorder using": 1, "rewrite slow": 1}  # type: ignore[attr-defined]


def test_a_tactic_that_timed_out_twice_is_not_tried_again() -> None:
    result, prover = run(slow_timeouts=2)
    assert result.status is Status.PROVED and result.proof == ["step"] * 5  # type: ignore[attr-defined]
    tried = [tactic for _, tactic in prover.applied]
    # `firstorder using` at the root and at A (two timeouts, other hints), none after.
    assert [t for t in tried if "firstorder" in t] == [
        "firstorder using hroot",
        "firstorder using hA",
    ]
    # One timeout of `rewrite slow` stops nothing: it and `rewrite fast` are tried everywhere.
    assert tried.count("rewrite slow") == 5 and tried.count("rewrite fast") == 5
    assert result.extra["timeouts"] == {"firstorder using": 2, "rewrite slow": 1}  # type: ignore[attr-defined]


def test_without_the_limit_every_kind_is_always_tried() -> None:
    result, prover = run(slow_timeouts=None)
    assert result.status is Status.PROVED  # type: ignore[attr-defined]
    tried = [tactic for _, tactic in prover.applied]
    assert sum("firstorder" in t for t in tried) == 5
    assert result.extra["timeouts"] == {"firstorder using": 5, "rewrite slow": 1}  # type: ignore[attr-defined]


def test_a_tactic_whose_process_was_killed_is_not_tried_again() -> None:
    # `rewrite slow` ignores the limit at the root (its process is killed): a kill costs
    # a restart and a header replay, so one is enough even where two plain timeouts are
    # needed to stop a kind.
    edges = {key: dict(targets) for key, targets in EDGES.items()}
    edges["root"]["rewrite slow"] = KILLED
    result, prover = run(edges, slow_timeouts=2)
    assert result.status is Status.PROVED  # type: ignore[attr-defined]
    tried = [tactic for _, tactic in prover.applied]
    assert tried.count("rewrite slow") == 1 and tried.count("rewrite fast") == 5
    assert result.extra["timeouts"] == {"firstorder using": 2, "rewrite slow": 1}  # type: ignore[attr-defined]
    # Turning the rule off turns this off too.
    result, prover = run(edges, slow_timeouts=None)
    assert [tactic for _, tactic in prover.applied].count("rewrite slow") == 5


def test_a_tactic_is_counted_without_its_hint_lemmas() -> None:
    assert tactic_kind("firstorder using a, b") == "firstorder using"
    assert tactic_kind("eauto  using\n a") == "eauto using"
    assert tactic_kind("hauto use: a, b") == "hauto using"
    assert tactic_kind("now firstorder") == "now firstorder"
    assert tactic_kind("rewrite -addnA") == "rewrite -addnA"


def test_the_command_line_option() -> None:
    from proofsearch.cli import build_parser
    from proofsearch.cli.search import search_config

    def configured(*extra: str) -> int | None:
        args = build_parser().parse_args(["search", "t.jsonl", "--index", "i", *extra])
        return search_config(args, check=True).slow_timeouts

    assert configured() == SLOW_TIMEOUTS
    assert configured("--slow-tactic-timeouts", "5") == 5
    assert configured("--slow-tactic-timeouts", "0") is None  # never stop trying
