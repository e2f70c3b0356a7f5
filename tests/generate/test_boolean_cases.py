"""A boolean conclusion's atoms, and the portfolio's ``destruct {bools}; reflexivity``
proving identities with them in real Coq (the stdlib's ``Bool`` and a math-comp set
identity after ``apply/setP => x; rewrite !inE``)."""

from __future__ import annotations

import pytest

from proofsearch.env.base import Proved, TacticError
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.generate.boolean_cases import boolean_atoms, case_targets
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.theorem import Theorem

from ..libs.conftest import requires_coq, requires_mathcomp

SET_IDENTITY = (
    r"~~ ((x \in B) && (x \in C)) && (x \in A) = "
    r"(x \notin B) && (x \in A) || (x \notin C) && (x \in A)"
)


@pytest.mark.parametrize(
    ("conclusion", "atoms"),
    [
        (SET_IDENTITY, [r"x \in B", r"x \in C", r"x \in A"]),
        ("negb (a && b) = negb a || negb b", ["a", "b"]),
        ("xorb a (negb b) = negb (xorb a b)", ["a", "b"]),
        ("[&& a, b & c] = a && (b && c)", ["a", "b", "c"]),
        (r"[|| x \in A, b | c]", [r"x \in A", "b", "c"]),
        ("(m <= n) && (n <= m) = (m == n)", ["m <= n", "n <= m", "m == n"]),
        ("a && true = a", ["a"]),
        ("a ==> (b ==> a)", ["a", "b"]),
        # Not boolean identities, or not ones to split: no atoms.
        ("n + 0 = n", None),
        (r"x \in A", None),  # no connective
        ("f (a && b) = f (b && a)", None),  # the connective is under a function
        ("forall b, b || true = true", None),  # a binder
        ("if b then true else false = b", None),
        ("a = true -> a || b = true", None),  # a proposition's connective
        ("(a, b) = (b, a)", None),
        ("a && b && c && d && e && f = f && e && d && c && b && a", None),  # 2^6 cases
    ],
)
def test_atoms(conclusion: str, atoms: list[str] | None) -> None:
    assert boolean_atoms(conclusion) == atoms


def test_compound_atoms_are_parenthesised_for_destruct() -> None:
    assert case_targets(SET_IDENTITY) == r"(x \in B), (x \in C), (x \in A)"
    assert case_targets("negb (a && b) = negb a || negb b") == "a, b"
    assert case_targets("n + 0 = n") is None


def test_the_portfolio_offers_the_case_analysis_only_on_a_boolean_goal() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"), ssreflect=[])
    theorem = Theorem("t", "L", "")
    goal = "a, b : bool\n============================\nnegb (a && b) = negb a || negb b"
    tactics = [s.tactic for s in portfolio.generate(goal, theorem, 200)]
    assert "destruct a, b; reflexivity" in tactics
    other = "n : nat\n============================\nn + 0 = n"
    assert not [s for s in portfolio.generate(other, theorem, 200) if "; reflexivity" in s.tactic]


def _outcome(theorem: Theorem, steps: list[str]) -> object:
    """Apply ``steps`` in turn, then the portfolio's case analysis; its outcome."""
    with CoqProver(CoqConfig()) as prover:
        session = prover.open(theorem)
        try:
            node = session.root
            for step in steps:
                found = session.apply(node, step, 10.0)
                assert not isinstance(found, TacticError), (step, found)
                node = found  # type: ignore[assignment]
            portfolio = PortfolioGenerator(default_tactics("coq"))
            cases = [
                s.tactic
                for s in portfolio.generate(node.text, theorem, 200)
                if s.tactic.startswith("destruct") and "reflexivity" in s.tactic
            ]
            assert len(cases) == 1, cases
            return session.apply(node, cases[0], 10.0)
        finally:
            session.close()


@requires_coq
def test_a_bool_identity_is_proved_by_case_analysis(no_new_coq_processes: None) -> None:
    statement = "Lemma t (a b c : bool) : a && (b || c) = a && b || a && c."
    assert isinstance(_outcome(Theorem("t", statement, "Require Import Bool.\n"), []), Proved)
    wrong = "Lemma t (a b c : bool) : a && (b || c) = a && b || c."
    assert isinstance(_outcome(Theorem("t", wrong, "Require Import Bool.\n"), []), TacticError)


@requires_coq
@requires_mathcomp
def test_a_set_identity_is_proved_by_case_analysis_on_memberships(
    no_new_coq_processes: None,
) -> None:
    """math-comp's ``setDIr``, after ``apply/setP => x; rewrite !inE``: no lemma named."""
    header = "From mathcomp Require Import all_ssreflect finset.\n"
    statement = (
        "Lemma setDIr' (T : finType) (A B C : {set T}) : "
        "A :\\: (B :&: C) = (A :\\: B) :|: (A :\\: C)."
    )
    theorem = Theorem("setDIr'", statement, header)
    assert isinstance(_outcome(theorem, ["apply/setP => x; rewrite !inE"]), Proved)
