"""``--generator knn`` on Ray: a CLI run on 2 workers, and the index shared, not copied."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.distributed.run import DistributionOptions, run_search
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.search.prover import SearchConfig
from proofsearch.theorem import Theorem
from tests.conftest import ROOT
from tests.generate.knn_trace import write_project_trace, write_trace

pytestmark = pytest.mark.ray


def test_cli_knn_on_two_ray_workers(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace")
    theorems = tmp_path / "t.jsonl"
    lines = [
        {"name": f"flip{i}", "statement": f"Lemma flip{i} (a b : nat) (E{i} : a = b) : b = a."}
        for i in range(4)
    ]
    theorems.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "search", str(theorems), "--generator", "knn",
         "--index", str(trace), "--workers", "2", "--timeout", "60", "--output", str(out),
         "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4
    for record in records:
        index = record["name"][-1]
        # The recorded "symmetry; exact Hnm" with Hnm adapted to this lemma's E<i>.
        assert record["status"] == "proved" and record["checked"], record
        assert record["proof"] == [f"symmetry; exact E{index}"], record


def test_ray_workers_share_one_read_only_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    trace = write_trace(tmp_path / "trace")
    spec = WorkerSpec(
        generator="tests.distributed.knn_probe:make",
        generator_options={"index": str(trace)},
        search=SearchConfig(timeout=30, max_expansions=2),
    )
    theorems = [Theorem(f"t{i}", f"Lemma t{i} : True.") for i in range(4)]
    results = run_search(spec, theorems, DistributionOptions(workers=2, force_ray=True))
    assert sorted(r.theorem.name for r in results) == ["t0", "t1", "t2", "t3"]
    assert all(r.proof == ["exact I"] for r in results), [(r.status, r.error) for r in results]
    # In one process, the same factory loads its own (writable) copy: the probe can fail.
    local = run_search(spec, theorems[:1], DistributionOptions(workers=1))
    assert local[0].proof is None


def test_cli_knn_with_two_indexes_on_two_ray_workers(tmp_path: Path) -> None:
    """``--index A --index B`` on Ray: one corpus with one module table, shared."""
    library = write_trace(tmp_path / "library")
    project = write_project_trace(tmp_path / "project")
    theorems = tmp_path / "t.jsonl"
    # In Proj.P, whose Require of Lib.B (the other trace) brings Lib.A's recorded proof.
    lines = [
        {"name": f"flip{i}", "statement": f"Lemma flip{i} (a b : nat) (E{i} : a = b) : b = a.",
         "module": "Proj.P", "line": 100}
        for i in range(2)
    ]  # fmt: skip
    theorems.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "search", str(theorems), "--generator", "knn",
         "--index", str(library), "--index", str(project), "--workers", "2", "--timeout", "60",
         "--output", str(out), "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        index = record["name"][-1]
        assert record["status"] == "proved" and record["checked"], record
        assert record["proof"] == [f"symmetry; exact E{index}"], record
