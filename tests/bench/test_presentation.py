"""``benchmarks/presentation.py``: a finished ``prove`` run presented both ways (real Coq)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.cli import main
from tests.bench.conftest import ROOT, requires_coq


@requires_coq
def test_both_ways_write_the_same_proofs_and_the_session_compiles_less(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Pres\nA.v\n")
    (folder / "A.v").write_text(
        "Require Import Arith.\nLemma pres_le : forall n m : nat, n <= n + m.\nProof.\nAdmitted.\n"
    )
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    results = tmp_path / "r.jsonl"
    code = main(
        ["prove", str(folder), "--generator", "tests.prove.stand_in:by_name",
         "--no-library-trace", "--quiet", "--output", str(results)]
    )  # fmt: skip
    assert code == 0
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "presentation.py"), str(folder),
         "--results", str(results)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = dict(
        (m["label"].strip(), (int(m["compiles"]), int(m["changed"])))
        for m in re.finditer(
            r"^(?P<label>[a-z ]+?)\s+[\d.]+\s+(?P<compiles>\d+)\s+(?P<changed>\d+)$",
            done.stdout,
            re.M,
        )
    )
    scratch, session = rows["each compiled from scratch"], rows["run in a session"]
    assert scratch[1] == session[1] == 1  # the premise not needed is left out both ways
    assert session[0] < scratch[0], done.stdout
    assert "differ between the two: 0" in done.stdout
