"""Best-first proof search, pure Python over the prover and generator interfaces."""

from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import SearchResult, Status, error_result

__all__ = [
    "BestFirstSearchProver",
    "SearchConfig",
    "SearchResult",
    "Status",
    "error_result",
]
