"""The stdlib benchmark's second stage: a seeded sample, stratified by library part."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence

from proofsearch.bench.stdlib_extract import StdlibLemma


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Split ``n`` draws over strata proportionally (largest remainder), at least 1 each.

    Every part of the library with a lemma gets one, so small parts (``Array``,
    ``funind``) are represented; the rest follows the parts' sizes. Fewer draws than
    parts go one each to the largest parts (ties by name): ``--sample 12`` of the
    stdlib's 31 parts wrote 31 lemmas (audit 51).
    """
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    filled = [part for part, size in sizes.items() if size > 0]
    if n < len(filled):
        chosen = set(sorted(filled, key=lambda p: (-sizes[p], p))[: max(n, 0)])
        return {part: int(part in chosen) for part in sizes}
    quota = {part: min(1, size) for part, size in sizes.items()}
    left = n - sum(quota.values())
    if left <= 0:
        return quota
    shares = {part: left * size / total for part, size in sizes.items()}
    for part, share in shares.items():
        quota[part] = min(sizes[part], quota[part] + int(share))
    order = sorted(sizes, key=lambda p: (-(shares[p] - int(shares[p])), p))
    while sum(quota.values()) < n:
        progressed = False
        for part in order:
            if sum(quota.values()) >= n:
                break
            if quota[part] < sizes[part]:
                quota[part] += 1
                progressed = True
        if not progressed:
            break
    return quota


def stratified_order(lemmas: Sequence[StdlibLemma], seed: int) -> dict[str, list[StdlibLemma]]:
    """Each part's lemmas in a seeded random order (deterministic across runs)."""
    by_part: dict[str, list[StdlibLemma]] = defaultdict(list)
    for lemma in sorted(lemmas, key=lambda item: item.name):
        by_part[lemma.part].append(lemma)
    for part in sorted(by_part):
        random.Random(f"{seed}:{part}").shuffle(by_part[part])
    return dict(sorted(by_part.items()))


def sample_stratified(
    lemmas: Sequence[StdlibLemma],
    n: int,
    seed: int,
    accept: Callable[[list[StdlibLemma]], list[bool]] | None = None,
) -> list[StdlibLemma]:
    """``n`` lemmas stratified by part; with ``accept``, rejected draws are replaced.

    ``accept`` judges a batch of candidates (it compiles them); a rejected candidate is
    replaced by the next one of its part's seeded order, so the sample stays
    deterministic and keeps each part's quota while the part has lemmas left.
    """
    order = stratified_order(lemmas, seed)
    quota = allocate({part: len(items) for part, items in order.items()}, n)
    chosen: dict[str, list[StdlibLemma]] = {part: [] for part in order}
    position = dict.fromkeys(order, 0)
    while True:
        batch: list[StdlibLemma] = []
        for part, items in order.items():
            need = quota[part] - len(chosen[part])
            take = items[position[part] : position[part] + max(need, 0)]
            position[part] += len(take)
            batch += take
        if not batch:
            break
        verdicts = accept(batch) if accept is not None else [True] * len(batch)
        for lemma, ok in zip(batch, verdicts, strict=True):
            if ok:
                chosen[lemma.part].append(lemma)
    picked = [lemma for part in order for lemma in chosen[part]]
    return sorted(picked, key=lambda item: (item.file, item.line))
