"""Statements printed without their notations match goals printed with them.

The statements below are as the stdlib trace recorded them for constants ``Include``
put in ``BinInt.Z`` and ``PeanoNat.Nat`` (``Search _ inside Z`` after ``End Z``); the
goals are as Coq prints the same terms under ``Z_scope``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, premise
from tests.generate.strength_trace import write_records

from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.goals import parse_first_goal, tokens
from proofsearch.generate.knn.notation import matching_tokens, short_name
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem


@pytest.mark.parametrize(
    ("printed", "with_notations"),
    [
        (
            "forall a b c : Z, b <> Z0 -> c <> Z0 -> Z.div (Z.mul a c) (Z.mul b c) = Z.div a b",
            "forall a b c : Z, b <> 0 -> c <> 0 -> a * c / (b * c) = a / b",
        ),
        (
            "forall n m p : Z, Z.add n m = p <-> m = Z.sub p n",
            "forall n m p : Z, n + m = p <-> m = p - n",
        ),
        (
            "forall a b q r : Z, Z.le Z0 r /\\ Z.lt r b \\/ Z.lt b r /\\ Z.le r Z0 -> "
            "a = Z.add (Z.mul b q) r -> q = Z.div a b",
            "forall a b q r : Z, 0 <= r /\\ r < b \\/ b < r /\\ r <= 0 -> "
            "a = b * q + r -> q = a / b",
        ),
        # Parentheses where Coq's levels need them, and only there.
        ("Z.mul (Z.add a b) c", "(a + b) * c"),
        ("Z.add (Z.mul a b) c", "a * b + c"),
        ("Z.sub a (Z.sub b c)", "a - (b - c)"),
        ("Z.sub (Z.sub a b) c", "a - b - c"),
        ("Z.pow (Z.pow a b) c", "(a ^ b) ^ c"),
        ("Z.add (f x) (Z.opp y)", "f x + - y"),
        # An application that is an argument stays one.
        ("f (Z.add a b) c", "f (a + b) c"),
        # Over-applied or partial: left as printed (but names shortened).
        ("Z.add a b c = d", "Z.add a b c = d"),
        ("map (Z.add a) l", "map (Z.add a) l"),
        ("forall n m : nat, Decidable.decidable (n <= m)", "forall n m : nat, decidable (n <= m)"),
        ("Coq.ZArith.BinInt.Z.abs (Nat.add n m)", "Z.abs (n + m)"),
    ],
)
def test_statements_read_as_goals_print_them(printed: str, with_notations: str) -> None:
    assert matching_tokens(printed) == tokens(with_notations)


def test_goals_printed_with_notations_are_left_as_they_are() -> None:
    printed = "forall x y : Z, x * y / (y * x) = (x + 1) mod y -> f (x - y) <= 0"
    assert matching_tokens(printed) == tokens(printed)


def test_names_keep_their_number_type() -> None:
    assert short_name("Coq.ZArith.BinInt.Z.add_comm") == "Z.add_comm"
    assert short_name("Coq.Logic.Decidable.decidable") == "decidable"
    assert short_name("BinNums.Z") == "Z"
    assert short_name("x") == "x"


def _trace(root: Path) -> Path:
    """BinInt's included lemmas as the trace prints them, and decoys printed with
    notations whose symbols overlap the goals'."""
    lib = "Lib.BinInt"
    premises = [
        premise(lib, "Z.div_mul_cancel_r",
                "forall a b c : Z, b <> Z0 -> c <> Z0 -> "
                "Z.div (Z.mul a c) (Z.mul b c) = Z.div a b", 10),
        premise(lib, "Z.add_move_l", "forall n m p : Z, Z.add n m = p <-> m = Z.sub p n", 11),
        premise(lib, "Z.le_decidable", "forall n m : Z, Decidable.decidable (Z.le n m)", 12),
        premise(lib, "Z.div_mul", "forall a b : Z, b <> 0 -> a * b / b = a", 13),
        premise(lib, "Z.mul_comm", "forall n m : Z, n * m = m * n", 14),
        premise(lib, "Z.div_le_mono", "forall a b c : Z, 0 < c -> a <= b -> a / c <= b / c", 15),
        premise(lib, "Z.sub_diag", "forall n : Z, n - n = 0", 16),
        premise(lib, "Z.add_sub_assoc", "forall n m p : Z, n + (m - p) = n + m - p", 17),
        premise(lib, "Z.le_refl", "forall n : Z, n <= n", 18),
        premise(lib, "dec_not", "forall A : Prop, decidable A -> decidable (~ A)", 19),
    ]  # fmt: skip
    return write_records(root, {lib: []}, {}, {lib: premises})


@pytest.mark.parametrize(
    ("conclusion", "hypotheses", "wanted"),
    [
        ("a * c / (b * c) = a / b", ("a, b, c", "Z"), "Lib.BinInt.Z.div_mul_cancel_r"),
        ("decidable (n <= m)", ("n, m", "Z"), "Lib.BinInt.Z.le_decidable"),
    ],
)
def test_a_premise_printed_without_notations_is_found_for_its_goal(
    tmp_path: Path, conclusion: str, hypotheses: tuple[str, str], wanted: str
) -> None:
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "trace")))
    state = parse_first_goal(goal(conclusion, hypotheses).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 3, use="apply")
    assert found[0].name == wanted
    assert found[0].coverage == 1.0  # the goal's shape, once both read alike


def test_a_rewrite_side_printed_without_notations_is_found(tmp_path: Path) -> None:
    retriever = PremiseRetriever(build_corpus(_trace(tmp_path / "trace")))
    state = parse_first_goal(goal("x + y = z", ("x, y, z", "Z")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 3, use="rewrite")
    assert found[0].name == "Lib.BinInt.Z.add_move_l"  # its side ``n + m`` is in the goal


@pytest.mark.parametrize(
    ("printed", "read"),
    [
        (
            "forall {V : zmodType}, left_id 0 +%R",
            "forall { V : zmodType } , forall x_ y_ z_ , 0 + x_ = x_",
        ),
        ("commutative addn", "forall x_ y_ z_ , x_ + y_ = y_ + x_"),
        ("associative addn", "forall x_ y_ z_ , x_ + ( y_ + z_ ) = x_ + y_ + z_"),
        ("left_id (0 : R) +%R", "forall x_ y_ z_ , 0 + x_ = x_"),
        (
            "forall R : ringType, right_distributive *%R +%R",
            "forall R : ringType , forall x_ y_ z_ , x_ * ( y_ + z_ ) = x_ * y_ + x_ * z_",
        ),
        ("cancel decode code", "forall x_ y_ z_ , code ( decode x_ ) = x_"),
        # A law among the premises is left as it is; the conclusion's is read.
        (
            "forall f, involutive f -> injective f",
            "forall f , involutive f -> forall x_ y_ z_ , f x_ = f y_ -> x_ = y_",
        ),
    ],
)
def test_a_law_stated_folded_reads_as_its_equation(printed: str, read: str) -> None:
    assert " ".join(matching_tokens(printed)) == read


def test_a_law_stated_folded_is_found_for_its_goal(tmp_path: Path) -> None:
    """``add0r : left_id 0 +%R`` shares no symbol with the goal ``0 + A = A`` as printed:
    an audit's matrix hole, ``by rewrite add0r``, stayed open at 20 s (audit 49)."""
    lib = "Lib.Ring"
    premises = [
        premise(lib, "add0r", "forall {V : zmodType}, left_id 0 +%R", 10),
        premise(lib, "addrC", "forall {V : zmodType}, commutative +%R", 11),
        premise(lib, "mulr1", "forall {R : ringType}, right_id 1 *%R", 12),
        premise(lib, "subr0", "forall {V : zmodType} (x : V), x - 0 = x", 13),
        premise(lib, "addr0_eq", "forall {V : zmodType} (x y : V), x + 0 = y -> x = y", 14),
    ]
    corpus = build_corpus(write_records(tmp_path / "t", {lib: []}, {}, {lib: premises}))
    retriever = PremiseRetriever(corpus)
    state = parse_first_goal(goal("0 + A = A", ("A", "'M[R]_n")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 2, use="rewrite")
    assert found[0].name == "Lib.Ring.add0r"
    state = parse_first_goal(goal("a + b = b + a", ("a, b", "V")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 2, use="apply")
    assert found[0].name == "Lib.Ring.addrC"


@pytest.mark.parametrize(
    ("printed", "read"),
    [
        # ssreflect's postfix notations: one symbol after the name (``n.`` lost its ``n``).
        ("m.+1 + n.-1 = n.*2", "m .+1 + n .-1 = n .*2"),
        ("(m + n).+1 = m.+2", "( m + n ) .+1 = m .+2"),
        # Big operators as the ``\big[op/idx]_`` that bigop's laws are stated with.
        (r"\sum_(i < n) F i", r"\ big [ + / 0 ] _ ( i < n ) F i"),
        (r"\prod_(i <- r | P i) F i", r"\ big [ * / 1 ] _ ( i <- r | P i ) F i"),
        (r"\big[op/idx]_(i < n) F i", r"\ big [ op / idx ] _ ( i < n ) F i"),
    ],
)
def test_ssreflect_notations_read_as_their_terms(printed: str, read: str) -> None:
    assert " ".join(matching_tokens(printed)) == read


def test_a_sums_goal_finds_the_big_operator_law(tmp_path: Path) -> None:
    """``\\sum_(i < n.+1) F i = \\sum_(i < n) F i + F n`` is ``by rewrite big_ord_recr``
    (audit 49's ``sum_recr``), but bigop states its laws with ``\\big[op/idx]_``, which
    shares no symbol with ``\\sum_`` as printed, and ``n.+1`` read as ``+ 1``."""
    lib = "Lib.Big"
    premises = [
        premise(
            lib, "big_ord_recr",
            r"forall (R : Type) (idx : R) (op : Monoid.law idx) (n : nat) (F : 'I_n.+1 -> R),"
            r" \big[op/idx]_(i < n.+1) F i ="
            r" op (\big[op/idx]_(i < n) F (widen_ord (leqnSn n) i)) (F ord_max)",
            10,
        ),
        premise(lib, "addn1", "forall n : nat, n + 1 = n.+1", 11),
        premise(lib, "addnS", "forall m n : nat, m + n.+1 = (m + n).+1", 12),
        premise(lib, "sum_nat_const", r"forall n c, \sum_(i < n) c = n * c", 13),
    ]  # fmt: skip
    corpus = build_corpus(write_records(tmp_path / "t", {lib: []}, {}, {lib: premises}))
    retriever = PremiseRetriever(corpus)
    text = r"\sum_(i < n.+1) F i = \sum_(i < n) F i + F n"
    state = parse_first_goal(goal(text, ("n", "nat"), ("F", "nat -> nat")).render())
    found = retriever.retrieve(state, Theorem("t", "Lemma t : True."), 2, use="rewrite")
    # (``sum_nat_const`` shares the sum and its range too: either may come first.)
    assert "Lib.Big.big_ord_recr" in [p.name for p in found], [p.name for p in found]
