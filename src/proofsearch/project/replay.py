"""A proof's rewordings tried in one prover session before any is compiled.

Presenting a proof found (:mod:`.written_proofs`) tries several versions of it: without
a ``using`` premise, without a step, with a shorter last step, then with bullets.
Compiling each version from scratch pays for the file's prefix every time (over a
second on a Program file, most of a run's presentation time). One session opened at the
hole runs every version from its root instead, sharing the steps versions have in
common; only the version kept is then compiled from scratch, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self

from proofsearch.env.base import EnvError, Outcome, ProofSession, ProofState, Proved, Prover
from proofsearch.theorem import Theorem


class Replay:
    """Versions of one theorem's proof run in a session opened on first use (none is
    opened for a proof that has nothing to try). ``prover`` gives the prover to open it
    in: one a thread keeps for the proofs it presents, whose loaded file prefix the next
    hole of the same file extends."""

    def __init__(self, theorem: Theorem, prover: Callable[[], Prover], timeout: float):
        self._theorem = theorem
        self._prover = prover
        self._timeout = timeout
        self._session: ProofSession | None = None
        self._failed = False
        #: Each prefix of a version run so far → what its last step gave.
        self._outcomes: dict[tuple[str, ...], Outcome] = {}

    def session(self) -> ProofSession | None:
        """The session at the hole; ``None`` when the theorem cannot be opened."""
        if self._session is None and not self._failed:
            try:
                self._session = self._prover().open(self._theorem)
            except EnvError:
                self._failed = True
        return self._session

    def proves(self, tactics: Sequence[str]) -> bool:
        """Whether ``tactics``, run one after another from the root, end the proof with
        their last step (one that ends it earlier leaves a step with no goal)."""
        session = self.session()
        if session is None or not tactics:
            return False
        state: ProofState = session.root
        for index in range(len(tactics)):
            prefix = tuple(tactics[: index + 1])
            outcome = self._outcomes.get(prefix)
            if outcome is None:
                outcome = session.apply(state, tactics[index], timeout=self._timeout)
                self._outcomes[prefix] = outcome
            if isinstance(outcome, Proved):
                return index == len(tactics) - 1
            if not isinstance(outcome, ProofState):
                return False
            state = outcome
        return False

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
