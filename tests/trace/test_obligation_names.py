"""A Program obligation's proof is traced under the name Coq gives it (audit 52: every
one was ``M.Obligation``, 83 in stdpp, 12 in the stdlib's ``Morphisms``). Real Coq."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.trace.schema import TraceDir

SOURCE = """\
Require Import Program List.
Program Definition g (n : nat) : {l : list nat | length l = n} := repeat 0 n.
Next Obligation. apply repeat_length. Qed.
Program Definition h (n : nat) : {l : list nat | length l = n + 0} := repeat 1 (n + 0).
Next Obligation. rewrite repeat_length. reflexivity. Qed.
Lemma l : True. Proof. exact I. Qed.
"""


def test_obligations_keep_their_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "O.v").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    assert main(["trace", "O.v", "--out", str(tmp_path / "trace"), "--jobs", "1"]) == 0
    trace = TraceDir(tmp_path / "trace")
    steps = list(trace.steps("O"))
    lemmas = list(dict.fromkeys(step.lemma for step in steps))
    assert lemmas == ["O.g_obligation_1", "O.h_obligation_1", "O.l"]
    assert [s.tactic for s in steps if s.lemma == "O.h_obligation_1"] == [
        "rewrite repeat_length.", "reflexivity."
    ]  # fmt: skip
    # Their constants are no premises (as before: proofs use the definitions).
    assert [p.name for p in trace.premises("O")] == ["O.l"]
