"""Benchmark tooling: Coq library benchmarks (the stdlib, installed libraries, projects).

- :mod:`~proofsearch.bench.library`: which library (files, modules, loadpath) a benchmark
  is drawn from; one pipeline for all;
- :mod:`~proofsearch.bench.stdlib_extract`: lemmas and their headers, read from sources;
- :mod:`~proofsearch.bench.stdlib_sample`: the seeded stratified sample;
- :mod:`~proofsearch.bench.stdlib_validate`: compiling each lemma outside the library;
- :mod:`~proofsearch.bench.stdlib_build`: the pipeline and its counts;
- :mod:`~proofsearch.bench.stdlib_index`: the committed index without headers, restored;
- :mod:`~proofsearch.bench.header_leak`: the check that a header does not declare its lemma.
"""
