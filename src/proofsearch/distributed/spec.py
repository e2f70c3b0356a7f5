"""What a worker needs to build its searcher: plain, picklable values.

The same :class:`WorkerSpec` builds the in-process searcher (``--workers 1``) and each
Ray ``ProverActor``'s, so the two paths cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proofsearch.env.registry import make_prover
from proofsearch.generate.base import TacticGenerator
from proofsearch.generate.registry import make_generator
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig


@dataclass(frozen=True)
class WorkerSpec:
    """Prover and generator names with their options, and the search budgets."""

    prover: str = "coq"
    prover_options: dict[str, Any] = field(default_factory=dict)
    generator: str = "portfolio"
    generator_options: dict[str, Any] = field(default_factory=dict)
    search: SearchConfig = field(default_factory=SearchConfig)

    def build(self, generator: TacticGenerator | None = None) -> BestFirstSearchProver:
        """A ready searcher; ``generator`` replaces the spec's (e.g. a remote one)."""
        prover = make_prover(self.prover, self.prover_options)
        if generator is None:
            generator = make_generator(self.generator, self.generator_options)
        return BestFirstSearchProver(prover, generator, self.search)
