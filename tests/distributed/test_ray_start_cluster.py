"""A cluster started as users start one: ``ray start`` processes, token authentication, two nodes.

The head and a second node run on 127.0.0.1 with ports, folders and a ``HOME`` of their
own (so the token is in ``$HOME/.ray/auth_token``, where Ray keeps it, and nowhere
else). Every user process runs with that ``HOME`` and no Ray variable: proofsearch has
to find the token and the cluster's mode by itself. The cluster is stopped the way
``ray stop`` stops one, limited to its own processes (``ray stop`` itself would stop
every Ray of the machine, this suite's own included).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proofsearch.devcluster import RayStartCluster
from tests.conftest import ROOT
from tests.distributed.conftest import trivial_theorems, write_theorems

pytestmark = pytest.mark.ray

#: The GCS declares a lost node dead within about a second (Ray's default: tens of seconds).
FAST_HEALTH = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 200,
    "health_check_timeout_ms": 400,
    "health_check_failure_threshold": 3,
}
FIXED = ["--generator", "fixed", "--tactic", "reflexivity", "--no-check", "--quiet"]
SLOW = ["--generator", "tests.distributed.chaos:make", "--gen-option", "sleep=0.5"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayStartCluster]:
    """A head and one more node, one CPU each: two prover actors land one on each."""
    # Every node must import what the actors run (here, the tests' chaos generator).
    # This tree's code, whatever the environment installed (as the other CLI tests run it).
    path = f"{ROOT / 'src'}{os.pathsep}{ROOT}"
    with RayStartCluster(system_config=FAST_HEALTH, env={"PYTHONPATH": path}) as started:
        started.start_head(num_cpus=1)
        started.add_node(num_cpus=1)
        yield started


def search(
    cluster: RayStartCluster, theorems: Path, out: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "proofsearch.cli", "search", str(theorems)]
    command += ["--workers", "2", "--output", str(out), *args]
    return subprocess.run(
        command, env=cluster.user_env(**env), cwd=ROOT, capture_output=True, text=True
    )


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def prover_actors(state: dict[str, Any], before: set[str]) -> list[dict[str, Any]]:
    """The prover actors in the cluster's ``state`` that were not in ``before``."""
    actors = state["actors"]
    return [a for a in actors if a["class"] == "ProverActor" and a["actor_id"] not in before]


def known_actors(cluster: RayStartCluster) -> set[str]:
    return {a["actor_id"] for a in cluster.state()["actors"]}


def assert_cluster_up(cluster: RayStartCluster) -> None:
    """Every node still has its raylet, and the head its GCS: the run left the cluster up."""
    for name in cluster.nodes:
        names = {p.name() for p in cluster.processes(name)}
        assert "raylet" in names, f"node {name} lost its raylet"
    assert "gcs_server" in {p.name() for p in cluster.processes("head")}


def assert_each_proved_once(out: Path, names: set[str]) -> None:
    found = Counter(r["name"] for r in records(out))
    assert set(found) == names and max(found.values()) == 1, found
    assert all(r["status"] == "proved" for r in records(out))


def test_search_address_joins_token_cluster_and_uses_both_nodes(
    cluster: RayStartCluster, tmp_path: Path
) -> None:
    # The head found this token at start; that it requires it is the "no token" case below.
    assert (cluster.home / ".ray" / "auth_token").exists()
    theorems = trivial_theorems(8, "a")
    path = write_theorems(tmp_path / "t.jsonl", theorems)
    before = known_actors(cluster)
    done = search(cluster, path, tmp_path / "r.jsonl", "--address", cluster.address, *FIXED)
    assert done.returncode == 0, done.stderr
    assert_each_proved_once(tmp_path / "r.jsonl", {t.name for t in theorems})
    state = cluster.state()
    node_ids = {state["nodes"][name]["node_id"] for name in cluster.nodes}
    assert len(node_ids) == 2
    assert {a["node_id"] for a in prover_actors(state, before)} == node_ids
    assert_cluster_up(cluster)


def test_trace_address_traces_the_files_on_the_cluster(
    cluster: RayStartCluster, tmp_path: Path
) -> None:
    from tests.trace.project import write_project

    root = write_project(tmp_path / "project")
    out = tmp_path / "trace"
    command = [sys.executable, "-m", "proofsearch.cli", "trace", str(root), "--out", str(out),
               "--address", cluster.address, "--jobs", "2", "--no-progress"]  # fmt: skip
    done = subprocess.run(
        command, env=cluster.user_env(), cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "traced 3, up to date 0, failed 0" in done.stdout
    assert len(list((out / "files").glob("*.steps.jsonl"))) == 3
    assert_cluster_up(cluster)


def test_ray_address_variable_joins_the_same_way(cluster: RayStartCluster, tmp_path: Path) -> None:
    theorems = trivial_theorems(4, "e")
    path = write_theorems(tmp_path / "t.jsonl", theorems)
    done = search(cluster, path, tmp_path / "r.jsonl", *FIXED, RAY_ADDRESS=cluster.address)
    assert done.returncode == 0, done.stderr
    assert_each_proved_once(tmp_path / "r.jsonl", {t.name for t in theorems})
    assert_cluster_up(cluster)


DISTRIBUTED_PROVER = """
import json, sys
from proofsearch.distributed.api import DistributedProver
from proofsearch.theorem import Theorem
theorems = [Theorem(f"p{i}", f"Theorem p{i} : {i} + 0 = {i}.", "") for i in range(4)]
prover = DistributedProver(tactic="reflexivity", num_workers=2, timeout=30, address=sys.argv[1])
results = prover.search_unordered("", theorems, [None] * len(theorems))
print(json.dumps({r.theorem.name: r.status.value for r in results}))
"""


def test_distributed_prover_joins_the_same_cluster(cluster: RayStartCluster) -> None:
    before = known_actors(cluster)
    done = subprocess.run(
        [sys.executable, "-c", DISTRIBUTED_PROVER, cluster.address],
        env=cluster.user_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    statuses = json.loads(done.stdout.strip().splitlines()[-1])
    assert statuses == {f"p{i}": "proved" for i in range(4)}
    assert len(prover_actors(cluster.state(), before)) == 2
    assert_cluster_up(cluster)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("no token", ["requires token authentication", "no token was found", "auth_token"]),
        ("wrong token", ["rejected the token from the RAY_AUTH_TOKEN variable"]),
        ("mode disabled", ["RAY_AUTH_MODE=disabled is set here", "Unset RAY_AUTH_MODE"]),
        ("wrong port", ["nothing answers at 127.0.0.1:", "ray start --head --port="]),
    ],
)
def test_a_join_that_cannot_work_says_why_and_what_to_do(
    cluster: RayStartCluster, tmp_path: Path, case: str, expected: list[str]
) -> None:
    path = write_theorems(tmp_path / "t.jsonl", trivial_theorems(1, "x"))
    address = cluster.address
    env: dict[str, str] = {}
    if case == "no token":
        (tmp_path / "home").mkdir()
        env["HOME"] = str(tmp_path / "home")
    elif case == "wrong token":
        env["RAY_AUTH_TOKEN"] = "0" * 64
    elif case == "mode disabled":
        env["RAY_AUTH_MODE"] = "disabled"
    else:
        from proofsearch.devcluster.ray_start import free_port

        address = f"127.0.0.1:{free_port()}"
    # A finished run's results: a join that fails must not empty them (--overwrite
    # emptied the file before the join was tried).
    out = tmp_path / "r.jsonl"
    out.write_text('{"name": "x0", "status": "proved"}\n')
    done = search(cluster, path, out, "--address", address, "--overwrite", *FIXED, **env)
    assert done.returncode == 1
    assert out.read_text() == '{"name": "x0", "status": "proved"}\n', done.stderr
    # Nor record a run that never ran (its settings line would read as this file's last).
    assert not out.with_name("r.jsonl.runs.jsonl").exists()
    message = " ".join(done.stderr.split())
    for part in expected:
        assert part in message, message
    assert "Failed to connect" not in message
    assert_cluster_up(cluster)


def test_more_workers_than_the_clusters_cpus_is_said(
    cluster: RayStartCluster, tmp_path: Path
) -> None:
    """`--workers 3` on two CPUs ran on two without a word."""
    path = write_theorems(tmp_path / "t.jsonl", trivial_theorems(3, "w"))
    done = search(
        cluster, path, tmp_path / "r.jsonl", "--address", cluster.address, "--workers", "3",
        "--generator", "fixed", "--tactic", "reflexivity", "--no-check",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert "--workers 3: the Ray cluster has 2 CPU(s), room for 2 worker(s) at a time" in said
    assert len(records(tmp_path / "r.jsonl")) == 3


def test_losing_a_node_mid_run_loses_nothing_and_repeats_nothing(
    cluster: RayStartCluster, tmp_path: Path
) -> None:
    lost = next(name for name, node in cluster.nodes.items() if not node.head)
    theorems = trivial_theorems(16, "n")
    path, out = write_theorems(tmp_path / "t.jsonl", theorems), tmp_path / "r.jsonl"
    before = known_actors(cluster)
    lost_id = cluster.state()["nodes"][lost]["node_id"]
    command = [sys.executable, "-m", "proofsearch.cli", "search", str(path), "--workers", "2"]
    command += ["--address", cluster.address, "--output", str(out), "--no-check", "--quiet"]
    run = subprocess.Popen([*command, *SLOW], env=cluster.user_env(), cwd=ROOT)
    try:
        # Mid-run: results are coming in and a prover actor is at work on the node.
        while run.poll() is None and not (
            out.exists()
            and len(out.read_text().splitlines()) >= 2
            and any("ProverActor" in " ".join(p.cmdline()) for p in cluster.processes(lost))
        ):
            time.sleep(0.2)
        assert run.poll() is None, "the run ended before the node could be lost"
        assert cluster.kill_node(lost) > 0
        assert run.wait(timeout=240) == 0
    finally:
        if run.poll() is None:
            run.kill()
    assert_each_proved_once(out, {t.name for t in theorems})
    actors = prover_actors(cluster.state(), before)
    # The lost node's actor is dead, and the pool started another in its place.
    assert any(a["node_id"] == lost_id and a["state"] == "DEAD" for a in actors)
    assert len(actors) >= 3
    cluster.add_node(num_cpus=1)  # two nodes again for the tests that follow
    assert_cluster_up(cluster)


def test_stopping_the_cluster_leaves_no_process_of_the_runs(
    cluster: RayStartCluster, tmp_path: Path
) -> None:
    theorems = trivial_theorems(4, "s")
    path = write_theorems(tmp_path / "t.jsonl", theorems)
    done = search(cluster, path, tmp_path / "r.jsonl", "--address", cluster.address, *FIXED)
    assert done.returncode == 0, done.stderr
    assert_cluster_up(cluster)  # proofsearch left it running
    cluster.stop()
    left = cluster.leftovers()
    assert not left, [(p.pid, p.name()) for p in left]


def test_a_cluster_without_authentication_is_joined_without_it(tmp_path: Path) -> None:
    """No token on the head: ``ray start --head`` leaves authentication off, and so does
    proofsearch; a ``RAY_AUTH_MODE=token`` here is refused with the reason (Ray cannot mix
    the modes: the actors would fail)."""
    theorems = trivial_theorems(2, "o")
    path = write_theorems(tmp_path / "t.jsonl", theorems)
    with RayStartCluster(token=False) as open_cluster:
        open_cluster.start_head(num_cpus=2)
        args = ("--address", open_cluster.address, *FIXED)
        done = search(open_cluster, path, tmp_path / "r.jsonl", *args)
        assert done.returncode == 0, done.stderr
        assert_each_proved_once(tmp_path / "r.jsonl", {t.name for t in theorems})
        refused = search(open_cluster, path, tmp_path / "r2.jsonl", *args, RAY_AUTH_MODE="token")
        assert refused.returncode == 1
        message = " ".join(refused.stderr.split())
        assert "runs without token authentication, but RAY_AUTH_MODE=token is set" in message
        open_cluster.stop()
        assert not open_cluster.leftovers()
