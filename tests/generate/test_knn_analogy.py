"""Analogous names (generate/knn/analogy.py): a neighbour lemma's step with the edit from
its name to the theorem's made to the names in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.knn_trace import goal, premise, step
from tests.generate.strength_trace import write_records

from proofsearch.env.registry import make_prover
from proofsearch.generate.knn.analogy import NameEdit, analogous, name_edit
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.registry import check_options
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem


def test_the_edit_between_two_names_of_one_family() -> None:
    # The edit is by characters: "us" is common to both.
    assert name_edit("ex_filterdiff_plus", "ex_filterdiff_minus") == NameEdit("pl", "min", False)
    assert name_edit("gcdnCA", "lcmnCA") == NameEdit("gcd", "lcm", False)
    assert name_edit("ltW_homo", "ltW_homo_in") == NameEdit("", "_in", True)
    assert name_edit("exchange_big_nat", "exchange_big") == NameEdit("_nat", "", False)
    assert name_edit("contraPlt", "comparable_contraPlt") is None  # edit longer than 8
    assert name_edit("lt_homo", "lt_W_homo") is None  # an insertion mid-name: where else?
    assert name_edit("add_comm", "add_comm") is None
    assert name_edit("F2R_opp", "cexp_abs") is None  # not one family


def test_a_name_changes_only_where_its_edited_form_exists() -> None:
    exists = {"filterdiff_minus", "Nat.compare_gt_iff", "homoW_in"}.__contains__
    plus_minus = NameEdit("plus", "minus", False)
    assert analogous("eexists. by apply filterdiff_plus.", plus_minus, exists) == (
        "eexists. by apply filterdiff_minus."
    )
    assert analogous("rewrite plus_comm.", plus_minus, exists) is None  # no minus_comm
    lt_gt = NameEdit("lt", "gt", False)
    assert analogous("apply Nat.compare_lt_iff.", lt_gt, exists) == "apply Nat.compare_gt_iff."
    assert analogous("exact: homoW.", NameEdit("", "_in", True), exists) == "exact: homoW_in."


#: The recorded state: ``Lib.A.shift_plus``'s goal, proved by its helper.
PLUS_GOAL = goal("forall n : nat, shift n + 0 = shift n")
MINUS_GOAL = "============================\nforall n : nat, shift n - 0 = shift n"


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``Lib.A``: ``helper_plus`` (line 5), ``shift_plus`` (line 10, proved by
    ``apply helper_plus.``), ``helper_minus`` (line 12), ``helper_times`` (line 90, after
    the theorems asked about); ``Lib.B`` (not required by ``Lib.A``): ``helper_div``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    statement = "forall n : nat, shift n + 0 = shift n"
    yield write_records(
        tmp_path / "trace",
        {"Lib.A": [], "Lib.B": []},
        {"Lib.A": [step("Lib.A", "shift_plus", 10, 0, PLUS_GOAL, "apply helper_plus.")]},
        {
            "Lib.A": [
                premise("Lib.A", "helper_plus", statement, 5),
                premise("Lib.A", "shift_plus", statement, 10),
                premise("Lib.A", "helper_minus", statement, 12),
                premise("Lib.A", "helper_times", statement, 90),
            ],
            "Lib.B": [premise("Lib.B", "helper_div", statement, 3)],
        },
    )


def _suggested(trace: Path, name: str, analogies: bool = True) -> list[str]:
    knn = KnnGenerator(build_corpus(trace), analogies=analogies)
    theorem = Theorem(f"A.v:{name}", "", extra={"module": "Lib.A", "line": 40})
    return [s.tactic for s in knn.generate(MINUS_GOAL, theorem, 16)]


def test_knn_offers_the_neighbour_s_step_with_the_theorem_s_variant_names(trace: Path) -> None:
    assert _suggested(trace, "shift_minus") == ["apply helper_plus", "apply helper_minus"]
    assert _suggested(trace, "shift_minus", analogies=False) == ["apply helper_plus"]
    # Never a name the theorem may not see: later in its file, or of an unrequired module.
    assert _suggested(trace, "shift_times") == ["apply helper_plus"]
    assert _suggested(trace, "shift_div") == ["apply helper_plus"]


def test_a_learned_proof_serves_its_analogue_too(tmp_path: Path, trace: Path) -> None:
    """No recorded steps: the neighbour is the proof of ``shift_plus`` found in the run."""
    (tmp_path / "trace" / "files" / "Lib.A.steps.jsonl").write_text("")
    knn = KnnGenerator(build_corpus(trace))
    plus = Theorem("A.v:shift_plus", "", extra={"module": "Lib.A", "line": 20})
    knn.learn(plus, [(PLUS_GOAL.render(), "apply helper_plus.")])
    minus = Theorem("A.v:shift_minus", "", extra={"module": "Lib.A", "line": 40})
    suggested = [s.tactic for s in knn.generate(MINUS_GOAL, minus, 16)]
    assert suggested == ["apply helper_plus", "apply helper_minus"]


HEADER = (
    "Definition shift (n : nat) := S n.\n"
    "Lemma helper_plus : forall n : nat, shift n + 0 = shift n.\n"
    "Proof. intros; apply eq_sym, plus_n_O. Qed.\n"
    "Lemma helper_minus : forall n : nat, shift n - 0 = shift n.\n"
    "Proof. intros n; destruct n; reflexivity. Qed.\n"
)


def test_a_search_proves_a_lemma_through_its_neighbour_s_analogue(
    trace: Path, no_new_coq_processes: None
) -> None:
    """knn alone, on a trace whose only step is ``shift_plus``'s: the analogue is the
    only route to ``shift_minus``."""
    theorem = Theorem(
        "A.v:shift_minus",
        "Lemma shift_minus : forall n : nat, shift n - 0 = shift n.",
        HEADER,
        {"module": "Lib.A", "line": 40},
    )
    prover = make_prover("coq", {})
    config = SearchConfig(timeout=30, num_sampled_tactics=8)
    try:
        on, off = (
            BestFirstSearchProver(
                prover, KnnGenerator(build_corpus(trace), analogies=flag), config
            ).search(theorem)
            for flag in (True, False)
        )
    finally:
        prover.close()
    assert on.status is Status.PROVED and on.checked and on.proof == ["apply helper_minus"]
    assert off.status is not Status.PROVED


def test_the_option_is_checked() -> None:
    with pytest.raises(ValueError, match="analogies=yes"):
        check_options("knn-portfolio", {"analogies": "yes"})
    check_options("knn", {"analogies": False})
