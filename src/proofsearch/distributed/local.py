"""``--workers 1``: searches run one after another in this process, without Ray."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from proofsearch.distributed.affinity import in_affinity_order
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.search.result import SearchResult, error_result
from proofsearch.theorem import Theorem


def run_local(
    spec: WorkerSpec, theorems: Iterable[Theorem], on_result: Callable[[SearchResult], None]
) -> None:
    """Search each theorem and hand over its result; an interrupted theorem yields nothing.

    Theorems are taken in the order a Ray worker would take them (see
    :mod:`proofsearch.distributed.affinity`), so headers are re-run as rarely.
    """
    searcher = spec.build()
    try:
        for theorem in in_affinity_order(theorems):
            try:
                result = searcher.search(theorem)
            except Exception as exc:  # a bug in one search must not end the run
                result = error_result(theorem, f"{type(exc).__name__}: {exc}")
                searcher.prover.close()  # the next theorem starts a fresh prover process
            on_result(result)
    finally:
        searcher.prover.close()
        searcher.generator.close()
