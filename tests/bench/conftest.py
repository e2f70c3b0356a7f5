"""Fixtures of the benchmark tests: the installed Coq stdlib and the committed sample."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from proofsearch.env.coq.version import hammer_installed

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "benchmarks" / "coq" / "stdlib-sample.index.jsonl"

requires_coq = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")
requires_hammer = pytest.mark.skipif(
    shutil.which("coqc") is None or not hammer_installed(),
    reason="CoqHammer (Debian libcoq-hammer) is not installed",
)


def mathcomp_installed() -> bool:
    """Whether math-comp's ssreflect library (with its ``.v`` sources) is installed."""
    if shutil.which("coqc") is None:
        return False
    from proofsearch.env.coq.version import coq_where

    return (coq_where() / "user-contrib" / "mathcomp" / "ssreflect" / "eqtype.v").is_file()


requires_mathcomp = pytest.mark.skipif(
    not mathcomp_installed(),
    reason="math-comp's ssreflect is not installed (Debian: apt-get install "
    "libcoq-mathcomp-ssreflect; make coq installs it where apt can)",
)


def coq_version() -> str:
    """The installed Coq's version ("" without Coq)."""
    if shutil.which("coqc") is None:
        return ""
    done = subprocess.run(["coqc", "--version"], capture_output=True, text=True, check=False)
    words = done.stdout.split()
    return words[words.index("version") + 1] if "version" in words else ""


@pytest.fixture(scope="session")
def stdlib_root() -> Path:
    """``$(coqc -where)/theories`` with its ``.v`` sources, or skip."""
    if shutil.which("coqc") is None:
        pytest.skip("coqc is not installed")
    from proofsearch.bench.stdlib_extract import default_root

    root = default_root()
    if not (root / "Lists" / "List.v").is_file():
        pytest.skip(f"no stdlib sources under {root}")
    return root


@pytest.fixture(scope="session")
def pinned_counts(stdlib_root: Path) -> None:
    """Exact counts below were taken on Debian's Coq 8.16.1; skip on other versions."""
    if coq_version() != "8.16.1":
        pytest.skip(f"counts are pinned to Coq 8.16.1, found {coq_version()!r}")


@pytest.fixture(scope="session")
def stdlib_sample(stdlib_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed sample as a theorem file: its index with the headers restored."""
    from proofsearch.bench.stdlib_index import restore_file

    if coq_version() != "8.16.1":
        pytest.skip(f"the sample was drawn from Coq 8.16.1's stdlib, found {coq_version()!r}")
    path = tmp_path_factory.mktemp("stdlib") / "stdlib-sample.jsonl"
    restored = restore_file(INDEX, path, stdlib_root)
    assert not restored.errors, restored.errors[:5]
    return path
