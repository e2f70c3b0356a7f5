"""One prove run at a time per project (audit 43-b: two at once each searched every
hole, and the later one wrote nothing, exit 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.project.config import load_project, project_key
from proofsearch.project.learn import cache_root
from proofsearch.project.run_lock import ProjectBusy, hold_project


def test_a_second_run_says_the_first_is_going_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "_CoqProject").write_text("-R . Busy\nA.v\n")
    (folder / "A.v").write_text("Lemma zero_zero : 0 = 0.\nProof.\nAdmitted.\n")
    run_dir = cache_root() / "prove" / project_key(load_project([folder]))
    first = hold_project(run_dir)  # as the first run holds it
    args = ["--generator", "tests.prove.stand_in:by_name", "--no-library-trace", "--quiet"]
    assert main(["prove", str(folder), *args]) == 1
    err = capsys.readouterr().err
    assert "another prove run of this project is going on (pid " in err
    assert main(["prove", str(folder), "--list"]) == 0  # --list runs nothing: never held
    first.close()
    assert main(["prove", str(folder), *args]) == 0


def test_the_lock_goes_with_its_process(tmp_path: Path) -> None:
    """A killed run never leaves the project locked: the kernel lets the lock go."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from proofsearch.project.run_lock import hold_project; "
         "h = hold_project(Path(sys.argv[1])); print('held', flush=True); time.sleep(600)",
         str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(ProjectBusy, match=f"pid {holder.pid}, started "):
            hold_project(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    hold_project(tmp_path).close()
