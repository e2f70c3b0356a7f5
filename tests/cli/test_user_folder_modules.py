"""A module in the user's folder named like one of Python's (a `select.py` of their own)
must not be imported by the tracer's pool processes: it crashed the pool
(`BrokenProcessPool`) when `prove` was run from that folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_trace_from_a_folder_with_a_select_py(tmp_path: Path) -> None:
    (tmp_path / "select.py").write_text('raise SystemExit("the folder\'s select.py ran")\n')
    project = tmp_path / "proj"
    project.mkdir()
    (project / "_CoqProject").write_text("-Q . P\nA.v\n")
    (project / "A.v").write_text("Lemma a : 1 + 1 = 2.\nProof. reflexivity. Qed.\n")
    command = Path(sys.executable).with_name("proofsearch")  # the console script users run
    done = subprocess.run(
        [str(command), "trace", "proj", "--out", "out", "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "select.py ran" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert "traced 1" in done.stdout + done.stderr
