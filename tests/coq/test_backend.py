"""The Coq backend on real coqidetop: states, errors, going back, limits, recovery."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from proofsearch.env import EnvError, ProofState, Proved, TacticError, TacticTimeout
from proofsearch.env.coq import CoqConfig, CoqProver
from proofsearch.theorem import Theorem

ADD_0 = Theorem("add_0", "Theorem add_0_r' : forall n : nat, n + 0 = n.", "")


@pytest.fixture
def prover(no_new_coq_processes: None) -> Iterator[CoqProver]:
    coq = CoqProver(CoqConfig(tactic_timeout=2, kill_grace=1, memory_limit_mb=1024))
    yield coq
    coq.close()


def test_states_goals_and_keys(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    assert session.root.goals == ("============================\nforall n : nat, n + 0 = n",)
    intros, induction = session.apply_all(session.root, ["intros", "induction n"])
    assert isinstance(intros, ProofState) and intros.path == ("intros",)
    assert intros.goals == ("n : nat\n============================\nn + 0 = n",)
    assert isinstance(induction, ProofState) and len(induction.goals) == 2
    assert "IHn : n + 0 = n" in induction.goals[1]
    # The same state reached another way has the same key; a different one does not.
    intro_n = session.apply(session.root, "intro n")
    assert isinstance(intro_n, ProofState) and intro_n.key == intros.key
    assert intros.key != session.root.key != induction.key
    # Goals are counted from the raw reply, without rendering them.
    assert (intros.goal_count, induction.goal_count) == (1, 2)
    closed = session.apply(induction, "reflexivity")
    assert isinstance(closed, ProofState) and closed.goal_count == 1


def test_errors_and_going_back(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    bad = session.apply(session.root, "apply foo_bar")
    assert isinstance(bad, TacticError) and "foo_bar" in bad.message
    deep = session.apply(session.root, "intros")
    assert isinstance(deep, ProofState)
    deeper = session.apply(deep, "induction n")
    assert isinstance(deeper, ProofState)
    # Back at the root after visiting a deeper state: the root is intact.
    again = session.apply(session.root, "intros")
    assert isinstance(again, ProofState) and again.key == deep.key
    # And the deep state is reachable again (its path is replayed).
    step = session.apply(deeper, "simpl")
    assert isinstance(step, ProofState) and step.goals[0].endswith("0 = 0")
    assert prover.stats.restarts == 0


def test_proof_finished_only_through_qed(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    assert session.apply(session.root, "auto") == Proved(("auto",))
    # exact_no_check empties the goals, but Qed's kernel check refuses the term.
    session = prover.open(Theorem("bad", "Theorem bad : 1 = 2.", ""))
    outcome = session.apply(session.root, "exact_no_check (eq_refl 1)")
    assert isinstance(outcome, TacticError) and "Qed" in outcome.message
    # A shelved goal is not a finished proof either.
    session = prover.open(Theorem("ex", "Theorem ex : exists n : nat, n = n.", ""))
    shelved = session.apply(session.root, "eexists; shelve")
    assert isinstance(shelved, ProofState)


def test_tactic_timeout(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    pid, restarts = prover.pid, prover.stats.restarts
    outcome = session.apply(session.root, "do 100000000 (idtac)", timeout=1)
    assert isinstance(outcome, TacticTimeout)
    # Coq's own `Timeout 1` fired: the process was not killed by the wall-clock guard.
    assert "Timeout" in outcome.message and not outcome.killed, outcome
    assert (prover.pid, prover.stats.restarts) == (pid, restarts)
    assert isinstance(session.apply(session.root, "intros"), ProofState)


def test_memory_blow_up_is_contained(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    outcome = session.apply(session.root, "let x := eval vm_compute in (Nat.pow 2 26) in idtac")
    assert isinstance(outcome, TacticError | TacticTimeout)
    # The search goes on with a working process.
    assert session.apply(session.root, "auto") == Proved(("auto",))


def test_hung_process_is_killed_and_replaced(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    intros = session.apply(session.root, "intros")
    assert isinstance(intros, ProofState)
    pid = prover.pid
    assert pid is not None
    # SIGSTOP: the process ignores every time limit of its own.
    threading.Timer(0.3, os.kill, (pid, signal.SIGSTOP)).start()
    outcomes = session.apply_all(intros, ["do 100000000 (idtac)", "induction n", "auto"])
    # Killed by the wall-clock guard: the search will not try it again (search/prover.py).
    assert isinstance(outcomes[0], TacticTimeout) and outcomes[0].killed, outcomes[0]
    assert isinstance(outcomes[1], ProofState) and outcomes[1].path == ("intros", "induction n")
    assert outcomes[2] == Proved(("intros", "auto"))
    assert prover.pid != pid and prover.stats.restarts >= 1


def test_killed_process_recovered_mid_search(prover: CoqProver) -> None:
    session = prover.open(ADD_0)
    intros = session.apply(session.root, "intros")
    induction = session.apply(intros, "induction n")  # type: ignore[arg-type]
    assert isinstance(induction, ProofState)
    os.kill(prover.pid or 0, signal.SIGKILL)
    # The deep state is rebuilt by replaying its path in a fresh process.
    step = session.apply(induction, "reflexivity")
    assert isinstance(step, ProofState) and len(step.goals) == 1
    # Killed while a tactic runs: the tactic is run again in the new process.
    pid = prover.pid or 0
    threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
    # 4M idtacs take 0.65 s on 8.20/9.2 (OCaml 5), 1.3 s on 8.16: the kill comes at 0.3 s.
    slow, fast = session.apply_all(intros, ["do 4000000 (idtac)", "simpl"], timeout=10)
    assert isinstance(slow, ProofState) and isinstance(fast, ProofState)
    assert prover.stats.restarts >= 2


def test_header_is_shared_and_errors_are_clear(prover: CoqProver) -> None:
    header = "Require Import List.\nDefinition two := 2."
    first = prover.open(Theorem("a", "Lemma a : two = 2.", header))
    assert first.apply(first.root, "reflexivity") == Proved(("reflexivity",))
    states_after_first = list(prover.line.states[:2])
    prover.open(Theorem("b", "Lemma b : two + 0 = 2.", header))
    assert prover.line.states[:2] == states_after_first  # the header was not run again
    with pytest.raises(EnvError, match="header sentence 2"):
        prover.open(Theorem("c", "Lemma c : True.", "Require Import List.\nCheck undefined_x."))
    with pytest.raises(EnvError, match="statement rejected"):
        prover.open(Theorem("d", "Lemma d : undefined_y = 1.", ""))
    with pytest.raises(EnvError, match="one sentence"):
        prover.open(Theorem("e", "Lemma e : True. Proof.", ""))
    with pytest.raises(EnvError, match="declare a theorem"):
        prover.open(Theorem("f", "Check nat.", ""))


def test_missing_binary_says_what_to_install() -> None:
    coq = CoqProver(CoqConfig(binary="no-such-coqidetop"))
    with pytest.raises(EnvError, match="apt-get install coq"):
        coq.open(ADD_0)


def test_a_process_killed_between_batches_is_an_interrupted_batch(
    no_new_coq_processes: None,
) -> None:
    """The next write fails: that is a batch interrupted before its first reply (which
    the backend recovers from), not a ProcessDied escaping to the search (seen when a
    kill landed between two batches of a loaded machine)."""
    from proofsearch.env.coq import xml
    from proofsearch.env.coq.idetop import Call, CallsInterrupted, CoqIdeTop

    top = CoqIdeTop()
    try:
        os.kill(top.pid, signal.SIGKILL)
        top.process.popen.wait(timeout=30)
        with pytest.raises(CallsInterrupted) as interrupted:
            top.calls([Call(xml.goal_call(), 5)])
        assert interrupted.value.replies == []
    finally:
        top.close()
