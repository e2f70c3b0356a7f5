"""Fail fast: start one prover before a run, and stop a run whose prover cannot start.

A prover that cannot start (missing ``coqidetop``, a bad ``--coq-arg``, a bad
``--lean-repl`` or ``--lean-project``) would otherwise make every theorem an ``error``
result, exit 0, and leave a results file that ``--resume`` takes as final.
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path
from typing import Any

from proofsearch.search.result import STARTUP_ERROR

#: Consecutive start-up failures (with the same message) that stop a run.
STARTUP_FAILURES_TO_STOP = 3

#: The options that decide whether a prover starts, by prover: named in every message.
FIXES = {
    "coq": "check --coq-binary, --coqc and --coq-arg",
    "lean": "check --lean-repl and --lean-project",
}


class StartupFailed(Exception):
    """The prover cannot start: the message names the cause and the fix."""


def fix_for(prover: str) -> str:
    return FIXES.get(prover, "check the --prover-option settings")


def check_coq_folders(coq_args: list[str]) -> None:
    """``-R DIR LIB``, ``-Q DIR LIB``, ``-I DIR``: Coq only warns when DIR is missing."""
    for flag, folder in itertools.pairwise(coq_args):
        if flag in ("-R", "-Q", "-I", "-include") and not os.path.isdir(folder):
            raise StartupFailed(f"--coq-arg {flag} {folder}: no such folder; fix --coq-arg")


def check_coqc(coqc: str) -> None:
    """Refuse a ``--coqc`` that is no compiler (Rocq 9's ``rocq`` front end) before any
    work: every re-check, and every compile of a project, would fail."""
    from proofsearch.env.coq.version import compiler_problem

    problem = compiler_problem(coqc)
    if problem is not None:
        raise StartupFailed(f"--coqc {problem}")


def check_coq_version(prover: str, options: dict[str, Any], *, idetop: bool = True) -> None:
    """Refuse a Coq outside the supported versions (``coqidetop --version``, ``coqc
    --version``), unless ``allow_unsupported_version`` is set (then only warn), and a
    ``--coqc`` that is no compiler."""
    if prover != "coq":
        return
    from proofsearch.env.base import EnvError
    from proofsearch.env.coq.version import require_supported

    allow = bool(options.get("allow_unsupported_version", False))
    binaries = [str(options.get("coqc") or "coqc")]
    if idetop:
        binaries.insert(0, str(options.get("binary") or "coqidetop.opt"))
    for binary in binaries:
        try:
            require_supported(binary, allow)
        except EnvError as exc:
            raise StartupFailed(f"{exc}; {fix_for(prover)}") from None
    check_coqc(binaries[-1])


def check_same_installation(options: dict[str, Any]) -> None:
    """Refuse a ``--coqc`` of another installation than the ``coqidetop`` that searches
    (an opam switch's ``coqc`` given as a path, the system's ``coqidetop.opt`` on PATH),
    and the reverse: a proof would be searched by one release and re-checked by another,
    whose compiled files the first cannot read. Told apart by folder (the installation's
    other binary beside the one given), so no process is started."""
    from proofsearch.env.coq.version import IDETOP_NAMES, find_idetop

    binary = str(options.get("binary") or "coqidetop.opt")
    coqc = str(options.get("coqc") or "coqc")
    pairs = []  # (option given as a path, its installation's other binary, the one used)
    if "/" in coqc and binary in IDETOP_NAMES:
        beside = [Path(coqc).parent / name for name in IDETOP_NAMES]
        pairs.append((f"--coqc {coqc}", beside, find_idetop(binary), "--coq-binary"))
    if "/" in binary and coqc == "coqc":
        pairs.append((f"--coq-binary {binary}", [Path(binary).parent / "coqc"], coqc, "--coqc"))
    for given, beside, used, option in pairs:
        found = shutil.which(used)
        theirs = next((p for p in beside if p.is_file() and os.access(p, os.X_OK)), None)
        if found is None or theirs is None or Path(found).resolve() == theirs.resolve():
            continue
        raise StartupFailed(
            f"{given} is of another Coq installation than the {used} on PATH ({found}): "
            f"give {option} {theirs} too, or put that installation first on PATH"
        )


def preflight(prover: str, options: dict[str, Any], check: bool = True) -> None:
    """Start one prover process, and stop it; raise :class:`StartupFailed` if it cannot.

    With ``check``, Coq's re-checker (``coqc``) must be there too: without it every
    proof found would be rejected.
    """
    from proofsearch.env.base import EnvError
    from proofsearch.env.registry import make_prover

    if prover == "coq":
        check_coq_folders(list(options.get("args") or []))
        coqc = str(options.get("coqc") or "coqc")
        if check and shutil.which(coqc) is None:
            raise StartupFailed(f"{coqc}: not found, proofs cannot be re-checked; fix --coqc")
        if check:
            check_coq_version(prover, options, idetop=False)
        check_same_installation(options)
    try:
        with make_prover(prover, options) as instance:
            instance.start()
    except (EnvError, ValueError) as exc:
        message = f"the {prover} prover cannot start: {exc}; {fix_for(prover)}"
        raise StartupFailed(message) from None


class StartupWatch:
    """Stands between a run and its results file: start-up failures are not written.

    Such a result is not the theorem's: it is counted, and the run stops (with
    :class:`StartupFailed`) once :data:`STARTUP_FAILURES_TO_STOP` results in a row (or
    every result, in a smaller run) failed with the same start-up error.
    """

    def __init__(self, store: Any, prover: str, todo: int) -> None:
        self.store = store
        self.prover = prover
        self.limit = max(1, min(STARTUP_FAILURES_TO_STOP, todo))
        self.skipped: list[str] = []
        self.last_message = ""
        self._streak: list[str] = []

    def append(self, record: dict[str, Any]) -> None:
        if not record.get(STARTUP_ERROR):
            self._streak = []
            self.store.append(record)
            return
        message = str(record.get("error") or "")
        self.last_message = message
        self.skipped.append(str(record["name"]))
        self._streak = [m for m in self._streak if m == message] + [message]
        if len(self._streak) >= self.limit:
            raise StartupFailed(self.failure(message))

    def failure(self, message: str | None = None) -> str:
        """The line that ends a run with skipped theorems."""
        message = message or self.last_message
        return (
            f"stopped: the {self.prover} prover could not start: {message};"
            f" {fix_for(self.prover)}, then --resume (the {len(self.skipped)}"
            " theorem(s) it failed on were not written)"
        )
