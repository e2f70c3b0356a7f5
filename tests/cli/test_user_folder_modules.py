"""A module in the user's folder named like one of Python's (a `select.py` of their own)
must not be imported by the tracer's pool processes: it crashed the pool
(`BrokenProcessPool`) when `prove` was run from that folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_trace_from_a_folder_with_a_select_py(tmp_path: Path) -> None:
    work = tmp_path / "work"
    project = work / "proj"
    project.mkdir(parents=True)
    (work / "select.py").write_text('raise SystemExit("the folder\'s select.py ran")\n')
    (project / "_CoqProject").write_text("-Q . P\nA.v\n")
    (project / "A.v").write_text("Lemma a : 1 + 1 = 2.\nProof. reflexivity. Qed.\n")
    # As the console script starts: a script outside the working folder (its own folder,
    # not the working one, first on the path), where `python -m` or `-c` would put it.
    launcher = tmp_path / "bin" / "proofsearch_cli.py"
    launcher.parent.mkdir()
    launcher.write_text(
        "import sys\nfrom proofsearch.cli import main\n"
        "if __name__ == '__main__':\n    sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, str(launcher), "trace", "proj", "--out", "out", "--no-progress"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "select.py ran" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert "traced 1" in done.stdout + done.stderr
