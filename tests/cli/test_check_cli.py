"""``proofsearch check`` re-checks the statement of the theorem file, and nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

STATEMENT = "Theorem one_is_two : 1 = 2."
#: Each proof ends the theorem and proves another statement under the same name: as a
#: file compiled as it is, each is closed under the global context.
ESCAPES = {
    "abort and restate": ["idtac. Abort. Theorem one_is_two : 1 = 1. Proof. reflexivity"],
    "split over tactics": ["idtac. Abort. Theorem one_is_two : 1 = 1. Proof", "reflexivity"],
    "behind a comment": ["idtac (* *). Abort. Theorem one_is_two : 1 = 1. Proof. reflexivity"],
}


def check(tmp_path: Path, proof: list[str], columns: int = 80) -> subprocess.CompletedProcess[str]:
    theorems = tmp_path / "thms.jsonl"
    theorems.write_text(json.dumps({"name": "t", "statement": STATEMENT}) + "\n")
    results = tmp_path / "r.jsonl"
    record = {"name": "t", "status": "proved", "proof": proof, "checked": True}
    results.write_text(json.dumps(record) + "\n")
    return subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "check", str(results), str(theorems)],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env={**os.environ, "COLUMNS": str(columns)},
    )  # fmt: skip


@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_a_proof_of_a_different_statement_is_refused(tmp_path: Path, escape: str) -> None:
    done = check(tmp_path, ESCAPES[escape])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 passed" in done.stdout
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("  t: ")]
    assert "sentence" in line, line


@pytest.mark.parametrize("columns", [40, 300])
def test_the_reasons_are_one_line_each_whatever_the_width(tmp_path: Path, columns: int) -> None:
    done = check(tmp_path, ["reflexivity"], columns=columns)
    assert done.returncode == 1
    lines = [line for line in done.stdout.splitlines() if line.startswith("  t: ")]
    assert len(lines) == 1 and "coqc rejected the proof" in lines[0], done.stdout
    assert done.stdout.strip().splitlines()[-1] == lines[0]


def test_a_theorem_file_with_none_of_the_results_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "re-checked 1 proof(s): 0 passed" and exit 1 (a rejected proof) when it
    had re-checked nothing: the theorem file was another run's."""
    from proofsearch.cli import main

    theorems = tmp_path / "other.jsonl"
    theorems.write_text(json.dumps({"name": "u", "statement": "Theorem u : True."}) + "\n")
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"name": "t", "status": "proved", "proof": ["exact I"]}) + "\n")
    assert main(["check", str(results), str(theorems)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{theorems}: none of the 1 proved theorem(s) of {results} is in it" in err
