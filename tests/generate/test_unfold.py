"""``unfold D`` for the definitions a goal mentions (generate/retrieval/unfold.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.knn_trace import premise
from tests.generate.strength_trace import write_records
from tests.generate.template_search import search_on_and_off

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.registry import check_options
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.generate.retrieval.unfold import mentioned
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem

HEADER = "Require Import Lia.\nDefinition twice (n : nat) := n + n.\n"


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``Lib.A`` defines ``twice`` (line 2) and, after the theorems below (line 40),
    ``later_def``; ``Lib.R`` defines ``Rminus``, which ``Lib.A`` does not require."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield write_records(
        tmp_path / "trace",
        {"Lib.A": [], "Lib.R": []},
        {},
        {
            "Lib.A": [
                premise("Lib.A", "twice", "nat -> nat", 2, kind="Definition"),
                premise("Lib.A", "later_def", "nat -> nat", 40, kind="Definition"),
            ],
            "Lib.R": [premise("Lib.R", "Rminus", "R -> R -> R", 3, kind="Definition")],
        },
    )


def _at(line: int, module: str = "Lib.A") -> Theorem:
    return Theorem("t", "", extra={"module": module, "line": line})


def _offered(trace: Path, goals: str, theorem: Theorem, header: str = "") -> list[str]:
    templates = PremiseTemplateGenerator(build_corpus(trace))
    theorem = Theorem(theorem.name, theorem.statement, header, dict(theorem.extra))
    suggested = [s.tactic for s in templates.generate(goals, theorem, 64)]
    return [t for t in suggested if t.startswith(("unfold", "rewrite /"))]


def test_definitions_the_goal_names_are_unfolded_where_they_may_be_seen(trace: Path) -> None:
    goals = "n : nat\nH : later_def n = twice n\n============================\ntwice n >= n"
    assert _offered(trace, goals, _at(20)) == ["unfold twice"]
    # After line 40 the later definition is visible too; it is only in a hypothesis.
    assert _offered(trace, goals, _at(50)) == ["unfold twice", "unfold later_def in *"]
    # A local name that spells a definition is not one.
    shadowed = "twice : nat\n============================\ntwice = 0"
    assert _offered(trace, shadowed, _at(20)) == []


def test_ssreflect_unfolds_by_rewriting(trace: Path) -> None:
    header = "From Coq Require Import ssreflect.\n"
    goals = "n : nat\nH : later_def n = 0\n============================\ntwice n >= n"
    # The hypothesis's definition is not offered: ``rewrite /D`` works on the conclusion.
    assert _offered(trace, goals, _at(50), header) == ["rewrite /twice"]


def test_a_notation_stands_for_its_definition_when_the_operands_say_which(trace: Path) -> None:
    goal = parse_first_goal("x, y : R\n============================\nx - y >= 0")
    assert "Rminus" in mentioned(goal)[0]
    nat_goal = parse_first_goal("x, y : nat\n============================\nx - y >= 0")
    assert "Rminus" not in mentioned(nat_goal)[0] and "ge" in mentioned(nat_goal)[0]
    # The binary number types' orders are definitions too, by the operands' type.
    z_goal = parse_first_goal("p : positive\nx, y : Z\n============================\nx < y")
    assert "Z.lt" in mentioned(z_goal)[0] and "lt" not in mentioned(z_goal)[0]
    p_goal = parse_first_goal("p, q : positive\n============================\np <= q")
    assert "Pos.le" in mentioned(p_goal)[0]
    # Rminus's module is not required by Lib.A: not offered there, offered in Lib.R.
    goals = "x, y : R\n============================\nx - y = x"
    assert _offered(trace, goals, _at(20)) == []
    assert _offered(trace, goals, _at(20, "Lib.R")) == ["unfold Rminus"]


def test_the_option_is_checked() -> None:
    with pytest.raises(ValueError, match="unfold=yes"):
        check_options("knn-portfolio", {"unfold": "yes"})
    check_options("knn-portfolio", {"unfold": False})


def test_a_search_proves_a_lemma_whose_only_route_is_unfolding(
    trace: Path, no_new_coq_processes: None
) -> None:
    """``lia`` does not see through ``twice``; ``simpl`` does not open it either."""
    theorem = Theorem(
        "twice_ge_new", "Lemma twice_ge_new : forall n, twice n >= n.", HEADER,
        {"module": "Lib.A", "line": 20},
    )  # fmt: skip
    proved, without = search_on_and_off(
        trace, theorem, {"unfold": (True, False)}, ("intros", "simpl", "lia")
    )
    assert proved.status is Status.PROVED and proved.checked
    assert proved.proof is not None and "unfold twice" in proved.proof
    assert without.status is not Status.PROVED
