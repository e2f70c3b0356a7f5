"""Workers take the queued theorem that reuses most of their prover state."""

from __future__ import annotations

from proofsearch.distributed.affinity import in_affinity_order
from proofsearch.theorem import Theorem


def names(theorems: list[Theorem]) -> list[str]:
    return [t.name for t in in_affinity_order(theorems)]


def test_same_header_first_then_prefixes_then_queue_order() -> None:
    theorems = [
        Theorem("a", "s", "Require Import List."),
        Theorem("b", "s", "Require Import Arith."),
        Theorem("c", "s", "Require Import List."),
        Theorem("d", "s", "Require Import List.\nDefinition x := 1."),
        Theorem("e", "s", "Require Import Arith."),
    ]
    # a, then c (same header), then d (extends it), then b and e (queue order).
    assert names(theorems) == ["a", "c", "d", "b", "e"]


def test_window_bounds_reordering() -> None:
    theorems = [Theorem("first", "s", "H")]
    theorems += [Theorem(f"x{i}", "s", f"other {i}") for i in range(40)]
    theorems += [Theorem("far", "s", "H")]
    order = list(in_affinity_order(theorems, window=8))
    assert order[0].name == "first" and order[1].name == "x0"  # "far" is out of sight
    assert sorted(t.name for t in order) == sorted(t.name for t in theorems)
