"""Best-first proof search, pure Python over the prover and generator interfaces."""

from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import FINAL_STATUSES, SearchResult, Status, error_result

__all__ = [
    "FINAL_STATUSES",
    "BestFirstSearchProver",
    "SearchConfig",
    "SearchResult",
    "Status",
    "error_result",
]
