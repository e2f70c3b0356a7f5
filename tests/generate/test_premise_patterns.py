"""``intros`` with a pattern that takes the conclusion's structured premises apart: the
pattern read off printed conclusions, and a portfolio line ``intros {intro_pattern}`` (a
template for tactics files; not in the default list, measured in docs/generators.md)
run in real Coq."""

from __future__ import annotations

import pytest

from proofsearch.env.base import ProofState
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.generate.base import Suggestion
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.generate.premise_patterns import intro_pattern
from proofsearch.theorem import Theorem

from ..libs.conftest import requires_coq


@pytest.mark.parametrize(
    ("conclusion", "pattern"),
    [
        ("forall x : R, 0 < x /\\ x < 1 -> f x < 1", "? [? ?]"),
        ("forall x m e l, P x m e l -> (x <= 0 \\/ 0 < x) -> Q", "? ? ? ? ? [?|?]"),
        ("forall (x : R) (Hx : 0 < x /\\ x < 2), Q x", "? [? ?]"),
        ("(exists n, f n = 0) -> exists m, g m = 0", "[? ?]"),
        # \/ binds looser than /\; nesting to the right, as Coq's connectives do.
        ("forall a b, a \\/ b /\\ c -> d", "? ? [?|[? ?]]"),
        ("A /\\ B /\\ C -> D", "[? [? ?]]"),
        ("(exists k j, x = k * j) -> True", "[? [? ?]]"),
        # Binders after an arrow, and an iff left whole.
        (
            "forall x y, (exists k, x = k * y) /\\ y <> 0 -> forall z, z = x -> True",
            "? ? [[? ?] ?] ? ?",
        ),
        ("(A <-> B) -> A /\\ B -> C", "? [? ?]"),
        # Nothing to take apart: a plain intros does the same.
        ("forall x, P x -> Q x", None),
        ("n + 0 = n", None),
        ("~ (A /\\ B) -> C", None),
        ("A /\\ B", None),  # the conclusion itself is not introduced
        # Not a plain binder list.
        ("forall '(a, b), a /\\ b -> True", None),
    ],
)
def test_intro_pattern(conclusion: str, pattern: str | None) -> None:
    assert intro_pattern(conclusion) == pattern


@requires_coq
def test_the_portfolio_intros_take_the_premises_apart(no_new_coq_processes: None) -> None:
    """The pattern the portfolio offers at a real root goal is one Coq accepts, and it
    leaves the parts as hypotheses and nothing else to introduce."""
    theorem = Theorem(
        "t",
        "Lemma t : forall x y : nat, (exists k, x = k * y) /\\ y <> 0 -> "
        "forall z, z = x \\/ z = y -> z = z.",
        "",
    )
    with CoqProver(CoqConfig()) as prover:
        session = prover.open(theorem)
        try:
            line = Suggestion("intros {intro_pattern}", -0.1)
            portfolio = PortfolioGenerator([*default_tactics("coq"), line], ssreflect=[])
            offered = [
                s.tactic
                for s in portfolio.generate(session.root.text, theorem, 200)
                if s.tactic.startswith("intros ")
            ]
            assert offered == ["intros ? ? [[? ?] ?] ? [?|?]"]
            after = session.apply(session.root, offered[0], 10.0)
            assert isinstance(after, ProofState), after
            assert "x = x0 * y" in after.text and "y <> 0" in after.text
            assert "z = x" in after.text and "/\\" not in after.text
        finally:
            session.close()
