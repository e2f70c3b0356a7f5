"""A library's own tactics are offered where the header loads the library (audit 44:
``interval`` and ``gappa`` were never tried unless the project's proofs already used
them). Real Coq with Coquelicot where it is installed (``auto_derive``)."""

from __future__ import annotations

import pytest

from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.version import coq_where
from proofsearch.generate.library_tactics import library_tactics, loaded_libraries
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

HEADER = "Require Import Reals.\nFrom Coquelicot Require Import Coquelicot.\nOpen Scope R_scope."


def test_which_headers_load_which_library() -> None:
    assert loaded_libraries("From Interval Require Import Tactic.") == ["Interval"]
    assert loaded_libraries("Require Import Interval.Tactic Gappa.Gappa_tactic.") == [
        "Interval", "Gappa",
    ]  # fmt: skip
    assert loaded_libraries(HEADER) == ["Coquelicot"]
    # A comment, a module merely named like one, or no import: nothing.
    assert loaded_libraries("(* From Gappa Require Import Gappa_tactic. *)") == []
    assert loaded_libraries("Require Import MyInterval.Tactic.") == []
    assert loaded_libraries("Definition Interval := nat.") == []
    tactics = [s.tactic for s in library_tactics("From Interval Require Import Tactic.")]
    assert tactics[0] == "interval" and "interval with (i_taylor {var})" in tactics


def test_the_portfolio_offers_them_only_there() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"))
    goals = "x : R\n============================\n-1 <= sin x <= 1"
    plain = Theorem("t", "Lemma t : True.", "Require Import Reals.")
    with_interval = Theorem("t", "Lemma t : True.", "From Interval Require Import Tactic.")
    assert "interval" not in {s.tactic for s in portfolio.generate(goals, plain, 200)}
    offered = {s.tactic for s in portfolio.generate(goals, with_interval, 200)}
    assert {"interval", "interval with (i_taylor x)"} <= offered
    off = PortfolioGenerator(default_tactics("coq"), libraries=False)
    assert "interval" not in {s.tactic for s in off.generate(goals, with_interval, 200)}


def proved_only_with_the_librarys_tactics(theorem: Theorem) -> list[str]:
    """The checked proof the portfolio finds with the library's tactics, after a search
    without them that finds none (real Coq)."""
    proof: list[str] = []
    with CoqProver(CoqConfig(tactic_timeout=5)) as prover:
        for libraries in (False, True):
            portfolio = PortfolioGenerator(default_tactics("coq"), libraries=libraries)
            config = SearchConfig(timeout=30, max_expansions=40)
            result = BestFirstSearchProver(prover, portfolio, config).search(theorem)
            assert (result.status is Status.PROVED) == libraries, (libraries, result.error)
            assert result.checked or not libraries
            proof = list(result.proof or [])
    return proof


@pytest.mark.skipif(
    not (coq_where() / "user-contrib" / "Coquelicot").is_dir(),
    reason="Coquelicot is not installed (Debian: libcoq-coquelicot)",
)
def test_a_derivative_goal_is_proved_with_coquelicots_tactic() -> None:
    theorem = Theorem(
        "ex_d", "Lemma ex_d : forall x, ex_derive (fun x => x * x + 1) x.", HEADER,
        extra={"any_axiom": True},  # the Reals' own axioms
    )  # fmt: skip
    proof = proved_only_with_the_librarys_tactics(theorem)
    assert any("auto_derive" in step for step in proof), proof


def test_equations_tactics_name_the_goals_functions() -> None:
    """Equations' ``simp f`` and ``funelim (f x)`` name a function of the goal (audit 47:
    ``half n <= n`` stayed open; its proof is ``funelim (half n); simp half; lia``)."""
    from proofsearch.generate.applications import applications, heads

    assert applications("half n <= n") == ["half n"]
    calls = applications("size (shift c t) = size t")
    assert calls == ["size (shift c t)", "shift c t", "size t"]
    assert heads(calls) == ["size", "shift"]
    # Constructors, bound names and arguments are no applications of their own.
    assert applications("S (double n) = plus n (S n)") == ["double n", "plus n (S n)"]
    assert applications("forall x, f x = g x") == []
    assert applications("subst k s t = t") == ["subst k s t"]
    portfolio = PortfolioGenerator(default_tactics("coq"))
    goals = "n : nat\n============================\nhalf n <= n"
    plain = Theorem("t", "Lemma t : True.", "Require Import Arith.")
    loaded = Theorem("t", "Lemma t : True.", "From Equations Require Import Equations.")
    assert "simp half" not in {s.tactic for s in portfolio.generate(goals, plain, 300)}
    offered = {s.tactic for s in portfolio.generate(goals, loaded, 300)}
    assert {"simp half", "funelim (half n); simp half", "funelim (half n)"} <= offered


EQUATIONS = """From Equations Require Import Equations.
Require Import Arith Lia.
Equations half (n : nat) : nat :=
  half 0 := 0;
  half 1 := 0;
  half (S (S n)) := S (half n)."""


@pytest.mark.skipif(
    not (coq_where() / "user-contrib" / "Equations").is_dir(),
    reason="Equations is not installed (Debian: libcoq-equations)",
)
def test_a_lemma_about_an_equations_function_is_proved_along_its_definition() -> None:
    theorem = Theorem("half_le", "Lemma half_le n : half n <= n.", EQUATIONS)
    proof = proved_only_with_the_librarys_tactics(theorem)
    assert any("funelim (half n)" in step for step in proof), proof
