"""Provers behind one small interface (see :mod:`proofsearch.env.base`).

Backends are imported lazily by :func:`make_prover` so that importing the interface costs
nothing and a missing prover only matters to the user who asks for it.
"""

from proofsearch.env.base import (
    CheckResult,
    EnvError,
    Outcome,
    ProofSession,
    ProofState,
    Proved,
    Prover,
    TacticError,
    TacticTimeout,
)
from proofsearch.env.registry import PROVERS, make_prover

__all__ = [
    "PROVERS",
    "CheckResult",
    "EnvError",
    "Outcome",
    "ProofSession",
    "ProofState",
    "Proved",
    "Prover",
    "TacticError",
    "TacticTimeout",
    "make_prover",
]
