"""Search and re-check never compile native code, and leave no temporary files behind.

Before, ``exact (I <<: False)`` passed the guard and coqidetop wrote OCaml into
``$TMPDIR/Coq_native<hex>`` and ran ``ocamlfind``/``ocamlopt`` on it; every killed
coqidetop left its folder behind. Three layers now: the guard refuses every native entry
point, Coq runs with ``-native-compiler no``, and Coq's temporary folder is the worker's
private one, removed at close. The real-Coq tests here turn the guard off for the native
words, so that they test the other two layers: stand-ins for ``ocamlfind`` and
``ocamlopt`` first on ``PATH`` record any call.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from proofsearch.env.base import Proved
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.guard import TacticRejected, check_tactic
from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem

#: Every way into the native compiler a tactic has (and the option commands around it).
NATIVE_ENTRY_POINTS = [
    "exact (I <<: False)",
    "exact (eq_refl 4 <<: 2 + 2 = 4)",
    "exact (eq_refl 4<<:2 + 2 = 4)",
    "native_compute",
    "native_compute in H",
    "native_cast_no_check (eq_refl 4)",
    "let x := eval native_compute in (2 + 2) in idtac",
    "idtac; Eval native_compute in 1",
    "Set NativeCompute Profiling",
    "Set NativeCompute Timing",
    "idtac; Native Compute",
    "Native Compute Profiling",
    "(native_compute)",
]

NATIVE_WORDS = ("<<:", "native_compute", "native_cast_no_check")
FOUR = Theorem(
    "four",
    "Theorem four_eq : four = 2 + 2.",
    "Definition four := Eval native_compute in 2 + 2.",
)
NATIVE_PROOFS = [
    "exact (eq_refl 4 <<: four = 2 + 2)",
    "native_compute; reflexivity",
    "native_cast_no_check (eq_refl 4)",
]


class Fixed(TacticGenerator):
    def __init__(self, tactic: str) -> None:
        self.tactic = tactic

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(self.tactic, -0.1)]


@pytest.mark.parametrize("tactic", NATIVE_ENTRY_POINTS)
def test_the_guard_refuses_every_native_entry_point(tactic: str) -> None:
    with pytest.raises(TacticRejected, match=r"native|<<:|'Set'|'Eval'"):
        check_tactic(tactic)


def test_the_vm_cast_and_vm_compute_still_pass() -> None:
    assert check_tactic("exact (eq_refl 4 <: 2 + 2 = 4)") == "exact (eq_refl 4 <: 2 + 2 = 4)"
    assert check_tactic("vm_compute; reflexivity") == "vm_compute; reflexivity"


@pytest.fixture
def recording_compilers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Stand-in ``ocamlfind``/``ocamlopt`` first on PATH, and a fresh system temp folder.

    Yields the log the stand-ins append their command lines to.
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "compiler-calls.log"
    for name in ("ocamlfind", "ocamlopt", "ocamlc"):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\nexit 2\n')
        script.chmod(0o755)
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", str(system_temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    yield log


def native_folders(root: Path) -> list[Path]:
    return sorted(root.rglob("Coq_native*"))


def test_the_stand_ins_record_a_native_compilation(
    recording_compilers: Path, tmp_path: Path
) -> None:
    """The test's own probe: coqc with native compilation on calls the stand-in."""
    import subprocess

    config = subprocess.run(["coqc", "-config"], capture_output=True, text=True, check=False)
    if "COQ_NATIVE_COMPILER_DEFAULT=no" in config.stdout:
        pytest.skip(
            "this Coq is built with native compilation off (coqc -config: "
            "COQ_NATIVE_COMPILER_DEFAULT=no; Debian's 8.20 and 9.2): no compiler to record"
        )
    (tmp_path / "N.v").write_text("Definition x := Eval native_compute in 2 + 2.\n")
    subprocess.run(["coqc", "N.v"], cwd=tmp_path, capture_output=True, check=False)
    assert "ocamlopt" in recording_compilers.read_text()


def test_search_and_recheck_compile_nothing_and_leave_nothing(
    recording_compilers: Path, tmp_path: Path, no_new_coq_processes: None
) -> None:
    config = CoqConfig(tactic_timeout=5, allowed_words=NATIVE_WORDS)
    with CoqProver(config) as prover:
        with prover.open(FOUR) as session:
            outcomes = session.apply_all(session.root, NATIVE_PROOFS)
            assert outcomes == [Proved((tactic,)) for tactic in NATIVE_PROOFS]
        for tactic in NATIVE_PROOFS:
            verdict = prover.check(FOUR, [tactic])
            assert verdict.ok, verdict.message
        # And through the search, whose proofs are re-checked.
        for tactic in NATIVE_PROOFS:
            searcher = BestFirstSearchProver(prover, Fixed(tactic), SearchConfig(timeout=60))
            result = searcher.search(FOUR)
            assert result.status is Status.PROVED and result.checked, result.error
        # Coq's temporary folder is the line's private one.
        pid = prover.pid
        assert pid is not None
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        private = prover.line._private_folder()
        assert f"TMPDIR={private / 'tmp'}".encode() in environment
        assert private.is_dir() and not native_folders(private)
    assert not private.exists()
    assert not recording_compilers.exists(), recording_compilers.read_text()
    assert not native_folders(tmp_path / "system-temp")
    assert not list((tmp_path / "system-temp").iterdir())  # every private folder removed


def test_a_killed_coqidetop_leaves_nothing_after_close(
    recording_compilers: Path, tmp_path: Path, no_new_coq_processes: None
) -> None:
    """The temporary folder of a killed process is emptied at the restart, and removed
    with the private folder at close."""
    with CoqProver(CoqConfig(tactic_timeout=5)) as prover, prover.open(FOUR) as session:
        private_tmp = prover.line._private_folder() / "tmp"
        (private_tmp / "Coq_native0123ab").mkdir()  # what a killed coqidetop leaves
        prover.restart()
        assert isinstance(session.apply(session.root, "reflexivity"), Proved)
        assert not native_folders(private_tmp)
    assert not list((tmp_path / "system-temp").iterdir())
