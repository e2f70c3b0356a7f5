"""Which theorem a worker should take next: the one that reuses most of its prover state.

A prover runs a header once and keeps it (Coq shares even a common prefix of headers,
so the lemmas of one file follow each other cheaply). Taking, among the next few queued
theorems, the one whose header best matches the worker's last header saves re-running
headers (``Require Import`` of big libraries costs tenths of seconds to seconds) without
reordering the run much.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from proofsearch.theorem import Theorem

T = TypeVar("T")

#: How far down the queue a worker looks for a better match.
WINDOW = 32


def affinity(header: str, last: str | None) -> float:
    """How much of a worker's current prover state a theorem can reuse (higher: more)."""
    if last is None:
        return 0.0
    if header == last:
        return 3.0
    if header.startswith(last) or last.startswith(header):
        return 2.0
    return 1.0 if header[:512] == last[:512] else 0.0


def take_best(
    queue: deque[T], last: str | None, header_of: Callable[[T], str], window: int = WINDOW
) -> T:
    """Remove and return the queued item that best continues ``last`` (first on ties)."""
    best_index, best_score = 0, -1.0
    for index in range(min(len(queue), window)):
        score = affinity(header_of(queue[index]), last)
        if score > best_score:
            best_index, best_score = index, score
        if score >= 3.0:
            break
    item = queue[best_index]
    del queue[best_index]
    return item


def in_affinity_order(theorems: Iterable[Theorem], window: int = WINDOW) -> Iterator[Theorem]:
    """The theorems in the order one worker would take them from a queue."""
    queue = deque(theorems)
    last: str | None = None
    while queue:
        theorem = take_best(queue, last, lambda t: t.header, window)
        last = theorem.header
        yield theorem
