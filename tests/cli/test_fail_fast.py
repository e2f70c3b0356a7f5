"""Fail fast: a prover that cannot start stops the run with one clear line, writing nothing.

And the CLI's messages are never hard-wrapped, whatever ``COLUMNS`` says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from proofsearch.cli.preflight import StartupFailed, StartupWatch
from proofsearch.env.coq.version import find_idetop
from tests.conftest import ROOT

THEOREMS = [{"name": f"t{i}", "statement": f"Theorem t{i} : {i} = {i}."} for i in range(4)]
FIXED = ["--generator", "fixed", "--tactic", "reflexivity"]


def theorem_file(tmp_path: Path) -> Path:
    path = tmp_path / "thms.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in THEOREMS))
    return path


def search(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "search", *args],
        cwd=ROOT, capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip


#: (options, what the message must name as the cause, the option it must name as the fix)
CANNOT_START = [
    (["--coq-binary", "/nonexistent/coqidetop"], "/nonexistent/coqidetop not found",
     "--coq-binary"),
    (["--coq-arg=-no-such-flag"], "Unknown option -no-such-flag", "--coq-arg"),
    (["--coqc", "/nonexistent/coqc"], "/nonexistent/coqc: not found", "--coqc"),
    (["--coq-arg=-R", "--coq-arg=/nonexistent/lib", "--coq-arg=Lib"], "/nonexistent/lib",
     "--coq-arg"),
    (["--prover", "lean", "--lean-repl", "/nonexistent/repl"],
     "/nonexistent/repl does not exist", "--lean-repl"),
    (["--prover", "lean", "--lean-project", "/nonexistent/project"],
     "/nonexistent/project does not exist", "--lean-project"),
]  # fmt: skip


@pytest.mark.parametrize("options,cause,fix", CANNOT_START)
def test_a_prover_that_cannot_start_writes_nothing(
    tmp_path: Path, options: list[str], cause: str, fix: str
) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text('{"name": "earlier", "status": "proved"}\n')
    before = out.read_text()
    done = search(str(theorem_file(tmp_path)), "-o", str(out), "--overwrite", *FIXED, *options)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert cause in lines[0] and fix in lines[0], lines[0]
    assert out.read_text() == before  # --overwrite did not empty it either


def flaky_coqidetop(tmp_path: Path) -> Path:
    """A coqidetop that starts once (the preflight) and then never again."""
    real = shutil.which(find_idetop("coqidetop.opt"))  # Rocq 9 has no coqidetop.opt
    assert real is not None
    script = tmp_path / "coqidetop-once"
    started = tmp_path / "started-once"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ -e "{started}" ]; then echo "Error: the license expired" >&2; exit 1; fi\n'
        f'touch "{started}"\nexec "{real}" "$@"\n'
    )
    script.chmod(0o755)
    return script


def test_a_run_whose_prover_stops_starting_stops_early(tmp_path: Path) -> None:
    theorems = theorem_file(tmp_path)
    out = tmp_path / "r.jsonl"
    binary = flaky_coqidetop(tmp_path)
    done = search(str(theorems), "-o", str(out), *FIXED, "--coq-binary", str(binary))
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "the license expired" in last and "--resume" in last, done.stderr
    assert "3 theorem(s)" in last  # stopped after 3 of the 4
    assert not out.exists()  # nothing --resume would take as final; no file made
    # Fixed, the run resumes and searches every theorem.
    done = search(str(theorems), "-o", str(out), *FIXED, "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(line)["name"] for line in out.read_text().splitlines()) == [
        "t0", "t1", "t2", "t3",
    ]  # fmt: skip


class ListStore:
    def __init__(self) -> None:
        self.records: list[dict[str, object]] = []

    def append(self, record: dict[str, object]) -> None:
        self.records.append(record)


def startup_error(name: str, message: str = "cannot start") -> dict[str, object]:
    return {"name": name, "status": "error", "error": message, "startup_error": True}


def test_startup_watch_needs_the_same_error_in_a_row() -> None:
    store = ListStore()
    watch = StartupWatch(store, "coq", todo=10)
    watch.append(startup_error("a", "one"))
    watch.append(startup_error("b", "two"))
    watch.append({"name": "c", "status": "proved"})
    watch.append(startup_error("d"))
    watch.append(startup_error("e"))
    with pytest.raises(StartupFailed, match="cannot start"):
        watch.append(startup_error("f"))
    assert [r["name"] for r in store.records] == ["c"]
    assert watch.skipped == ["a", "b", "d", "e", "f"]


@pytest.mark.parametrize("columns", [40, 300])
def test_messages_are_never_hard_wrapped(tmp_path: Path, columns: int) -> None:
    deep = tmp_path / ("long-folder-name-" * 6) / "lib"
    out = tmp_path / "r.jsonl"
    args = [str(theorem_file(tmp_path)), "-o", str(out), *FIXED]
    done = search(*args, "--coq-arg=-R", f"--coq-arg={deep}", "--coq-arg=Lib", columns=columns)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and str(deep) in done.stderr, done.stderr
    # Not quiet: the progress bar is not drawn after a fatal error.
    binary = flaky_coqidetop(tmp_path)
    done = search(*args, "--coq-binary", str(binary), columns=columns)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("proofsearch search: stopped: ")
    assert "0/4" not in done.stderr and "ETA" not in done.stderr, done.stderr


def test_a_lean_repl_that_dies_at_once_stops_the_run(tmp_path: Path) -> None:
    """It starts (the preflight passes) but never answers: nothing is written."""
    theorems = tmp_path / "lean.jsonl"
    theorems.write_text(
        "".join(
            json.dumps({"name": f"l{i}", "statement": f"theorem l{i} : {i} = {i} := by"}) + "\n"
            for i in range(4)
        )
    )
    out = tmp_path / "r.jsonl"
    repl = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    done = search(str(theorems), "-o", str(out), "--prover", "lean", "--lean-repl", repl,
                  "--lean-project", str(tmp_path), *FIXED)  # fmt: skip
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "exited with code 3" in last and "--lean-repl" in last, done.stderr
    assert not out.exists()


def test_an_index_that_is_not_a_trace_is_refused_on_one_line(tmp_path: Path) -> None:
    not_a_trace = tmp_path / ("long-folder-" * 6) / "not-a-trace"
    not_a_trace.mkdir(parents=True)
    out = tmp_path / "r.jsonl"
    done = search(str(theorem_file(tmp_path)), "--index", str(not_a_trace), "-o", str(out),
                  columns=40)  # fmt: skip
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert f"--index {not_a_trace}: not a trace folder" in lines[0]
    assert not out.exists()


def rocq_front_end(tmp_path: Path) -> str:
    """Rocq 9's ``rocq``: the real one where installed (Rocq 9 roots), else a stand-in that
    answers as it does: ``--version`` like ``coqc``, and any other first argument
    "Unknown subcommand" (exit 1)."""
    real = shutil.which("rocq")
    if real is not None:
        return real
    coqc = shutil.which("coqc")
    assert coqc is not None
    script = tmp_path / "bin" / "rocq"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --version ]; then exec "{coqc}" --version; fi\n'
        'echo "Unknown subcommand $1" >&2\necho "Usage: rocq <subcommand> ..." >&2\nexit 1\n'
    )
    script.chmod(0o755)
    return str(script)


def test_rocq_front_end_as_coqc_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--coqc rocq`` answered ``--version``, so a whole run was searched and every proof
    then "rejected" by the re-check ("Unknown subcommand -native-compiler"), counted as
    a search/check disagreement, exit 0 (audit 45). search, check and prove now refuse it
    in one line naming the fix."""
    from proofsearch.cli import main

    rocq = rocq_front_end(tmp_path)
    out = tmp_path / "r.jsonl"
    done = search(str(theorem_file(tmp_path)), "-o", str(out), *FIXED, "--coqc", rocq)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert f"--coqc {rocq} is Rocq's front end, not its compiler" in line
    assert "give --coqc coqc" in line and not out.exists()
    project = tmp_path / "p"
    project.mkdir()
    (project / "A.v").write_text("Lemma a : True.\nAdmitted.\n")
    out.write_text(json.dumps({"name": "t0", "status": "proved", "proof": ["reflexivity"]}) + "\n")
    capsys.readouterr()
    assert main(["check", str(out), str(theorem_file(tmp_path)), "--coqc", rocq]) == 1
    assert main(["prove", str(project), "--coqc", rocq, "--quiet"]) == 2
    assert main(["trace", str(project), "--coqc", rocq, "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all("Rocq's front end, not its compiler" in x for x in err), err


def test_a_coqc_of_another_installation_is_refused_before_any_work(tmp_path: Path) -> None:
    """The system's coqidetop on PATH and an opam switch's ``--coqc``: proofs were
    searched by one release and re-checked by another, whose compiled files the first
    cannot read. A second installation cannot be made here: a folder with a ``coqc`` and
    a ``coqidetop.opt`` of its own (the real ones behind them)."""
    opam = tmp_path / "opam" / "bin"
    opam.mkdir(parents=True)
    for name in ("coqc", "coqidetop.opt"):
        real = shutil.which(name) or shutil.which("coqidetop")
        assert real is not None
        (opam / name).write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
        (opam / name).chmod(0o755)
    out = tmp_path / "r.jsonl"
    given = ["--coqc", str(opam / "coqc")]
    done = search(str(theorem_file(tmp_path)), "-o", str(out), *FIXED, *given)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert f"--coqc {opam / 'coqc'} is of another Coq installation than the coqidetop" in line
    assert f"give --coq-binary {opam / 'coqidetop.opt'} too" in line and not out.exists()
    both = [*given, "--coq-binary", str(opam / "coqidetop.opt")]
    done = search(str(theorem_file(tmp_path)), "-o", str(out), *FIXED, *both, "--quiet")
    assert done.returncode == 0, done.stderr
