"""What restarts the Coq process during a search, and what does not.

An anomaly a tactic reports is that tactic's error: the process goes on, unrestarted.

Coq calls an exception it did not expect an anomaly. ``firstorder`` raises one on
math-comp's packed structures ("decompose_prod_n_assum: not enough declarations", seen
in the search of ``order.v``'s ``subIK``). Restarting the process for it replayed the
whole file prefix each time (5 s in ``order.v``); coqidetop itself is fine after it.
A process that died is replaced, and the search's result counts the restarts.
"""

from __future__ import annotations

import os
import signal

import pytest

from proofsearch.env.base import EnvError, ProofState, Proved, TacticError
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.generate.base import Suggestion
from proofsearch.search import BestFirstSearchProver, SearchConfig, Status
from proofsearch.theorem import Theorem
from tests.coq.test_ssreflect import mathcomp_sources
from tests.coq.test_time_bounds import Fixed

HEADER = """From mathcomp Require Import all_ssreflect order.
Import Order.Theory.
Open Scope order_scope.
Section S.
Context {disp : unit} {L : cbDistrLatticeType disp}."""
SUBIK = Theorem("subIK", "Lemma subIK (x y : L) : (x `\\` y) `&` y = 0.", HEADER)


def test_an_anomaly_does_not_restart_the_process() -> None:
    mathcomp_sources()
    with CoqProver(CoqConfig()) as prover:
        try:
            session = prover.open(SUBIK)
        except EnvError as exc:
            pytest.skip(f"this math-comp has no cbDistrLatticeType as 1.15 has: {exc}")
        cases = session.apply(session.root, "induction L")
        assert isinstance(cases, ProofState)
        pid, restarts = prover.pid, prover.stats.restarts
        outcomes = session.apply_all(cases, ["firstorder", "intros", "firstorder", "simpl"])
        anomaly = outcomes[0]
        if not (isinstance(anomaly, TacticError) and "Anomaly" in anomaly.message):
            pytest.skip(f"this Coq's firstorder raises no anomaly here: {anomaly}")
        assert outcomes[2] == anomaly
        # The tactics after it, in the same batch and after it, ran in the same process.
        assert isinstance(outcomes[1], ProofState) and outcomes[1].path == ("induction L", "intros")
        assert isinstance(outcomes[3], ProofState)
        assert (prover.pid, prover.stats.restarts) == (pid, restarts)
        # And the process still proves things, from any state of the session.
        proof = "by rewrite meetC; case: L x y => ? [?[]]"
        assert session.apply(session.root, proof) == Proved((proof,))
        assert (prover.pid, prover.stats.restarts) == (pid, restarts)


class KillsOnSecondCall(Fixed):
    """Kills the prover's process as the search asks for its second expansion's tactics."""

    def __init__(self, prover: CoqProver, *tactics: str) -> None:
        super().__init__(*tactics)
        self.prover, self.calls = prover, 0

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        self.calls += 1
        if self.calls == 2 and self.prover.pid is not None:
            os.kill(self.prover.pid, signal.SIGKILL)
        return super().generate(goals, theorem, n)


def test_the_result_counts_the_restarts_a_search_needed() -> None:
    theorem = Theorem("id", "Theorem id_p : forall P : Prop, P -> P.", "")
    with CoqProver(CoqConfig()) as prover:
        quiet = BestFirstSearchProver(prover, Fixed("intros", "assumption"), SearchConfig())
        result = quiet.search(theorem)
        assert result.status is Status.PROVED and "prover_restarts" not in result.extra
        killer = KillsOnSecondCall(prover, "intros", "assumption")
        result = BestFirstSearchProver(prover, killer, SearchConfig()).search(theorem)
    assert result.status is Status.PROVED and result.proof == ["intros", "assumption"]
    assert result.extra["prover_restarts"] == 1
