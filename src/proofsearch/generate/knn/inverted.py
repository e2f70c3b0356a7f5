"""Flat-array building blocks: an inverted index scored by sparse dot products, and a
table of strings. Plain numpy arrays, so a whole index can sit in shared memory (Ray's
object store maps them into every worker of a machine without copying)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StringTable:
    """Strings packed into one UTF-8 byte array and offsets."""

    data: np.ndarray  # uint8
    offsets: np.ndarray  # int64, len(strings) + 1

    @staticmethod
    def build(strings: Iterable[str]) -> StringTable:
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        data = (
            np.frombuffer(b"".join(encoded), dtype=np.uint8) if encoded else np.zeros(0, np.uint8)
        )
        return StringTable(data, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> str:
        start, end = self.offsets[index], self.offsets[index + 1]
        return self.data[start:end].tobytes().decode("utf-8")

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}.data": self.data, f"{prefix}.offsets": self.offsets}

    @staticmethod
    def from_arrays(arrays: Mapping[str, np.ndarray], prefix: str) -> StringTable:
        return StringTable(arrays[f"{prefix}.data"], arrays[f"{prefix}.offsets"])


@dataclass(frozen=True)
class InvertedIndex:
    """Sorted feature keys, each with a weight and a posting list of (document, value).

    A query is a set of keys with weights; a document's score is the sum, over the keys
    it shares with the query, of query weight × posting value.
    """

    keys: np.ndarray  # int64, sorted
    weights: np.ndarray  # float32 per key (what a query multiplies in)
    indptr: np.ndarray  # int64, len(keys) + 1
    postings: np.ndarray  # int32 document ids
    values: np.ndarray  # float32 per posting
    documents: int

    @staticmethod
    def build(
        documents: np.ndarray,
        keys: np.ndarray,
        values: np.ndarray,
        key_weight: Mapping[int, float] | np.ndarray,
        count: int,
    ) -> InvertedIndex:
        """From (document, key, value) triples; ``key_weight``: weight per distinct key
        (sorted), in the order of ``np.unique(keys)``."""
        unique, inverse = np.unique(keys, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        indptr = np.zeros(len(unique) + 1, dtype=np.int64)
        np.cumsum(np.bincount(inverse, minlength=len(unique)), out=indptr[1:])
        weights = np.asarray(key_weight, dtype=np.float32)
        if len(weights) != len(unique):
            raise ValueError("one weight per distinct key is needed")
        return InvertedIndex(
            unique.astype(np.int64),
            weights,
            indptr,
            documents[order].astype(np.int32),
            values[order].astype(np.float32),
            count,
        )

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions of the known ``keys`` and which of ``keys`` are known."""
        position = np.searchsorted(self.keys, keys)
        position = np.minimum(position, max(0, len(self.keys) - 1))
        known = (self.keys[position] == keys) if len(self.keys) else np.zeros(len(keys), bool)
        return position[known], known

    def scores(self, positions: np.ndarray, query_weights: np.ndarray) -> np.ndarray:
        """Scores of every document for the keys at ``positions`` with ``query_weights``."""
        if len(positions) == 0:
            return np.zeros(self.documents, dtype=np.float64)
        starts = self.indptr[positions]
        lengths = self.indptr[positions + 1] - starts
        # Every posting of every key at once: a ragged gather without a Python loop.
        shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        where = shift + np.arange(int(lengths.sum()), dtype=np.int64)
        ids = self.postings[where]
        values = self.values[where] * np.repeat(query_weights.astype(np.float32), lengths)
        return np.bincount(ids, weights=values, minlength=self.documents)

    def forward(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The same entries by document: ``indptr`` (documents + 1), key positions, values."""
        key_of = np.repeat(
            np.arange(len(self.keys), dtype=np.int32), np.diff(self.indptr).astype(np.int64)
        )
        order = np.argsort(self.postings, kind="stable")
        indptr = np.zeros(self.documents + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.postings, minlength=self.documents), out=indptr[1:])
        return indptr, key_of[order], self.values[order]

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {
            f"{prefix}.keys": self.keys,
            f"{prefix}.weights": self.weights,
            f"{prefix}.indptr": self.indptr,
            f"{prefix}.postings": self.postings,
            f"{prefix}.values": self.values,
            f"{prefix}.documents": np.array([self.documents], dtype=np.int64),
        }

    @staticmethod
    def from_arrays(arrays: Mapping[str, np.ndarray], prefix: str) -> InvertedIndex:
        return InvertedIndex(
            arrays[f"{prefix}.keys"],
            arrays[f"{prefix}.weights"],
            arrays[f"{prefix}.indptr"],
            arrays[f"{prefix}.postings"],
            arrays[f"{prefix}.values"],
            int(arrays[f"{prefix}.documents"][0]),
        )
