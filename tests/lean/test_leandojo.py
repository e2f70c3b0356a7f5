"""Reading LeanDojo Benchmark 4 files (synthetic entries over a synthetic checkout: no
LeanDojo data is available here; the entry format is LeanDojo's: 1-based line and
column positions, ``[line, column]`` lists)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from proofsearch.data.leandojo import (
    LeanDojoError,
    LeanDojoSourceMissing,
    load_leandojo,
)

SOURCE = """import Mathlib.Data.Nat.Basic

namespace Demo

variable (n : ℕ)

/-- Adding zero. The docstring says := but is not the proof. -/
@[simp]
theorem add_zero' (k : ℕ := 0) : n + 0 = n := by
  simp

theorem two_lines
    (h : n = 1) : n + n = 2 := by
  subst h; rfl

theorem by_pattern : ℕ → ℕ
  | 0 => 0
  | k + 1 => k

end Demo
"""


def entry(name: str, start: list[int], end: list[int], **overrides) -> dict:
    data = {
        "url": "https://github.com/example/demo",
        "commit": "0" * 40,
        "file_path": "Demo/Basic.lean",
        "full_name": name,
        "start": start,
        "end": end,
        "traced_tactics": [{"tactic": "simp", "state_before": "...", "state_after": ""}],
    }
    data.update(overrides)
    return data


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "demo"
    (repo / "Demo").mkdir(parents=True)
    (repo / "Demo" / "Basic.lean").write_text(SOURCE, encoding="utf-8")
    return repo


def write(tmp_path: Path, entries: list) -> Path:
    path = tmp_path / "test.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_statements_and_headers_come_from_the_source(tmp_path, checkout):
    path = write(
        tmp_path,
        [
            entry("Demo.add_zero'", [7, 1], [10, 7]),
            entry("Demo.two_lines", [12, 1], [14, 15]),
        ],
    )
    loaded = load_leandojo(path, checkout)
    assert loaded.invalid == []
    first, second = loaded.theorems
    assert first.name == "Demo.add_zero'"
    assert first.statement == (
        "/-- Adding zero. The docstring says := but is not the proof. -/\n@[simp]\n"
        "theorem add_zero' (k : ℕ := 0) : n + 0 = n := by"
    )
    assert first.header.startswith("import Mathlib.Data.Nat.Basic\n\nnamespace Demo\n")
    assert first.header.endswith("variable (n : ℕ)\n\n")
    assert second.statement == "theorem two_lines\n    (h : n = 1) : n + n = 2 := by"
    assert second.header == SOURCE[: SOURCE.index("theorem two_lines")]
    assert first.extra["file_path"] == "Demo/Basic.lean" and "traced_tactics" not in first.extra
    assert first.source == f"{path}[0]"


def test_invalid_entries_are_reported_by_index_and_field(tmp_path, checkout):
    entries = [
        entry("Demo.by_pattern", [16, 1], [18, 15]),  # no := (pattern matching)
        entry("missing_file", [1, 1], [1, 5], file_path="Nope.lean"),
        entry("bad_start", [99, 1], [100, 1]),
        entry("bad_type", "9:1", [10, 7]),
        {"url": "u"},
        "not an object",
        entry("Demo.two_lines", [12, 1], [14, 15]),
        entry("Demo.two_lines", [12, 1], [14, 15]),
    ]
    loaded = load_leandojo(write(tmp_path, entries), checkout)
    assert [t.name for t in loaded.theorems] == ["Demo.two_lines"]
    reported = {(bad.line, bad.field) for bad in loaded.invalid}
    assert (0, "start") in reported
    assert (1, "file_path") in reported
    assert (2, "start") in reported
    assert (3, "start") in reported
    assert {(4, "commit"), (4, "file_path"), (4, "full_name")} <= reported
    assert (5, "(entry)") in reported
    assert (7, "full_name") in reported
    text = str(next(bad for bad in loaded.invalid if bad.line == 0))
    assert text.startswith(str(tmp_path / "test.json") + "[0]: field 'start': no ':='")


def test_without_a_checkout_the_error_says_why(tmp_path):
    path = write(tmp_path, [entry("x", [1, 1], [1, 2])])
    with pytest.raises(LeanDojoSourceMissing, match=r"position .* not its statement"):
        load_leandojo(path)
    with pytest.raises(LeanDojoSourceMissing, match="does not exist"):
        load_leandojo(path, tmp_path / "absent")


def test_not_a_list(tmp_path, checkout):
    path = tmp_path / "bad.json"
    path.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(LeanDojoError, match="expected a JSON list"):
        load_leandojo(path, checkout)
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(LeanDojoError, match="invalid JSON"):
        load_leandojo(path, checkout)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_commit_must_match_the_checkout(tmp_path, checkout):
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "demo")
    head = git("rev-parse", "HEAD")
    entries = [
        entry("Demo.two_lines", [12, 1], [14, 15], commit=head),
        entry("Demo.add_zero'", [7, 1], [10, 7]),  # another commit
    ]
    loaded = load_leandojo(write(tmp_path, entries), checkout)
    assert [t.name for t in loaded.theorems] == ["Demo.two_lines"]
    (bad,) = loaded.invalid
    assert bad.field == "commit" and head in bad.message
