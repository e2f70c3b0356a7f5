"""``search --hammer-tactics``: CoqHammer's tactics as the default schedule's first stage.

Real Coq and CoqHammer, on the three-file project of the trace tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import hammer_installed
from proofsearch.generate.hammer import HAMMER_TACTICS_IMPORT, PLAIN
from tests.conftest import COQ_INSTALLED
from tests.trace.project import write_project

pytestmark = pytest.mark.skipif(
    not COQ_INSTALLED or not hammer_installed(),
    reason="Coq (coqidetop.opt) or CoqHammer (Debian libcoq-hammer) is not installed",
)

STATEMENT = "Lemma twice (b : bool) : negb (negb b) = b."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("project"))
    out = tmp_path_factory.mktemp("trace") / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "2"]) == 0
    return out


#: The hammer stage first, so that it gets the lemma before knn does.
HAMMER_FIRST = ("--gen-option", "schedule=hammer:1,knn:1,knn-portfolio:3")


def search(index: Path, tmp_path: Path, *options: str) -> tuple[int, list[dict[str, object]]]:
    theorems = tmp_path / "thms.jsonl"
    entry = {"name": "twice", "statement": STATEMENT, "header": "Require Import Lib.A."}
    theorems.write_text(json.dumps(entry) + "\n")
    results = tmp_path / "r.jsonl"
    argv = ["search", str(theorems), "--index", str(index), "-o", str(results), "--quiet",
            "--timeout", "60", "--overwrite", *options]  # fmt: skip
    code = main(argv)
    records = [json.loads(line) for line in results.read_text().splitlines()] if code == 0 else []
    return code, records


def test_the_hammer_stage_proves_and_the_results_carry_the_import(
    index: Path, tmp_path: Path
) -> None:
    code, (record,) = search(index, tmp_path, "--hammer-tactics", "on", *HAMMER_FIRST)
    assert code == 0 and record["status"] == "proved", record.get("error")
    assert record["stage"] == "hammer" and record["header_suffix"] == HAMMER_TACTICS_IMPORT
    assert isinstance(record["proof"], list) and record["proof"][0] in PLAIN
    # The results file alone re-checks: check runs the import after the header.
    argv = ["check", str(tmp_path / "r.jsonl"), str(tmp_path / "thms.jsonl"), "--index", str(index)]
    assert main(argv) == 0


def test_by_default_the_stage_is_left_out(index: Path, tmp_path: Path) -> None:
    """Off unless asked for (``--hammer-tactics on|auto``): the stage neither runs nor
    shows in the results (docs/generators.md says why it is off)."""
    code, (record,) = search(index, tmp_path, *HAMMER_FIRST)
    assert code == 0 and record["status"] == "proved", record.get("error")
    assert "header_suffix" not in record and record["stage"] != "hammer"
    stages = record["stages"]
    assert isinstance(stages, list) and stages
    assert "hammer" not in [stage["name"] for stage in stages]


def test_on_where_no_stage_runs_it_is_an_error_before_any_work(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = search(index, tmp_path, "--hammer-tactics", "on", "--generator", "knn")
    assert code == 2
    err = capsys.readouterr().err
    assert "--hammer-tactics on" in err and "knn-portfolio" in err
    assert not (tmp_path / "r.jsonl").exists()
