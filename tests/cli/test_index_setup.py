"""The loadpath is remembered: ``trace`` records the project's Coq arguments, and
``search``, ``check`` and ``export`` given the trace as ``--index`` use them.

Real Coq, on the three-file project of the trace tests (``-R theories Lib``).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.traces import recorded_coq_args
from proofsearch.trace.schema import PROJECT_FILE, TraceDir
from tests.conftest import COQ_INSTALLED
from tests.trace.project import write_project

pytestmark = pytest.mark.skipif(
    not COQ_INSTALLED, reason="Coq (coqidetop.opt, or Rocq 9's coqidetop) is not installed"
)

HEADER = "Require Import Lib.A."
STATEMENT = "Lemma double_two : double 2 = 4."


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = write_project(tmp_path_factory.mktemp("project"))
    out = tmp_path_factory.mktemp("trace") / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "2"]) == 0
    return root, out


def theorem_file(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "thms.jsonl"
    entry = {"name": "double_two", "statement": STATEMENT, "header": HEADER, **fields}
    path.write_text(json.dumps(entry) + "\n")
    return path


def results_file(tmp_path: Path, proof: list[str]) -> Path:
    path = tmp_path / "r.jsonl"
    record = {"name": "double_two", "status": "proved", "proof": proof, "checked": True}
    path.write_text(json.dumps(record) + "\n")
    return path


def test_trace_records_the_project_and_its_arguments(traced: tuple[Path, Path]) -> None:
    root, out = traced
    project = TraceDir(out).project()
    assert project is not None and project.root == str(root.resolve())
    assert project.coq_args == ["-R", str((root / "theories").resolve()), "Lib"]


def test_a_trace_without_the_record_is_still_read(
    traced: tuple[Path, Path], tmp_path: Path
) -> None:
    _, out = traced
    old = tmp_path / "old-trace"
    shutil.copytree(out, old)
    (old / PROJECT_FILE).unlink()
    trace = TraceDir(old)
    assert trace.project() is None and len(trace.files()) == 3
    assert recorded_coq_args([trace]) == []


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_search_with_index_needs_no_coq_arg(
    traced: tuple[Path, Path], tmp_path: Path, where: str
) -> None:
    root, out = traced
    file = "theories/C.v" if where == "relative" else str(root / "theories" / "C.v")
    theorems = theorem_file(tmp_path, file=file, line=3)
    results = tmp_path / "out.jsonl"
    argv = ["search", str(theorems), "--index", str(out), "-o", str(results), "--quiet",
            "--timeout", "60"]  # fmt: skip
    assert main(argv) == 0
    (record,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert record["status"] == "proved", record.get("error")
    assert record["file"] == "theories/C.v"  # as the trace records it


def test_a_file_the_trace_does_not_hold_is_refused_before_the_run(
    traced: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = traced
    theorems = theorem_file(tmp_path, file="theories/Cc.v", line=3)
    results = tmp_path / "out.jsonl"
    argv = ["search", str(theorems), "--index", str(out), "-o", str(results), "--quiet"]
    assert main(argv) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert line.startswith(f"proofsearch search: {theorems}:1: field 'file': 'theories/Cc.v'")
    assert "closest: theories/C.v" in line, line
    assert not results.exists()
    absolute = theorem_file(tmp_path, file=str(traced[0] / "theories" / "B2.v"))
    assert main(["search", str(absolute), "--index", str(out), "-o", str(results)]) == 2
    assert "closest: theories/B.v" in capsys.readouterr().err


def test_a_module_of_a_library_not_traced_says_its_trace_is_missing(
    traced: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An stdpp entry against the stdlib's trace alone got the closest stdlib names
    (``Coq.Unicode.Utf8``): noise. Another library's module says its trace is missing;
    one of a traced library still gets the closest names (audit 52)."""
    _, out = traced
    results = tmp_path / "out.jsonl"
    argv = ["search", "--index", str(out), "-o", str(results), "--quiet"]
    assert main([*argv, str(theorem_file(tmp_path, module="stdpp.gmap", line=3))]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "'stdpp.gmap' is not a module traced in" in err
    assert "no module of 'stdpp' is traced there: add its trace with another --index" in err
    assert main([*argv, str(theorem_file(tmp_path, module="Lib.Cc", line=3))]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "closest: Lib.C" in err, err


def test_check_with_index_needs_no_coq_arg(
    traced: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = traced
    theorems = theorem_file(tmp_path)
    results = results_file(tmp_path, ["reflexivity"])
    assert main(["check", str(results), str(theorems), "--index", str(out)]) == 0
    assert "1 passed" in capsys.readouterr().out
    # --coq-arg wins over the recorded arguments (here: a loadpath without Lib).
    override = ["--coq-arg=-Q", f"--coq-arg={tmp_path}", "--coq-arg=Other"]
    assert main(["check", str(results), str(theorems), "--index", str(out), *override]) == 2
    assert "Lib.A" in capsys.readouterr().err
    # A wrong proof is still a rejected proof (the setup is fine).
    wrong = results_file(tmp_path, ["exact I"])
    assert main(["check", str(wrong), str(theorems), "--index", str(out)]) == 1
    assert "rejected proofs:" in capsys.readouterr().out


def test_check_tells_a_setup_problem_from_a_rejected_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theorems = theorem_file(tmp_path)  # Lib is nowhere: no --index, no --coq-arg
    results = results_file(tmp_path, ["reflexivity"])
    assert main(["check", str(results), str(theorems)]) == 2
    out, err = capsys.readouterr()
    assert "rejected" not in out + err
    (line,) = [x for x in err.splitlines() if x.strip()]
    assert line.startswith(f"proofsearch check: {theorems}:1 (double_two): the header")
    assert "Lib.A" in line and "--index" in line, line
    # A loadpath folder that does not exist: Coq would only warn; one line, exit 2.
    missing = ["--coq-arg=-R", f"--coq-arg={tmp_path / 'nowhere'}", "--coq-arg=Lib"]
    assert main(["check", str(results), str(theorems), *missing]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert line.startswith("proofsearch check: --coq-arg -R ") and "no such folder" in line


def coqproject_args(path: Path) -> list[str]:
    args: list[str] = []
    for line in path.read_text().splitlines():
        tokens = shlex.split(line)
        if tokens and tokens[0] == "-arg":
            args += tokens[1:]
        elif tokens and tokens[0].startswith("-"):
            args += tokens
    return args


def test_export_with_index_compiles_against_the_project(
    traced: tuple[Path, Path], tmp_path: Path
) -> None:
    root, out = traced
    theorems = theorem_file(tmp_path)
    results = results_file(tmp_path, ["reflexivity"])
    export = tmp_path / "exported"
    argv = ["export", str(results), str(theorems), "--out", str(export), "--index", str(out)]
    assert main(argv) == 0
    (item,) = json.loads((export / "index.json").read_text())
    args = coqproject_args(export / "_CoqProject")
    assert ["-R", str((root / "theories").resolve()), "Lib"] == args[3:6], args
    done = subprocess.run(
        ["coqc", *args, item["path"]], cwd=export, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The folder is not empty now: refused without --overwrite, emptied with it.
    (export / "Proof_stale.v").write_text("stale")
    assert main(argv) == 2
    assert (export / "Proof_stale.v").exists()
    assert main([*argv, "--overwrite"]) == 0
    assert not (export / "Proof_stale.v").exists() and (export / item["path"]).exists()


def test_trace_without_a_terminal_prints_plain_progress_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(tmp_path / "project")
    assert main(["trace", str(root), "--out", str(tmp_path / "trace"), "--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert re.search(
        r"^trace files 3/3 · lemmas \d+ · steps \d+ · failed 0 · elapsed \d:\d\d:\d\d$", err, re.M
    ), err
    assert "ETA" not in err and "━" not in err  # no bar


def test_the_first_run_on_an_index_says_it_builds_it(
    traced: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first run stood at 0 results while the index was built (110 s on a loaded
    machine for the standard library's): a line says so, only when it is not cached."""
    from proofsearch.generate.knn import corpus

    _, out = traced
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(corpus, "_PRELOADED", {})  # as a new process: nothing loaded yet
    theorems = theorem_file(tmp_path, file="theories/C.v", line=3)
    for run, expected in ((1, True), (2, False)):
        results = tmp_path / f"out{run}.jsonl"
        argv = ["search", str(theorems), "--index", str(out), "-o", str(results), "--timeout", "60"]
        assert main(argv) == 0
        said = "index: building the search index of 1 trace folder(s)" in capsys.readouterr().err
        assert said is expected, run
