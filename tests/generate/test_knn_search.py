"""``knn`` inside real searches: online learning through the search, and
``DistributedProver(indexed_corpus_path=...)`` feeding retrieved premises to a model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.conftest import TinyModels
from tests.generate.knn_trace import write_trace

from proofsearch.env.registry import make_prover
from proofsearch.generate.fixed import FixedTacticGenerator
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.merged import MergedGenerator
from proofsearch.generate.retrieval.augment import augment
from proofsearch.generate.retrieval.premises import RetrievedPremise
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield write_trace(tmp_path / "trace")


def test_a_found_proof_serves_a_later_theorem(trace: Path, no_new_coq_processes: None) -> None:
    knn = KnnGenerator(build_corpus(trace))
    step = "exact (conj (fun x : True => x) I)"
    helper = FixedTacticGenerator(step)
    prover = make_prover("coq", {})
    config = SearchConfig(timeout=30, num_sampled_tactics=8)
    try:
        first = Theorem("first", "Lemma first : (True -> True) /\\ True.")
        found = BestFirstSearchProver(prover, MergedGenerator([knn, helper]), config).search(first)
        assert found.status is Status.PROVED and found.proof == [step]
        # knn alone now knows the step: the later theorem is proved by it.
        later = Theorem("later", "Lemma later : (True -> True) /\\ True.")
        result = BestFirstSearchProver(prover, knn, config).search(later)
        assert result.status is Status.PROVED and result.proof == [step] and result.checked
    finally:
        prover.close()


def _premise(name: str, statement: str) -> RetrievedPremise:
    return RetrievedPremise(name, name, statement, 1.0, True)


def test_augmented_state_keeps_the_state_and_drops_premises_that_do_not_fit() -> None:
    state = "n : nat\n============================\nn + 0 = n"
    best, second = _premise("best", "forall n, n + 0 = n"), _premise("second", "x" * 200)
    text = augment(state, [best, second], 1000, len)
    assert text == f"<a>second</a> : {'x' * 200}\n\n<a>best</a> : forall n, n + 0 = n\n\n{state}"
    small = augment(state, [best, second], len(state) + 40, len)
    assert small == f"<a>best</a> : forall n, n + 0 = n\n\n{state}"
    assert augment(state, [best], 3, len) == state  # never cut the state for a premise


def test_distributed_prover_with_indexed_corpus_prompts_the_model_with_premises(
    trace: Path, tiny_models: TinyModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proofsearch.distributed.api import CoqRepo, DistributedProver
    from proofsearch.generate.hf import HFTacticGenerator

    seen: list[str] = []
    original = HFTacticGenerator.prompt_ids

    def spy(self: HFTacticGenerator, goals: str) -> list[int]:
        ids = original(self, goals)
        seen.append(self.decode(ids))  # the text the model reads
        return ids

    monkeypatch.setattr(HFTacticGenerator, "prompt_ids", spy)
    prover = DistributedProver(
        ckpt_path=str(tiny_models.t5),
        indexed_corpus_path=str(trace),
        num_workers=1,
        timeout=60,
        max_expansions=1,
        num_sampled_tactics=2,
        generator_options={"max_new_tokens": 8, "cpu_threads": 1},
    )
    theorem = Theorem("flip", "Lemma flip (n m : nat) (Hnm : n = m) : m = n.")
    [result] = prover.search_unordered(CoqRepo(), [theorem])
    assert result.status is not Status.ERROR, result.error
    assert seen, "the model was never asked"
    prompt = seen[0]
    state = "n, m : nat\nHnm : n = m\n============================\nm = n"
    assert prompt.endswith(state)
    premises = prompt[: -len(state)]
    assert "<a>Lib.A.flip</a> : forall n m : nat, n = m -> m = n\n\n" in premises
    # Best premise last, nearest the state (ReProver's order).
    assert premises.rstrip("\n").endswith("<a>Lib.A.flip</a> : forall n m : nat, n = m -> m = n")
