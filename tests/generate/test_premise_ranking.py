"""Premise ranking: the lemma of the goal's shape first, aliases counted once, scores
that tell premises apart, and own-file premises named as they resolve at the theorem."""

from __future__ import annotations

from pathlib import Path

from tests.generate.knn_trace import goal, premise
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.retrieval.naming import open_modules, own_file_name
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem

ARITH = {
    "add_comm": "forall n m : nat, n + m = m + n",
    "add_assoc": "forall n m p : nat, n + (m + p) = n + m + p",
    "add_shuffle0": "forall n m p : nat, n + m + p = n + p + m",
    "add_shuffle1": "forall n m p q : nat, n + m + (p + q) = n + p + (m + q)",
    "add_shuffle2": "forall n m p q : nat, n + m + (p + q) = n + q + (m + p)",
    "add_shuffle3": "forall n m p : nat, n + (m + p) = m + (n + p)",
    "add_0_r": "forall n : nat, n + 0 = n",
    "mul_comm": "forall n m : nat, n * m = m * n",
    "Z_add_comm": "forall n m : Z, (n + m)%Z = (m + n)%Z",
}


def _trace(root: Path) -> Path:
    peano, npeano = "Lib.PeanoNat", "Lib.Numbers.NPeano"
    copies = {
        module: [premise(module, f"Nat.{k}", v, 10 + i) for i, (k, v) in enumerate(ARITH.items())]
        for module in (peano, npeano)
    }
    own = [
        premise("Lib.Own", "Nat.twice_comm", "forall a b : nat, a * 2 + b = b + a * 2", 20),
        premise("Lib.Own", "top_comm", "forall a b : nat, b + a * 3 = a * 3 + b", 40),
    ]
    return write_records(
        root,
        {peano: [], npeano: [peano], "Lib.Own": [npeano]},
        {},
        {**copies, "Lib.Own": own},
    )


def test_the_premise_of_the_goals_shape_comes_first_and_aliases_count_once(
    tmp_path: Path,
) -> None:
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "trace")))
    state = parse_first_goal(goal("n + m = m + n", ("n, m", "nat")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 8)
    assert found[0].name == "Lib.PeanoNat.Nat.add_comm"  # the shorter of two aliases
    assert found[0].coverage == 1.0
    statements = [p.statement for p in found]
    assert len(statements) == len(set(statements))
    # Scores tell the others apart (no cap making them all tie), all below the exact one.
    rest = [p.coverage for p in found[1:]]
    assert all(c < 1.0 for c in rest) and len(set(rest)) > 1
    assert rest == sorted(rest, reverse=True)
    # The same printed ``+`` on ``Z`` is another operator.
    assert "Lib.PeanoNat.Nat.Z_add_comm" not in [p.name for p in found[:6]]


def test_bm25_alone_ranks_long_statements_first(tmp_path: Path) -> None:
    """``ranking="bm25"`` (issue 19's ablation of the second pass): BM25's own order,
    where long statements that repeat the goal's symbols beat the goal's own shape; the
    premises tie in coverage, and copies still count once."""
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "trace")), ranking="bm25")
    state = parse_first_goal(goal("n + m = m + n", ("n, m", "nat")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 8)
    assert found[0].name != "Lib.PeanoNat.Nat.add_comm"
    assert {p.coverage for p in found} == {1.0}
    statements = [p.statement for p in found]
    assert len(statements) == len(set(statements))
    scores = [p.score for p in found]
    assert scores == sorted(scores, reverse=True)


def test_own_file_premises_are_named_as_they_resolve_at_the_theorem(tmp_path: Path) -> None:
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "trace")))
    state = parse_first_goal(goal("x * 2 + y = y + x * 2", ("x, y", "nat")).render())
    after_module = Theorem(
        "after",
        "Lemma after : True.",
        header="Module Nat.\nLemma twice_comm : True.\nEnd Nat.\n",
        extra={"module": "Lib.Own", "line": 30},
    )
    names = [p.name for p in retriever.retrieve(state, after_module, 4)]
    assert names[0] == "Nat.twice_comm"
    inside = Theorem(
        "inside",
        "Lemma inside : True.",
        header="Module Nat.\nLemma twice_comm : True.\n",
        extra={"module": "Lib.Own", "line": 30},
    )
    assert retriever.retrieve(state, inside, 4)[0].name == "twice_comm"
    # The theorem file's ``scopes`` field says the same without reading the header.
    fielded = Theorem(
        "f", "Lemma f : True.", extra={"module": "Lib.Own", "line": 30, "scopes": ["module Nat"]}
    )
    assert retriever.retrieve(state, fielded, 4)[0].name == "twice_comm"


def test_open_modules_follow_module_and_section_sentences() -> None:
    header = (
        "Require Import Arith.\nModule A.\nSection S.\nModule Import B.\nEnd B.\n"
        "Module C := B.\nModule Type T.\nEnd T.\nModule D.\n"
    )
    assert open_modules(Theorem("x", "L", header=header)) == ("A", "D")
    assert own_file_name("Lib.Own.A.D.foo", "Lib.Own", ("A",)) == "D.foo"
    assert own_file_name("Lib.Own.foo", "Lib.Own", ("A", "D")) == "foo"
    # A functor body's premise is named as the body names it (it was cut to `op_comm`).
    assert own_file_name("X.op_comm", "Lib.Own", ("F",)) == "X.op_comm"


ORDER = {
    # Many of the goal's symbols, but its conclusion is an equation: it cannot apply.
    "le_plus_eq": "forall n m : nat, n <= m -> n + (m - n) = m",
    "le_trans": "forall n m p : nat, n <= m -> m <= p -> n <= p",
    "succ_le_succ": "forall n m : nat, n <= m -> S n <= S m",
    "lt_le_incl": "forall n m : nat, n < m -> n <= m",
    "sub_add": "forall n m : nat, n <= m -> m - n + n = m",
    "mul_1_r": "forall n : nat, n * 1 = n",
}


def _order_trace(root: Path) -> Path:
    records = [premise("Lib.Order", k, v, 10 + i) for i, (k, v) in enumerate(ORDER.items())]
    return write_records(root, {"Lib.Order": []}, {}, {"Lib.Order": records})


def test_premises_for_apply_have_a_conclusion_that_may_unify_with_the_goal(
    tmp_path: Path,
) -> None:
    """``n <= m + (p - n)`` shares most symbols with ``le_plus_eq`` and ``sub_add``, but
    only a conclusion ``$ <= $`` can be applied: ``le_trans`` and ``lt_le_incl`` come first
    for ``apply``; ``succ_le_succ`` (``S $ <= S $``) does not fit the goal's left side."""
    retriever = PremiseRetriever(build_corpus(_order_trace(tmp_path / "trace")))
    state = parse_first_goal(goal("n <= m + (p - n)", ("n, m, p", "nat")).render())
    theorem = Theorem("t", "Lemma t : True.")
    found = retriever.retrieve_for(state, theorem, 6, uses=("any", "apply", "rewrite"))
    applying = [p.name.rsplit(".", 1)[-1] for p in found["apply"]]
    assert set(applying[:2]) == {"le_trans", "lt_le_incl"}
    assert applying.index("succ_le_succ") >= 2
    matching = [p.name.rsplit(".", 1)[-1] for p in found["any"]]
    assert set(matching[:2]) != {"le_trans", "lt_le_incl"}  # match alone ranks them lower
    # For rewriting, equations whose side's symbols all occur in the goal come first.
    rewriting = [p.name.rsplit(".", 1)[-1] for p in found["rewrite"]]
    assert set(rewriting[:2]) == {"le_plus_eq", "sub_add"}  # ``+`` and ``-`` occur
    assert "mul_1_r" not in rewriting[:2]  # nothing of ``n * 1`` occurs
    assert retriever.retrieve(state, theorem, 6, use="apply") == found["apply"]


def test_skeletons() -> None:
    from proofsearch.generate.knn.goals import tokens
    from proofsearch.generate.retrieval.skeleton import fits, rewrites, sides, skeleton

    def of(text: str, hidden: str = "n m p x") -> tuple[str | None, ...] | None:
        return skeleton(tokens(text), set(hidden.split()))

    assert of("S n <= m") == ("<=", "S", "$")
    assert of("(n + 0 = n)") == ("=", "+", "$")
    assert of("x > 0") == ("<", "0", "$")  # ``>`` read as the ``<`` it stands for
    assert of("Permutation n m") == ("Permutation",)
    assert of("p n m") is None  # a local head fits every goal: no skeleton
    assert fits(of("n <= m"), of("S n <= m"))
    assert not fits(of("S n <= S m"), of("S n <= m"))
    assert not fits(of("n < m"), of("n <= m"))
    assert fits(of("0 < x"), of("p > 0"))
    equation = sides(tokens("n + 0 = n"), {"n"})
    assert equation == (frozenset({"+", "0"}), frozenset())
    assert rewrites(equation, {"a", "+", "0", "="})
    assert not rewrites(equation, {"a", "+", "="})  # no ``0``: nothing to rewrite
    assert sides(tokens("n <= m"), {"n", "m"}) == ()
