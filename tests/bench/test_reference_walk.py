"""``benchmarks/reference_walk.py``: a reference proof's steps, and their ranks, in real Coq."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.generate.base import Suggestion
from proofsearch.generate.portfolio import PortfolioGenerator
from proofsearch.theorem import Theorem
from tests.bench.conftest import requires_coq
from tests.conftest import ROOT


def load_walk() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "reference_walk", ROOT / "benchmarks" / "reference_walk.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_steps_leave_out_bullets_braces_and_comments() -> None:
    walk = load_walk()
    proof = "intros n. (* base *) induction n.\n- reflexivity.\n- { simpl. now rewrite IHn. }"
    assert walk.steps_of(proof) == [
        "intros n", "induction n", "reflexivity", "simpl", "now rewrite IHn",
    ]  # fmt: skip
    assert walk.steps_of("intros. (* unterminated") == []


@requires_coq
def test_a_step_counts_as_reached_by_the_same_state_or_the_same_text() -> None:
    """``intros`` reaches the state ``intros n`` does (the binder's own name); ``simpl``
    is the step's text; ``rewrite IHn`` is not offered, so that step is missing."""
    walk = load_walk()
    theorem = Theorem("plus_n_O_new", "Lemma plus_n_O_new : forall n, n + 0 = n.")
    tactics = ["intros", "induction n", "reflexivity", "simpl"]
    stage = PortfolioGenerator([Suggestion(t, -0.1 * i) for i, t in enumerate(tactics)])
    steps = walk.steps_of("intros n. induction n. reflexivity. simpl. rewrite IHn. reflexivity.")
    prover = CoqProver(CoqConfig())
    try:
        line = walk.walk(
            prover, theorem, steps, {"stage": stage},
            argparse.Namespace(probe=8, tactic_timeout=5.0),
        )  # fmt: skip
    finally:
        prover.close()
    ranks = [(row["step"], row["stage"]) for row in line["steps"]]
    assert ranks == [
        ("intros n", 0),
        ("induction n", 1),
        ("reflexivity", 2),
        ("simpl", 3),
        ("rewrite IHn", None),
        ("reflexivity", 2),
    ]


def test_a_missing_input_stops_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    walk = load_walk()
    missing = tmp_path / "absent.jsonl"
    monkeypatch.setattr(sys, "argv", ["reference_walk.py", str(missing), "--index", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        walk.main()
    assert stop.value.code == 2
    assert str(missing) in capsys.readouterr().err
