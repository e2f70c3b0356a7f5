"""Lemmas of one file opened in sequence share their header prefix in CoqProver.

The n-th lemma's header extends the previous lemma's header and statement, so the
prover's line cache must run only the sentences in between (plus the new statement),
never the shared prefix again. A long header runs as a few ``Load`` sentences
(``env/coq/header_load.py``), whose files the next lemma's header shares.
"""

from __future__ import annotations

from pathlib import Path

from proofsearch.bench.stdlib_extract import extract_file
from proofsearch.env.coq.backend import CoqProver
from proofsearch.theorem import Theorem

from .conftest import requires_coq


@requires_coq
def test_lemmas_of_one_file_share_the_prefix(stdlib_root: Path, no_new_coq_processes: None) -> None:
    lemmas = extract_file(stdlib_root / "Bool" / "Bool.v", stdlib_root).lemmas[40:44]
    assert len(lemmas) == 4
    prover = CoqProver()
    adds: list[int] = []
    original = prover.line.calls

    def counting(calls):  # type: ignore[no-untyped-def]
        adds.append(sum('<call val="Add">' in call.xml for call in calls))
        return original(calls)

    prover.line.calls = counting  # type: ignore[method-assign]
    try:
        for lemma in lemmas:
            adds.clear()
            before = list(prover.line.sentences)
            prover.open(Theorem(lemma.name, lemma.statement, lemma.header)).close()
            header = prover.header_sentences(lemma.header)
            line = prover.line.sentences
            assert line[-1] == lemma.statement
            if lemma is lemmas[0]:
                # The line was empty: everything ran, the header as a few Loads.
                assert sum(adds) == len(line) < len(header) // 4
                assert line[0].startswith('Load "')
                previous = lemma
                continue
            # Only what follows the part both lines share ran; that part holds the
            # previous line's first Loads, and what ran is at most the new sentences
            # and one run of 16 regrouped.
            pairs = enumerate(zip(before, line, strict=False))
            common = next((i for i, (a, b) in pairs if a != b), min(len(before), len(line)))
            assert sum(adds) == len(line) - common, (lemma.name, sum(adds))
            assert common >= 1 and line[0] == before[0]
            assert sum(adds) <= lemma.index - previous.index + 16, (lemma.name, sum(adds))
            previous = lemma
    finally:
        prover.close()
