"""Shared generator actors: scheduling on (declared) GPUs, batching, and a killed one."""

from __future__ import annotations

from collections import Counter

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


def test_concurrent_requests_are_batched(local_ray: None) -> None:
    from proofsearch.distributed.generators import GeneratorActor
    from proofsearch.theorem import Theorem

    actor = (
        ray.remote(GeneratorActor)
        .options(max_concurrency=1000)
        .remote("portfolio", {"prover": "coq"}, 0.05, 8)
    )
    theorem = Theorem("x", "Theorem x : True.")
    refs = [
        actor.generate.remote("============================\nTrue", theorem, 4) for _ in range(20)
    ]
    answers = ray.get(refs)
    assert all([s.tactic for s in a] == [s.tactic for s in answers[0]] for a in answers)
    sizes = ray.get(actor.batch_sizes.remote())
    assert sum(sizes) == 20 and max(sizes) == 8 and len(sizes) <= 5
    ray.kill(actor)
