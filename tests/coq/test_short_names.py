"""Proofs with premises by their shortest names: Coq's ``Locate``, then a re-check."""

from __future__ import annotations

import pytest

from proofsearch.env.coq.short_names import (
    parse_shorter,
    qualified_names,
    rename,
    shorten_proof,
    spellings,
)
from proofsearch.env.coq.version import binary_version

#: The standard library's and the prelude's logical names for the Coq that runs.
ROCQ = binary_version("coqc").rocq
STDLIB = "Stdlib" if ROCQ else "Coq"
INIT = "Corelib" if ROCQ else "Coq"
ARITH = "From Stdlib Require Import Arith." if ROCQ else "Require Import Arith."
#: What ``coqc`` 8.16 prints after a header that printed something, for ``Locate`` of
#: a full path (a wide printing width: one line), a name already shortest, and a
#: notation's full path (a narrow width: two lines), each followed by the marker's.
LOCATE = """\
n + 0 = n
     : Prop
No object of basename proofsearch_end_of_answer
Constant Coq.Arith.PeanoNat.Nat.add_comm {ONE_LINE}
No object of basename proofsearch_end_of_answer
Constant Coq.Init.Logic.eq_sym
No object of basename proofsearch_end_of_answer
Notation Coq.Arith.Plus.plus_comm
  (shorter name to refer to it in current context is plus_comm)
No object of basename proofsearch_end_of_answer
""".format(ONE_LINE="(shorter name to refer to it in current context is Nat.add_comm)")


def test_names_found_and_replaced_whole() -> None:
    proof = ["rewrite H.1, Coq.Init.Logic.eq_sym", "apply: RegLang.misc.card_leq_inj => x'"]
    assert qualified_names(proof) == ["Coq.Init.Logic.eq_sym", "RegLang.misc.card_leq_inj"]
    asked = ["Coq.Arith.PeanoNat.Nat.add_comm", "eq_sym", "Coq.Arith.Plus.plus_comm"]
    assert parse_shorter(LOCATE, asked) == {
        "Coq.Arith.PeanoNat.Nat.add_comm": "Nat.add_comm",
        "Coq.Arith.Plus.plus_comm": "plus_comm",
    }
    # Answers are matched to names by position (an alias prints another path).
    assert parse_shorter(LOCATE, ["A.b", "C.d"]) == {"A.b": "Nat.add_comm"}
    names = {"Coq.Init.Logic.eq_sym": "eq_sym"}
    tactics = ["apply Coq.Init.Logic.eq_sym", "apply Coq.Init.Logic.eq_sym_involutive"]
    assert rename(tactics, names) == ("apply eq_sym", "apply Coq.Init.Logic.eq_sym_involutive")
    assert rename(["apply A.Coq.Init.Logic.eq_sym"], names) == ("apply A.Coq.Init.Logic.eq_sym",)
    coq_8_path = "Coq.Init.Logic.eq_sym"
    assert spellings(coq_8_path) == [coq_8_path, "Stdlib.Init.Logic.eq_sym"]
    assert spellings("RegLang.misc.card_leq_inj") == ["RegLang.misc.card_leq_inj"]
    assert spellings("Stdlib.Init.Logic.eq_sym") == ["Stdlib.Init.Logic.eq_sym", coq_8_path]


@pytest.mark.parametrize(
    ("header", "statement", "proof", "expected"),
    [
        pytest.param(
            ARITH,
            "Lemma t (n m : nat) : n + m = m + n.",
            [f"apply {STDLIB}.Arith.PeanoNat.Nat.add_comm"],
            ["apply Nat.add_comm"],
            id="imported",
        ),
        pytest.param(
            ARITH.replace(" Import", ""),  # loaded, not imported: the module path stays
            "Lemma t (n m : nat) : n + m = m + n.",
            [f"apply {STDLIB}.Arith.PeanoNat.Nat.add_comm"],
            ["apply PeanoNat.Nat.add_comm"],
            id="required-only",
        ),
        pytest.param(
            ARITH,
            "Lemma t (n m : nat) : n + m = m + n.",
            # Coq 8's path: Rocq 9 runs it (a warning: replaced by Stdlib.…), and its
            # Locate finds no object of that suffix; the Stdlib spelling is asked too.
            ["apply Coq.Arith.PeanoNat.Nat.add_comm"],
            ["apply Nat.add_comm"],
            id="coq-8-path",
        ),
        pytest.param(
            "Section S.\n  Variable k : nat.",
            "Lemma t : k = k -> k = k.",
            ["intros H", f"apply {INIT}.Init.Logic.eq_sym", "exact H"],
            ["intros H", "apply eq_sym", "exact H"],
            id="inside-a-section",
        ),
        pytest.param(
            "",
            "Lemma t (eq_sym : nat) : 1 = 2 -> 2 = 1.",  # a variable shadows the short name
            ["intros H", f"apply {INIT}.Init.Logic.eq_sym", "exact H"],
            ["intros H", f"apply {INIT}.Init.Logic.eq_sym", "exact H"],
            id="shadowed-stays",
        ),
    ],
)
def test_shortened_only_when_it_checks(
    header: str, statement: str, proof: list[str], expected: list[str]
) -> None:
    footer = "End S." if header.startswith("Section") else ""
    shortened = shorten_proof(header, statement, proof, footer=footer, name="t")
    assert list(shortened.proof) == expected
    assert bool(shortened.renamed) == (expected != proof)


def test_never_shortened_to_the_lemmas_own_name() -> None:
    """``Lemma map_map … apply map_map.`` compiled (the lemma is not defined yet) but read
    as a proof of itself (an audit's project redefined ``map``)."""
    statement = (
        "Lemma map_map {A B C} (f : A -> B) (g : B -> C) l :\n"
        "  map g (map f l) = map (fun x => g (f x)) l."
    )
    proof = [f"apply {STDLIB}.Lists.List.map_map"]
    shortened = shorten_proof("Require Import List.", statement, proof, name="M.map_map")
    assert list(shortened.proof) == proof
    # Where the lemma really is `M.map_map`, one more component of the path is written
    # (an audit's `is_lim_const` hole got `Coquelicot.Continuity.is_lim_const`).
    shortened = shorten_proof(
        "Require Import List.\nModule M.", statement, proof, name="M.map_map", footer="End M."
    )
    assert list(shortened.proof) == ["apply List.map_map"]
