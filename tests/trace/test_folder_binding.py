"""How ``trace FOLDER`` binds a folder that has no project file (audit 52): an installed
library's folder keeps the name Coq gives it, and the user's own ``-R``/``-Q`` for the
folder wins over the default ``-Q FOLDER ""``. Real tracer, real Coq."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.trace import sources
from proofsearch.trace.schema import TraceDir
from tests.prove.test_libraries import fake_coqlib

A = "Definition a := 1.\n"
B = "From Lib Require Import A.\nLemma b : a = 1.\nProof. reflexivity. Qed.\n"


def _library(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "A.v").write_text(A)
    (folder / "B.v").write_text(B)
    build = ["coqc", "-R", str(folder), "Lib", "A.v"]
    assert subprocess.run(build, cwd=folder, capture_output=True).returncode == 0
    return folder


def _modules(out: Path) -> set[str]:
    return {r.module for r in TraceDir(out).files() if r.status == "traced"}


def test_an_installed_librarys_folder_keeps_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``trace $(coqc -where)/user-contrib/stdpp`` bound it to ``""``: every file failed
    ("Cannot find a physical path bound to logical path countable with prefix stdpp")."""
    fake = fake_coqlib(tmp_path)
    library = _library(fake / "user-contrib" / "Lib")
    monkeypatch.setattr(sources, "coq_where", lambda coqc="coqc": fake)
    out = tmp_path / "trace"
    assert main(["trace", str(library), "--out", str(out), "--jobs", "1"]) == 0
    assert _modules(out) == {"Lib.A", "Lib.B"}


def test_the_users_binding_of_the_folder_wins(tmp_path: Path) -> None:
    """``trace FOLDER --coq-arg=-R --coq-arg=FOLDER --coq-arg=Lib`` exited 0 with modules
    ``A`` and ``B``: the default ``-Q FOLDER ""`` came first, and the user's named nothing."""
    library = _library(tmp_path / "lib")
    out = tmp_path / "trace"
    argv = ["trace", str(library), "--out", str(out), "--jobs", "1"]
    assert main([*argv, "--coq-arg=-R", f"--coq-arg={library}", "--coq-arg=Lib"]) == 0
    assert _modules(out) == {"Lib.A", "Lib.B"}


def test_only_matches_a_file_given_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``trace $D/*.v --only namespaces.v`` found no file, where ``bench extract-coq
    --only namespaces.v`` matched it (audit 52)."""
    library = _library(tmp_path / "lib")
    (library / "sub").mkdir()
    (library / "sub" / "C.v").write_text("Definition c := 2.\n")
    monkeypatch.chdir(tmp_path.parent)  # the files are shown by their absolute paths
    files = [library / "A.v", library / "B.v", library / "sub" / "C.v"]
    for pattern, expected in (
        ("B.v", ["B.v"]),
        ("sub/*.v", ["C.v"]),
        ("*.v", ["A.v", "B.v", "C.v"]),
    ):
        project = sources.file_list(files, ["-R", str(library), "Lib"])
        project.select([pattern])
        assert [s.path.name for s in project.sources] == expected, pattern
    project = sources.file_list(files, ["-R", str(library), "Lib"])
    with pytest.raises(sources.SourceError, match="no file matches"):
        project.select(["nothing.v"])


def test_an_installed_librarys_files_keep_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Giving its files (``trace $D/*.v``) rather than its folder bound their folder to
    ``""``: the same failure on every file (verification 53)."""
    fake = fake_coqlib(tmp_path)
    library = _library(fake / "user-contrib" / "Lib")
    monkeypatch.setattr(sources, "coq_where", lambda coqc="coqc": fake)
    out = tmp_path / "trace"
    files = [str(library / "A.v"), str(library / "B.v")]
    assert main(["trace", *files, "--out", str(out), "--jobs", "1"]) == 0
    assert _modules(out) == {"Lib.A", "Lib.B"}
