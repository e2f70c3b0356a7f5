"""ssreflect as a tactic language: which headers import it, the portfolio's and the
premise templates' ssreflect forms (each one parsed by real Coq), exact trace steps of a
small ssreflect file, and a knn search whose only route is an ssreflect proof learned
from an earlier lemma."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from proofsearch.env.base import TacticError
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.generate.knn.generator import KnnGenerator
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics, ssreflect_tactics
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.generate.ssreflect import loads_ssreflect
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import Status
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir

from ..bench.conftest import mathcomp_installed
from .conftest import requires_coq, requires_mathcomp, traced_project

SSR_HEADER = "From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat.\n"

SSR = f"""\
{SSR_HEADER}
Lemma my_addn0 (n : nat) : n + 0 = n.
Proof. by elim: n => // n IHn; rewrite addSn IHn. Qed.

Lemma andb_r (b c : bool) : b && c -> c.
Proof.
move=> /andP [_ Hc].
exact: Hc.
Qed.

Lemma addn0_again (n : nat) : n + 0 = n.
Proof.
by elim: n => // n IHn; rewrite addSn IHn.
Qed.
"""


@pytest.mark.parametrize(
    ("header", "loads"),
    [
        (SSR_HEADER, True),
        ("From Coq Require Import ssreflect ssrbool.\n", True),
        ("From mathcomp Require Import all_ssreflect.\n", True),
        ("Require Import mathcomp.ssreflect.ssreflect.\nSet Implicit Arguments.\n", True),
        ("Require Import Arith.\n(* From mathcomp Require Import ssreflect. *)\n", False),
        ("From mathcomp.ssreflect Require Import eqtype.\n", False),  # a path, not the module
        ("Require mathcomp.ssreflect.ssreflect.\n", False),  # loaded, not imported
        ("Require Import Arith.\n", False),
        # math-comp 2.5 renamed all_ssreflect all_boot, 2.6 boot; both export ssreflect
        ("From mathcomp Require Import boot order algebra.\n", True),
        ("From mathcomp Require Import all_boot.\n", True),
        ("Require Import mathcomp.boot.boot.\n", True),
        ("From MyProject Require Import boot.\n", False),  # a module of that name elsewhere
        ("", False),
    ],
)
def test_which_headers_import_ssreflect(header: str, loads: bool) -> None:
    assert loads_ssreflect(header) is loads


GOAL = "n : nat\nb, c : bool\nE : n = 0\n============================\nforall m, n + m = m + n"


def test_portfolio_adds_ssreflect_forms_only_under_ssreflect() -> None:
    portfolio = PortfolioGenerator(default_tactics("coq"))
    plain = [s.tactic for s in portfolio.generate(GOAL, Theorem("t", "L", "Require Arith."), 200)]
    ssr = [s.tactic for s in portfolio.generate(GOAL, Theorem("t", "L", SSR_HEADER), 200)]
    forms = {"done", "by []", "move=> m", "case: n", "elim: n", "by rewrite E", "apply: E"}
    assert forms <= set(ssr), ssr
    assert not forms & set(plain) and set(plain) < set(ssr)
    assert ssr.index("done") < ssr.index("elim: n")  # the file's scores order them
    assert PortfolioGenerator(default_tactics("coq"), ssreflect=[]).generate(
        GOAL, Theorem("t", "L", SSR_HEADER), 200
    ) == portfolio.generate(GOAL, Theorem("t", "L", "Require Arith."), 200)


@requires_coq
@requires_mathcomp
def test_every_ssreflect_form_parses_in_coq(no_new_coq_processes: None) -> None:
    """Each bundled form, instantiated on a real goal, is read by Coq: it may fail on
    this goal, but never as a syntax error (which would make it a wasted suggestion
    on every goal)."""
    statement = "Lemma forms (n : nat) (b c : bool) (E : n = 0) (H : b && c) : n + 0 = n."
    theorem = Theorem("forms", statement, SSR_HEADER)
    with CoqProver(CoqConfig()) as prover:
        session = prover.open(theorem)
        try:
            text = session.root.text
            tactics = [s.tactic for s in PortfolioGenerator([]).generate(text, theorem, 200)]
            assert len(tactics) >= len(ssreflect_tactics()), tactics
            outcomes = session.apply_all(session.root, tactics, 5.0)
        finally:
            session.close()
    bad = [
        (tactic, outcome.message)
        for tactic, outcome in zip(tactics, outcomes, strict=True)
        if isinstance(outcome, TacticError) and "Syntax error" in outcome.message
    ]
    assert not bad, bad
    worked = {t for t, o in zip(tactics, outcomes, strict=True) if not isinstance(o, TacticError)}
    assert {"case: H", "elim: H", "by rewrite E", "rewrite -E", "apply/eqP"} <= worked, worked


@pytest.fixture(scope="module")
def ssr_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    if not mathcomp_installed():
        pytest.skip("math-comp's ssreflect is not installed (Debian: apt-get install "
                    "libcoq-mathcomp-ssreflect; make coq installs it where apt can)")  # fmt: skip
    yield from traced_project(tmp_path_factory, "ssr", {"Ssr.v": SSR})


@requires_coq
def test_trace_steps_are_exact(ssr_project: tuple[Path, Path]) -> None:
    _, trace = ssr_project
    steps = [
        (s.lemma, s.index, s.line, s.tactic, s.closed_goal, [g.conclusion for g in s.goals])
        for s in TraceDir(trace).steps("Lib.Ssr")
    ]
    proof = "by elim: n => // n IHn; rewrite addSn IHn."
    assert steps == [
        ("Lib.Ssr.my_addn0", 0, 4, proof, True, ["n + 0 = n"]),
        ("Lib.Ssr.andb_r", 0, 8, "move=> /andP [_ Hc].", False, ["b && c -> c"]),
        ("Lib.Ssr.andb_r", 1, 9, "exact: Hc.", True, ["c"]),
        ("Lib.Ssr.addn0_again", 0, 14, proof, True, ["n + 0 = n"]),
    ]


@requires_coq
def test_knn_proves_with_an_ssreflect_proof_learned_from_an_earlier_lemma(
    ssr_project: tuple[Path, Path], no_new_coq_processes: None
) -> None:
    """``addn0_again`` placed at its line sees ``my_addn0``'s ssreflect proof and is
    proved by it (knn alone: nothing else suggests it); placed before ``my_addn0`` it
    sees nothing and is not proved."""
    root, trace = ssr_project
    knn = KnnGenerator(load_corpus(trace))
    statement = "Lemma addn0_again (n : nat) : n + 0 = n."
    prover = CoqProver(CoqConfig(args=("-R", str(root / "theories"), "Lib")))
    try:
        search = BestFirstSearchProver(prover, knn, SearchConfig(timeout=120))
        at_line = Theorem("again", statement, SSR_HEADER, extra={"module": "Lib.Ssr", "line": 12})
        result = search.search(at_line)
        assert result.status is Status.PROVED and result.checked, result
        assert result.proof == ["by elim: n => // n IHn; rewrite addSn IHn"]
        before = Theorem("before", statement, SSR_HEADER, extra={"module": "Lib.Ssr", "line": 2})
        assert search.search(before).status is not Status.PROVED
    finally:
        prover.close()


@requires_coq
def test_premise_templates_offer_ssreflect_forms(ssr_project: tuple[Path, Path]) -> None:
    _, trace = ssr_project
    templates = PremiseTemplateGenerator(load_corpus(trace))
    state = "n : nat\n============================\nn + 0 = n"
    ssr = [s.tactic for s in templates.generate(state, Theorem("t", "L", SSR_HEADER), 200)]
    plain = [s.tactic for s in templates.generate(state, Theorem("t", "L", ""), 200)]
    name = next(t.split()[-1] for t in plain if t.startswith("apply "))
    assert {f"apply: {name}", f"by rewrite {name}", f"apply/{name}", f"rewrite -{name}"} <= set(ssr)
    assert not any(t.startswith(("apply:", "apply/", "by ", "exact:")) for t in plain)
