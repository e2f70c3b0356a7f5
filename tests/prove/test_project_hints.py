"""A project's ``Hint Rewrite`` databases and setoid relations reach its holes
(``rewrite_databases``, ``setoid_relations``) and the portfolio's ``autorewrite with
{rewrite_db}`` and ``rewrite {rel_hyp}``: an audit's holes needing `autorewrite with
alg` (a database of an earlier file) and `rewrite H` with `H : eqmod3 x y` were left."""

from __future__ import annotations

from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.project.project_hints import declared, hole_names
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
    assert declared("rewrite_databases", A) == [
        ("alg", False), ("alg", False), ("other", False), ("mine", True), ("mine2", True)
    ]  # fmt: skip
    b = "Require Import R.A.\nHint Rewrite g : late.\nLemma use : True.\nAdmitted.\n"
    texts = {"R.A": A, "R.B": b, "R.C": "Hint Rewrite h : unrelated.\n"}
    graph = {"R.A": [], "R.B": ["R.A"], "R.C": []}
    before = b.index("Lemma")
    kind = "rewrite_databases"
    assert hole_names(kind, "R.B", before, texts, graph) == ["late", "alg", "other"]
    assert hole_names(kind, "R.B", b.index("Hint"), texts, graph) == ["alg", "other"]
    assert hole_names(kind, "R.A", len(A), texts, graph) == ["alg", "other", "mine", "mine2"]


def test_the_portfolio_offers_autorewrite_with_each() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"))
    goal = "n : nat\n============================\nf (f n) = n"
    given = Theorem("t", "Lemma t : True.", extra={"rewrite_databases": ["alg", "other"]})
    tactics = [s.tactic for s in portfolio.generate(goal, given, 200)]
    assert "autorewrite with alg" in tactics and "autorewrite with other" in tactics
    plain = [s.tactic for s in portfolio.generate(goal, Theorem("t", "Lemma t : True."), 200)]
    assert not any(t.startswith("autorewrite") for t in plain)


RELATIONS = (
    "Definition eqmod3 (a b : nat) : Prop := a mod 3 = b mod 3.\n"
    "#[export] Instance eqmod3_equiv : Equivalence eqmod3.\nAdmitted.\n"
    "Instance : PreOrder (@le_list nat).\nAdmitted.\n"
    "#[local] Instance loc : PER (fun a b : nat => a = b).\nAdmitted.\n"
    "Add Parametric Relation (A : Type) : (list A) (@same_len A) as same_len_rel.\n"
    "Instance pr : Proper (eqmod3 ==> eqmod3) S.\nAdmitted.\n"
)


def test_the_setoid_relations_each_hole_may_use() -> None:
    assert declared("setoid_relations", RELATIONS) == [
        ("eqmod3", False), ("le_list", False), ("same_len", False)
    ]  # fmt: skip


def test_the_portfolio_rewrites_along_them() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"))
    goal = (
        "x, y, z : nat\nH : eqmod3 x y\nE : x = z\nL : le x y\n"
        "============================\neqmod3 (x + z) (y + z)"
    )
    given = Theorem("t", "Lemma t : True.", extra={"setoid_relations": ["M.eqmod3"]})
    tactics = [s.tactic for s in portfolio.generate(goal, given, 300)]
    assert "rewrite H" in tactics and "rewrite <- H" in tactics
    assert "rewrite L" not in tactics  # `le`: not a relation the project declares
    plain = [s.tactic for s in portfolio.generate(goal, Theorem("t", "Lemma t : True."), 300)]
    assert "rewrite H" not in plain
