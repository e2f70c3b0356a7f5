"""Kernel-level cheats on real Coq: each is refused, and by the layer we expect.

The layers, in order: the tactic guard; Coq running the tactic; the goal lists (a state
with shelved or given-up goals is not a proof); the final ``Qed``; and the from-scratch
re-check (``coqc`` + ``Print Assumptions``). A cheat refused by a later layer than
expected means an earlier one has a gap; by an earlier one, that the test no longer
tests the later one.
"""

from __future__ import annotations

import pytest

from proofsearch.env.base import ProofState, Proved, TacticError, TacticTimeout
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.guard import TacticRejected, check_tactic
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.coq.test_guard import CHEATS

FALSE = Theorem("false", "Theorem one_is_two : 1 = 2.", "")
FALSE_FORALL = Theorem("false_forall", "Theorem all_zero : forall n : nat, n = 0.", "")
FALSE_EXISTS = Theorem("false_exists", "Theorem succ_fixed : exists n : nat, S n = n.", "")
#: ``proof_admitted`` exists only where this is loaded: without it, ``case
#: proof_admitted`` is an unknown name and tests nothing.
ADMIT_AXIOM = Theorem(
    "admit_axiom", "Theorem one_is_two : 1 = 2.", "Require Import Coq.Compat.AdmitAxiom."
)
HEADER_AXIOM = Theorem("header_axiom", "Theorem one_is_two : 1 = 2.", "Axiom cheat : 1 = 2.")
#: ssreflect's tactic language (Coq's own copy: no math-comp needed).
SSR = "From Coq Require Import ssreflect ssrbool."
SSR_FALSE = Theorem("ssr_false", "Theorem one_is_two : 1 = 2.", SSR)
SSR_FORALL = Theorem("ssr_forall", "Theorem all_zero : forall n : nat, n = 0.", SSR)
SSR_ADMIT = Theorem(
    "ssr_admit", "Theorem one_is_two : 1 = 2.", SSR + "\nRequire Import Coq.Compat.AdmitAxiom."
)
SSR_ADMIT_IMP = Theorem(
    "ssr_admit_imp", "Theorem imp : True -> 1 = 2.", SSR + "\nRequire Import Coq.Compat.AdmitAxiom."
)

#: (theorem, cheat, the layer that must refuse it)
KERNEL_CHEATS = [
    (FALSE, "exact_no_check (eq_refl 1)", "qed"),
    (FALSE, "change_no_check (1 = 1); reflexivity", "qed"),
    (FALSE, "vm_cast_no_check (eq_refl 1)", "qed"),
    (FALSE_FORALL, "intros; exact_no_check (eq_refl 0)", "qed"),
    (FALSE_FORALL, "fix f 1; exact f", "qed"),
    (FALSE_FORALL, "intro n; revert n; fix f 1; exact f", "qed"),
    (FALSE, "exfalso; exact (fix f (n : nat) : False := f n) 0", "tactic"),
    (FALSE_FORALL, "intros; exfalso; exact (fix f (n : nat) : False := f n) n", "tactic"),
    (FALSE, "abstract (exact_no_check (eq_refl 1))", "tactic"),
    (FALSE, "shelve", "goals left"),
    (FALSE, "clear; exfalso; shelve", "goals left"),
    (FALSE_EXISTS, "eexists; shelve", "goals left"),
    (FALSE, "give_up", "guard"),
    (FALSE, "Unshelve", "guard"),
    (FALSE, "exact_no_check (eq_refl 1). Qed", "guard"),
    (ADMIT_AXIOM, "case proof_admitted", "re-check"),
    (HEADER_AXIOM, "exact cheat", "re-check"),
    (FALSE, "exact (I <<: False)", "guard"),
    (FALSE, "exact (eq_refl 1 <<: 1 = 2)", "guard"),
]

#: The same cheats in ssreflect's tactic language, and a few of its own.
SSR_CHEATS = [
    (SSR_FALSE, "by admit", "guard"),
    (SSR_FALSE, "have h : False by admit", "guard"),
    (SSR_FALSE, "by apply: (I <<: False)", "guard"),
    (SSR_FALSE, "exact/(I <<: False)", "guard"),
    (SSR_FALSE, "case: (native_compute)", "guard"),
    (SSR_FALSE, "case: give_up", "guard"),
    (SSR_FALSE, "move=> //. Qed", "guard"),
    (SSR_FALSE, "by []. Qed", "guard"),
    (SSR_FALSE, "done. Admitted", "guard"),
    (SSR_FALSE, "move=> Qed", "guard"),
    (SSR_FALSE, "by move=> h; apply/Admitted", "guard"),
    (SSR_FALSE, "exact: (I <: False)", "tactic"),
    (SSR_FALSE, "apply: (fix f (n : nat) : 1 = 2 := f n) 0", "tactic"),
    (SSR_FALSE, "abstract: exact_no_check (eq_refl 1)", "tactic"),
    (SSR_FALSE, "by move=> [] ; shelve", "tactic"),
    (SSR_FALSE, "have: False by shelve", "goals left"),
    (SSR_FALSE, "by do ! shelve", "goals left"),
    (SSR_FORALL, "move=> n; exact_no_check (eq_refl 0)", "qed"),
    (SSR_FORALL, "elim=> [|n IHn] //; exact_no_check IHn", "qed"),
    (SSR_FORALL, "move=> n; case: n => [|n] //; exact_no_check (eq_refl 0)", "qed"),
    (SSR_FALSE, "by vm_cast_no_check (eq_refl 1)", "qed"),
    (SSR_FALSE, "by change_no_check (1 = 1)", "qed"),
    (SSR_FALSE, "unshelve (by exact_no_check (eq_refl 1))", "qed"),
    (SSR_ADMIT_IMP, "move=> _; exact: (False_ind _ proof_admitted)", "re-check"),
    (SSR_ADMIT_IMP, "move=> _; case: proof_admitted", "re-check"),
    (SSR_ADMIT, "by case: (proof_admitted : False)", "re-check"),
    (SSR_ADMIT, "by apply: False_ind; exact: proof_admitted", "re-check"),
]


def refusing_layer(prover: CoqProver, theorem: Theorem, tactic: str) -> str:
    """Which layer refuses ``tactic`` as a whole proof of ``theorem`` ("" if none does)."""
    try:
        check_tactic(tactic)
    except TacticRejected:
        return "guard"
    with prover.open(theorem) as session:
        outcome = session.apply(session.root, tactic)
    if isinstance(outcome, ProofState):
        return "goals left"
    if isinstance(outcome, TacticError | TacticTimeout):
        return "qed" if "Qed" in outcome.message else "tactic"
    assert isinstance(outcome, Proved)
    return "" if prover.check(theorem, list(outcome.path)).ok else "re-check"


@pytest.fixture(scope="module")
def prover() -> CoqProver:
    with CoqProver(CoqConfig(tactic_timeout=2)) as instance:
        yield instance  # type: ignore[misc]


@pytest.mark.parametrize(("theorem", "tactic", "layer"), KERNEL_CHEATS + SSR_CHEATS)
def test_each_cheat_is_refused_by_the_expected_layer(
    prover: CoqProver, theorem: Theorem, tactic: str, layer: str
) -> None:
    assert refusing_layer(prover, theorem, tactic) == layer


def test_the_layers_tell_a_real_proof_apart(prover: CoqProver) -> None:
    """The classifier itself: a true statement is refused by no layer."""
    true = Theorem("true", "Theorem one_is_one : 1 = 1.", "Require Import Coq.Compat.AdmitAxiom.")
    assert refusing_layer(prover, true, "reflexivity") == ""


class Cheater(TacticGenerator):
    def __init__(self, tactics: list[str]) -> None:
        self.tactics = tactics
        self.asked = 0

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        self.asked += 1
        return [Suggestion(t, -0.1) for t in self.tactics][:n]


@pytest.mark.parametrize("theorem", [FALSE, FALSE_FORALL, FALSE_EXISTS])
def test_cheating_generator_proves_nothing(theorem: Theorem, no_new_coq_processes: None) -> None:
    tactics = [*CHEATS, *(t for _, t, _ in KERNEL_CHEATS)]
    generator = Cheater(tactics)
    with CoqProver(CoqConfig(tactic_timeout=2)) as prover:
        searcher = BestFirstSearchProver(
            prover, generator, SearchConfig(timeout=60, max_expansions=20)
        )
        result = searcher.search(theorem)
    # Only the shelving cheats make new states, and those lead nowhere: the tree is
    # exhausted (not a budget), having run every cheat on the root.
    assert result.status is Status.FAILED, result
    assert result.proof is None
    assert generator.asked < 20 and result.num_tactic_applications == generator.asked * len(tactics)
    assert result.extra["guard_refusals"] >= len(CHEATS)  # each refused at least once
    from proofsearch.cli.search import guard_note

    note = guard_note([result.to_record()])
    assert note is not None and note.startswith("the guard refused ")


def test_only_the_recheck_refuses_a_proof_resting_on_an_axiom() -> None:
    """Qed accepts ``case proof_admitted``: with the re-check off it would be reported."""
    generator = Cheater(["case proof_admitted"])
    with CoqProver(CoqConfig(tactic_timeout=2)) as prover:
        unchecked = BestFirstSearchProver(prover, generator, SearchConfig(check=False))
        assert unchecked.search(ADMIT_AXIOM).status is Status.PROVED
        checked = BestFirstSearchProver(prover, generator, SearchConfig(check=True))
        result = checked.search(ADMIT_AXIOM)
    assert result.status is Status.ERROR and not result.checked
    assert "re-check rejected" in (result.error or "") and "proof_admitted" in (result.error or "")
    assert result.extra["rejected_proof"] == ["case proof_admitted"]
    assert "check_disagreement" not in result.extra  # a cheat, not a disagreement


def test_a_suggestion_that_is_no_text_is_refused_and_the_search_goes_on(
    no_new_coq_processes: None,
) -> None:
    """A model's broken bytes (``"\\ud800 lia"`` in a server's JSON) cannot be sent to Coq:
    the guard refuses that suggestion and the others are tried (it made every theorem
    of a run an ``error`` row)."""

    with pytest.raises(TacticRejected, match="not text Coq can read"):
        check_tactic("\ud800 lia")
    generator = Cheater(["\ud800 lia", "reflexivity"])
    with CoqProver(CoqConfig(tactic_timeout=5)) as prover:
        searcher = BestFirstSearchProver(prover, generator, SearchConfig(timeout=60))
        result = searcher.search(Theorem("one", "Theorem one : 1 = 1."))
    assert result.status is Status.PROVED, result
    assert result.proof == ["reflexivity"]
    assert result.extra["guard_refusals"] == 1  # counted, and the first said
    assert result.extra["first_refusal"].startswith("'\\ud800 lia': not text Coq can read")
