"""A node of a real multi-node Ray cluster is lost mid-run: nothing is lost."""

from __future__ import annotations

from collections import Counter

import pytest
import ray
from ray.cluster_utils import Cluster

from proofsearch.distributed.actors import remote_prover_actor
from proofsearch.distributed.pool import ProverPool
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.search.prover import SearchConfig
from proofsearch.search.result import Status
from tests.distributed.conftest import trivial_theorems

#: Fast health checks so that Ray declares a removed node dead in well under a second.
FAST_HEALTH = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 100,
    "health_check_timeout_ms": 200,
    "health_check_failure_threshold": 3,
}


@pytest.fixture
def cluster() -> Cluster:
    if ray.is_initialized():
        ray.shutdown()  # the folder's shared local cluster; the next test restarts it
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "_system_config": FAST_HEALTH},
    )
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_node_removed_mid_run_loses_nothing(cluster: Cluster) -> None:
    spec = WorkerSpec(
        prover="coq",
        generator="tests.distributed.chaos:make",
        generator_options={"sleep": 0.3},
        search=SearchConfig(timeout=20, check=False),
    )
    actor = remote_prover_actor(num_cpus=1)
    pool = ProverPool(lambda: actor.remote(spec), 2, deadline=lambda t: 60.0, poll_interval=0.2)
    theorems = trivial_theorems(24, "node")
    results = []
    removed = False
    for result in pool.map_unordered(theorems):
        results.append(result)
        if len(results) == 4 and not removed:
            worker_nodes = [n for n in cluster.worker_nodes]
            cluster.remove_node(worker_nodes[0])
            removed = True
    pool.shutdown()
    assert removed
    names = Counter(r.theorem.name for r in results)
    assert set(names) == {t.name for t in theorems} and max(names.values()) == 1
    assert all(r.status is Status.PROVED for r in results)
    # The theorem that was running on the lost node was searched again elsewhere.
    assert pool.restarts >= 1
