"""Which variables a template such as ``elim: {var}`` names first.

A library lemma's context starts with its section's parameters (types, operations,
their laws); the portfolio instantiates a template with at most four names, so taking
them in context order spent the four on ``R``, ``idx``, ``Kid`` and ``fM`` and never
reached the list ``r`` that math-comp's ``big_endo`` is proved by induction on.
"""

from __future__ import annotations

from proofsearch.generate.base import Suggestion
from proofsearch.generate.goals_text import goal_names
from proofsearch.generate.portfolio import PortfolioGenerator
from proofsearch.theorem import Theorem

BIG_ENDO = """R : Type
K : R -> Type
f : R -> R
idx : R
op, op' : R -> R -> R
Kid : K idx
fM : {morph f : x y / op x y}
I : Type
r : seq I
P : pred I
F : I -> R
H : P = P
============================
f (\\big[op/idx]_(i <- r | P i) F i) = \\big[op/idx]_(i <- r | P i) f (F i)"""


def test_variables_of_the_conclusion_come_first_the_latest_first() -> None:
    names = goal_names(BIG_ENDO)
    assert names.variables == ["P", "r", "idx", "fM", "Kid"]
    assert "R" not in names.variables and "I" not in names.variables  # sorts: types
    assert names.equations == ["H"]


def test_binders_follow_the_context_variables_the_conclusion_mentions() -> None:
    goal = "l : list nat\nk : nat\n============================\nforall n m : nat, n + m = length l"
    assert goal_names(goal).variables == ["l", "n", "m", "k"]


def test_a_template_reaches_the_variable_to_split_on() -> None:
    portfolio = PortfolioGenerator([Suggestion("elim: {var}", -0.1)], ssreflect=[])
    tactics = [s.tactic for s in portfolio.generate(BIG_ENDO, Theorem("t", "", ""), 10)]
    assert "elim: r" in tactics and "elim: R" not in tactics


def test_structures_are_types_and_move_names_only_binders() -> None:
    """``T : finType`` is a type (``case: T`` only ever failed), and ``move=> {binder}``
    names what the conclusion binds: ``move=> x`` of a context ``x`` is "x already used"."""
    goal = (
        "T : finType\nL : latticeType d\nf : T -> T\nx : T\n"
        "============================\nforall y : T, f x = f y"
    )
    names = goal_names(goal)
    assert names.variables == ["x", "y"] and names.binders == ["y"]
    portfolio = PortfolioGenerator([Suggestion("move=> {binder}", -0.1)], ssreflect=[])
    tactics = [s.tactic for s in portfolio.generate(goal, Theorem("t", "", ""), 10)]
    assert tactics == ["move=> y"]


def test_a_plugins_made_up_hypothesis_names_are_never_offered() -> None:
    """Hierarchy Builder's builder context is ``fresh_name_6`` in one Coq process and
    ``fresh_name_2`` in another: ``case: fresh_name_6`` was a disagreement, and the
    ``case: fresh_name_2`` written instead broke when a builder was added above (audit
    49). Neither a template nor knn names such a hypothesis; the others still are."""
    goals = (
        "T : Type\nfresh_name_6 : isComMon.phant_axioms T\nx : T\n"
        "============================\ncop x cone = x"
    )
    names = goal_names(goals)
    assert "fresh_name_6" not in names.variables + names.hypotheses
    assert "x" in names.variables
    portfolio = PortfolioGenerator([Suggestion("case: {var}", -0.5)], ssreflect=[])
    tactics = [s.tactic for s in portfolio.generate(goals, Theorem("t", "Lemma t : True."), 8)]
    assert "case: x" in tactics and not any("fresh_name" in t for t in tactics)
