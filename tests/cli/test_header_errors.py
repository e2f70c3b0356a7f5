"""Header errors are visible: a run whose theorems all fail to open stops on one line.

Real Coq: the header requires a library that is nowhere on the loadpath.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.header_watch import HeaderFailed, HeaderWatch
from proofsearch.search.result import OPEN_ERROR, STARTUP_ERROR

MISSING = "Require Import NoSuchLibrary."
FIXED = ["--generator", "fixed", "--tactic", "exact I", "--quiet"]


def theorems(tmp_path: Path, headers: list[str]) -> Path:
    path = tmp_path / "thms.jsonl"
    lines = [
        json.dumps({"name": f"t{i}", "statement": f"Theorem t{i} : True.", "header": header})
        for i, header in enumerate(headers)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_theorem_failing_to_open_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = theorems(tmp_path, [MISSING] * 5)
    out = tmp_path / "r.jsonl"
    assert main(["search", str(path), "-o", str(out), *FIXED]) == 1
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert line.startswith(f"proofsearch search: {path}: the first 3 theorem(s) failed to open")
    assert "NoSuchLibrary" in line and f"t0, {path}:1" in line  # Coq's message, the file
    assert "--coq-arg" in line and "--resume" in line  # the fix
    assert not out.exists()  # nothing --resume would take as final; no file made
    # Fixed, the run resumes and searches every theorem.
    theorems(tmp_path, [""] * 5)
    assert main(["search", str(path), "-o", str(out), *FIXED, "--resume"]) == 0
    assert [json.loads(x)["status"] for x in out.read_text().splitlines()] == ["proved"] * 5


def test_a_generator_failing_on_every_theorem_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model server that is not up (nothing listens on the port): one line, exit 1,
    nothing written; it was an ``error`` row per theorem and exit 0."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = theorems(tmp_path, ["", "", "", ""])
    out = tmp_path / "r.jsonl"
    client = ["--generator", "openai", "--base-url", f"http://127.0.0.1:{port}/v1"]
    retries = ["--gen-option", "max_retries=0", "--quiet"]
    assert main(["search", str(path), "-o", str(out), *client, *retries]) == 1
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert line.startswith(
        f"proofsearch search: {path}: the first 3 theorem(s) failed in the tactic generator"
    )
    assert f"cannot reach http://127.0.0.1:{port}/v1" in line and "--base-url" in line
    assert not out.exists()


def test_a_generator_that_never_answers_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model server that takes the connection and never answers: each call is cut at
    the theorem's deadline (the theorem does not wait for the client's 60 s limit), and
    the first theorems all so stop the run with one line, nothing written."""
    import socket
    import time

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # connections complete in the backlog; nothing is ever read
        port = silent.getsockname()[1]
        path = theorems(tmp_path, ["", "", "", ""])
        out = tmp_path / "r.jsonl"
        client = ["--generator", "openai", "--base-url", f"http://127.0.0.1:{port}/v1"]
        start = time.perf_counter()
        assert main(["search", str(path), "-o", str(out), *client, "--timeout", "1"]) == 1
        assert time.perf_counter() - start < 40  # three theorems of 1 s, not 3 × 60 s
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert line.startswith(
        f"proofsearch search: {path}: the first 3 theorem(s) got no answer from the tactic "
        "generator"
    )
    assert "within the theorem's budget (--timeout)" in line and "--base-url" in line
    assert not out.exists()


def test_a_theorem_that_opens_turns_the_rule_off(tmp_path: Path) -> None:
    path = theorems(tmp_path, ["", MISSING, MISSING, MISSING, MISSING])
    out = tmp_path / "r.jsonl"
    assert main(["search", str(path), "-o", str(out), *FIXED]) == 0
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["status"] for r in records] == ["proved"] + ["error"] * 4
    assert all(r.get(OPEN_ERROR) for r in records[1:])


class ListSink:
    def __init__(self) -> None:
        self.records: list[dict[str, object]] = []

    def append(self, record: dict[str, object]) -> None:
        self.records.append(record)


def failed_open(name: str, message: str = "Cannot find NoSuchLibrary") -> dict[str, object]:
    return {"name": name, "status": "error", "error": message, OPEN_ERROR: True}


def test_different_messages_are_the_theorems_own() -> None:
    sink = ListSink()
    watch = HeaderWatch(sink, "thms.jsonl", {f"t{i}": f"thms.jsonl:{i}" for i in range(5)}, "fix")
    watch.append(failed_open("t0", "one"))
    watch.append({"name": "s", "status": "error", "error": "no coq", STARTUP_ERROR: True})
    assert [r["name"] for r in sink.records] == ["s"]  # start-up failures pass through
    watch.append(failed_open("t1", "two"))  # another message: not a shared header
    watch.append(failed_open("t2", "two"))
    watch.append(failed_open("t3", "two"))
    assert [r["name"] for r in sink.records] == ["s", "t0", "t1", "t2", "t3"]


def test_one_cause_named_differently_by_each_header_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project benchmark without its loadpath: each entry's header loads its own
    file's modules, so each failed with another module in the message, and the run went
    on, exit 0, every row an error (an audit on math-classes)."""
    headers = [f"Require Import NoSuchLib.{m}." for m in ("A", "B", "A NoSuchLib.C")]
    path = theorems(tmp_path, headers)
    out = tmp_path / "r.jsonl"
    assert main(["search", str(path), "-o", str(out), *FIXED]) == 1
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "the first 3 theorem(s) failed to open" in line and "NoSuchLib.A" in line
    assert not out.exists()


def test_a_small_run_stops_when_all_its_theorems_fail() -> None:
    sink = ListSink()
    watch = HeaderWatch(sink, "thms.jsonl", {"t0": "thms.jsonl:1", "t1": "thms.jsonl:2"}, "fix")
    watch.append(failed_open("t0"))
    with pytest.raises(HeaderFailed, match=r"first 2 theorem\(s\).*t0, thms.jsonl:1"):
        watch.append(failed_open("t1"))
    assert sink.records == []


def test_a_missing_stdlib_prefix_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Unable to locate library Lia with prefix Stdlib`` said nothing of the cause
    (audit 45): Rocq 9's stdlib is a package of its own, and Coq 8 calls it ``Coq``."""
    from proofsearch.env.coq import version

    message = "Unable to locate library Lia with prefix Stdlib."
    layouts = {
        "coq8": ("theories/Arith", "this Coq 8 calls it Coq"),
        "rocq9": ("user-contrib/Stdlib", ""),
        "rocq9-bare": ("theories/Init", "install it (Debian: apt-get install libcoq-stdlib"),
    }
    for name, (folder, expected) in layouts.items():
        (tmp_path / name / folder).mkdir(parents=True)
        monkeypatch.setattr(version, "coq_where", lambda coqc="coqc", n=name: tmp_path / n)
        hint = version.stdlib_missing_hint(message)
        assert (expected in hint) if expected else hint == "", (name, hint)
        assert version.stdlib_missing_hint("Unable to locate library Lia.") == ""
    monkeypatch.undo()
    if version.binary_version("coqc").rocq:
        return  # Rocq 9 has Stdlib: the end-to-end case below is Coq 8's
    path = theorems(tmp_path, ["From Stdlib Require Import Arith."] * 3)
    assert main(["search", str(path), "-o", str(tmp_path / "r.jsonl"), *FIXED]) == 1
    assert "Stdlib is Rocq 9's name for the standard library" in capsys.readouterr().err


def test_one_theorem_failing_to_open_is_said_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The others opened, so the run went on (as documented); the failing row alone said
    Coq's message, no fix (audit 55: a header `Require Import Num.Ineq.` of the user's own
    project, searched without its loadpath)."""
    path = theorems(tmp_path, ["", "Require Import Num.Ineq.", ""])
    out = tmp_path / "r.jsonl"
    fixed = [arg for arg in FIXED if arg != "--quiet"]
    assert main(["search", str(path), "-o", str(out), *fixed]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "1 theorem(s) failed to open their header (the first: t1: " in err
    assert "give the loadpath of Num: --coq-arg -R --coq-arg DIR --coq-arg Num" in err
    assert "--resume --retry-errors" in err
