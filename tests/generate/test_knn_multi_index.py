"""One index over several traces (real Coq): a library traced on its own, a project that
requires it traced on its own, then read as one corpus with one module table.

A project lemma sees the library and what its own file declares before it, nothing
later; the library's lemmas never see the project; a module traced twice is an error
naming both folders; ``search --index LIB --index PROJ`` runs end to end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conftest import ROOT

from proofsearch.generate.knn import corpus as corpus_module
from proofsearch.generate.knn.corpus import (
    DuplicateModuleError,
    cache_dir,
    cache_key,
    load_corpus,
)
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.registry import make_generator
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir

pytestmark = pytest.mark.skipif(
    shutil.which("coqidetop.opt") is None and shutil.which("coqidetop") is None,
    reason="Coq is not installed",
)

#: Every proof starts with an ``idtac "<where>"`` step: the marker tells which lemma's
#: recorded steps a suggestion comes from.
LIBRARY = {
    "A.v": """\
Lemma a_zero (n : nat) : n = n + 0.
Proof. idtac "lib-a". exact (plus_n_O n). Qed.
""",
    "B.v": """\
Require Import Lib.A.

Lemma b_zero (n : nat) : n = n + 0.
Proof. idtac "lib-b". apply a_zero. Qed.
""",
}
PROJECT = {
    "P.v": """\
Require Import Lib.B.

Lemma p_first (n : nat) : n = n + 0.
Proof. idtac "proj-first". apply b_zero. Qed.

Lemma p_target (n : nat) : n = n + 0.
Proof. idtac "proj-target". apply b_zero. Qed.

Lemma p_later (n : nat) : n = n + 0.
Proof. idtac "proj-later". apply b_zero. Qed.
""",
    "Q.v": """\
Require Import Proj.P.

Lemma q_zero (n : nat) : n = n + 0.
Proof. idtac "proj-q". exact (p_first n). Qed.
""",
}
MARKERS = {"lib-a", "lib-b", "proj-first", "proj-target", "proj-later", "proj-q"}
STATE = "n : nat\n============================\nn = n + 0"


@dataclass(frozen=True)
class Traced:
    library: Path
    project: Path
    library_trace: Path
    project_trace: Path
    cache: Path


def _write(root: Path, coqproject: str, files: dict[str, str]) -> None:
    (root / "theories").mkdir(parents=True)
    (root / "_CoqProject").write_text(coqproject)
    for name, text in files.items():
        (root / "theories" / name).write_text(text)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traced]:
    from proofsearch.cli import main

    base = tmp_path_factory.mktemp("multi")
    library, project = base / "lib", base / "proj"
    _write(library, "-R theories Lib\ntheories/A.v\ntheories/B.v\n", LIBRARY)
    # The project lists its own files: the library is only on its loadpath.
    _write(
        project,
        f"-R {library / 'theories'} Lib\n-R theories Proj\ntheories/P.v\ntheories/Q.v\n",
        PROJECT,
    )
    library_trace, project_trace = base / "lib-trace", base / "proj-trace"
    for root, out in ((library, library_trace), (project, project_trace)):
        code = main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"])
        assert code == 0
    cache = base / "cache"
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CACHE_HOME", str(cache))
    yield Traced(library, project, library_trace, project_trace, cache)
    patch.undo()


def _line(trace: Path, module: str, name: str) -> int:
    return next(p.line for p in TraceDir(trace).premises(module) if p.name.endswith("." + name))


def _markers(knn: KnnGenerator, theorem: Theorem) -> set[str]:
    seen = {s.tactic for s in knn.generate(STATE, theorem, 200)}
    return {m for m in MARKERS if f'idtac "{m}"' in seen}


def _premises(retriever: PremiseRetriever, theorem: Theorem) -> set[str]:
    found = retriever.retrieve(parse_first_goal(STATE), theorem, 100)
    return {p.qualified_name.rsplit(".", 1)[-1] for p in found}


def test_one_corpus_one_module_table(traced: Traced) -> None:
    corpus = load_corpus([traced.library_trace, traced.project_trace])
    assert set(corpus.table.modules) == {"Lib.A", "Lib.B", "Proj.P", "Proj.Q"}
    # The project's Require of Lib.B is the library trace's module.
    table = corpus.table
    closure = table.closure_mask(table.index["Proj.Q"])
    assert {m for m, seen in zip(table.modules, closure, strict=True) if seen} == {
        "Lib.A",
        "Lib.B",
        "Proj.P",
    }
    assert load_corpus([str(traced.library_trace), traced.project_trace]) is corpus


def test_project_lemma_sees_library_and_its_file_before_it(traced: Traced) -> None:
    index = [str(traced.library_trace), str(traced.project_trace)]
    corpus = load_corpus(index)
    knn, retriever = KnnGenerator(corpus), PremiseRetriever(corpus)
    target = Theorem(
        "p_target",
        "L",
        extra={"module": "Proj.P", "line": _line(traced.project_trace, "Proj.P", "p_target")},
    )
    assert _markers(knn, target) == {"lib-a", "lib-b", "proj-first"}
    assert _premises(retriever, target) == {"a_zero", "b_zero", "p_first"}
    # The same through the registry, as a search builds it (option index = a list).
    generator = make_generator("knn", {"index": index})
    tactics = [s.tactic for s in generator.generate(STATE, target, 200)]
    assert 'idtac "lib-a"' in tactics and 'idtac "proj-first"' in tactics
    assert not any("proj-later" in t or "proj-q" in t or "p_later" in t for t in tactics)
    # A lemma of Q (which requires P) sees all of P, nothing of itself.
    in_q = Theorem(
        "q_zero",
        "L",
        extra={"module": "Proj.Q", "line": _line(traced.project_trace, "Proj.Q", "q_zero")},
    )
    assert _markers(knn, in_q) == {"lib-a", "lib-b", "proj-first", "proj-target", "proj-later"}


def test_library_lemmas_never_see_the_project(traced: Traced) -> None:
    corpus = load_corpus([traced.library_trace, traced.project_trace])
    knn, retriever = KnnGenerator(corpus), PremiseRetriever(corpus)
    b_line = _line(traced.library_trace, "Lib.B", "b_zero")
    in_b = Theorem("b_zero", "L", extra={"module": "Lib.B", "line": b_line})
    assert _markers(knn, in_b) == {"lib-a"}
    assert _premises(retriever, in_b) == {"a_zero"}
    # Even placed after everything in its file, a library lemma sees no project module.
    end_of_b = Theorem("b_end", "L", extra={"module": "Lib.B", "line": 10_000})
    assert _markers(knn, end_of_b) == {"lib-a", "lib-b"}
    assert _premises(retriever, end_of_b) == {"a_zero", "b_zero"}
    in_a = Theorem("a_zero", "L", extra={"module": "Lib.A", "line": 1})
    assert _markers(knn, in_a) == set()


def test_a_module_in_two_traces_is_an_error_naming_both(traced: Traced, tmp_path: Path) -> None:
    copy = tmp_path / "lib-copy"
    shutil.copytree(traced.library_trace, copy)
    with pytest.raises(DuplicateModuleError) as error:
        load_corpus([traced.library_trace, traced.project_trace, copy])
    message = str(error.value)
    assert "Lib.A" in message and str(traced.library_trace) in message and str(copy) in message
    # The same folder twice is one folder, not a duplicate.
    assert load_corpus([traced.library_trace, traced.library_trace]) is load_corpus(
        traced.library_trace
    )


def test_combined_corpus_cached_by_every_trace_in_order(traced: Traced) -> None:
    index = [traced.library_trace, traced.project_trace]
    key = cache_key(index)
    assert key not in (cache_key(traced.library_trace), cache_key(traced.project_trace))
    assert key != cache_key(list(reversed(index)))
    built = load_corpus(index)
    assert (cache_dir() / f"{key}.npz").exists()
    corpus_module._PRELOADED.clear()
    cached = load_corpus(index)
    assert cached is not built and cached.table.modules == built.table.modules
    assert set(cached.arrays) == set(built.arrays)


def _search(traced: Traced, tmp_path: Path, extra_args: list[str]) -> list[dict[str, object]]:
    header = "Require Import Lib.B."
    statement = "Lemma {}(n : nat) : n = n + 0."
    lines = [
        # In P, after p_first: its recorded `apply b_zero` is visible.
        {
            "name": "p_target",
            "statement": statement.format("p_target "),
            "header": header,
            "module": "Proj.P",
            "line": _line(traced.project_trace, "Proj.P", "p_target"),
        },
        # In A before anything: nothing of either trace is visible (the only recorded
        # proof of this goal that needs no index lemma is a_zero's own).
        {
            "name": "a_zero",
            "statement": statement.format("a_zero "),
            "module": "Lib.A",
            "line": 1,
        },
    ]
    theorems = tmp_path / "theorems.jsonl"
    theorems.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "results.jsonl"
    env = {**os.environ, "XDG_CACHE_HOME": str(traced.cache)}
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "search", str(theorems),
         "--generator", "knn", "--index", str(traced.library_trace),
         "--index", str(traced.project_trace),
         "--coq-arg=-R", f"--coq-arg={traced.library / 'theories'}", "--coq-arg=Lib",
         "--timeout", "60", "--output", str(out), "--quiet", *extra_args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_search_with_two_index_options(traced: Traced, tmp_path: Path) -> None:
    records = {r["name"]: r for r in _search(traced, tmp_path, [])}
    assert set(records) == {"p_target", "a_zero"}
    proved = records["p_target"]
    assert proved["status"] == "proved" and proved["checked"], proved
    # Its last step is one recorded in the library (A's, B's) or in P before it.
    recorded = {"exact (plus_n_O n)", "apply a_zero", "apply b_zero"}
    proof = proved["proof"]
    assert isinstance(proof, list) and proof and proof[-1] in recorded, proved
    assert records["a_zero"]["status"] == "failed", records["a_zero"]


def test_search_refuses_a_module_in_two_index_folders(traced: Traced, tmp_path: Path) -> None:
    copy = tmp_path / "proj-copy"
    shutil.copytree(traced.project_trace, copy)
    theorems = tmp_path / "theorems.jsonl"
    theorems.write_text(json.dumps({"name": "t", "statement": "Lemma t : True."}) + "\n")
    out = tmp_path / "results.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "proofsearch.cli", "search", str(theorems),
         "--index", str(traced.project_trace), "--index", str(copy), "--output", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "XDG_CACHE_HOME": str(traced.cache)},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Proj.P" in lines[0] and str(copy) in lines[0] and str(traced.project_trace) in lines[0]
    assert not out.exists()


def test_distributed_prover_takes_a_list_of_traces(traced: Traced, tmp_path: Path) -> None:
    from proofsearch.distributed.api import DistributedProver

    index = [str(traced.library_trace), str(traced.project_trace)]
    prover = DistributedProver(generator="knn", indexed_corpus_path=index)
    assert prover._generator() == ("knn", {"index": [str(Path(p).resolve()) for p in index]})
    one = DistributedProver(generator="knn", indexed_corpus_path=index[0])
    assert one._generator() == ("knn", {"index": str(Path(index[0]).resolve())})
    copy = tmp_path / "lib-copy"
    shutil.copytree(traced.library_trace, copy)
    with pytest.raises(DuplicateModuleError, match="Lib.A"):
        DistributedProver(generator="knn", indexed_corpus_path=[*index, str(copy)])
