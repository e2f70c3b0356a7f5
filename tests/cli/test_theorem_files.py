"""Malformed theorem files: every bad line named with file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.data.theorems import load_theorems

GOOD = {"name": "t1", "statement": "Theorem t1 : True.", "topic": "logic"}


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def bad_file(tmp_path: Path) -> Path:
    return write(
        tmp_path / "thms.jsonl",
        [
            json.dumps(GOOD),
            "{not json",
            json.dumps({"statement": "Theorem x : True."}),
            json.dumps({"name": "t1", "statement": "Theorem t1' : True."}),
            json.dumps({"name": "t4", "statement": 42}),
            json.dumps({"name": "t5"}),
            "[1, 2]",
            json.dumps({"name": "t7", "formal_statement": "Theorem t7 : True.", "header": ""}),
        ],
    )


def test_every_bad_line_is_reported(bad_file: Path) -> None:
    loaded = load_theorems(bad_file)
    assert [t.name for t in loaded.theorems] == ["t1", "t7"]
    assert loaded.theorems[0].extra == {"topic": "logic"}
    where = [(bad.line, bad.field) for bad in loaded.invalid]
    assert where == [
        (2, "(line)"),
        (3, "name"),
        (4, "name"),
        (5, "statement"),
        (6, "statement"),
        (7, "(line)"),
    ]
    assert all(str(bad).startswith(f"{bad_file}:") for bad in loaded.invalid)
    assert "duplicate" in loaded.invalid[2].message
    # The bad JSON line is named once: not "line 2 ... line 1 column 2" for two lines.
    assert str(loaded.invalid[0]) == f"{bad_file}:2: invalid JSON: Expecting property name " \
        "enclosed in double quotes"  # fmt: skip


def test_cli_refuses_to_start_and_lists_every_bad_line(
    bad_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    assert main(["search", str(bad_file), "--output", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    for line in (2, 3, 4, 5, 6, 7):
        assert f"thms.jsonl:{line}:" in err
    assert not out.exists()


def test_skip_invalid_runs_the_rest_and_records_the_bad_ones(
    bad_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r.jsonl"
    code = main(
        ["search", str(bad_file), "--output", str(out), "--quiet", "--skip-invalid",
         "--generator", "fixed", "--tactic", "exact I"]
    )  # fmt: skip
    assert code == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    by_status: dict[str, list[dict[str, object]]] = {}
    for record in records:
        by_status.setdefault(str(record["status"]), []).append(record)
    assert sorted(str(r["name"]) for r in by_status["proved"]) == ["t1", "t7"]
    assert len(by_status["invalid"]) == 6
    assert len({r["name"] for r in records}) == len(records)
    assert all(str(r["error"]).startswith(f"{bad_file}:") for r in by_status["invalid"])
    assert next(r for r in records if r["name"] == "t1")["topic"] == "logic"


def test_unreadable_file(tmp_path: Path) -> None:
    assert main(["search", str(tmp_path / "missing.jsonl"), "--quiet"]) == 2


def test_the_fields_the_recheck_reads_are_typed(tmp_path: Path) -> None:
    """``any_axiom`` relaxes the re-check, ``functor_parameters`` moves it in place,
    ``learn_from`` widens what knn imitates: a mistyped one is refused with its field
    named, never read as something else."""
    path = tmp_path / "t.jsonl"
    lines = [
        {"name": "a", "statement": "Lemma a : True.", "any_axiom": "yes"},
        {"name": "b", "statement": "Lemma b : True.", "functor_parameters": "A"},
        {"name": "c", "statement": "Lemma c : True.", "allowed_axioms": ["x"], "any_axiom": True},
        {"name": "d", "statement": "Lemma d : True.", "learn_from": "Proj.P"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    loaded = load_theorems(path)
    assert [(i.line, i.field) for i in loaded.invalid] == [
        (1, "any_axiom"),
        (2, "functor_parameters"),
        (4, "learn_from"),
    ]
    (theorem,) = loaded.theorems
    assert theorem.extra == {"allowed_axioms": ["x"], "any_axiom": True}


def test_text_that_is_not_utf8_is_refused_with_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone surrogate (``\\udcff`` in the JSON) in a header became an ``error`` row
    inside the run (exit 0); a ``--tactic`` holding a byte that is not UTF-8 was refused
    by the guard at every state, silently."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"name": "s", "header": "(* \\udcff *)", "statement": "Theorem s : True."}\n')
    loaded = load_theorems(path)
    assert loaded.theorems == []
    assert [str(bad) for bad in loaded.invalid] == [
        f"{path}:1: invalid JSON: a lone surrogate escape (\\ud800-\\udfff) is no character"
    ]
    good = write(tmp_path / "g.jsonl", [json.dumps(GOOD)])
    out = str(tmp_path / "r.jsonl")
    bad_byte = "lia\udcff"  # what Python makes of the shell's byte 0xff
    assert main(["search", str(good), "--generator", "fixed", "--tactic", bad_byte, "-o", out]) == 2
    said = capsys.readouterr().err
    assert "--tactic 'lia?': not UTF-8 text (character 4 of the argument)" in said


def test_a_lean_file_without_prover_lean_is_said_to_be_lean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Coq (the default) failed on each header, with loadpath advice (audit 43-a)."""
    lean = {"name": "t", "header": "import Mathlib\n", "statement": "theorem t : 1 = 1 := by"}
    path = write(tmp_path / "lean.jsonl", [json.dumps(lean)])
    assert main(["search", str(path), "-o", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "its theorems look like Lean 4 (a statement ending ':= by')" in err
    assert "add --prover lean" in err
    lean["statement"] = "theorem t : 1 = 1"  # the header alone tells
    write(path, [json.dumps(lean)])
    assert main(["search", str(path), "-o", str(tmp_path / "r.jsonl")]) == 2
    assert "(a header line 'import Mathlib')" in capsys.readouterr().err
