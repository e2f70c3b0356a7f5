"""A real Coq search with the premise templates, once with an option on and once off,
for tests of a template feature that should be a lemma's only route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proofsearch.env.registry import make_prover
from proofsearch.generate.fixed import FixedTacticGenerator
from proofsearch.generate.knn.corpus import build_corpus
from proofsearch.generate.merged import MergedGenerator
from proofsearch.generate.retrieval.templates import PremiseTemplateGenerator
from proofsearch.search.prover import BestFirstSearchProver, SearchConfig
from proofsearch.search.result import SearchResult
from proofsearch.theorem import Theorem


def search_on_and_off(
    trace: Path,
    theorem: Theorem,
    option: dict[str, tuple[Any, Any]],
    tactics: tuple[str, ...],
    **templates: Any,
) -> tuple[SearchResult, SearchResult]:
    """``theorem`` searched with the templates on ``trace`` merged with fixed
    ``tactics``: with ``option``'s first value, then its second."""
    (name, (on, off)) = next(iter(option.items()))
    prover = make_prover("coq", {})
    config = SearchConfig(timeout=30, num_sampled_tactics=16)
    results = []
    try:
        for value in (on, off):
            parts = [
                PremiseTemplateGenerator(build_corpus(trace), **templates, **{name: value}),
                *(FixedTacticGenerator(t) for t in tactics),
            ]
            search = BestFirstSearchProver(prover, MergedGenerator(parts), config)
            results.append(search.search(theorem))
    finally:
        prover.close()
    return results[0], results[1]
