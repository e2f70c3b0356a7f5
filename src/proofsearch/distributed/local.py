"""``--workers 1``: searches run one after another in this process, without Ray."""

from __future__ import annotations

from collections.abc import Iterable

from proofsearch.distributed.events import RunEvents
from proofsearch.distributed.spec import WorkerSpec
from proofsearch.distributed.store import ResultsStore
from proofsearch.search.result import error_result
from proofsearch.theorem import Theorem


def run_local(
    spec: WorkerSpec, theorems: Iterable[Theorem], store: ResultsStore, events: RunEvents
) -> None:
    """Search each theorem and append its result; an interrupted theorem is not written."""
    searcher = spec.build()
    try:
        for theorem in theorems:
            try:
                result = searcher.search(theorem)
            except Exception as exc:  # a bug in one search must not end the run
                result = error_result(theorem, f"{type(exc).__name__}: {exc}")
                searcher.prover.close()  # the next theorem starts a fresh prover process
            record = result.to_record()
            store.append(record)
            events.result(record)
    finally:
        searcher.prover.close()
        searcher.generator.close()
