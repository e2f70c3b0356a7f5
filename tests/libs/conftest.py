"""Fixtures of the library tests: a small project traced for real, math-comp's presence."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..bench.conftest import mathcomp_installed

requires_coq = pytest.mark.skipif(
    shutil.which("coqidetop.opt") is None and shutil.which("coqidetop") is None,
    reason="Coq (coqidetop) is not installed",
)
requires_mathcomp = pytest.mark.skipif(
    not mathcomp_installed(),
    reason="math-comp's ssreflect is not installed (Debian: apt-get install "
    "libcoq-mathcomp-ssreflect; make coq installs it where apt can)",
)


def traced_project(
    tmp_path_factory: pytest.TempPathFactory, name: str, files: dict[str, str]
) -> Iterator[tuple[Path, Path]]:
    """``files`` under ``theories/`` of a project mapped to ``Lib``, traced (and so
    compiled) by ``proofsearch trace``; yields (project root, trace folder) with the
    knn cache in a temporary ``XDG_CACHE_HOME``."""
    from proofsearch.cli import main

    root = tmp_path_factory.mktemp(name)
    (root / "theories").mkdir()
    (root / "_CoqProject").write_text("-R theories Lib\n")
    for file, text in files.items():
        (root / "theories" / file).write_text(text)
    out = root.parent / f"{name}-trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    yield root, out
    patch.undo()
