"""``benchmarks/union.py``: only re-checked proofs count, and unfinished runs are flagged."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT


def load_union():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("union", ROOT / "benchmarks" / "union.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_rows_union_and_a_missing_theorem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = write(tmp_path / "s.jsonl", [{"name": n, "statement": "x"} for n in "abcd"])
    ours = write(tmp_path / "ours.jsonl", [
        {"name": "a", "status": "proved", "checked": True},
        {"name": "b", "status": "proved", "checked": False},  # not re-checked: no count
        {"name": "c", "status": "open"},
        {"name": "d", "status": "proved", "checked": True},
    ])  # fmt: skip
    theirs = write(tmp_path / "theirs.jsonl", [
        {"name": "b", "status": "proved", "checked": True},
        {"name": "a", "status": "proved", "checked": True},
    ])  # fmt: skip
    code = load_union().main(
        ["--sample", str(sample), f"ours={ours}", f"hammer={theirs}", "--union", "ours,hammer"]
    )
    out = capsys.readouterr().out
    assert code == 0
    rows = {line[:40].strip(): line[40:].split() for line in out.splitlines()[1:-1]}
    assert rows["ours"][:2] == ["2", "50.0%"]
    assert rows["hammer"][:2] == ["2", "50.0%"] and "2 of the sample not in this run" in out
    assert rows["union of ours + hammer"] == ["3", "75.0%"]
    assert out.splitlines()[-1] == "sample: 4 theorems"


def test_an_unknown_label_in_a_union_is_an_error(tmp_path: Path) -> None:
    ours = write(tmp_path / "o.jsonl", [{"name": "a", "status": "open"}])
    assert load_union().main([f"ours={ours}", "--union", "ours,hamer"]) == 2
