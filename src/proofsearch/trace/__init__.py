"""Tracing Coq sources into proof-step data, a premise corpus and file dependencies.

:mod:`proofsearch.trace.schema` holds the record types and the reader of a trace folder;
it imports nothing from the prover layer, so generators can read traces without
starting Coq.
"""
