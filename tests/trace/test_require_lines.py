"""What a traced file requires and where (``FileRecord.requires``/``require_lines``):
read from the ``Require`` sentences, the installed stdlib's modules included, written by
``proofsearch trace``, added to older shards without tracing them again, and used by
knn's scope (real Coq for the last two)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proofsearch.cli import main
from proofsearch.env.coq.version import binary_version
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.theorem import Theorem
from proofsearch.trace.require_lines import require_lines
from proofsearch.trace.schema import TraceDir
from tests.conftest import COQ_INSTALLED

from .project import write_project


def test_each_module_gets_the_line_of_the_first_require_naming_it() -> None:
    text = """\
(* Require Import Not.This. *)
Require Import Coq.Arith.Arith.
Lemma x : True. Proof. exact I. Qed.
From Coq Require Import
  Lists.List (* a comment *) Bool.
#[export] Require Export Foo.
Require Import Arith.
Require Import -(notations) Bar.
Definition s := "Require Import Baz.".
"""
    requires = ["Coq.Arith.Arith", "Coq.Lists.List", "Coq.Bool.Bool", "X.Foo", "Y.Bar"]
    assert require_lines(text, [*requires, "Z.Baz", "Other.This"]) == {
        "Coq.Arith.Arith": 2,
        "Coq.Lists.List": 4,
        "Coq.Bool.Bool": 4,
        "X.Foo": 6,
        "Y.Bar": 8,
        "Z.Baz": 0,  # named only inside a string: no Require loads it
        "Other.This": 0,  # only in a comment
    }
    # ``From P`` restricts the match to modules under P.
    assert require_lines("From Mine Require Import List.\n", ["Coq.Lists.List"]) == {
        "Coq.Lists.List": 0
    }
    assert require_lines("unterminated (* comment", ["A.B"]) == {"A.B": 0}
    # Rocq 9 names the stdlib's modules Stdlib.… and still loads them by their Coq 8
    # spellings (deprecated): the same text, resolved there, gets the same lines.
    rocq = [m.replace("Coq.", "Stdlib.") for m in requires]
    assert list(require_lines(text, rocq).values()) == [2, 4, 4, 6, 8]
    assert require_lines("From Mine Require Import List.\n", ["Stdlib.Lists.List"]) == {
        "Stdlib.Lists.List": 0
    }


#: ``From Coq Require Import Lists.List`` as the running Coq resolves it (Stdlib.… on Rocq 9).
LIST = f"{binary_version('coqc').stdlib_prefix}.Lists.List" if COQ_INSTALLED else ""

coq = pytest.mark.skipif(
    not COQ_INSTALLED, reason="Coq (coqidetop.opt, or Rocq 9's coqidetop) is not installed"
)

LATE = {
    "theories/A.v": 'Lemma a_fact (n : nat) : n = n.\nProof. idtac "from-a". reflexivity. Qed.\n',
    "theories/B.v": """\
Lemma early (n : nat) : n = n.
Proof. idtac "early". reflexivity. Qed.

Require Import Lib.A.
From Coq Require Import Lists.List.

Lemma late (n : nat) : n = n.
Proof. idtac "late". exact (a_fact n). Qed.
""",
}


def _markers(knn: KnnGenerator, line: int) -> set[str]:
    theorem = Theorem("t", "L", extra={"module": "Lib.B", "line": line})
    state = "n : nat\n============================\nn = n"
    tactics = {s.tactic for s in knn.generate(state, theorem, 100)}
    return {m for m in ("from-a", "early", "late") if f'idtac "{m}"' in tactics}


@coq
def test_a_traced_file_records_its_require_lines_and_knn_honours_them(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", LATE)
    out = tmp_path / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    records = {r.module: r for r in TraceDir(out).files()}
    # The installed stdlib's modules are requires too (coqdep omits them by default).
    assert records["Lib.B"].requires == sorted([LIST, "Lib.A"])
    assert records["Lib.B"].require_lines == {"Lib.A": 4, LIST: 5}
    assert records["Lib.A"].require_lines == {}
    knn = KnnGenerator(build_corpus(out))
    assert _markers(knn, 1) == set()
    assert _markers(knn, 4) == {"early"}  # the Require's own line: A not loaded yet
    assert _markers(knn, 7) == {"early", "from-a"}


@coq
def test_an_older_shard_gets_its_requires_and_lines_without_a_new_trace(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", LATE)
    out = tmp_path / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    meta = out / "files" / "Lib.B.meta.json"
    old = json.loads(meta.read_text())
    # As written before: no require_lines, and no require on the installed stdlib.
    del old["require_lines"]
    old["requires"] = ["Lib.A"]
    meta.write_text(json.dumps(old))
    steps = out / "files" / "Lib.B.steps.jsonl"
    before = steps.stat().st_mtime_ns
    assert TraceDir(out).files()[1].require_lines is None
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    assert steps.stat().st_mtime_ns == before  # not traced again
    upgraded = json.loads(meta.read_text())
    assert upgraded["require_lines"] == {"Lib.A": 4, LIST: 5}
    assert upgraded["requires"] == sorted([LIST, "Lib.A"])
    assert {k: v for k, v in upgraded.items() if k not in ("require_lines", "requires")} == {
        k: v for k, v in old.items() if k != "requires"
    }
