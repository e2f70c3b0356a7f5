"""Coq backend over coqidetop's XML protocol (Coq 8.16-8.20, Rocq 9.0-9.2)."""

from proofsearch.env.coq.backend import CoqConfig, CoqProver, CoqSession

__all__ = ["CoqConfig", "CoqProver", "CoqSession"]
