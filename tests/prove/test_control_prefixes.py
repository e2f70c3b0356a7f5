"""Holes and steps behind a control prefix (``Time``, ``Timeout N``, ``Redirect "f"``),
real Coq. Audit 44: ``Time Lemma t1 …`` was "a Time is not a hole" and never searched,
and a begun proof's ``Time admit.`` was not read as an ``admit.``, so the user's tactics
were replaced with a false reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main

TEXT = """\
Time Lemma timed : True.
Proof.
Admitted.
Timeout 30 Lemma limited : 1 = 1.
Proof.
Admitted.
Redirect "redir" Lemma redirected : 2 = 2.
Proof.
Admitted.
Lemma begun_timed : forall n : nat, n = n /\\ True.
Proof.
  intros n. split.
  - Time admit.
  - exact I.
Admitted.
Lemma done_timed : True.
Proof. exact I. Time Qed.
Lemma after_timed_qed : True.
Proof.
Admitted.
"""


def test_holes_and_admits_behind_control_prefixes_are_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . P\nA.v\n")
    (folder / "A.v").write_text(TEXT)
    assert main(["prove", str(folder), "--list"]) == 0
    listed = [line.split()[-1] for line in capsys.readouterr().out.splitlines()]
    assert listed == ["timed", "limited", "redirected", "begun_timed", "after_timed_qed"]
    code = main(
        ["prove", str(folder), "--generator", "tests.prove.stand_in:by_name",
         "--no-library-trace", "--write", "--quiet"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "your tactics replaced" not in out and "is not a hole" not in out
    # The run folder of docs/prove.md's re-check by hand is named (audit 45).
    (line,) = [x for x in out.splitlines() if x.startswith("results: ")]
    run = Path(line.split(" theorems and trace in ")[1].split(" (docs/prove.md")[0])
    assert (run / "theorems.jsonl").is_file() and (run / "trace").is_dir()
    assert line.startswith(f"results: {run / 'results.jsonl'}; ")
    written = (folder / "A.v").read_text()
    for statement, proof in [
        ("Time Lemma timed : True.\nProof.\n", "  exact I.\nQed.\n"),
        ("Timeout 30 Lemma limited : 1 = 1.\nProof.\n", "  reflexivity.\nQed.\n"),
        ('Redirect "redir" Lemma redirected : 2 = 2.\nProof.\n', "  reflexivity.\nQed.\n"),
        ("Lemma after_timed_qed : True.\nProof.\n", "  exact I.\nQed.\n"),
    ]:
        assert statement + proof in written, written
    # The begun proof keeps the user's steps: only its `Time admit.` is replaced.
    assert "  intros n. split.\n" in written and "  - exact I.\n" in written
    assert "admit" not in written and "Admitted" not in written
