"""The replay cannot be fooled: a wrong request, an unused transcript or an unexpected
restart fails the test even when the backend absorbed it (it takes a replay that exits
on a wrong request for a crashed REPL, restarts it, and the new replay starts over)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proofsearch.env.base import ProofState, Proved
from tests.lean.conftest import Lean
from tests.lean.test_process import FIXTURE, PROOF, THEOREM


def walk_to_proof(lean: Lean, **options: object) -> None:
    prover = lean.replay(FIXTURE, **options)  # type: ignore[arg-type]
    session = prover.open(THEOREM)
    state = session.root
    for tactic in PROOF[:-1]:
        outcome = session.apply(state, tactic)
        assert isinstance(outcome, ProofState), outcome
        state = outcome
    assert session.apply(state, PROOF[-1]) == Proved(PROOF)


def test_a_faithful_replay_passes(tmp_path: Path) -> None:
    lean = Lean(tmp_path)
    walk_to_proof(lean)
    lean.close()
    lean.verify()


def test_a_wrong_request_fails_the_test_even_when_absorbed(tmp_path: Path) -> None:
    lean = Lean(tmp_path)
    prover = lean.replay(FIXTURE, unused="not the point here")
    session = prover.open(THEOREM)
    # Not in the transcript: the replay exits 3, the backend restarts the REPL.
    session.apply(session.root, "apply Or.intro")
    lean.close()
    with pytest.raises(AssertionError, match=r"exited 3: .*differs from the transcript"):
        lean.verify()


def test_unused_exchanges_fail_the_test_unless_explained(tmp_path: Path) -> None:
    lean = Lean(tmp_path)
    lean.replay(FIXTURE).open(THEOREM)
    lean.close()
    with pytest.raises(AssertionError, match="used 1 of 5 recorded exchanges"):
        lean.verify()
    (tmp_path / "explained").mkdir()
    explained = Lean(tmp_path / "explained")
    explained.replay(FIXTURE, unused="opening is all this test needs").open(THEOREM)
    explained.close()
    explained.verify()


def test_an_unexpected_restart_fails_the_test(tmp_path: Path) -> None:
    lean = Lean(tmp_path)
    prover = lean.replay(FIXTURE, unused="the first process is stopped")
    session = prover.open(THEOREM)
    prover.restart()  # as the backend does after a crash it absorbs
    assert isinstance(session.apply(session.root, PROOF[0]), ProofState)
    lean.close()
    with pytest.raises(AssertionError, match="restarted its REPL 1 time"):
        lean.verify()
