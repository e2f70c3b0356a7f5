"""Tracing Coq sources into proof-step data, a premise corpus and file dependencies.

:mod:`proofsearch.trace.schema` holds the record types and the reader of a trace folder;
it imports nothing from the prover layer, so generators can read traces without
starting Coq. The tracer itself (``proofsearch trace``, see ``docs/trace.md``):

- :mod:`~proofsearch.trace.sources`: the files to trace, their logical names and Coq
  arguments (installed stdlib, ``_CoqProject``, loose files);
- :mod:`~proofsearch.trace.dune`: dune's ``coq.theory``/``rocq.theory`` stanzas, read as
  loadpath flags (for ``prove`` and ``bench extract-coq``);
- :mod:`~proofsearch.trace.deps`: direct requires from ``coqdep``, dependency order;
- :mod:`~proofsearch.trace.file_trace`: one file through coqidetop (batches, proofs,
  steps);
- :mod:`~proofsearch.trace.premises`: what each sentence declared, asked of Coq;
- :mod:`~proofsearch.trace.goals`, :mod:`~proofsearch.trace.declarations`: reading
  Coq's printed goals and its answers about declarations;
- :mod:`~proofsearch.trace.shards`: shard keys and atomic writes;
- :mod:`~proofsearch.trace.runner`: jobs on a process pool, in dependency order.
"""
