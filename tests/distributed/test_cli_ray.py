"""The CLI on Ray: SIGKILL then --resume, Ctrl-C, clear errors, the Python API agrees."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from proofsearch.data.theorems import load_theorems
from proofsearch.distributed.api import DistributedProver
from tests.conftest import DEMO, ROOT
from tests.distributed.conftest import trivial_theorems, wait_gone, write_theorems

#: Expansions per theorem when two runs are compared (the demo's proofs need few).
EXPANSIONS = 12
SLOW_TACTIC = ["--generator", "tests.distributed.chaos:make", "--gen-option", "sleep=0.4"]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "proofsearch.cli", "search", *args]


def lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def watch_descendants(process: subprocess.Popen[bytes], until: callable) -> set[int]:  # type: ignore[valid-type]
    """Record the pids below ``process`` until ``until()`` is true (or it exits)."""
    seen: set[int] = set()
    parent = psutil.Process(process.pid)
    deadline = time.monotonic() + 240
    while not until() and process.poll() is None and time.monotonic() < deadline:
        try:
            seen.update(child.pid for child in parent.children(recursive=True))
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    return seen


def test_sigkill_then_resume_every_theorem_exactly_once(tmp_path: Path) -> None:
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(30, "k"))
    out = tmp_path / "r.jsonl"
    args = cli(str(theorems), "--workers", "2", "--output", str(out), "--quiet", "--no-check")
    run = subprocess.Popen([*args, *SLOW_TACTIC], cwd=ROOT)
    seen = watch_descendants(run, lambda: len(lines(out)) >= 6)
    assert run.poll() is None, "the run ended before it could be killed"
    run.send_signal(signal.SIGKILL)
    run.wait()
    before = len(lines(out))
    assert 6 <= before < 30
    assert not wait_gone(sorted(seen), timeout=20), "processes of the killed run are left"
    resumed = subprocess.run(
        [*args, *SLOW_TACTIC, "--resume"], cwd=ROOT, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    names = Counter(str(r["name"]) for r in lines(out))
    assert set(names) == {f"k{i}" for i in range(30)}
    assert max(names.values()) == 1
    assert all(r["status"] == "proved" for r in lines(out))


def test_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    # 200 theorems at 0.4 s a tactic take over 40 s on 2 workers: the run is still going
    # when the signal comes, however slowly this test sees the first results.
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(200, "c"))
    out = tmp_path / "r.jsonl"
    args = cli(str(theorems), "--workers", "2", "--output", str(out), "--quiet", "--no-check")
    # As from a terminal: SIGINT at its default, whatever this test process inherited (a
    # background job's shell, or a library in the suite, may have set it to "ignore",
    # which a child keeps across exec).
    run = subprocess.Popen(
        [*args, *SLOW_TACTIC], cwd=ROOT, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    seen = watch_descendants(run, lambda: len(lines(out)) >= 4)
    assert run.poll() is None, "the run ended before it could be interrupted"
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    # What to do next is said (it was the bare word "interrupted").
    assert "interrupted; the results so far are kept" in err and "--resume" in err
    written = lines(out)
    # Only finished theorems were written, each once, each whole.
    assert len(written) < 200 and len({r["name"] for r in written}) == len(written)
    assert len(out.read_text().splitlines()) == len(written)
    assert not wait_gone(sorted(seen), timeout=20), "processes of the stopped run are left"


@pytest.mark.parametrize("columns", ["40", "300"])
def test_long_ray_tmpdir_is_refused_clearly(tmp_path: Path, columns: str) -> None:
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(1))
    deep = tmp_path / ("x" * 90)
    done = subprocess.run(
        cli(str(theorems), "--workers", "2", "--ray-tmpdir", str(deep), "--output",
            str(tmp_path / "r.jsonl")),
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "COLUMNS": columns},
    )  # fmt: skip
    assert done.returncode == 1
    # One line, whatever the width: the path can be copied from it.
    assert done.stderr.count("\n") == 1, done.stderr
    assert "too long" in done.stderr and "107" in done.stderr and str(deep) in done.stderr
    assert "OSError" not in done.stderr
    assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text()


@pytest.mark.slow
def test_python_api_matches_the_cli_on_the_demo(tmp_path: Path, local_ray: None) -> None:
    out = tmp_path / "cli.jsonl"
    # The budget is a number of expansions, not seconds: two runs compared status by
    # status must not depend on how loaded the machine is (the timeout is a backstop).
    budget = ["--timeout", "600", "--max-expansions", str(EXPANSIONS)]
    done = subprocess.run(
        cli(str(DEMO), "--workers", "2", *budget, "--output", str(out), "--quiet"),
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli_status = {str(r["name"]): r["status"] for r in lines(out)}
    # The portfolio, as the CLI's default (LeanAgent's own arguments name a fixed tactic
    # or a model checkpoint).
    prover = DistributedProver(
        num_workers=2, timeout=600, max_expansions=EXPANSIONS, generator="portfolio"
    )
    theorems = load_theorems(DEMO).theorems
    results = prover.search_unordered("", theorems, [None] * len(theorems))
    api_status = {r.theorem.name: str(r.status) for r in results}
    assert api_status == cli_status
    assert sum(s == "proved" for s in api_status.values()) >= 28
    assert os.environ.get("RAY_ADDRESS") is None


def test_a_finished_run_leaves_no_private_folder_of_its_workers(tmp_path: Path) -> None:
    """The pool killed its actors at once: each left its prover's `proofsearch-coq-*`
    folder in the temporary folder after every run (an audit: 21 of them)."""
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(6, "f"))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = cli(str(theorems), "--workers", "2", "--output", str(tmp_path / "r.jsonl"), "--quiet")
    args += ["--generator", "fixed", "--tactic", "reflexivity"]
    # Ray's own folder apart: its socket paths under the test's folder would be too long.
    with tempfile.TemporaryDirectory(prefix="ps-ray-", dir="/tmp") as ray_tmp:
        done = subprocess.run(
            [*args, "--ray-tmpdir", ray_tmp], cwd=ROOT, capture_output=True, text=True,
            env={**os.environ, "TMPDIR": str(tmp)},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(lines(tmp_path / "r.jsonl")) == 6
    assert list(tmp.glob("proofsearch-coq-*")) == []
