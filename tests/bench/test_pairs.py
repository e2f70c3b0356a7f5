"""``bench pairs``: training pairs from a trace, held-out lemmas' leaks left out, a seeded
split by lemma. On a small trace written as records (tests/generate/knn_trace.py: ``Lib.B``
requires ``Lib.A``; ``Lib.Other`` stands apart); the same command on a trace made by real
Coq is in tests/libs/test_extract_project.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from tests.generate.knn_trace import write_trace


def _held_out(path: Path, *entries: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


#: Lib.A's zero_r (line 20): its own proof is two steps.
ZERO_R = {"name": "A.v:zero_r", "statement": "Lemma zero_r : forall n : nat, n + 0 = n.",
          "module": "Lib.A", "line": 20, "qualid": "zero_r"}  # fmt: skip


def _pairs(out: Path, split: str = "train") -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / f"{split}.jsonl").read_text().splitlines()]


def _tactics(out: Path) -> set[str]:
    return {str(p["tactic"]) for split in ("train", "valid") for p in _pairs(out, split)}


def test_every_step_without_held_out_lemmas(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace")
    out = tmp_path / "out"
    assert main(["bench", "pairs", "--index", str(trace), "--out", str(out), "--valid", "0"]) == 0
    pairs = _pairs(out)
    assert len(pairs) == 7 and _pairs(out, "valid") == []
    first = pairs[0]
    assert first["tactic"] == "symmetry; exact Hnm"  # the final period dropped
    assert first["state"] == "n, m : nat\nHnm : n = m\n============================\nm = n"
    assert (first["module"], first["lemma"], first["step"]) == ("Lib.A", "Lib.A.flip", 0)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pairs"] == {"train": 7, "valid": 0} and summary["left_out_steps"] == 0


def test_after_leaves_out_the_proof_later_lemmas_and_requiring_modules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_trace(tmp_path / "trace")
    held = _held_out(tmp_path / "held.jsonl", ZERO_R)
    out = tmp_path / "out"
    argv = ["bench", "pairs", "--index", str(trace), "--out", str(out), "--held-out", str(held)]
    assert main(argv) == 0
    # flip (A, line 10) came before; Lib.Other requires nothing: both stay. zero_r's
    # proof and all of Lib.B (it requires Lib.A) go.
    assert _tactics(out) == {"symmetry; exact Hnm", "apply other_tactic"}
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["left_out_steps"], summary["left_out_lemmas"]) == (5, 4)
    assert summary["held_out_found"] == 1 and summary["held_out_without_steps"] == []
    said = capsys.readouterr()
    assert "most steps (5 of 7) come after a held-out lemma" in said.err
    assert "from 2 of the traces' 3 modules" in said.out  # Lib.A and Lib.Other


def test_proof_leaves_out_only_its_own_proof(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace")
    secret = {
        "name": "B.v:secret",
        "statement": "Lemma secret k : secret_pred k.",
        "file": "B.v",
        "line": 30,
    }  # fmt: skip (no qualid, no module: found by file)
    held = _held_out(tmp_path / "held.jsonl", ZERO_R, secret)
    out = tmp_path / "out"
    argv = ["bench", "pairs", "--index", str(trace), "--out", str(out), "--held-out", str(held),
            "--leave-out", "proof"]  # fmt: skip
    assert main(argv) == 0
    tactics = _tactics(out)
    assert "apply secret_tactic" not in tactics and "intros n" not in tactics
    assert "apply later_tactic" in tactics and "unfold double" in tactics and len(tactics) == 4


def test_the_split_keeps_lemmas_together_and_follows_the_seed(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "trace")
    runs = []
    for seed in (0, 0, 1, 2, 3):
        out = tmp_path / f"out{len(runs)}"
        argv = ["bench", "pairs", "--index", str(trace), "--out", str(out),
                "--valid", "0.5", "--seed", str(seed)]  # fmt: skip
        assert main(argv) == 0
        valid = {str(p["lemma"]) for p in _pairs(out, "valid")}
        train = {str(p["lemma"]) for p in _pairs(out)}
        assert not valid & train and len(valid | train) == 6  # zero_r's two steps together
        runs.append(frozenset(valid))
    assert runs[0] == runs[1] and len(set(runs)) > 1


def test_bad_input_is_one_line_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_trace(tmp_path / "trace")
    out = tmp_path / "out"
    unknown = _held_out(tmp_path / "held.jsonl", {**ZERO_R, "module": "Lib.Nowhere"})
    argv = ["bench", "pairs", "--index", str(trace), "--out", str(out), "--held-out"]
    # A held-out theorem its traces cannot place at all (verification 56: exit 0, nothing
    # left out, the evaluation set unprotected).
    unplaced = _held_out(tmp_path / "new.jsonl", {"name": "n", "statement": "Lemma n : True."})
    assert main([*argv, str(unplaced)]) == 2
    assert "theorem n names no module or file (1 such)" in capsys.readouterr().err
    assert main([*argv, str(unknown)]) == 2
    assert f"{unknown}:1: theorem A.v:zero_r: field 'module': 'Lib.Nowhere' is not in" in (
        capsys.readouterr().err
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(ZERO_R) + "\n{not json\n")
    assert main([*argv, str(broken)]) == 2
    assert f"--held-out {broken}" in capsys.readouterr().err and not out.exists()
    assert main(["bench", "pairs", "--index", str(tmp_path), "--out", str(out)]) == 2
    assert "not a trace folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["bench", "pairs", "--index", str(trace), "--out", str(out), "--valid", "1"])
    assert usage.value.code == 2 and "--valid: expected a fraction" in capsys.readouterr().err


def test_an_earlier_output_is_replaced_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_trace(tmp_path / "trace")
    out = tmp_path / "out"
    argv = ["bench", "pairs", "--index", str(trace), "--out", str(out)]
    assert main(argv) == 0
    assert main(argv) == 2 and "--overwrite" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main(["bench", "pairs", "--index", str(trace), "--out", str(other), "--overwrite"]) == 2
    assert (other / "notes.txt").read_text() == "mine"
