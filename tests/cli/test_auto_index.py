"""``search --index auto``: the installed libraries' modules the theorems load are traced
once (into the cache ``prove`` uses) and searched with ``knn-portfolio``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.cli.auto_index import header_files, place_modules
from proofsearch.cli.search import NO_INDEX_NOTE
from proofsearch.cli.trace import default_out
from proofsearch.project import libraries
from proofsearch.theorem import Theorem
from tests.conftest import COQ_INSTALLED
from tests.prove.test_libraries import STDLIB


def test_the_headers_and_places_coqdep_reads(tmp_path: Path) -> None:
    theorems = [
        Theorem("a", "Lemma a : True.", "Require Import Arith.", {"module": "Coq.Lists.List"}),
        Theorem("b", "Lemma b : True.", "Require Import Arith."),  # the same header once
        Theorem("c", "Lemma c : True.", "", {"learn_from": ["Coq.Bool.Bool", 3]}),
        Theorem("d", "Lemma d : True.", "From Coq Require Import ZArith.\n"),
    ]
    assert place_modules(theorems) == ["Coq.Bool.Bool", "Coq.Lists.List"]
    paths = header_files(theorems, tmp_path)
    assert [p.read_text() for p in paths] == [
        "From Coq Require Import ZArith.\n",
        "Require Import Arith.\n",
        "Require Coq.Bool.Bool.\nRequire Coq.Lists.List.\n",
    ]


def _theorems(tmp_path: Path, header: str = "") -> Path:
    path = tmp_path / "thms.jsonl"
    entry = {"name": "negb_twice", "header": header,
             "statement": "Lemma negb_twice : forall b : bool, negb (negb b) = b."}  # fmt: skip
    path.write_text(json.dumps(entry) + "\n")
    return path


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--prover", "lean"], "--prover lean has none"),
        (["--generator", "portfolio"], "generator portfolio does not read an index"),
        # Audit 45: the generator's and prover's options came after the tracing.
        (["--gen-option", "neighbors=3"], "neighbors"),
        (["--prover-option", "nonsense"], "KEY=VALUE"),
        (["--generator", "fixed"], "needs a tactic"),
        (["--gen-option", "neighbours=abc"], "neighbours=abc: must be a whole number"),
    ],
)
def test_auto_is_refused_before_any_trace(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    why: str,
) -> None:
    monkeypatch.setattr(libraries, "trace_libraries", pytest.fail)
    out = tmp_path / "r.jsonl"
    argv = ["search", str(_theorems(tmp_path)), "--index", "auto", "--output", str(out), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert why in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_an_existing_output_is_refused_before_any_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(libraries, "trace_libraries", pytest.fail)
    out = tmp_path / "r.jsonl"
    out.write_text("")
    argv = ["search", str(_theorems(tmp_path)), "--index", "auto", "--output", str(out)]
    assert main(argv) == 2
    assert "already exists" in capsys.readouterr().err


@pytest.mark.skipif(not COQ_INSTALLED, reason="Coq is not installed")
def test_auto_traces_what_the_header_loads_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real coqdep, tracer and search: the prelude's modules (what an empty header loads)
    are traced into ``trace --coq-stdlib``'s folder and searched with ``knn-portfolio``;
    the second run traces nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    theorems = _theorems(tmp_path)
    out = tmp_path / "r.jsonl"
    argv = ["search", str(theorems), "--index", "auto", "--timeout", "30", "--quiet"]
    assert main([*argv, "--output", str(out)]) == 0
    folder = default_out("coq-stdlib")
    traced = {p.name.removesuffix(".meta.json") for p in (folder / "files").glob("*.meta.json")}
    assert f"{STDLIB}.Init.Datatypes" in traced or "Corelib.Init.Datatypes" in traced
    assert not any(".Arith." in module for module in traced)  # only what the header loads
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["status"] == "proved" and record["checked"] is True
    assert record["stage"] == "knn"  # learned from the trace: the default with an index
    ran: list[object] = []
    monkeypatch.setattr(libraries, "run", lambda jobs, **_: ran.extend(jobs))
    assert main([*argv, "--output", str(tmp_path / "r2.jsonl")]) == 0
    assert ran == []


@pytest.mark.skipif(not COQ_INSTALLED, reason="Coq is not installed")
@pytest.mark.parametrize(("extra", "said"), [([], True), (["--generator", "portfolio"], False)])
def test_a_search_without_an_index_says_what_it_misses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: bool
) -> None:
    """The default without ``--index`` is the portfolio alone: said once, after the run
    (not when the user chose the portfolio)."""
    out = tmp_path / "r.jsonl"
    argv = ["search", str(_theorems(tmp_path)), "--timeout", "20", "--output", str(out), *extra]
    assert main(argv) == 0
    assert (NO_INDEX_NOTE in " ".join(capsys.readouterr().err.split())) is said
