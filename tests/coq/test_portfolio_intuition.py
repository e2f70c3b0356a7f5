"""The portfolio's ``intuition`` solves its leaves with ``auto with *`` on every release.

Coq 8.16's ``intuition`` ends each leaf with ``auto with *``, 8.20's with ``auto`` then
``auto with *`` (warning), Rocq 9's with ``auto`` alone (``Init/Tauto.v``:
``intuition_solver``). A proof learned on 8.x (the stdlib's ``PI_tg_decreasing``:
``induction n``, then ``intuition`` twice) failed on Rocq 9.2; the portfolio's line is
``intuition auto with *``, the same tactic as 8.16's ``intuition``.
"""

from __future__ import annotations

from proofsearch.env.base import Proved
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.generate.portfolio import default_tactics
from proofsearch.theorem import Theorem

from ..libs.conftest import requires_coq

#: ``P`` is provable only through a hint of a database ``auto`` does not use by default.
HEADER = "Parameter P : Prop.\nAxiom p : P.\nCreate HintDb own.\n#[export] Hint Resolve p : own.\n"


def _intuition() -> str:
    (line,) = [s.tactic for s in default_tactics("coq") if s.tactic.startswith("intuition")]
    return line


@requires_coq
def test_the_portfolios_intuition_uses_every_hint_database(no_new_coq_processes: None) -> None:
    theorem = Theorem("t", "Lemma t : True /\\ P.", HEADER)
    with CoqProver(CoqConfig()) as prover:
        session = prover.open(theorem)
        try:
            assert isinstance(session.apply(session.root, _intuition(), 10.0), Proved)
            # what the line is for: plain ``auto`` does not know the hint
            assert not isinstance(session.apply(session.root, "split; auto", 10.0), Proved)
        finally:
            session.close()
