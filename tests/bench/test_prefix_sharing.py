"""Lemmas of one file opened in sequence share their header prefix in CoqProver.

The n-th lemma's header extends the previous lemma's header and statement, so the
prover's line cache must run only the sentences in between (plus the new statement),
never the shared prefix again.
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
            prover.open(Theorem(lemma.name, lemma.statement, lemma.header)).close()
            header = prover.header_sentences(lemma.header)
            if lemma is lemmas[0]:
                assert sum(adds) == len(header) + 1
                previous = lemma
                continue
            # Only the sentences after the previous statement, and the new statement.
            assert sum(adds) == lemma.index - previous.index, (lemma.name, sum(adds))
            assert prover.line.sentences[: previous.index + 1] == [
                *prover.header_sentences(previous.header),
                previous.statement,
            ]
            previous = lemma
    finally:
        prover.close()
