"""``--strict`` and the "rests on Admitted" lines tell lemmas apart by their whole names,
and read what a filled proof rests on as the filled project builds (real Coq)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main

CHAPTER = """\
Module Ch.
Lemma base_false : forall n : nat, n = S n.
Proof. Admitted.
Lemma uses_base : 0 = 1 /\\ True.
Proof. split. apply base_false. admit. Admitted.
End Ch.
"""
LATER = "Require Import Mini.A.\nLemma uses_base : True.\nProof. Admitted.\n"


pytestmark = pytest.mark.usefixtures("cache")  # a cache of each test's own


def test_strict_leaves_a_begun_proof_resting_on_an_admitted_lemma(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's own ``apply base_false`` rests on an admitted lemma, which the part's
    search (its goal is ``True``) never saw; and B's namesake ``uses_base`` made the two
    one name. ``--strict --write`` wrote ``Ch.uses_base`` with ``Qed`` and said nothing."""
    folder = tmp_path / "mini"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-Q . Mini\nA.v\nB.v\n")
    (folder / "A.v").write_text(CHAPTER)
    (folder / "B.v").write_text(LATER)
    args = ["--generator", "tests.prove.stand_in:by_name", "--strict", "--write", "--quiet"]
    code = main(["prove", str(folder), *args, "--no-library-trace", "--timeout", "5"])
    assert code == 0
    out = " ".join(capsys.readouterr().out.split())
    # base_false is false as stated (n := 0), and said so where a proof rests on it.
    said = "A.v:4 Ch.uses_base: --strict: rests on Ch.base_false (false as stated), still"
    assert said in out
    assert (folder / "A.v").read_text() == CHAPTER
    assert (folder / "B.v").read_text() == LATER.replace(" Admitted.", "\n  exact I.\nQed.")
    for file in ("A.v", "B.v"):
        done = subprocess.run(["coqc", "-Q", ".", "Mini", file], cwd=folder, capture_output=True)
        assert done.returncode == 0, done.stderr
