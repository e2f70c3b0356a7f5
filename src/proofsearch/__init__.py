"""proofsearch: distributed best-first proof search with checked proofs.

Layers, each ignorant of the ones above it:
``env`` (provers) and ``generate`` (tactic generators) at the bottom,
``search`` (best-first search over both), ``distributed`` (Ray, results store,
resume), and ``data`` / ``cli`` on top.
"""

from proofsearch.theorem import Theorem

__all__ = ["Theorem"]
__version__ = "0.1.0"
