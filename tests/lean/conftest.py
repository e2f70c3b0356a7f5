"""Shared support for the Lean backend's tests: fixture paths, REPL stand-in commands,
provers that are always closed, and a check that no test leaves a process behind.

Lean is not installed here: every test talks to ``replay_repl.py`` (real transcripts
recorded from Lean, replayed strictly) or ``faulty_repl.py`` (the same, with a fault).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil
import pytest

from proofsearch.env.lean import LeanConfig, LeanProver

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = Path(os.environ.get("PROOFSEARCH_SHARED", ROOT.parent / "shared"))
REPL_FIXTURES = SHARED / "fixtures" / "lean-repl"
WHOLE_PROOFS = SHARED / "fixtures" / "lean-whole-proofs"
REPLAY = HERE / "replay_repl.py"
FAULTY = HERE / "faulty_repl.py"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without the recorded transcripts (they live in shared/), skip this folder's tests."""
    if REPL_FIXTURES.is_dir():
        return
    skip = pytest.mark.skip(reason=f"Lean REPL fixtures not found at {REPL_FIXTURES}")
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


def fixture_paths(name: str) -> tuple[Path, Path]:
    """``core/proof_branching`` -> its ``.in`` and ``.expected.out``."""
    return REPL_FIXTURES / f"{name}.in", REPL_FIXTURES / f"{name}.expected.out"


def load_replay_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("replay_repl", REPLAY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["replay_repl"] = module
    spec.loader.exec_module(module)
    return module


class Lean:
    """Builds REPL stand-in commands and provers for one test; closes them afterwards.

    And makes the replay unfoolable: after the test, :meth:`verify` fails it when any
    replay process exited non-zero (a request that differs from the transcript, which
    the backend would take for a crash and absorb by restarting), when a replay left
    recorded exchanges unused (unless the test said why), or when a prover built by
    :meth:`replay` restarted its process more often than the test said it would.
    """

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.provers: list[LeanProver] = []
        self.reports = tmp_path / "replay-reports"
        self.reports.mkdir(exist_ok=True)
        self.expected_restarts: list[tuple[LeanProver, int]] = []

    def replay_command(
        self,
        fixture: str | Path,
        skip: Sequence[int] = (),
        unused: str | None = None,
        fails: str | None = None,
    ) -> str:
        """``unused``: why the test leaves recorded exchanges unused (none by default);
        ``fails``: why the test makes this replay fail on purpose."""
        requests, replies = self._paths(fixture)
        words = [sys.executable, str(REPLAY), str(requests), str(replies)]
        if skip:
            words += ["--skip", ",".join(map(str, skip))]
        if unused is not None or fails is not None:
            assert (unused or fails or "").strip(), "say why"
            words.append("--allow-unused")
        if fails is None:
            words += ["--report-dir", str(self.reports)]
        return shlex.join(words)

    def verify(self) -> None:
        """Fail the test on what the replay saw (see the class docstring)."""
        problems = []
        for path in sorted(self.reports.glob("*.json")):
            report = json.loads(path.read_text(encoding="utf-8"))
            where = f"replay of {Path(report['fixture']).name} (pid {report['pid']})"
            if report["exit"] not in (None, 0):
                problems.append(f"{where} exited {report['exit']}: {report['message']}")
            elif report["used"] < report["recorded"] and not report["allow_unused"]:
                problems.append(
                    f"{where} used {report['used']} of {report['recorded']} recorded exchanges"
                )
        for prover, expected in self.expected_restarts:
            if prover.stats.restarts != expected:
                problems.append(
                    f"a prover restarted its REPL {prover.stats.restarts} time(s),"
                    f" expected {expected}"
                )
        assert not problems, "\n".join(problems)

    def faulty_command(
        self,
        fault: str,
        at: int,
        fixture: str | Path,
        *,
        once: bool = False,
        pids: Path | None = None,
    ) -> str:
        requests, replies = self._paths(fixture)
        words = [sys.executable, str(FAULTY), fault, str(at), str(requests), str(replies)]
        if once:
            words += ["--once", str(self.tmp_path / f"fault-{fault}-{at}.done")]
        if pids is not None:
            words += ["--pids", str(pids)]
        return shlex.join(words)

    @staticmethod
    def _paths(fixture: str | Path) -> tuple[Path, Path]:
        if isinstance(fixture, Path):
            return fixture.with_suffix(".in"), fixture.with_suffix(".expected.out")
        return fixture_paths(fixture)

    def prover(self, command: str, **options: Any) -> LeanProver:
        options.setdefault("project_dir", str(self.tmp_path))
        options.setdefault("tactic_timeout", 5.0)
        prover = LeanProver(LeanConfig(repl_command=command, **options))
        self.provers.append(prover)
        return prover

    def replay(
        self,
        fixture: str | Path,
        skip: Sequence[int] = (),
        *,
        restarts: int = 0,
        unused: str | None = None,
        **options: Any,
    ) -> LeanProver:
        """A prover on a strict replay; ``restarts``: process restarts the test expects."""
        prover = self.prover(self.replay_command(fixture, skip, unused), **options)
        self.expected_restarts.append((prover, restarts))
        return prover

    def close(self) -> None:
        for prover in self.provers:
            prover.close()


@pytest.fixture
def lean(tmp_path: Path) -> Iterator[Lean]:
    helper = Lean(tmp_path)
    try:
        yield helper
    finally:
        helper.close()
    helper.verify()


@pytest.fixture(scope="session")
def replay_module() -> ModuleType:
    return load_replay_module()


@pytest.fixture(scope="session")
def repl_dir() -> Path:
    """``shared/fixtures/lean-repl``."""
    return REPL_FIXTURES


def is_gone(pid: int, wait: float = 3.0) -> bool:
    """Whether ``pid`` is dead (a zombie counts as dead) within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


@pytest.fixture
def gone() -> Callable[..., bool]:
    """``gone(pid, wait=3.0)``: whether the process is dead (zombies count as dead)."""
    return is_gone


def _live_children() -> set[int]:
    alive = set()
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                alive.add(child.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.fixture(autouse=True)
def no_orphans() -> Iterator[None]:
    """Every process a test starts is gone when it ends (provers closed by ``lean``)."""
    before = _live_children()
    yield
    deadline = time.monotonic() + 3.0
    left = _live_children() - before
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _live_children() - before
    assert not left, f"processes left behind: {sorted(left)}"
