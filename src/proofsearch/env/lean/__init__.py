"""Lean 4 backend over leanprover-community/repl's JSON protocol."""

from proofsearch.env.lean.backend import LeanProver, LeanSession, classify_tactic_reply, state_key
from proofsearch.env.lean.checker import Verdict, classify_whole_proof
from proofsearch.env.lean.config import DEFAULT_REPL_COMMAND, LeanConfig

__all__ = [
    "DEFAULT_REPL_COMMAND",
    "LeanConfig",
    "LeanProver",
    "LeanSession",
    "Verdict",
    "classify_tactic_reply",
    "classify_whole_proof",
    "state_key",
]
