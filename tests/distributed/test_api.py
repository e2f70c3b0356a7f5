"""LeanAgent's constructor maps onto proofsearch's generators, provers and run options."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.distributed.api import CoqRepo, DistributedProver, LeanRepo
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem


def test_leanagent_arguments_map_to_generators() -> None:
    fixed = DistributedProver(ckpt_path=None, tactic="auto", num_workers=1)
    assert fixed._generator() == ("fixed", {"tactic": "auto"})
    vllm = DistributedProver(use_vllm=True, ckpt_path="/ckpt", num_workers=4, num_gpus=2)
    assert vllm._generator() == ("vllm", {"model": "/ckpt"})
    hf = DistributedProver(ckpt_path="/ckpt", num_gpus=1)
    assert hf._generator() == ("hf", {"model": "/ckpt", "device": "cuda"})
    from proofsearch.trace.schema import TraceFormatError

    with pytest.raises(TraceFormatError, match="not a trace folder"):
        DistributedProver(ckpt_path="/ckpt", indexed_corpus_path="/corpus.jsonl")
    with pytest.raises(ValueError, match="ckpt_path"):
        DistributedProver()


def test_repo_maps_to_coq_header_and_lean_project() -> None:
    coq = DistributedProver(tactic="auto")
    spec, header = coq._spec(CoqRepo(header="Require Import Lia.", args=("-R", "x", "X")))
    assert header == "Require Import Lia." and spec.prover_options["args"] == ["-R", "x", "X"]
    lean = DistributedProver(tactic="simp", prover="lean")
    spec, header = lean._spec(LeanRepo("/proj", "lake env repl"))
    assert spec.prover_options == {"project_dir": "/proj", "repl_command": "lake env repl"}
    spec, _ = lean._spec("/other")
    assert spec.prover_options == {"project_dir": "/other"}


def test_checkpoint_dir_resumes(tmp_path: Path) -> None:
    theorems = [
        Theorem("a", "Lemma a : 2 * 2 = 4."),
        Theorem("b", "Lemma b : forall n, 2 * n = n + n."),
    ]
    prover = DistributedProver(tactic="lia", checkpoint_dir=str(tmp_path), timeout=30)
    first = prover.search_unordered("Require Import Lia.", theorems[:1], [None])
    assert [r.status for r in first] == [Status.PROVED]
    both = prover.search_unordered("Require Import Lia.", theorems, [None, None])
    assert sorted(r.theorem.name for r in both) == ["a", "b"]
    assert all(r.status is Status.PROVED for r in both)
    # "a" came from the checkpoint, not from a second search.
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2
    with pytest.raises(ValueError, match="positions"):
        prover.search_unordered("", theorems, [None])


def test_gpu_split_follows_leanagent() -> None:
    from proofsearch.distributed.run import DistributionOptions, worker_gpus
    from proofsearch.distributed.spec import WorkerSpec

    model = WorkerSpec(generator="hf", generator_options={"model": "/ckpt"})
    assert worker_gpus(model, DistributionOptions(workers=4, num_gpus=2)) == 0.5
    # With shared generator actors, or a generator without a model, provers get no GPU.
    assert worker_gpus(model, DistributionOptions(workers=4, num_gpus=2, generator_actors=1)) == 0
    assert worker_gpus(WorkerSpec(), DistributionOptions(workers=4, num_gpus=2)) == 0


def test_theorems_given_as_strings_are_refused_at_once() -> None:
    """LeanAgent-style scripts pass statements; it was an AttributeError inside the run."""
    prover = DistributedProver(tactic="auto")
    with pytest.raises(TypeError, match=r"must be proofsearch\.theorem\.Theorem objects, got str"):
        prover.search_unordered("", ["Theorem t : True."])  # type: ignore[list-item]


def test_nothing_to_search_starts_no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every theorem resumed: a rerun on Ray starts no cluster (seconds for nothing;
    ``prove`` run again with all its results found spent 6 s of 11 s there)."""
    import proofsearch.distributed.ray_setup as ray_setup
    from proofsearch.distributed.run import DistributionOptions, run_search
    from proofsearch.distributed.spec import WorkerSpec

    def no_ray(*args: object, **kwargs: object) -> None:
        raise AssertionError("Ray started with nothing to search")

    monkeypatch.setattr(ray_setup, "ray_session", no_ray)
    spec = WorkerSpec(prover="coq", generator="fixed")
    assert run_search(spec, [], DistributionOptions(workers=2)) == []
