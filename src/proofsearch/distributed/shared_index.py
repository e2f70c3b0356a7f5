"""One trace index per machine on Ray: loaded by the driver, shared by every worker.

A generator that reads a trace folder (``knn``, ``premises``, a model generator with
retrieval) would otherwise load it in every prover actor: N copies of the same arrays
and N times the loading. Instead the driver loads the corpus once and puts its arrays in
Ray's object store; each actor maps them read-only from the store of its machine (numpy
arrays are not copied) and registers the result with
:func:`proofsearch.generate.knn.corpus.preload`, so the generator's own
``load_corpus(index)`` finds it. Generators stay unaware of Ray. An index of several
trace folders (a list) is one corpus, shared the same way under the same list.
"""

from __future__ import annotations

from typing import Any

from proofsearch.distributed.spec import WorkerSpec


def share_index(spec: WorkerSpec) -> tuple[list[str], Any] | None:
    """In the driver: put the spec's index in the object store; ``(paths, ref)`` or ``None``."""
    index = spec.generator_options.get("index")
    if not index:
        return None
    import ray

    from proofsearch.generate.knn.corpus import index_paths, load_corpus

    typed = bool(spec.generator_options.get("typed_features", True))  # False: an ablation
    return index_paths(index), ray.put(load_corpus(index, typed_features=typed).payload())


def receive_index(shared: tuple[list[str], Any] | None) -> None:
    """In a worker: make the shared index the one ``load_corpus`` returns for its paths."""
    if shared is None:
        return
    import ray

    from proofsearch.generate.knn.corpus import TraceCorpus, preload

    path, ref = shared
    preload(path, TraceCorpus.from_payload(ray.get(ref)))
