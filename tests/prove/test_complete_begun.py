"""A proof the user finished but ended ``Admitted`` (it uses a lemma still admitted):
kept and ended ``Qed``, not searched (real Coq). Audit 43-b: it was replaced by a proof
found from the statement, with a reason ("a goal outside the focus") that was false."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main

TEXT = """\
Lemma adm : forall n, n = n + 0.
Admitted.
Lemma done_but_admitted : forall n, n + 0 = n.
Proof.
  intros n. (* mine *)
  rewrite <- adm. reflexivity.
Admitted.
"""


@pytest.mark.usefixtures("no_new_coq_processes")
def test_a_finished_proof_ended_admitted_is_kept_and_ended_qed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Done\nA.v\n")
    (folder / "A.v").write_text(TEXT)
    log = tmp_path / "asked.log"
    code = main(
        ["prove", str(folder), "--generator", "tests.prove.stand_in:by_name", "--gen-option",
         f"log={log}", "--lemma", "done_*", "--no-library-trace", "--write"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert not log.exists()  # nothing searched
    assert (folder / "A.v").read_text() == TEXT.replace(
        "reflexivity.\nAdmitted.\n", "reflexivity.\nQed.\n"
    )
    assert "your tactics replaced" not in out
    assert "rests on Admitted: A.v:3 done_but_admitted uses adm" in out
