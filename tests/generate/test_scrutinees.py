"""The terms a conclusion's ``match``/``if`` inspects, and a portfolio line ``destruct
{scrutinee} eqn:?`` (a template for tactics files; not in the default list, measured in
docs/generators.md) proving, in real Coq, a lemma whose only route is that case split."""

from __future__ import annotations

import pytest

from proofsearch.env.registry import make_prover
from proofsearch.generate.base import Suggestion
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.generate.scrutinees import scrutinees
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem

from ..libs.conftest import requires_coq


@pytest.mark.parametrize(
    ("conclusion", "terms"),
    [
        ("match x ?= y with Lt => y | _ => x end >= x", ["(x ?= y)"]),
        ("(if Rle_bool x y then x else y) <= z", ["(Rle_bool x y)"]),
        ("(if x == y then a else b) = c", ["(x == y)"]),
        ("match l with nil => 0 | a :: l' => 1 end = length l", ["l"]),
        ("match f (g x) (h y) as p return P p with (a, b) => a end = 1", ["(f (g x) (h y))"]),
        ("(if x is Some y then y else 0) = 0", ["x"]),
        # Outermost first, each once.
        (
            "(if b then match f n with 0 => 1 | S k => k end else 0) = (if b then 1 else 0)",
            ["b", "(f n)"],
        ),
        # A bound name cannot be destructed where the tactic runs.
        ("forall n, match n with 0 => true | S m => false end = true", []),
        ("match n with 0 => 0 | S m => match m with 0 => 1 | _ => 2 end end = n", ["n"]),
        ("(fun k => if k =? 0 then 1 else k) n = 1", []),
        # Nothing inspected, or brackets that do not close before the keyword.
        ("n + 0 = n", []),
        ("iff_refl (if_then = x)", []),
    ],
)
def test_scrutinees(conclusion: str, terms: list[str]) -> None:
    assert scrutinees(conclusion) == terms


#: The line a user's tactics file would hold (``--tactics-file``).
CASE_SPLIT = Suggestion("destruct {scrutinee} eqn:?", -0.8)


def _portfolio(*extra: Suggestion) -> PortfolioGenerator:
    return PortfolioGenerator([*default_tactics("coq"), *extra], ssreflect=[])


def test_the_template_destructs_each_scrutinee_with_an_equation() -> None:
    portfolio = _portfolio(CASE_SPLIT)
    goal = "x, y : Z\n============================\nmatch x ?= y with Lt => y | _ => x end >= x"
    tactics = [s.tactic for s in portfolio.generate(goal, Theorem("t", "L", ""), 200)]
    assert "destruct (x ?= y) eqn:?" in tactics
    plain = "n : nat\n============================\nn + 0 = n"
    assert not [
        s for s in portfolio.generate(plain, Theorem("t", "L", ""), 200) if "eqn:" in s.tactic
    ]


@requires_coq
def test_a_case_split_on_an_opaque_term_is_found(no_new_coq_processes: None) -> None:
    """``f`` is opaque (its body ends with ``Qed``; ``Opaque f`` would still let
    ``reflexivity`` compute it): nothing computes ``match f n with …``, no variable's
    case split reaches it, and ``lia`` cannot see through it; only ``destruct (f n)``
    does: the default portfolio fails, the one with the template proves it."""
    theorem = Theorem(
        "t",
        "Lemma t (n : nat) : (match f n with 0 => 1 | S k => S k end) > 0.",
        "Require Import Lia.\nDefinition f : nat -> nat.\nProof. exact (fun n => n * n). Qed.\n",
    )
    prover = make_prover("coq", {})
    config = SearchConfig(timeout=30, num_sampled_tactics=64)
    try:
        without = BestFirstSearchProver(prover, _portfolio(), config).search(theorem)
        found = BestFirstSearchProver(prover, _portfolio(CASE_SPLIT), config).search(theorem)
    finally:
        prover.close()
    assert without.status is not Status.PROVED, without
    assert found.status == Status.PROVED, found
    assert found.proof is not None and "destruct (f n) eqn:?" in found.proof
