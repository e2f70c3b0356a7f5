"""``knn`` and premise retrieval on a small project traced for real by ``proofsearch
trace`` (real Coq): identical and renamed states, the no-leak rule, accessible premises,
and a search that reuses a recorded proof with its names adapted."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import COQ_INSTALLED

from proofsearch.env.registry import make_prover
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir

pytestmark = [
    pytest.mark.skipif(not COQ_INSTALLED, reason="Coq is not installed"),
    pytest.mark.skipif(
        importlib.util.find_spec("proofsearch.trace.runner") is None,
        reason="proofsearch trace is not part of this checkout",
    ),
]

FILES = {
    "A.v": """\
Definition double (n : nat) : nat := n + n.

Lemma flip_eq (n m : nat) (Hnm : n = m) : m = n.
Proof.
  symmetry.
  exact Hnm.
Qed.
""",
    "B.v": """\
Require Import Lib.A.

Lemma double_twice (n : nat) : double n = n + n.
Proof. unfold double. reflexivity. Qed.

Lemma secret (k : nat) : k = k + 0.
Proof. exact (plus_n_O k). Qed.

Lemma later (j : nat) : j + 0 = j.
Proof. symmetry. exact (plus_n_O j). Qed.
""",
    "D.v": """\
Lemma other_fact (k : nat) : k = k + 0.
Proof. apply plus_n_O. Qed.
""",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    from proofsearch.cli import main

    root = tmp_path_factory.mktemp("project")
    (root / "theories").mkdir()
    (root / "_CoqProject").write_text("-R theories Lib\n")
    for name, text in FILES.items():
        (root / "theories" / name).write_text(text)
    out = tmp_path_factory.mktemp("trace") / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    cache = tmp_path_factory.mktemp("cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CACHE_HOME", str(cache))
    yield root, out
    patch.undo()


def _line(trace: Path, module: str, name: str) -> int:
    return next(p.line for p in TraceDir(trace).premises(module) if p.name.endswith(name))


def test_recorded_proof_is_reused_with_names_adapted(
    project: tuple[Path, Path], no_new_coq_processes: None
) -> None:
    root, trace = project
    knn = KnnGenerator(load_corpus(trace))
    state = "a, b : nat\nE : a = b\n============================\nb = a"
    first = knn.generate(state, Theorem("new", "L"), 5)[0]
    assert first.tactic == "symmetry" and first.logprob == pytest.approx(0.0, abs=1e-6)
    after = knn.generate("a, b : nat\nE : a = b\n============================\na = b",
                         Theorem("new", "L"), 5)  # fmt: skip
    assert after[0].tactic == "exact E"  # recorded "exact Hnm", renamed
    prover = make_prover("coq", {"args": ["-R", str(root / "theories"), "Lib"]})
    try:
        theorem = Theorem(
            "flip2", "Lemma flip2 (a b : nat) (E : a = b) : b = a.", header="Require Import Lib.A."
        )
        result = BestFirstSearchProver(prover, knn, SearchConfig(timeout=60)).search(theorem)
    finally:
        prover.close()
    assert result.status is Status.PROVED and result.checked
    assert result.proof == ["symmetry", "exact E"]


def test_no_leak_of_own_proof_later_lemmas_or_unrelated_files(project: tuple[Path, Path]) -> None:
    _, trace = project
    corpus = load_corpus(trace)
    knn, retriever = KnnGenerator(corpus), PremiseRetriever(corpus)
    secret_line = _line(trace, "Lib.B", "secret")
    state = "k : nat\n============================\nk = k + 0"
    at_secret = Theorem("secret", "L", extra={"module": "Lib.B", "line": secret_line})
    suggested = [s.tactic for s in knn.generate(state, at_secret, 100)]
    assert suggested, "nothing suggested at all"
    assert not any("plus_n_O" in t for t in suggested), suggested  # own, later, unrelated
    premises = {
        p.qualified_name for p in retriever.retrieve(parse_first_goal(state), at_secret, 50)
    }
    assert "Lib.A.flip_eq" in premises
    assert not premises & {"Lib.B.secret", "Lib.B.later", "Lib.D.other_fact"}, premises
    # Placed after `later`, the same lemma sees both proofs (adapted to k) and premises.
    at_end = Theorem("end", "L", extra={"file": "theories/B.v", "line": 1000})
    suggested = [s.tactic for s in knn.generate(state, at_end, 100)]
    assert suggested[0] == "exact (plus_n_O k)"
    premises = {p.qualified_name for p in retriever.retrieve(parse_first_goal(state), at_end, 50)}
    assert {"Lib.B.secret", "Lib.B.later"} <= premises
    assert "Lib.D.other_fact" not in premises
