"""Runs of ``proofsearch trace``: failures, reruns, changes, a kill and a resume (real Coq)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import binary_version, find_idetop
from proofsearch.trace import shards
from proofsearch.trace.file_trace import FileTrace
from proofsearch.trace.runner import Limits, plan
from proofsearch.trace.schema import TraceDir
from proofsearch.trace.sources import coqproject, stdlib_project

from .project import FILES, write_project

pytestmark = pytest.mark.skipif(
    shutil.which(find_idetop("coqidetop.opt")) is None,
    reason="Coq (coqidetop.opt, or Rocq 9's coqidetop) is not installed",
)


def _trace(root: Path, out: Path, *more: str) -> int:
    return main(["trace", str(root), "--out", str(out), "--no-progress", *more])


def _jobs(root: Path, out: Path) -> list[tuple[str, bool]]:
    """What a run would do now: (module, traces it) for each job."""
    jobs, _ = plan(coqproject(root), out, limits=Limits())
    return [(job.source.module, job.trace) for job in jobs]


def _snapshot(out: Path) -> dict[str, object]:
    """Every shard's content, with the timing field (which varies) left out."""
    found: dict[str, object] = {}
    for path in sorted((out / "files").iterdir()):
        if path.name.endswith(".meta.json"):
            record = json.loads(path.read_text())
            record.pop("seconds")
            found[path.name] = record
        else:
            found[path.name] = path.read_text()
    return found


def test_a_failing_file_is_reported_and_the_others_are_traced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        **FILES,
        "theories/D.v": (
            "Lemma fine : 1 = 1.\nProof. reflexivity. Qed.\n\n"
            "Lemma wrong : 1 = 2.\nProof.\n  reflexivity.\nQed.\n\n"
            "Lemma after : 2 = 2.\nProof. reflexivity. Qed.\n"
        ),
    }
    root = write_project(tmp_path / "project", files)
    out = tmp_path / "out"
    assert _trace(root, out) == 1
    captured = capsys.readouterr()
    records = {record.module: record for record in TraceDir(out).files()}
    failed = records["Lib.D"]
    assert failed.status == "failed" and failed.error is not None
    assert failed.error.line == 6
    assert "Unable to unify" in failed.error.message
    assert [r.status for m, r in sorted(records.items()) if m != "Lib.D"] == ["traced"] * 3
    assert "failed: theories/D.v:6:" in captured.err
    assert "traced 3, up to date 0, failed 1" in captured.out
    # A rerun does not try the failed file again unless asked to.
    assert _jobs(root, out) == []
    assert _trace(root, out, "--retry-failed") == 1


def test_a_file_over_its_time_limit_is_stopped_and_reported(tmp_path: Path) -> None:
    source = tmp_path / "Loop.v"
    source.write_text(
        "Lemma fine : 1 = 1.\nProof. reflexivity. Qed.\n\n"
        "Lemma loops : True.\nProof.\n  repeat (assert True by exact I).\nQed.\n"
    )
    out = tmp_path / "out"
    assert main(["trace", str(source), "--out", str(out), "--no-progress", "--timeout", "3"]) == 1
    (record,) = TraceDir(out).files()
    assert record.status == "failed" and record.error is not None
    assert (record.error.line, record.error.message) == (6, "time limit of the file reached (3 s)")
    # What was finished before the limit is kept.
    assert [p.name for p in TraceDir(out).premises("Loop")] == ["Loop.fine"]


def test_rerun_traces_nothing_and_a_change_retraces_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "project")
    out = tmp_path / "out"
    assert _trace(root, out, "--jobs", "2") == 0
    before = _snapshot(out)
    metas = {p: p.stat().st_mtime_ns for p in (out / "files").glob("*.meta.json")}
    assert _jobs(root, out) == []
    assert _trace(root, out) == 0
    assert {p: p.stat().st_mtime_ns for p in metas} == metas
    # The leaf changes: only it is traced again.
    leaf = root / "theories" / "C.v"
    leaf.write_text(leaf.read_text().replace("split.", "split ."))
    assert _jobs(root, out) == [("Lib.C", True)]
    assert _trace(root, out) == 0
    assert _snapshot(out)["Lib.C.steps.jsonl"] != before["Lib.C.steps.jsonl"]
    assert {k: v for k, v in _snapshot(out).items() if "Lib.C" not in k} == {
        k: v for k, v in before.items() if "Lib.C" not in k
    }
    # The root changes: it alone is traced again; its dependents are only recompiled
    # (their .vo files must match the new Lib.A before anything can load them).
    base = root / "theories" / "A.v"
    base.write_text(base.read_text() + "\nDefinition extra := 1.\n")
    assert _jobs(root, out) == [("Lib.A", True), ("Lib.B", False), ("Lib.C", False)]
    assert _trace(root, out) == 0
    assert _jobs(root, out) == []
    assert [p.name for p in TraceDir(out).premises("Lib.A")][-1] == "Lib.A.extra"
    # A new tracer revision (it records more from the same sources): every file again.
    monkeypatch.setattr(shards, "TRACER_REVISION", shards.TRACER_REVISION + 1)
    assert _jobs(root, out) == [("Lib.A", True), ("Lib.B", True), ("Lib.C", True)]


def test_killed_run_resumes_to_the_same_output(tmp_path: Path) -> None:
    files = dict(FILES)
    for n in range(4):  # more independent files, so that the kill lands mid-run
        files[f"theories/E{n}.v"] = f"Lemma e{n} : {n} = {n}.\nProof. reflexivity. Qed.\n"
    root = write_project(tmp_path / "project", files)
    reference = tmp_path / "reference"
    assert _trace(root, reference) == 0

    out = tmp_path / "out"
    command = [sys.executable, "-m", "proofsearch.cli", "trace", str(root), "--out", str(out)]
    run = subprocess.Popen(
        [*command, "--no-progress", "--jobs", "1"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not list((out / "files").glob("*.meta.json")) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    done = len(list((out / "files").glob("*.meta.json")))
    assert 1 <= done < len(files), "the kill did not land mid-run"
    (out / "files" / ".tmp-1-Lib.E0.steps.jsonl").write_text("half a shard")
    assert _trace(root, out) == 0
    assert _snapshot(out) == _snapshot(reference)


@pytest.mark.parametrize("group", [True, False], ids=["terminal", "kill-INT-pid"])
def test_ctrl_c_mid_trace_is_one_line(tmp_path: Path, group: bool) -> None:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) while files are
    traced: each idle worker of the pool printed a 20-line traceback above the line.
    Sent to the main process alone, the workers are stopped too (the pool's exit ran
    every file already handed to a worker)."""
    lemmas = "".join(
        f"Lemma l{i} : {i} + 0 = {i}.\nProof. now rewrite <- plus_n_O. Qed.\n" for i in range(40)
    )
    # Two files at once (two workers start), then a chain: one file at a time, the other
    # worker idle.
    files = {"theories/A.v": "Lemma a : True.\nProof. exact I. Qed.\n"}
    files["theories/B.v"] = files["theories/A.v"].replace("a :", "b :")
    files["theories/C0.v"] = f"Require Import Lib.A Lib.B.\n{lemmas}"
    for n in range(1, 6):
        files[f"theories/C{n}.v"] = f"Require Import Lib.C{n - 1}.\n{lemmas}"
    root = write_project(tmp_path / "project", files)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "proofsearch.cli", "trace", str(root), "--out", str(out)]
    run = subprocess.Popen(
        [*command, "--no-progress", "--jobs", "2"], start_new_session=True, text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(list((out / "files").glob("*.meta.json"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert run.poll() is None, "the trace ended before it could be interrupted"
        (os.killpg if group else os.kill)(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted; the results so far are kept" in err
    assert _trace(root, out) == 0  # and the next run finishes the trace


@pytest.mark.skipif(
    shutil.which("coqc") is None or binary_version("coqc").major >= 9,
    reason="pinned to Coq 8's stdlib layout (Rocq 9 moved Bool/Bool.v out of the core)",
)
def test_stdlib_selection(tmp_path: Path) -> None:
    """``--coq-stdlib --only``: names under ``Coq.``, ``Init/`` traced with -noinit."""
    project = stdlib_project()
    project.select(["Coq.Init.Peano", "Bool/Bool.v"])
    assert [s.module for s in project.sources] == ["Coq.Bool.Bool", "Coq.Init.Peano"]
    assert [s.extra_args for s in project.sources] == [(), ("-noinit",)]
    out = tmp_path / "out"
    args = ["trace", "--coq-stdlib", "--only", "Coq.Init.Peano", "--only", "Bool/Bool.v"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    trace = TraceDir(out)
    records = {record.module: record for record in trace.files()}
    # Init/Peano.v: Require Import Notations Ltac Datatypes Logic, Require Coq.Init.Nat.
    assert records["Coq.Init.Peano"].requires == [
        "Coq.Init.Datatypes", "Coq.Init.Logic", "Coq.Init.Ltac", "Coq.Init.Nat",
        "Coq.Init.Notations",
    ]  # fmt: skip
    premises = {p.name: p for p in trace.premises("Coq.Bool.Bool")}
    assert premises["Coq.Bool.Bool.negb_involutive"].statement == (
        "forall b : bool, negb (negb b) = b"
    )
    assert premises["Coq.Bool.Bool.negb_involutive"].kind == "Lemma"
    steps = [s for s in trace.steps("Coq.Init.Peano") if s.lemma == "Coq.Init.Peano.plus_n_O"]
    assert steps and steps[0].goals[0].conclusion == "forall n : nat, n = n + 0"


def test_an_installed_library_is_traced_without_writing_into_it(tmp_path: Path) -> None:
    """``lia`` writes ``.lia.cache`` into Coq's working folder, which was the library's
    own: a trace of the stdlib or of a ``user-contrib`` package wrote into the system's
    Coq folders (and a purged package's folder stayed behind for it)."""
    from proofsearch.trace.sources import coq_where

    project = stdlib_project()
    cantor = [s for s in project.sources if s.file.endswith("Arith/Cantor.v")]
    if not cantor:
        pytest.skip("this Coq's stdlib has no Arith/Cantor.v (it uses lia)")
    folder = cantor[0].path.parent.parent
    caches = [folder / ".lia.cache", coq_where() / "theories" / ".lia.cache"]
    before = {path: path.stat().st_mtime_ns for path in caches if path.exists()}
    out = tmp_path / "out"
    args = ["trace", "--coq-stdlib", "--only", "Arith/Cantor.v", "--out", str(out)]
    assert main([*args, "--no-progress"]) == 0
    assert {path: path.stat().st_mtime_ns for path in caches if path.exists()} == before
    # Where it went instead (Rocq 9.2 wrote no lia cache in this trace: not looked into).
    assert (out / ".lia.cache").exists() or binary_version("coqc").major >= 9


@pytest.mark.skipif(
    shutil.which("coqc") is None or binary_version("coqc").major < 9,
    reason="Rocq 9's stdlib layout (user-contrib/Stdlib; theories is the prelude's Corelib)",
)
def test_stdlib_selection_on_rocq_9(tmp_path: Path) -> None:
    """``--coq-stdlib`` on Rocq 9 traces the Stdlib under ``Stdlib.`` (it traced
    ``theories``, the prelude alone, under ``Coq.``), and ``Init/Byte.v`` (``From
    Corelib Require Export Byte``) requires Corelib's, not ``Strings/Byte.v``."""
    project = stdlib_project()
    assert {"Corelib.Init.Logic", "Stdlib.Lists.List"} <= {s.module for s in project.sources}
    project.select(["Stdlib.Init.Byte", "Arith/PeanoNat.v", "Corelib.Init.Logic"])
    assert [(s.module, s.extra_args) for s in project.sources] == [
        ("Corelib.Init.Logic", ("-noinit",)),  # the prelude, traced with the stdlib
        ("Stdlib.Arith.PeanoNat", ()),
        ("Stdlib.Init.Byte", ()),
    ]
    out = tmp_path / "out"
    args = ["trace", "--coq-stdlib", "--only", "Stdlib.Init.Byte", "--only", "Arith/PeanoNat.v"]
    args += ["--only", "Corelib.Init.Logic"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    trace = TraceDir(out)
    records = {record.module: record for record in trace.files()}
    assert records["Stdlib.Init.Byte"].requires == ["Corelib.Init.Byte"]
    premises = {p.name for p in trace.premises("Stdlib.Arith.PeanoNat")}
    assert "Stdlib.Arith.PeanoNat.Nat.add_comm" in premises
    assert "Corelib.Init.Logic.eq_sym" in {p.name for p in trace.premises("Corelib.Init.Logic")}


def test_a_command_that_makes_two_states_inside_a_proof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Open Scope`` inside a proof makes two states: ids after it are not predictable.

    Normally the batch ends there; with batches forced long, the tracer must notice the
    gap, drop what was sent on the wrong parent and send it again: same records.
    """
    from proofsearch.trace import file_trace

    source = tmp_path / "Scopes.v"
    source.write_text(
        "Lemma a : True.\nProof.\nOpen Scope nat_scope.\nexact I.\nQed.\n"
        "Lemma b : 1 + 1 = 2.\nProof.\nOpaque Nat.add.\nTransparent Nat.add.\nreflexivity.\nQed.\n"
    )

    def run() -> file_trace.FileTrace:
        args = ["-Q", str(tmp_path), ""]
        return file_trace.trace_file(source, "Scopes.v", "Scopes", args, timeout=60,
                                     memory_limit_mb=4096)  # fmt: skip

    normal = run()
    monkeypatch.setattr(file_trace.FileTracer, "_ends_batch", lambda self, command, p: False)
    forced = run()
    assert normal.error is None and forced.error is None
    assert [(s.lemma, s.tactic) for s in normal.steps] == [
        ("Scopes.a", "exact I."), ("Scopes.b", "reflexivity."),
    ]  # fmt: skip
    assert forced.steps == normal.steps
    assert [p.name for p in forced.premises] == ["Scopes.a", "Scopes.b"]


def trace_source(source: Path, module: str) -> FileTrace:
    """Trace one file of ``source``'s folder, bound to the empty logical prefix."""
    from proofsearch.trace.file_trace import trace_file

    return trace_file(source, source.name, module, ["-Q", str(source.parent), ""],
                      timeout=60, memory_limit_mb=4096)  # fmt: skip


def test_constants_from_include_and_functor_application(tmp_path: Path) -> None:
    """``Include F`` and ``Module N := F M`` make constants no sentence declares; they
    are premises (kind ``Included``) placed at the ``Include``/``Module`` sentence.
    Module types declare no premises; a functor's body and its parameter's fields are
    premises of that body only (``until`` its ``End``), named as the body names them:
    a hole inside a functor was never offered `X.op_comm` nor the functor's own lemmas."""
    source = tmp_path / "Functors.v"
    source.write_text(
        "Module Type T. Parameter t : Type. Axiom t_eq : forall x y : t, x = y. End T.\n"
        "Module F (X : T).\n"
        "  Lemma l1 : forall x : X.t, x = x. Proof. reflexivity. Qed.\n"
        "  Module Inner. Definition k := 0. End Inner.\n"
        "End F.\n"
        "Module M.\nDefinition t := nat.\nAxiom t_eq : forall x y : t, x = y.\nInclude F.\n"
        "Lemma after : forall n : t, n = n. Proof. exact l1. Qed.\nEnd M.\n"
        "Module N := F M.\n"
        "Module G (Y : T). End G.\n"
    )
    trace = trace_source(source, "Functors")
    assert trace.error is None
    assert [(p.name, p.kind, p.statement, p.line, p.until) for p in trace.premises] == [
        ("X.t", "Parameter", "Type", 2, 5),
        ("X.t_eq", "Parameter", "forall x y : X.t, x = y", 2, 5),
        ("l1", "Lemma", "forall x : X.t, x = x", 3, 5),
        ("Inner.k", "Definition", "nat", 4, 5),
        ("Functors.M.t", "Definition", "Set", 7, None),
        ("Functors.M.t_eq", "Axiom", "forall x y : t, x = y", 8, None),
        ("Functors.M.Inner.k", "Included", "nat", 9, None),
        ("Functors.M.l1", "Included", "forall x : M.t, x = x", 9, None),
        ("Functors.M.after", "Lemma", "forall n : t, n = n", 10, None),
        ("Functors.N.Inner.k", "Included", "nat", 12, None),
        ("Functors.N.l1", "Included", "forall x : M.t, x = x", 12, None),
        ("Y.t", "Parameter", "Type", 13, 13),
        ("Y.t_eq", "Parameter", "forall x y : Y.t, x = y", 13, 13),
    ]  # fmt: skip
    assert [s.lemma for s in trace.steps] == ["Functors.F.l1", "Functors.M.after"]


def test_premises_of_nested_sections(tmp_path: Path) -> None:
    """An inner section's ``End`` keeps every premise (the outer section's included),
    and each gets its type as seen outside all sections (``SetoidList`` kept 6 of its
    premises when the inner ``End`` dropped the outer ones)."""
    source = tmp_path / "Nested.v"
    source.write_text(
        "Section Outer.\nVariable A : Type.\n"
        "Lemma before : forall x : A, x = x. Proof. reflexivity. Qed.\n"
        "Section Inner.\nVariable B : Type.\n"
        "Lemma inner : forall (x : A) (y : B), y = y. Proof. reflexivity. Qed.\n"
        "Let local := 0.\n"
        "End Inner.\n"
        "Lemma after : forall x : A, x = x. Proof. reflexivity. Qed.\n"
        "End Outer.\n"
    )
    trace = trace_source(source, "Nested")
    assert trace.error is None
    assert [(p.name, p.statement) for p in trace.premises] == [
        ("Nested.before", "forall (A : Type) (x : A), x = x"),
        ("Nested.inner", "forall A B : Type, A -> forall y : B, y = y"),
        ("Nested.after", "forall (A : Type) (x : A), x = x"),
    ]


def test_included_constants_whose_statement_breaks_the_line(tmp_path: Path) -> None:
    """``Search`` prints a long statement on the lines after ``name:``; such an
    included constant is a premise too (the stdlib's ``Z.mod_unique`` and a third of
    ``Z``'s other included lemmas were lost that way)."""
    long_statement = " -> ".join(f"x{i} = x{i}" for i in range(12)) + " -> True"
    binders = " ".join(f"x{i}" for i in range(12))
    source = tmp_path / "Long.v"
    source.write_text(
        "Module Type T. End T.\n"
        f"Module F (X : T). Lemma long : forall {binders} : nat, {long_statement}.\n"
        "Proof. intros; exact I. Qed. Lemma short : True. Proof. exact I. Qed. End F.\n"
        "Module M. Include F. End M.\n"
    )
    trace = trace_source(source, "Long")
    assert trace.error is None
    included = {p.name: p.statement for p in trace.premises if p.kind == "Included"}
    assert set(included) == {"Long.M.long", "Long.M.short"}
    assert included["Long.M.long"] == f"forall {binders} : nat, {long_statement}"


def test_names_coq_gives_and_class_fields(tmp_path: Path) -> None:
    """Unnamed proofs get Coq's name; a definitional class's field is a premise; a
    section ``Let`` is not (it is gone once the section is closed)."""
    source = tmp_path / "Names.v"
    source.write_text(
        "Class Foo (A : Type) := foo : A.\n"
        "#[export] Instance : Foo nat.\nProof. exact 0. Qed.\n"
        "Goal True. Proof. exact I. Qed.\n"
        "Section S. Let l := 3. Lemma ll : l = 3. Proof. reflexivity. Qed. End S.\n"
    )
    trace = trace_source(source, "Names")
    assert trace.error is None
    assert [(p.name, p.kind, p.statement) for p in trace.premises] == [
        ("Names.Foo", "Record", "Type -> Type"),
        ("Names.foo", "Projection", "forall {A : Type}, Foo A -> A"),
        ("Names.Foo_instance_0", "Instance", "Foo nat"),
        ("Names.Unnamed_thm", "Lemma", "True"),
        ("Names.ll", "Lemma", "3 = 3"),
    ]  # fmt: skip
    assert [s.lemma for s in trace.steps] == [
        "Names.Foo_instance_0", "Names.Unnamed_thm", "Names.ll",
    ]  # fmt: skip


def test_goals_open_at_admitted_are_recorded(tmp_path: Path) -> None:
    """What ``prove`` continues from: the focused goals at each ``Admitted``; ``[]``
    when none is left; ``None`` when a goal waits outside the focus (another bullet)."""
    source = tmp_path / "Left.v"
    source.write_text(
        "Lemma l1 : forall n : nat, n + 0 = n.\n"
        "Proof. intros n. induction n. - reflexivity. - simpl. Admitted.\n"
        "Lemma l2 : True /\\ True.\nProof. split. - admit. - exact I. Admitted.\n"
        "Lemma l3 : True /\\ True.\nProof. split. - idtac. Admitted.\n"
        "Lemma l4 : True.\nProof. exact I. Qed.\n"
    )
    trace = trace_source(source, "Left")
    assert trace.error is None
    assert {name: None if goals is None else [g.render() for g in goals]
            for name, goals in trace.admitted.items()} == {
        "Left.l1": ["n : nat\nIHn : n + 0 = n\n============================\nS (n + 0) = S n"],
        "Left.l2": [],
        "Left.l3": None,
    }  # fmt: skip
