"""SIGTERM stops a run as Ctrl-C does, and the line after either says how to go on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proofsearch.cli import _resume_hint, build_parser
from tests.conftest import ROOT
from tests.distributed.conftest import trivial_theorems, write_theorems


@pytest.mark.parametrize("workers", [None, 2])
def test_sigterm_stops_like_ctrl_c_and_cleans_up(tmp_path: Path, workers: int | None) -> None:
    """A scheduler's time limit (SIGTERM) killed the run by the default handler: no word,
    exit -15, and its prover's private folder left in the temporary folder. On Ray
    (``--workers 2``) Ray's core took SIGTERM over once started: a stack dump and status 1
    (audit 51)."""
    theorems = write_theorems(tmp_path / "t.jsonl", trivial_theorems(40, "s"))
    out, tmp = tmp_path / "r.jsonl", tmp_path / "tmp"
    tmp.mkdir()
    out.write_text("")
    command = [sys.executable, "-m", "proofsearch.cli", "search", str(theorems), "-o", str(out)]
    command += [
        "--overwrite",
        "--quiet",
        "--no-check",
        "--generator",
        "tests.distributed.chaos:make",
    ]
    command += ["--gen-option", "sleep=0.3"]
    if workers:
        command += ["--workers", str(workers)]
    # (Ray's sockets under a test's long temporary folder pass the 107 bytes a socket's
    # path may have: Ray keeps its default one.)
    env = os.environ if workers else {**os.environ, "TMPDIR": str(tmp)}
    run = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(out.read_text().splitlines()) < 2:
            time.sleep(0.05)
        assert run.poll() is None, "the run ended before it could be stopped"
        if not workers:
            assert list(tmp.glob("proofsearch-coq-*")), "the prover's folder is looked for here"
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 143, err
    assert err.strip().splitlines()[-1] == (
        "terminated; the results so far are kept: run the command again with --resume "
        "instead of --overwrite to go on"
    )
    if not workers:  # (Ray's actors end with the driver: their folders, see test_cleanup)
        assert list(tmp.glob("proofsearch-coq-*")) == []
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert 2 <= len(kept) < 40


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["search", "t.jsonl"], "run the same command again with --resume to go on"),
        (["search", "t.jsonl", "--resume"], "run the same command again to go on"),
        (["prove", "."], "run the same command again to go on"),
        # "The same command" with --overwrite threw the kept results away (an audit).
        (["prove", ".", "--overwrite"], "run the command again without --overwrite to go on"),
        (["trace", "."], "run the same command again to go on"),
        (["check", "r.jsonl", "t.jsonl"], None),
    ],
)
def test_the_line_after_an_interrupt_says_how_to_go_on(argv: list[str], hint: str | None) -> None:
    args = build_parser().parse_args(argv)
    said = _resume_hint(args)
    assert said == (f"; the results so far are kept: {hint}" if hint else "")


def test_sigterm_is_said_whatever_exception_reaches_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ray hands the exception a signal handler raises while the driver waits in
    ``ray.wait`` back as a plain KeyboardInterrupt: a Ray run stopped by SIGTERM said
    "interrupted" and exited 130 (verification 53). The handler's flag decides."""
    from proofsearch.cli import check

    def waits_in_ray(args: object) -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            raise KeyboardInterrupt from None  # what Ray raises instead
        return 0

    monkeypatch.setattr(check, "run", waits_in_ray)
    from proofsearch.cli import main

    assert main(["check", "r.jsonl", "t.jsonl"]) == 143
    assert capsys.readouterr().err.strip() == "terminated"
    monkeypatch.setattr(check, "run", lambda args: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert main(["check", "r.jsonl", "t.jsonl"]) == 130  # Ctrl-C: no SIGTERM this time
