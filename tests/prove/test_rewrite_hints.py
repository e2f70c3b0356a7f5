"""A project's ``Hint Rewrite`` databases reach its holes (``rewrite_databases``) and
the portfolio's ``autorewrite with {rewrite_db}``: an audit's hole needing `autorewrite
with alg`, a database of an earlier file, was left."""

from __future__ import annotations

from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.project.rewrite_hints import declared, hole_databases
from proofsearch.theorem import Theorem

A = (
    "Definition f (n : nat) := n + 0.\n"
    "(* Hint Rewrite in_a_comment : no. *)\n"
    "#[export] Hint Rewrite f_id : alg.\n"
    "Global Hint Rewrite <- plus_n_O using auto : alg other.\n"
    "#[local] Hint Rewrite f_id : mine.\n"
    "Local Hint Rewrite f_id : mine2.\n"
)


def test_the_databases_each_hole_may_use() -> None:
    assert declared(A) == [
        ("alg", False), ("alg", False), ("other", False), ("mine", True), ("mine2", True)
    ]  # fmt: skip
    b = "Require Import R.A.\nHint Rewrite g : late.\nLemma use : True.\nAdmitted.\n"
    texts = {"R.A": A, "R.B": b, "R.C": "Hint Rewrite h : unrelated.\n"}
    graph = {"R.A": [], "R.B": ["R.A"], "R.C": []}
    before = b.index("Lemma")
    assert hole_databases("R.B", before, texts, graph) == ["late", "alg", "other"]
    assert hole_databases("R.B", b.index("Hint"), texts, graph) == ["alg", "other"]
    assert hole_databases("R.A", len(A), texts, graph) == ["alg", "other", "mine", "mine2"]


def test_the_portfolio_offers_autorewrite_with_each() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"))
    goal = "n : nat\n============================\nf (f n) = n"
    given = Theorem("t", "Lemma t : True.", extra={"rewrite_databases": ["alg", "other"]})
    tactics = [s.tactic for s in portfolio.generate(goal, given, 200)]
    assert "autorewrite with alg" in tactics and "autorewrite with other" in tactics
    plain = [s.tactic for s in portfolio.generate(goal, Theorem("t", "Lemma t : True."), 200)]
    assert not any(t.startswith("autorewrite") for t in plain)
