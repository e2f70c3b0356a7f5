"""Shared generator actors: scheduling on (declared) GPUs, batching, and a killed one."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
import ray

from proofsearch.data.theorems import load_theorems
from proofsearch.distributed.actors import remote_prover_actor
from proofsearch.distributed.pool import ProverPool
from proofsearch.distributed.run import DistributionOptions, _generator_directory, run_search
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.search.prover import SearchConfig
from tests.conftest import DEMO

SPEC = WorkerSpec(
    generator="portfolio",
    generator_options={"prover": "coq"},
    search=SearchConfig(timeout=15, check=False),
)


def test_generator_actor_killed_mid_run_loses_nothing(local_ray: None) -> None:
    theorems = [
        t for t in load_theorems(DEMO).theorems if t.name not in {"rev_length", "rev_involutive"}
    ]
    calm = {r.theorem.name: r.status for r in run_search(SPEC, theorems)}
    options = DistributionOptions(workers=2, generator_actors=1, num_gpus=1, generator_cpus=0.5)
    directory = _generator_directory(SPEC, options)
    actors, _ = ray.get(directory.current.remote())
    # The generator actor holds the (declared) GPU; prover actors hold none.
    assert ray.available_resources().get("GPU", 0) == 1.0
    actor = remote_prover_actor(num_cpus=0.5, num_gpus=0)
    slots = iter(range(100))
    pool = ProverPool(
        lambda: actor.remote(SPEC, False, directory, next(slots)), 2,
        deadline=lambda t: 120.0, poll_interval=0.2,
    )  # fmt: skip
    results = []
    try:
        for result in pool.map_unordered(theorems):
            results.append(result)
            if len(results) == 5:
                ray.kill(actors[0], no_restart=True)
    finally:
        pool.shutdown()
    replaced = ray.get(directory.replacement_count.remote())
    ray.kill(directory)
    names = Counter(r.theorem.name for r in results)
    assert set(names) == set(calm) and max(names.values()) == 1
    assert {r.theorem.name: r.status for r in results} == calm
    assert replaced == 1


def test_batching_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests queued together go out in one batch; a lone client never waits."""
    import asyncio

    # The actor hides the GPUs from itself; here it runs in the test's own process,
    # so let monkeypatch record the variable and put it back afterwards.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")

    from proofsearch.distributed.generators import GeneratorActor
    from proofsearch.theorem import Theorem

    theorem = Theorem("x", "Theorem x : True.")
    goal = "============================\nTrue"

    async def scenario() -> tuple[list[int], list[int]]:
        actor = GeneratorActor("portfolio", {"prover": "coq"}, batch_window=5.0, max_batch=8)
        answers = await asyncio.gather(
            *(actor.generate(goal, theorem, 4, client) for client in range(20))
        )
        assert all(a == answers[0] for a in answers)
        together = actor.batch_sizes()
        actor.client_horizon = 0.0  # the twenty clients are gone
        for _ in range(3):
            await actor.generate(goal, theorem, 4, 99)
        return together, actor.batch_sizes()[len(together) :]

    together, alone = asyncio.run(scenario())
    assert together == [8, 8, 4]
    assert alone == [1, 1, 1]  # with a 5 s window, waiting would have shown in the time


def test_a_request_given_up_is_not_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller cut at its theorem's deadline cancels its request: the actor leaves it
    out of the next batch (the model's time goes to live requests), and a batch that
    ends after a cancel does not fail on the cancelled request."""
    import asyncio

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    from proofsearch.distributed.generators import GeneratorActor
    from proofsearch.theorem import Theorem

    theorem = Theorem("x", "Theorem x : True.")
    goal = "============================\nTrue"

    async def scenario() -> list[int]:
        actor = GeneratorActor("portfolio", {"prover": "coq"}, batch_window=0.5, max_batch=8)
        given_up = asyncio.ensure_future(actor.generate(goal, theorem, 4, 1))
        live = asyncio.ensure_future(actor.generate(goal, theorem, 4, 2))
        await asyncio.sleep(0)  # both queued; the batch window is still open
        given_up.cancel()
        assert await live
        with pytest.raises(asyncio.CancelledError):
            await given_up
        return actor.batch_sizes()

    assert asyncio.run(scenario()) == [1]


def test_concurrent_requests_are_batched_on_ray(local_ray: None) -> None:
    from proofsearch.distributed.generators import GeneratorActor
    from proofsearch.theorem import Theorem

    actor = (
        ray.remote(GeneratorActor)
        .options(max_concurrency=1000)
        .remote("portfolio", {"prover": "coq"}, 0.5, 8)
    )
    theorem = Theorem("x", "Theorem x : True.")
    goal = "============================\nTrue"
    refs = [actor.generate.remote(goal, theorem, 4, client) for client in range(20)]
    answers = ray.get(refs)
    assert all([s.tactic for s in a] == [s.tactic for s in answers[0]] for a in answers)
    sizes = ray.get(actor.batch_sizes.remote())
    assert sum(sizes) == 20 and max(sizes) > 1
    ray.kill(actor)


def test_cli_with_a_model_on_shared_generator_actors(tmp_path, local_ray: None) -> None:  # type: ignore[no-untyped-def]
    """The whole path: CLI flags -> two prover actors -> one GeneratorActor hosting a real
    (tiny, random) Hugging Face model; every theorem comes back once with generation time."""
    import json

    import pytest

    pytest.importorskip("transformers")
    from proofsearch.cli import main
    from tests.distributed.conftest import trivial_theorems, write_theorems
    from tests.support import tiny

    model = tiny.build_t5(tmp_path / "t5")
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(4, "m"))
    out = tmp_path / "r.jsonl"
    code = main(
        ["search", str(theorems), "--output", str(out), "--quiet", "--workers", "2",
         "--generator", "hf", "--model", str(model), "--generator-actors", "1",
         "--gen-option", "max_new_tokens=16", "--gen-option", "cpu_threads=1",
         "--num-sampled-tactics", "4", "--max-expansions", "2", "--timeout", "30"]
    )  # fmt: skip
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["name"] for r in records) == [f"m{i}" for i in range(4)]
    assert all(r["status"] in {"proved", "failed", "open"} for r in records)
    assert all(r["actor_time"] > 0 for r in records)


@pytest.mark.parametrize("generator_actors", [0, 1])
def test_a_schedule_runs_its_stages_on_ray(local_ray: None, generator_actors: int) -> None:
    """Stage two proves the theorem, whether the prover actor holds the schedule or asks
    a shared generator actor for each stage's tactics."""
    from proofsearch.theorem import Theorem

    spec = WorkerSpec(
        generator="tests.distributed.schedule_probe:make",
        search=SearchConfig(timeout=30, max_expansions=6),
    )
    options = DistributionOptions(
        workers=1, generator_actors=generator_actors, generator_cpus=0.5, force_ray=True
    )
    results = run_search(spec, [Theorem("t", "Lemma t : True.")], options)
    assert [(r.status.value, r.extra.get("stage")) for r in results] == [("proved", "proves")]
    assert results[0].proof == ["exact I"] and results[0].checked
    # A stage whose tactics need lines after the header (the hammer stage's import)
    # gets them on the prover actor, whoever holds the generator.
    spec = replace(spec, generator="tests.distributed.schedule_probe:make_suffixed")
    (result,) = run_search(spec, [Theorem("t", "Lemma t : True.")], options)
    assert result.status.value == "proved" and result.proof == ["exact probe_suffix"]
    assert result.to_record()["header_suffix"] == "Definition probe_suffix := I."


def test_a_slow_generator_actor_is_cut_at_the_theorems_deadline(local_ray: None) -> None:
    """A prover actor waits for a shared generator actor no longer than the theorem's
    deadline: a 60 s answer cannot hold a 2 s theorem (audit 43-a, D2)."""
    from proofsearch.search.result import GENERATOR_CUT
    from proofsearch.theorem import Theorem

    spec = WorkerSpec(
        generator="tests.distributed.schedule_probe:make_slow",
        search=SearchConfig(timeout=2),
    )
    options = DistributionOptions(workers=1, generator_actors=1, generator_cpus=0.5, force_ray=True)
    (result,) = run_search(spec, [Theorem("t", "Lemma t : True.")], options)
    assert result.status.value == "open"
    assert result.extra.get(GENERATOR_CUT) is True
    assert result.total_time < 30  # not the 60 s answer
