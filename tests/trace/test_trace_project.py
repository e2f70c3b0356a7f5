"""``proofsearch trace`` on a small three-file project, with real Coq: exact records."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.trace.runner import coq_version
from proofsearch.trace.schema import TraceDir
from tests.conftest import COQ_INSTALLED

from .project import FILES, write_project

pytestmark = pytest.mark.skipif(
    not COQ_INSTALLED, reason="Coq (coqidetop.opt, or Rocq 9's coqidetop) is not installed"
)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TraceDir]:
    root = write_project(tmp_path_factory.mktemp("project"))
    out = root.parent / "out"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "2"]) == 0
    return root, TraceDir(out)


def test_files_and_dependencies(traced: tuple[Path, TraceDir]) -> None:
    _, trace = traced
    records = {record.module: record for record in trace.files()}
    assert sorted(records) == ["Lib.A", "Lib.B", "Lib.C"]
    assert trace.dependencies() == {"Lib.A": [], "Lib.B": ["Lib.A"], "Lib.C": ["Lib.A", "Lib.B"]}
    assert trace.closure("Lib.C") == {"Lib.A", "Lib.B"}
    assert {m: (r.file, r.status, r.lemmas, r.steps, r.premises) for m, r in records.items()} == {
        "Lib.A": ("theories/A.v", "traced", 2, 3, 3),
        "Lib.B": ("theories/B.v", "traced", 2, 6, 10),
        "Lib.C": ("theories/C.v", "traced", 1, 3, 1),
    }
    # the Coq that traced them (8.16.1 on Debian 12, 8.20.1 on Debian 13: both run CI)
    assert all(r.error is None and r.coq_version == coq_version() for r in records.values())


def _step_rows(trace: TraceDir, module: str) -> list[tuple[object, ...]]:
    return [
        (
            step.lemma,
            step.index,
            step.line,
            step.structure,
            step.tactic,
            [goal.render() for goal in step.goals],
            step.background,
            step.closed_goal,
        )
        for step in trace.steps(module)
    ]


def test_steps_with_goals_before_each(traced: tuple[Path, TraceDir]) -> None:
    _, trace = traced
    sep = "============================"
    assert _step_rows(trace, "Lib.A") == [
        ("Lib.A.double_zero", 0, 5, [], "reflexivity.", [f"{sep}\ndouble 0 = 0"], 0, True),
        (
            "Lib.A.double_k", 0, 11, [], "unfold double.",
            [f"k : nat\n{sep}\ndouble k = k + k"], 0, False,
        ),
        (
            "Lib.A.double_k", 1, 11, [], "reflexivity.",
            [f"k : nat\n{sep}\nk + k = k + k"], 0, True,
        ),
    ]  # fmt: skip
    assert _step_rows(trace, "Lib.B") == [
        (
            "Lib.B.M.flip_flip", 0, 9, [], "intros c.",
            [f"{sep}\nforall c : color, flip (flip c) = c"], 0, False,
        ),
        (
            "Lib.B.M.flip_flip", 1, 9, [], "destruct c.",
            [f"c : color\n{sep}\nflip (flip c) = c"], 0, False,
        ),
        (
            "Lib.B.M.flip_flip", 2, 10, ["-"], "reflexivity.",
            [f"{sep}\nflip (flip Red) = Red"], 1, True,
        ),
        (
            "Lib.B.M.flip_flip", 3, 11, ["-"], "simpl; reflexivity.",
            [f"{sep}\nflip (flip Green) = Green"], 0, True,
        ),
        ("Lib.B.two", 0, 16, [], "exists 2.", [f"{sep}\n{{n : nat | n = double 1}}"], 0, False),
        ("Lib.B.two", 1, 16, [], "reflexivity.", [f"{sep}\n2 = double 1"], 0, True),
    ]  # fmt: skip
    assert _step_rows(trace, "Lib.C") == [
        (
            "Lib.C.use", 0, 5, [], "split.",
            [f"b : bool\n{sep}\nM.flip M.Red = M.Green /\\ double 1 = 2"], 0, False,
        ),
        (
            "Lib.C.use", 1, 6, ["{"], "reflexivity.",
            [f"b : bool\n{sep}\nM.flip M.Red = M.Green"], 1, True,
        ),
        (
            "Lib.C.use", 2, 7, ["}", "{"], "reflexivity.",
            [f"b : bool\n{sep}\ndouble 1 = 2"], 0, True,
        ),
    ]  # fmt: skip


def test_step_fields_are_consistent(traced: tuple[Path, TraceDir]) -> None:
    root, trace = traced
    for module in ("Lib.A", "Lib.B", "Lib.C"):
        for step in trace.steps(module):
            text = (root / step.file).read_text()
            assert text[step.offset :].startswith(step.tactic)
            assert text.count("\n", 0, step.offset) + 1 == step.line
            assert step.lemma_offset < step.offset
            assert step.shelved == 0 and step.given_up == 0
    step = next(trace.steps("Lib.C"))
    assert step.goals[0].hypotheses[0].names == ["b"]
    assert step.goals[0].hypotheses[0].type == "bool"


def test_premises_exactly(traced: tuple[Path, TraceDir]) -> None:
    _, trace = traced
    rows = [
        (p.name, p.kind, p.statement, p.line)
        for module in ("Lib.A", "Lib.B", "Lib.C")
        for p in trace.premises(module)
    ]
    assert rows == [
        ("Lib.A.double", "Definition", "nat -> nat", 1),
        ("Lib.A.double_zero", "Lemma", "double 0 = 0", 3),
        # Declared in a section: its type once the section is closed.
        ("Lib.A.double_k", "Lemma", "forall k : nat, double k = k + k", 10),
        ("Lib.B.M.color", "Inductive", "Set", 4),
        ("Lib.B.M.color_rect", "Scheme",
         "forall P : color -> Type, P Red -> P Green -> forall c : color, P c", 4),
        ("Lib.B.M.color_ind", "Scheme",
         "forall P : color -> Prop, P Red -> P Green -> forall c : color, P c", 4),
        ("Lib.B.M.color_rec", "Scheme",
         "forall P : color -> Set, P Red -> P Green -> forall c : color, P c", 4),
        ("Lib.B.M.color_sind", "Scheme",
         "forall P : color -> SProp, P Red -> P Green -> forall c : color, P c", 4),
        ("Lib.B.M.Red", "Constructor", "color", 4),
        ("Lib.B.M.Green", "Constructor", "color", 4),
        ("Lib.B.M.flip", "Definition", "color -> color", 5),
        ("Lib.B.M.flip_flip", "Lemma", "forall c : color, flip (flip c) = c", 7),
        ("Lib.B.two", "Definition", "{n : nat | n = double 1}", 15),
        ("Lib.C.use", "Lemma", "bool -> M.flip M.Red = M.Green /\\ double 1 = 2", 3),
    ]  # fmt: skip


def test_declared_before_a_lemma(traced: tuple[Path, TraceDir]) -> None:
    """What a lemma may use: earlier premises of its file, and its files' closure."""
    _, trace = traced
    step = next(s for s in trace.steps("Lib.B") if s.lemma == "Lib.B.M.flip_flip")
    same_file = [p.name for p in trace.premises("Lib.B") if p.offset < step.lemma_offset]
    assert same_file[-1] == "Lib.B.M.flip" and "Lib.B.M.flip_flip" not in same_file
    assert trace.closure("Lib.B") == {"Lib.A"}


def test_goal_text_is_what_the_backend_shows(traced: tuple[Path, TraceDir]) -> None:
    """``Goal.render()`` equals the text CoqProver gives generators for the same state."""
    from proofsearch.env.base import ProofState
    from proofsearch.env.coq import CoqConfig, CoqProver
    from proofsearch.theorem import Theorem

    root, trace = traced
    steps = list(trace.steps("Lib.C"))
    theorem = Theorem(
        "use",
        "Lemma use (b : bool) : M.flip M.Red = M.Green /\\ double 1 = 2.",
        "Require Import Lib.A Lib.B.",
    )
    config = CoqConfig(args=("-R", str(root / "theories"), "Lib"))
    with CoqProver(config) as prover, prover.open(theorem) as session:
        assert session.root.goals == tuple(g.render() for g in steps[0].goals)
        state = session.apply(session.root, "split.")
        assert isinstance(state, ProofState)
        assert state.goals[0] == steps[1].goals[0].render()


@pytest.mark.parametrize("stanza", ["(using coq 0.8)|coq.theory", "(using rocq 0.11)|rocq.theory"])
def test_a_dune_project_is_traced_as_prove_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stanza: str
) -> None:
    """``trace`` refused a dune project ("no _CoqProject"), and the route its message gave
    (the .v files with --coq-arg) wrote .vo and .glob files into the sources, after which
    ``dune build`` failed with "Multiple rules generated" (audit 45). It now reads the
    project as ``prove`` does: the same records, the compiled files in the cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    using, theory = stanza.split("|")
    root = write_project(tmp_path / "dune")
    (root / "_CoqProject").unlink()
    (root / "dune-project").write_text(f"(lang dune 3.8)\n{using}\n")
    (root / "theories" / "dune").write_text(f"({theory} (name Lib))\n")
    out = tmp_path / "out"
    assert main(["trace", str(root), "--out", str(out), "--no-progress"]) == 0
    records = {record.module: (record.status, record.lemmas) for record in TraceDir(out).files()}
    assert records == {"Lib.A": ("traced", 2), "Lib.B": ("traced", 2), "Lib.C": ("traced", 1)}
    made = sorted(p.name for p in (root / "theories").iterdir())
    assert made == ["A.v", "B.v", "C.v", "dune"]  # nothing compiled into the sources


def test_the_trace_leaves_the_files_a_redirect_wrote_alone(tmp_path: Path) -> None:
    """Replayed in the project's folder, ``Redirect "log" Print double.`` emptied the
    ``log.out`` that ``make`` wrote, on every trace, a dry run's included (audit 44).
    The replay now runs the command without the redirect; the steps are the same."""
    import subprocess

    files = dict(FILES)
    files["theories/A.v"] += 'Redirect "log" Print double.\n'
    root = write_project(tmp_path / "p", files)
    for name in ("A", "B", "C"):  # as make builds it: the .vo files are up to date
        subprocess.run(["coqc", "-R", "theories", "Lib", f"theories/{name}.v"], cwd=root,
                       check=True, capture_output=True)  # fmt: skip
    log = root / "log.out"
    written = log.read_text()
    assert "double" in written
    out = tmp_path / "out"
    assert main(["trace", str(root), "--out", str(out), "--no-progress"]) == 0
    assert log.read_text() == written
    records = {record.module: (record.status, record.lemmas) for record in TraceDir(out).files()}
    assert records["Lib.A"] == ("traced", 2)
