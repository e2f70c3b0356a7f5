"""A ``-noinit`` project (HoTT's style) whose first file loads ltac's plugin itself.

Without the prelude, ltac's grammar (``assert … by …``) arrives with the ``Require`` of
the file that declares the plugin. Two holes of different files open with different
first sentences, so the line was rewound (``Edit_at``) below that ``Require``: the
grammar went with it, and replaying the ``Require`` did not bring it back (the plugin
stays loaded): ``Syntax error: [ltac_use_default] expected``. Reported on HoTT.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.env.base import ProofState
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.env.coq.version import binary_version
from proofsearch.theorem import Theorem
from tests.conftest import COQ_INSTALLED

pytestmark = pytest.mark.skipif(not COQ_INSTALLED, reason="Coq is not installed")

#: ltac's plugin by its legacy name (8.x), or by its findlib name (Rocq 9 knows no other).
PLUGIN = (
    "rocq-runtime.plugins.ltac" if COQ_INSTALLED and binary_version("coqc").rocq else "ltac_plugin"
)
BASE = f'Declare ML Module "{PLUGIN}".\nGlobal Set Default Proof Mode "Classic".\n'
BASE += "Inductive True : Prop := I.\n"
USE = "Lemma used : True.\nProof. assert True by exact I. exact I. Qed."


def test_holes_of_two_files_open_one_after_the_other(tmp_path: Path) -> None:
    (tmp_path / "A.v").write_text(BASE)
    done = subprocess.run(
        ["coqc", "-noinit", "-R", ".", "T", "A.v"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    config = CoqConfig(args=["-noinit", "-R", str(tmp_path), "T"])
    with CoqProver(config) as prover:
        for header in ("Require Import T.A.", "From T Require Import A."):
            theorem = Theorem("t", "Lemma t : True.", f"{header}\n{USE}")
            assert isinstance(prover.open(theorem).root, ProofState), header
