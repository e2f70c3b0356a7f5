"""The committed index restores to the sample, and a bad index line is named, not dropped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from proofsearch.bench.stdlib_index import index_record, restore

from .conftest import INDEX


def index_lines() -> list[str]:
    return INDEX.read_text(encoding="utf-8").splitlines()


def test_index_is_small_and_headerless() -> None:
    lines = index_lines()
    assert len(lines) >= 500
    assert INDEX.stat().st_size < 1_000_000
    assert all("header" not in json.loads(line) for line in lines)


def test_restored_entries_keep_every_index_field(stdlib_sample: Path, stdlib_root: Path) -> None:
    restored = [json.loads(line) for line in stdlib_sample.read_text("utf-8").splitlines()]
    entries = [json.loads(line) for line in index_lines()]
    assert [index_record(record) for record in restored] == entries
    for record in restored:
        assert list(record)[:3] == ["name", "statement", "header"]
        assert record["header"].strip(), record["name"]
        # The header is the file's prefix: its last sentence comes before the lemma.
        source = (stdlib_root / record["file"]).read_text(encoding="utf-8")
        last = record["header"].rstrip().splitlines()[-1].strip()
        assert last in source, record["name"]


def tampered(entry: dict[str, Any], **changes: Any) -> str:
    changed = {**entry, **changes}
    return json.dumps({k: v for k, v in changed.items() if v is not None})


def test_bad_index_lines_are_reported_with_line_and_field(stdlib_root: Path) -> None:
    good = index_lines()[:2]
    entry = json.loads(good[0])
    lines = [
        good[0],
        "{not json",
        tampered(entry, statement=entry["statement"].replace(":", ": True ->", 1)),
        tampered(entry, qualid="no_such_lemma"),
        tampered(entry, reference_proof=None),
        tampered(entry, file="Nowhere/Missing.v"),
        tampered(entry, header="Require Import Arith."),
        good[1],
    ]
    result = restore(lines, "idx.jsonl", stdlib_root)
    assert [r["name"] for r in result.records] == [entry["name"], json.loads(good[1])["name"]]
    assert len(result.errors) == 6
    expected = [
        ("idx.jsonl:2:", "invalid JSON"),
        ("idx.jsonl:3:", "field 'statement': differs from"),
        ("idx.jsonl:4:", "field 'qualid':"),
        ("idx.jsonl:5:", "field 'reference_proof': missing"),
        ("idx.jsonl:6:", "Nowhere/Missing.v is not under"),
        ("idx.jsonl:7:", "field 'header'"),
    ]
    for error, (where, what) in zip(result.errors, expected, strict=True):
        assert error.startswith(where) and what in error, error


def test_restore_command(stdlib_root: Path, tmp_path: Path) -> None:
    index = tmp_path / "index.jsonl"
    entry = json.loads(index_lines()[0])
    index.write_text(index_lines()[0] + "\n" + tampered(entry, qualid="gone") + "\n")
    out = tmp_path / "sample.jsonl"
    command = [sys.executable, "-m", "proofsearch.cli", "bench", "restore-coq-stdlib",
               str(index), "--out", str(out), "--root", str(stdlib_root)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert f"{index}:2: field 'qualid'" in done.stderr
    assert "wrote 1 theorems" in done.stdout
    assert [json.loads(line)["name"] for line in out.read_text().splitlines()] == [entry["name"]]
