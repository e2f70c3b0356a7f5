"""The bundled Lean benchmark (miniF2F, 488 theorems) is read and turned into the
commands the backend sends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proofsearch.data.theorems import load_theorems
from proofsearch.env.lean.statements import named_for_check, proof_text, sorry_command

SHARED = Path(os.environ.get("PROOFSEARCH_SHARED", Path(__file__).resolve().parents[3] / "shared"))
MINIF2F = SHARED / "benchmarks" / "lean" / "minif2f.jsonl"


@pytest.mark.skipif(not MINIF2F.exists(), reason="miniF2F not in shared/")
def test_minif2f_loads_and_every_statement_opens_and_names_itself():
    loaded = load_theorems(MINIF2F)
    assert loaded.invalid == [] and len(loaded.theorems) == 488
    assert {t.extra["split"] for t in loaded.theorems} == {"valid", "test"}
    assert len({t.header for t in loaded.theorems}) == 1  # one header: run once per process
    for theorem in loaded.theorems:
        command = sorry_command(theorem.statement)
        assert command.endswith(":= by sorry") and command.count("sorry") == 1, theorem.name
        statement, name = named_for_check(theorem.statement)
        assert statement == theorem.statement and name == theorem.name
        assert proof_text(theorem.statement, ["norm_num"]).endswith(":= by norm_num")
