"""Results are durable line by line; --resume skips what is done and survives a torn line."""

from __future__ import annotations

import json
from pathlib import Path

from proofsearch.cli import main
from proofsearch.distributed.store import ResultsStore, read_results


def theorem_file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "thms.jsonl"
    lines = [
        json.dumps({"name": f"t{i}", "statement": f"Theorem t{i} : {i} = {i}."})
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(theorems: Path, out: Path, *extra: str) -> int:
    return main(
        ["search", str(theorems), "--output", str(out), "--quiet",
         "--generator", "fixed", "--tactic", "reflexivity", *extra]
    )  # fmt: skip


def test_existing_output_needs_resume_or_overwrite(tmp_path: Path) -> None:
    theorems = theorem_file(tmp_path, 2)
    out = tmp_path / "r.jsonl"
    assert run(theorems, out) == 0
    assert run(theorems, out) == 2
    assert run(theorems, out, "--overwrite") == 0
    assert len(out.read_text().splitlines()) == 2


def test_resume_after_a_torn_line(tmp_path: Path) -> None:
    theorems = theorem_file(tmp_path, 5)
    out = tmp_path / "r.jsonl"
    assert run(theorems, out, "--limit", "3") == 0
    lines = out.read_text().splitlines()
    # As if the run was killed in the middle of writing the third result.
    out.write_text("\n".join(lines[:2]) + "\n" + lines[2][:17])
    assert read_results(out).torn_tail
    assert run(theorems, out, "--resume") == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["name"] for r in records) == [f"t{i}" for i in range(5)]
    assert all(r["status"] == "proved" for r in records)


def test_retry_errors(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with ResultsStore(out) as store:
        store.append({"name": "t0", "status": "error", "error": "worker crashed 3 times"})
        store.append({"name": "t1", "status": "proved", "proof": ["reflexivity"]})
    theorems = theorem_file(tmp_path, 2)
    assert run(theorems, out, "--resume") == 0
    assert len(out.read_text().splitlines()) == 2
    assert run(theorems, out, "--resume", "--retry-errors") == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in records if r["name"] == "t0"] == ["error", "proved"]


def test_each_run_is_recorded_and_a_resume_with_other_settings_says_so(
    tmp_path: Path, capsys: object
) -> None:
    """A ``--resume`` with another budget appended to the results without a word, and
    nothing in them told the two runs apart."""
    out = tmp_path / "r.jsonl"
    assert run(theorem_file(tmp_path, 2), out, "--timeout", "30") == 0
    runs = out.with_name("r.jsonl.runs.jsonl")
    (first,) = [json.loads(line) for line in runs.read_text().splitlines()]
    assert first["resumed"] is False and first["settings"]["generator"] == "fixed"
    assert first["settings"]["search"]["timeout"] == 30
    assert run(theorem_file(tmp_path, 3), out, "--timeout", "20", "--resume") == 0
    err = " ".join(capsys.readouterr().err.split())  # type: ignore[attr-defined]
    assert f"resuming {out} with other settings than the run that wrote it" in err
    assert "search.timeout (--timeout): 30.0 → 20.0" in err
    lines = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [line["resumed"] for line in lines] == [False, True]
    # The same settings again: not a word.
    assert run(theorem_file(tmp_path, 4), out, "--timeout", "20", "--resume") == 0
    assert "other settings" not in capsys.readouterr().err  # type: ignore[attr-defined]
    # A setting named otherwise than its option is said with the option (a user looked
    # for an option `budget_after_open`).
    assert run(theorem_file(tmp_path, 5), out, "--timeout", "20", "--resume",
               "--budget-after-header") == 0  # fmt: skip
    err = " ".join(capsys.readouterr().err.split())  # type: ignore[attr-defined]
    assert "search.budget_after_open (--budget-after-header): false → true" in err
