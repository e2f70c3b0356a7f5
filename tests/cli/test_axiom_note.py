"""A run whose proofs were refused for the axioms they rest on says so once, with the
fix (real Coq). Audit 44: over the Reals, whose every proof rests on the Reals' own
axioms, each theorem ended ``error`` after its search, the fix only inside each row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.search import axiom_note

HEADER = "Require Import Reals Lra.\nOpen Scope R_scope."


def test_refused_axioms_are_said_once_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reals.jsonl"
    entry = {"name": "half", "header": HEADER,
             "statement": "Lemma half : forall x : R, x / 2 + x / 2 = x."}  # fmt: skip
    path.write_text(json.dumps(entry) + "\n")
    out = tmp_path / "r.jsonl"
    fixed = ["--generator", "fixed", "--tactic", "intros; lra", "--timeout", "30"]
    assert main(["search", str(path), "-o", str(out), *fixed]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["status"] == "error" and "uses axioms not allowed" in record["error"]
    err = capsys.readouterr().err
    assert "1 theorem(s) had a proof refused for the axioms it rests on (the first: half)" in err
    assert "pass --any-axiom" in err and "any_axiom: true" in err
    assert "--resume --retry-errors" in err
    # The fix it gives first works: one switch for the whole file (audit 55: a Flocq
    # lemma needed four --allow-axiom).
    again = ["search", str(path), "-o", str(out), *fixed, "--resume", "--retry-errors"]
    assert main([*again, "--any-axiom"]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()][-1:]
    assert record["status"] == "proved" and record["checked"]
    assert axiom_note([record]) is None
    # And so does the theorem's field.
    entry["any_axiom"] = True
    path.write_text(json.dumps(entry) + "\n")
    assert main(["search", str(path), "-o", str(out), *fixed, "--overwrite"]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["status"] == "proved" and record["checked"]


def test_any_axiom_is_refused_for_lean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"name": "t", "statement": "theorem t : True := by"}) + "\n")
    argv = ["search", str(path), "--prover", "lean", "--any-axiom", "-o", str(tmp_path / "r")]
    assert main(argv) == 2
    assert "--any-axiom is Coq's" in capsys.readouterr().err
