"""Private folders of Coq lines left by killed processes are removed
(``env/coq/private_folders.py``): some 140 an hour piled up in /tmp during test runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proofsearch.env.coq.private_folders import (
    CHECK_PREFIX,
    LOCK,
    PREFIX,
    STALE_AFTER,
    private_folder,
    sweep_stale,
)


def _folder(root: Path, name: str, age: float) -> Path:
    path = root / name
    (path / "tmp").mkdir(parents=True)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_only_the_folders_of_dead_processes_untouched_for_long_are_removed(
    tmp_path: Path,
) -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(done.stdout)
    old = STALE_AFTER + 60
    gone = _folder(tmp_path, f"{PREFIX}{dead}-abc", old)
    alive = _folder(tmp_path, f"{PREFIX}{os.getpid()}-abc", old)
    recent = _folder(tmp_path, f"{PREFIX}{dead}-def", 60)
    unnamed_recent = _folder(tmp_path, f"{PREFIX}xyz", old)
    unnamed_old = _folder(tmp_path, f"{PREFIX}uvw", 4 * STALE_AFTER + 60)
    other = _folder(tmp_path, "someone-else", 10 * STALE_AFTER)
    assert sweep_stale(tmp_path) == 2
    assert not gone.exists() and not unnamed_old.exists()
    assert alive.exists() and recent.exists() and unnamed_recent.exists() and other.exists()


def test_a_lines_folder_names_its_process() -> None:
    folder = private_folder()
    try:
        assert Path(folder.name).name.startswith(f"{PREFIX}{os.getpid()}-")
    finally:
        folder.cleanup()


KILLED = """\
import os, signal, sys
from proofsearch.env.coq.private_folders import private_folder
folder = private_folder(sys.argv[1], sys.argv[2])
print(folder.name, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("prefix", [PREFIX, CHECK_PREFIX])
def test_a_killed_processs_folder_is_removed_at_once_a_live_ones_never(
    tmp_path: Path, prefix: str
) -> None:
    """Ray kills an actor at a deadline without its ``close``: its folder stayed six
    hours, and a re-check's for good (audit 51). Its lock, released by the kernel, tells
    the sweep at once; the folder of a live process (this one's) stays, however old,
    whatever its name's pid says."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(tmp_path), prefix], capture_output=True, text=True
    )
    assert done.returncode == -9, done.stderr
    killed = Path(done.stdout.strip())
    assert killed.parent == tmp_path and (killed / LOCK).exists()
    assert killed.name.startswith(prefix)
    live = private_folder(str(tmp_path))
    try:
        stamp = time.time() - 10 * STALE_AFTER
        os.utime(live.name, (stamp, stamp))
        # A dead pid in its name (another PID namespace's process may have this one's).
        renamed = tmp_path / f"{PREFIX}999999999-x"
        os.rename(live.name, renamed)
        assert sweep_stale(tmp_path) == 1
        assert not killed.exists() and renamed.exists()
        os.rename(renamed, live.name)
    finally:
        live.cleanup()
    assert not Path(live.name).exists()


def test_a_recheck_works_in_a_locked_private_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-check's ``coqc`` runs in a folder the sweep knows (its lock held while it
    runs), so a worker killed mid-check leaves nothing for good."""
    import tempfile

    from proofsearch.env.coq import checker

    seen: list[Path] = []
    real = checker.run_coqc

    def spying(source: str, folder: Path, *args: object, **kwargs: object) -> object:
        seen.append(folder)
        assert (folder / LOCK).exists()
        return real(source, folder, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checker, "run_coqc", spying)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = checker.check_proof("", "Lemma t : True.", ["exact I"])
    assert result.ok, result.message
    assert seen and all(f.name.startswith(CHECK_PREFIX) for f in seen)
    assert not any(tmp_path.iterdir())  # removed after
