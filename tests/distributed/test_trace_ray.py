"""``trace --ray``: files as Ray tasks in dependency order, the same shards as the process
pool, resume, and a node that cannot see the files says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.trace.ray_runner import trace_on_this_node
from proofsearch.trace.runner import Limits, plan
from proofsearch.trace.sources import coqproject
from tests.trace.project import write_project

pytestmark = pytest.mark.ray


def shard_texts(out: Path) -> dict[str, list[dict[str, object]]]:
    """Each steps/premises shard's records (what a search reads), by file name."""
    files = sorted((out / "files").glob("*.jsonl"))
    return {f.name: [json.loads(line) for line in f.read_text().splitlines()] for f in files}


def test_trace_on_ray_matches_the_process_pool_and_resumes(
    tmp_path: Path,
    local_ray: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = write_project(tmp_path / "project")
    pool_out, ray_out = tmp_path / "pool", tmp_path / "ray"
    assert main(["trace", str(root), "--out", str(pool_out), "--no-progress", "--jobs", "1"]) == 0
    # C requires B requires A: only dependency order makes the .vo files B and C need.
    for compiled in (root / "theories").glob("*.vo"):
        compiled.unlink()
    argv = ["trace", str(root), "--out", str(ray_out), "--no-progress", "--ray", "--jobs", "2"]

    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("--ray traced on the local process pool")

    monkeypatch.setattr("proofsearch.trace.runner.run", no_pool)
    assert main(argv) == 0
    assert "traced 3, up to date 0, failed 0" in capsys.readouterr().out
    ray_shards = shard_texts(ray_out)
    assert ray_shards == shard_texts(pool_out) and len(ray_shards) == 6
    assert sum(len(records) for records in ray_shards.values()) > 5
    assert main(argv) == 0  # nothing changed: every shard is fresh
    assert "traced 0, up to date 3, failed 0" in capsys.readouterr().out


def test_a_node_that_does_not_see_the_output_fails_the_file_with_the_reason(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    out = tmp_path / "trace"
    jobs, _ = plan(coqproject(root, [], "coqc"), out, limits=Limits())
    job = jobs[0]
    missing = tmp_path / "elsewhere"
    record = trace_on_this_node(job.__class__(**{**job.__dict__, "out": str(missing)}))
    assert record.status == "failed" and record.error is not None
    assert str(missing) in record.error.message
    assert "file system every node shares" in record.error.message
