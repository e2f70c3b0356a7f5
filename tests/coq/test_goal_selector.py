"""Tactics work on the first goal, whatever default goal selector the header sets.

stdpp and Iris ``Export Set Default Goal Selector "!"``: with two goals focused, a
plain tactic fails there ("Expected a single focused goal but 2 are focused"), so a
search that applies each tactic to the first goal found no proof that opens two goals.
The prover and the re-check run ``Set Default Goal Selector "1".`` after the header.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.env.base import ProofState
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.checker import run_coqc
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

HEADER = 'Global Set Default Goal Selector "!".'
CONJ = Theorem("conj", "Lemma conj2 : True /\\ True.", HEADER)


@pytest.fixture(scope="module")
def prover() -> CoqProver:
    with CoqProver(CoqConfig(tactic_timeout=5)) as instance:
        yield instance  # type: ignore[misc]


def test_a_tactic_after_a_split_works_on_the_first_goal(prover: CoqProver) -> None:
    with prover.open(CONJ) as session:
        split = session.apply(session.root, "split")
        assert isinstance(split, ProofState) and len(split.goals) == 2
        first = session.apply(split, "exact I")
        assert isinstance(first, ProofState) and len(first.goals) == 1


class SplitThenExact(TacticGenerator):
    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        split = [Suggestion("split", -0.1)] if "/\\" in goals else []
        return [*split, Suggestion("exact I", -0.2)]


def test_the_search_finds_and_the_check_accepts_the_flat_proof(prover: CoqProver) -> None:
    config = SearchConfig(timeout=60)
    result = BestFirstSearchProver(prover, SplitThenExact(), config).search(CONJ)
    assert result.status is Status.PROVED and result.checked, result.error
    assert result.proof == ["split", "exact I", "exact I"]


@pytest.mark.parametrize(
    ("proof", "compiles"),
    [("split. exact I. exact I.", False), ("split. - exact I. - exact I.", True)],
)
def test_in_the_file_itself_only_bullets_compile(
    tmp_path: Path, proof: str, compiles: bool
) -> None:
    """Why ``prove`` writes bullets: the user's file has no ``Set … "1"`` line."""
    source = f"{HEADER}\n{CONJ.statement}\nProof. {proof} Qed.\n"
    done = run_coqc(source, tmp_path, "Conj", coqc="coqc", args=(), timeout=60, memory_limit=None)
    assert (done.returncode == 0) == compiles, done.stderr
