"""Running many searches: in-process or on Ray actors, with a durable results store.

Nothing here imports Ray at module level except :mod:`proofsearch.distributed.actors`
and :mod:`proofsearch.distributed.pool`; ``--workers 1`` runs without Ray.
"""
