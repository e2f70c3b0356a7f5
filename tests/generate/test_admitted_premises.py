"""An index's ``Admitted`` lemmas are offered only to a theorem that may rest on them
(real Coq: a project traced, then read as an index).

The re-check refuses a proof resting on an ``Admitted`` lemma unless the theorem allows
it (``allowed_axioms``, ``any_axiom``: what ``prove`` gives its holes). A search that
offered one anyway spent its budget on a proof it could not report (audit 47).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem

pytestmark = pytest.mark.skipif(
    shutil.which("coqidetop.opt") is None and shutil.which("coqidetop") is None,
    reason="Coq is not installed",
)

SOURCE = """\
Lemma helper (n : nat) : n + 0 = n.
Proof. induction n. Admitted.

Lemma uses_helper (k : nat) : k + 0 = k.
Proof. apply helper. Qed.

Lemma target (m : nat) : m + 0 = m.
Proof. induction m; simpl; auto. Qed.
"""
STATE = "m : nat\n============================\nm + 0 = m"


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from proofsearch.cli import main

    root = tmp_path_factory.mktemp("admitted")
    (root / "theories").mkdir()
    (root / "_CoqProject").write_text("-R theories Proj\ntheories/P.v\n")
    (root / "theories" / "P.v").write_text(SOURCE)
    out = root / "trace"
    assert main(["trace", str(root), "--out", str(out), "--no-progress", "--jobs", "1"]) == 0
    return out


def _target(**extra: object) -> Theorem:
    """``target`` at its place in P.v (line 7): it sees both lemmas above it."""
    return Theorem("target", "", extra={"module": "Proj.P", "line": 7, **extra})


@pytest.mark.parametrize(
    ("extra", "offered"),
    [({}, False), ({"allowed_axioms": ["helper"]}, True), ({"any_axiom": True}, True)],
)
def test_retrieval_offers_an_admitted_lemma_only_where_allowed(
    trace: Path, extra: dict[str, object], offered: bool
) -> None:
    retriever = PremiseRetriever(load_corpus(trace))
    found = retriever.retrieve(parse_first_goal(STATE), _target(**extra), 20)
    names = {p.qualified_name.rsplit(".", 1)[-1] for p in found}
    assert "uses_helper" in names  # the same statement, finished: always offered
    assert ("helper" in names) is offered


@pytest.mark.parametrize(
    ("extra", "offered"),
    [({}, False), ({"allowed_axioms": ["Proj.P.helper"]}, True), ({"any_axiom": True}, True)],
)
def test_knn_drops_a_step_naming_an_admitted_lemma_unless_allowed(
    trace: Path, extra: dict[str, object], offered: bool
) -> None:
    knn = KnnGenerator(load_corpus(trace))
    tactics = {s.tactic for s in knn.generate(STATE, _target(**extra), 64)}
    # uses_helper's recorded step, at a state identical to target's but for names.
    assert ("apply helper" in tactics) is offered
    assert "induction n" in tactics or "induction m" in tactics  # helper's own step stays


def test_a_plugins_generated_constants_are_never_premises(tmp_path: Path) -> None:
    """``join true b = true`` was proved by ``apply Datatypes_andb__canonical__Monoid_Law``,
    a canonical instance Hierarchy Builder generated for math-comp's bigop, where ``by []``
    does (audit 49): such constants are not offered; a lemma of the same statement is."""
    from tests.generate.knn_trace import premise
    from tests.generate.strength_trace import write_records

    from proofsearch.generate.knn.corpus import build_corpus

    statement = "forall b : bool, true || b = true"
    premises = [
        premise("Lib.M", "Datatypes_andb__canonical__Monoid_Law", statement, 3),
        premise("Lib.M", "HB_unnamed_factory_12", statement, 4),
        premise("Lib.M", "orTb", statement, 5),
    ]
    corpus = build_corpus(write_records(tmp_path / "t", {"Lib.M": []}, {}, {"Lib.M": premises}))
    found = PremiseRetriever(corpus).retrieve(
        parse_first_goal("b : bool\n============================\ntrue || b = true"),
        Theorem("t", "Lemma t : True."),
        8,
    )
    assert [p.qualified_name for p in found] == ["Lib.M.orTb"]
