"""``proofsearch export``: one file per proof that compiles as it is, and an index."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.data.export import guess_prover, lean_source, module_name
from proofsearch.theorem import Theorem

from .conftest import requires_coq

THEOREMS = [
    {
        "name": "Arith/Demo.v:add_comm'",
        "statement": "Lemma add_comm' : forall n m : nat, n + m = m + n.",
        "header": "Require Import Arith.\n",
    },
    {
        # A stdlib-benchmark entry whose header ends inside a section and a module.
        "name": "Lists/Demo.v:M.in_section",
        "statement": "Lemma in_section : forall x : A, x = x.",
        "header": "Module M.\nSection S.\nVariable A : Type.\n",
        "footer": "End S.\nEnd M.",
    },
    {"name": "List", "statement": "Theorem t : True.", "header": ""},
    {"name": "needs-lia", "statement": "Lemma nl : forall n : nat, n + 0 = n.", "header": ""},
    {"name": "never-proved", "statement": "Theorem u : False.", "header": ""},
]

RESULTS = [
    {"name": "Arith/Demo.v:add_comm'", "status": "proved", "checked": True,
     "proof": ["intros n m", "apply Nat.add_comm"]},
    {"name": "Lists/Demo.v:M.in_section", "status": "proved", "checked": False,
     "proof": ["reflexivity"]},
    {"name": "List", "status": "proved", "checked": True, "proof": ["exact I"]},
    {"name": "needs-lia", "status": "proved", "checked": True, "proof": ["intros; lia"],
     "header_suffix": "Require Import Lia."},  # as the hammer/sauto baselines write
    {"name": "never-proved", "status": "failed", "proof": None},
]  # fmt: skip


def write_inputs(tmp_path: Path, results: list[object]) -> tuple[Path, Path]:
    theorems = tmp_path / "theorems.jsonl"
    theorems.write_text("".join(json.dumps(t) + "\n" for t in THEOREMS))
    out = tmp_path / "results.jsonl"
    out.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in results))
    return out, theorems


@requires_coq
def test_exported_files_compile(tmp_path: Path) -> None:
    results, theorems = write_inputs(tmp_path, list(RESULTS))
    out = tmp_path / "proofs"
    assert main(["export", str(results), str(theorems), "--out", str(out)]) == 0
    index = json.loads((out / "index.json").read_text())
    assert [item["name"] for item in index] == [r["name"] for r in RESULTS[:4]]
    files = [out / item["path"] for item in index]
    for path in files:
        assert re.fullmatch(r"Proof_[A-Za-z0-9_]+\.v", path.name), path.name
        done = subprocess.run(
            ["coqc", "-Q", str(out), "", path.name],
            cwd=out, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (path.name, done.stderr)
    assert files[1].read_text().endswith("Qed.\nEnd S.\nEnd M.\n")
    assert "Proof_List.v" in (out / "index.md").read_text()  # no clash with Coq's List
    assert (out / "_CoqProject").read_text().splitlines()[0] == '-Q . ""'


def test_only_checked_and_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        *RESULTS,
        "{oops",
        {"name": "ghost", "status": "proved", "checked": True, "proof": ["auto"]},
    ]
    results, theorems = write_inputs(tmp_path, rows)
    out = tmp_path / "proofs"
    code = main(["export", str(results), str(theorems), "--out", str(out), "--only-checked"])
    assert code == 1
    err = capsys.readouterr().err
    assert f"{results}:6: invalid JSON" in err and "'ghost' is not in the theorem file" in err
    assert len(json.loads((out / "index.json").read_text())) == 3


def test_the_wrong_theorem_file_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """None of the proofs' theorems in the file: exit 2 and no folder (it left an empty
    export that a rerun then had to --overwrite)."""
    results, _ = write_inputs(tmp_path, list(RESULTS))
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"name": "z", "statement": "Theorem z : True."}) + "\n")
    out = tmp_path / "proofs"
    assert main(["export", str(results), str(other), "--out", str(out)]) == 2
    assert "none of the 4 proof(s)" in capsys.readouterr().err and not out.exists()


def test_a_bad_theorem_line_is_said_and_the_rest_exported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``check`` does (after ``search --skip-invalid``): it refused the whole file."""
    results, theorems = write_inputs(tmp_path, list(RESULTS))
    with theorems.open("a") as lines:
        lines.write('{"name": "bad", "statement": 3}\n')
    out = tmp_path / "proofs"
    assert main(["export", str(results), str(theorems), "--out", str(out)]) == 0
    assert f"{theorems}:6" in capsys.readouterr().err
    assert len(json.loads((out / "index.json").read_text())) == 4


def test_module_names_are_valid_and_unique() -> None:
    taken: set[str] = set()
    names = [module_name(n, taken) for n in ("a/b.v:x'", "A/B.v:X'", "1+1", "")]
    assert names == ["Proof_a_b_v_x", "Proof_A_B_v_X_2", "Proof_1_1", "Proof_theorem"]


def test_lean_export_and_prover_guess() -> None:
    lean = Theorem("t", "theorem t (n : Nat) : n + 0 = n := by", "import Mathlib\nopen Nat\n")
    assert guess_prover(lean) == "lean"
    assert guess_prover(Theorem("c", "Lemma c : True.", "Require Import Arith.")) == "coq"
    assert guess_prover(Theorem("c", "Lemma c : True.", "", extra={"prover": "lean"})) == "lean"
    assert lean_source(lean, ["simp", "rfl"]) == (
        "import Mathlib\nopen Nat\n\ntheorem t (n : Nat) : n + 0 = n := by\n  simp\n  rfl\n"
    )
    bare = Theorem("u", "theorem u : True", "")
    assert guess_prover(bare) == "lean"
    assert lean_source(bare, ["trivial"]) == "theorem u : True := by trivial\n"
