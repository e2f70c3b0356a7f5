"""One or several trace folders turned into flat arrays: the proof states (for ``knn``)
and the premises (for retrieval), with the modules and their dependencies.

Several folders (the stdlib's trace, a library's, a project's) make ONE corpus with one
module table, so the scope rules work across them: a project module's ``Require`` of
``Coq.Lists.List`` is the stdlib trace's module, and the stdlib never requires the
project. A module traced in two folders is an error (which copy would it be?).

Building reads every shard once (seconds to a minute for the whole stdlib); the result
is cached as ``.npz`` under ``$XDG_CACHE_HOME/proofsearch/knn/`` keyed by the shards'
own keys (of every folder, in order), so a later run loads it in a second. A process
that already holds a corpus (a Ray worker handed one from the object store) registers
it with :func:`preload`, and :func:`load_corpus` then returns it without reading
anything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from proofsearch.generate.knn.features import (
    FEATURES_VERSION,
    SCALE,
    feature_hash,
)
from proofsearch.generate.knn.inverted import InvertedIndex, StringTable
from proofsearch.generate.knn.parts import (
    PARTS_VERSION,
    FolderParts,
    load_parts,
    parse_folder,
    save_parts,
    strings,
)
from proofsearch.generate.knn.premise_uses import use_arrays
from proofsearch.generate.knn.scope import ModuleTable
from proofsearch.trace.schema import FileRecord, Premise, ProofStep, TraceDir

CORPUS_VERSION = 9
#: Features in more than this share of the states are dropped (big traces only): they
#: say little and their posting lists would dominate the time of a query.
MAX_DF_SHARE = 0.2
MAX_DF_MIN_STATES = 2000
#: BM25's parameters (the usual ones).
BM25_K1, BM25_B = 1.2, 0.75


#: What an ``index`` option may be: one trace folder, or several read as one.
IndexPaths: TypeAlias = str | Path | Sequence[str | Path]


class DuplicateModuleError(ValueError):
    """Two trace folders of one index hold the same module."""


def index_paths(index: IndexPaths) -> list[str]:
    """The trace folders of ``index`` as absolute paths, in order, each once."""
    items = [index] if isinstance(index, str | Path) else list(index)
    if not items:
        raise ValueError("an index needs at least one trace folder")
    paths: list[str] = []
    for item in items:
        path = str(Path(item).expanduser().resolve())
        if path not in paths:
            paths.append(path)
    return paths


class TraceSet:
    """Trace folders read as one: every module in exactly one folder.

    Constructing it reads only the shards' records (``*.meta.json``): cheap enough for a
    command line to check its ``--index`` folders before any work.
    """

    def __init__(self, index: IndexPaths) -> None:
        self.roots = index_paths(index)
        self.traces = [TraceDir(root) for root in self.roots]
        self.records: list[FileRecord] = []
        self._owner: dict[str, TraceDir] = {}
        for trace in self.traces:
            for record in trace.files():
                other = self._owner.get(record.module)
                if other is not None:
                    raise DuplicateModuleError(
                        f"module {record.module} is in two traces of the index: {other.root} "
                        f"and {trace.root}; give each module's trace once"
                    )
                self._owner[record.module] = trace
                self.records.append(record)

    def files(self) -> list[FileRecord]:
        """Every shard's record: the folders in order, each sorted by module."""
        return list(self.records)

    def trace_of(self, module: str) -> TraceDir:
        return self._owner[module]

    def steps(self, module: str) -> Iterator[ProofStep]:
        return self._owner[module].steps(module)

    def premises(self, module: str) -> Iterator[Premise]:
        return self._owner[module].premises(module)


@dataclass(frozen=True)
class TraceCorpus:
    """Everything the ``knn`` generator and premise retrieval read."""

    table: ModuleTable
    arrays: dict[str, np.ndarray]

    # -- states --------------------------------------------------------------------
    @property
    def states(self) -> InvertedIndex:
        return InvertedIndex.from_arrays(self.arrays, "states")

    @property
    def typed_features(self) -> bool:
        """Whether the states' features tell types apart (``+@nat``): the default;
        ``False`` only for the ablation (:func:`build_corpus`)."""
        flag = self.arrays.get("features.typed")
        return True if flag is None else bool(flag[0])

    @property
    def tactics(self) -> StringTable:
        return StringTable.from_arrays(self.arrays, "tactics")

    @property
    def state_names(self) -> StringTable:
        return StringTable.from_arrays(self.arrays, "state_names")

    @property
    def lemmas(self) -> StringTable:
        """Short names of the traced lemmas (``state_lemma`` numbers them)."""
        return StringTable.from_arrays(self.arrays, "lemmas")

    # -- premises ------------------------------------------------------------------
    @property
    def premises(self) -> InvertedIndex:
        return InvertedIndex.from_arrays(self.arrays, "premises")

    @property
    def premise_names(self) -> StringTable:
        return StringTable.from_arrays(self.arrays, "premise_names")

    @property
    def premise_statements(self) -> StringTable:
        return StringTable.from_arrays(self.arrays, "premise_statements")

    def payload(self) -> dict[str, Any]:
        """Plain values (numpy arrays and lists) that :meth:`from_payload` takes back."""
        return {
            "modules": self.table.modules,
            "files": self.table.files,
            "requires": [[self.table.modules[r] for r in req] for req in self.table.requires],
            "require_lines": [
                dict(lines) if lines is not None else None
                for lines in self.table.require_lines_by_name
            ],
            "arrays": self.arrays,
        }

    @staticmethod
    def from_payload(payload: dict[str, Any]) -> TraceCorpus:
        table = ModuleTable(
            payload["modules"], payload["files"], payload["requires"], payload["require_lines"]
        )
        return TraceCorpus(table, dict(payload["arrays"]))


def _joined(parts: Sequence[FolderParts], prefix: str) -> tuple[np.ndarray, list[str]]:
    """The rows of every folder's ragged ``prefix`` as one id stream over one vocabulary
    (first-seen order across the folders, as one pass over them would number it), and
    that vocabulary."""
    vocabulary: dict[str, int] = {}
    ids: list[np.ndarray] = []
    for part in parts:
        local = part.table(f"{prefix}.vocabulary")
        mapping = np.array([vocabulary.setdefault(v, len(vocabulary)) for v in local], np.int64)
        ids.append(mapping[part.arrays[f"{prefix}.ids"]] if len(local) else np.zeros(0, np.int64))
    stream = np.concatenate(ids) if ids else np.zeros(0, np.int64)
    return stream, list(vocabulary)


def _renumbered(parts: Sequence[FolderParts], ids: str, table: str) -> tuple[np.ndarray, list[str]]:
    """Each folder's ``ids`` into its ``table`` as ids into one joined table."""
    joined: dict[str, int] = {}
    out: list[np.ndarray] = []
    for part in parts:
        mapping = np.array([joined.setdefault(t, len(joined)) for t in part.table(table)], np.int32)
        out.append(mapping[part.arrays[ids]] if len(mapping) else np.zeros(0, np.int32))
    return (np.concatenate(out) if out else np.zeros(0, np.int32)), list(joined)


def _module_numbers(parts: Sequence[FolderParts], key: str) -> np.ndarray:
    """Each folder's module numbers shifted past the folders before it."""
    offsets = np.cumsum([0] + [len(part.modules) for part in parts])
    return np.concatenate(
        [
            part.arrays[key].astype(np.int32) + offset
            for part, offset in zip(parts, offsets[:-1], strict=True)
        ]
    ).astype(np.int32)


def _lengths(parts: Sequence[FolderParts], prefix: str) -> np.ndarray:
    return np.concatenate([np.diff(part.arrays[f"{prefix}.indptr"]) for part in parts])


def _state_arrays(parts: Sequence[FolderParts]) -> dict[str, np.ndarray]:
    fid, feature_names = _joined(parts, "features")
    lengths = _lengths(parts, "features")
    count = len(lengths)
    doc = np.repeat(np.arange(count, dtype=np.int32), lengths)
    df = np.bincount(fid, minlength=len(feature_names)).astype(np.float64)
    scale = np.array([SCALE[f.split(":", 1)[0]] for f in feature_names], dtype=np.float64)
    weight = np.log1p(count / np.maximum(df, 1.0)) * scale
    keep = np.ones(len(feature_names), dtype=bool)
    if count >= MAX_DF_MIN_STATES:
        keep = df <= MAX_DF_SHARE * count
    kept = keep[fid]
    doc, fid = doc[kept], fid[kept]
    norms = np.sqrt(np.bincount(doc, weights=weight[fid] ** 2, minlength=count))
    values = weight[fid] / np.maximum(norms[doc], 1e-12)
    hashes = np.array([feature_hash(f) for f in feature_names], dtype=np.int64)
    keys = hashes[fid]
    unique_keys, first = np.unique(keys, return_index=True)
    index = InvertedIndex.build(doc, keys, values, weight[fid[first]], count)
    assert len(index.keys) == len(unique_keys)
    state_tactic, tactics = _renumbered(parts, "state_tactic", "tactics")
    state_lemma, lemmas = _renumbered(parts, "state_lemma", "lemmas")
    names = [name for part in parts for name in part.table("state_names")]
    forward_indptr, forward_keys, forward_values = index.forward()
    return {
        **index.arrays("states"),
        # By state: to score a few candidates exactly after a capped first pass.
        "states.forward_indptr": forward_indptr,
        "states.forward_keys": forward_keys,
        "states.forward_values": forward_values,
        **StringTable.build(tactics).arrays("tactics"),
        **StringTable.build(names).arrays("state_names"),
        "state_module": _module_numbers(parts, "state_module"),
        "state_line": np.concatenate([p.arrays["state_line"] for p in parts]).astype(np.int32),
        "state_tactic": state_tactic,
        # The short name of the lemma each state's proof proves (knn/analogy.py).
        **StringTable.build(lemmas).arrays("lemmas"),
        "state_lemma": state_lemma,
        # Weight of a feature no recorded state has (online learning may meet one).
        "states.unseen_weight": np.array([math.log1p(max(count, 1))], dtype=np.float64),
        # Features dropped as too common: seen, not unseen, so online learning must not
        # give them the unseen weight (it made every learned state everyone's neighbour).
        "states.dropped_keys": np.unique(hashes[~keep]),
    }


def _premise_arrays(parts: Sequence[FolderParts]) -> dict[str, np.ndarray]:
    term_ids, terms = _joined(parts, "terms")
    tfs = np.concatenate([p.arrays.get("terms.counts", np.zeros(0, np.int32)) for p in parts])
    lengths = _lengths(parts, "terms")
    count = len(lengths)
    documents = np.repeat(np.arange(count, dtype=np.int32), lengths)
    # The statistics are the library's constants': a functor body's premises (seen only
    # inside it, ``premise_until``) change no other theorem's ranking.
    until = np.concatenate([p.arrays["premise_until"] for p in parts])
    library = until[documents] == 0
    df = np.bincount(term_ids[library], minlength=len(terms)).astype(np.float64)
    doc_length = np.bincount(documents, weights=tfs, minlength=count)
    global_count = int(np.count_nonzero(until == 0))
    average = float(doc_length[until == 0].mean()) if global_count else 1.0
    idf = np.log(1 + (global_count - df + 0.5) / (df + 0.5))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * doc_length / max(average, 1e-9))
    tf = tfs.astype(np.float64)
    values = idf[term_ids] * tf * (BM25_K1 + 1) / (tf + norm[documents])
    hashes = np.array([feature_hash(t) for t in terms], dtype=np.int64)
    key_array = hashes[term_ids]
    # A key's weight is its term's idf: the retriever's "ideal" score of a query.
    idf_by_key = dict(zip(hashes.tolist(), idf.tolist(), strict=True))
    unique = np.unique(key_array)
    index = InvertedIndex.build(
        documents,
        key_array,
        values.astype(np.float32),
        np.array([idf_by_key[int(k)] for k in unique], dtype=np.float32),
        count,
    )
    joined = {
        key: np.concatenate([p.arrays[key] for p in parts])
        for key in ("premise_line", "premise_applicable", "premise_definition", "premise_admitted")
    }
    return {
        **index.arrays("premises"),
        **StringTable.build([n for p in parts for n in p.table("premise_names")]).arrays(
            "premise_names"
        ),
        **StringTable.build([t for p in parts for t in p.table("premise_statements")]).arrays(
            "premise_statements"
        ),
        "premise_module": _module_numbers(parts, "premise_module"),
        "premise_line": joined["premise_line"].astype(np.int32),
        "premise_until": until.astype(np.int32),
        "premise_applicable": joined["premise_applicable"].astype(bool),
        # Definitions, for ``unfold`` (generate/retrieval/unfold.py).
        "premise_definition": joined["premise_definition"].astype(bool),
        # Admitted lemmas, offered only to a theorem whose proof may rest on them
        # (generate/knn/admitted.py).
        "premise_admitted": joined["premise_admitted"].astype(bool),
    }


def folder_parts(trace: TraceSet, typed_features: bool = True) -> list[FolderParts]:
    """Each folder's parsed parts: cached under the folder's own key, or parsed (then
    cached), so a changed project trace does not parse the stdlib's again."""
    parts: list[FolderParts] = []
    for folder in trace.traces:
        modules = [r.module for r in trace.records if trace.trace_of(r.module) is folder]
        key = _digest(f"parts/{PARTS_VERSION}/{int(typed_features)}/{_folder_key(folder)}")
        path = cache_dir() / f"{key}.parts.npz"
        part = load_parts(path)
        if part is None or part.modules != modules:
            part = parse_folder(folder, modules, typed_features)
            save_parts(part, path)
        parts.append(part)
    return parts


def build_corpus(index: IndexPaths | TraceSet, typed_features: bool = True) -> TraceCorpus:
    """Read one trace folder, or several as one, into a corpus. ``typed_features=False``
    leaves the states' typed features out (issue 19's ablation of its item 2)."""
    trace = index if isinstance(index, TraceSet) else TraceSet(index)
    records = trace.files()
    modules = [r.module for r in records]
    table = ModuleTable(
        modules,
        [r.file for r in records],
        [r.requires for r in records],
        [r.require_lines for r in records],
    )
    parts = folder_parts(trace, typed_features)
    arrays = {
        **_state_arrays(parts),
        **_premise_arrays(parts),
        "features.typed": np.array([int(typed_features)], dtype=np.int8),
    }
    arrays.update(
        use_arrays(
            _strings(arrays, "premise_names"),
            _strings(arrays, "tactics"),
            arrays["state_tactic"],
            arrays["state_module"],
            arrays["state_line"],
        )
    )
    return TraceCorpus(table, arrays)


def _strings(arrays: dict[str, np.ndarray], prefix: str) -> list[str]:
    return strings(StringTable.from_arrays(arrays, prefix))


def _folder_key(trace: TraceDir) -> str:
    """A digest of one folder's shards (their own keys and sizes) and of this code's format."""
    digest = hashlib.sha256(f"{CORPUS_VERSION}/{FEATURES_VERSION}".encode())
    for r in trace.files():
        digest.update(
            json.dumps(
                [r.module, r.file, r.key, r.status, r.steps, r.premises, r.require_lines],
                sort_keys=True,
            ).encode()
        )
        for kind in ("steps", "premises"):
            shard = trace.shard(r.module, kind)
            digest.update(str(shard.stat().st_size if shard.exists() else -1).encode())
    return digest.hexdigest()[:32]


def cache_key(index: IndexPaths | TraceSet, typed_features: bool = True) -> str:
    """The cache key of an index: its folder's key, or a digest of its folders' keys in
    order; an untyped corpus (the ablation) has a key of its own."""
    traces = index.traces if isinstance(index, TraceSet) else map(TraceDir, index_paths(index))
    keys = [_folder_key(trace) for trace in traces]
    key = keys[0] if len(keys) == 1 else _digest("several/" + "/".join(keys))
    return key if typed_features else _digest("untyped/" + key)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def is_cached(index: IndexPaths, typed_features: bool = True) -> bool:
    """Whether :func:`load_corpus` will find ``index``'s corpus loaded or on disk (not
    build it)."""
    if _canonical(index, typed_features) in _PRELOADED:
        return True
    try:
        return (cache_dir() / f"{cache_key(index, typed_features)}.npz").exists()
    except (OSError, ValueError):
        return False


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "proofsearch" / "knn"


_PRELOADED: dict[str, TraceCorpus] = {}
_LOCK = threading.Lock()


def _canonical(index: IndexPaths, typed_features: bool = True) -> str:
    return "\n".join(index_paths(index)) + ("" if typed_features else "\n(untyped)")


def preload(index: IndexPaths, corpus: TraceCorpus) -> None:
    """Make :func:`load_corpus` return ``corpus`` for ``index`` in this process."""
    _PRELOADED[_canonical(index, corpus.typed_features)] = corpus


def load_corpus(
    index: IndexPaths, use_cache: bool = True, typed_features: bool = True
) -> TraceCorpus:
    """The corpus of ``index`` (one trace folder, or several read as one): preloaded,
    cached on disk, or built (then cached)."""
    name = _canonical(index, typed_features)
    with _LOCK:
        if name in _PRELOADED:
            return _PRELOADED[name]
        # A clear error for a folder that is not a trace, or a module in two of them.
        traces = TraceSet(index)
        key = cache_key(traces, typed_features)
        path = cache_dir() / f"{key}.npz"
        meta_path = cache_dir() / f"{key}.json"
        corpus: TraceCorpus | None = None
        if use_cache and path.exists() and meta_path.exists():
            try:
                meta = json.loads(meta_path.read_text())
                with np.load(path) as data:
                    arrays = {k: data[k] for k in data.files}
                corpus = TraceCorpus.from_payload({**meta, "arrays": arrays})
                os.utime(path)  # recently used: the last the cache gives up
            except (OSError, ValueError, KeyError):
                corpus = None  # a damaged cache is rebuilt
        if corpus is None:
            corpus = build_corpus(traces, typed_features)
            if use_cache:
                _save(corpus, path, meta_path, origin=name)
        _PRELOADED[name] = corpus
        return corpus


def save_corpus(index: IndexPaths, corpus: TraceCorpus) -> None:
    """Cache ``corpus`` (built from ``index``) on disk and for this process."""
    key = cache_key(index, corpus.typed_features)
    origin = _canonical(index, corpus.typed_features)
    _save(corpus, cache_dir() / f"{key}.npz", cache_dir() / f"{key}.json", origin=origin)
    preload(index, corpus)


def _save(corpus: TraceCorpus, path: Path, meta_path: Path, origin: str = "") -> None:
    """Cache ``corpus``; ``origin`` (the folders it was built from) makes the corpora
    cached before from those folders stale: they go (audit 55: each edit of a project
    added 100 MB, 503 MB after three)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = corpus.payload()
        arrays = payload.pop("arrays")
        partial = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(partial, **arrays)
        os.replace(partial, path)
        meta_path.write_text(json.dumps({**payload, "origin": origin}))
        if origin:
            drop_superseded(path.parent, origin, keep=meta_path)
        prune_cache(path.parent, keep={path, meta_path})
    except OSError:
        pass  # a read-only cache only costs the next run the build


def drop_superseded(folder: Path, origin: str, keep: Path) -> None:
    """Remove the cached corpora built before from the same folders as ``keep`` (their
    traces have changed since: a key is the folders' shard keys)."""
    for meta in folder.glob("*.json"):
        if meta == keep:
            continue
        try:
            same = json.loads(meta.read_text()).get("origin") == origin
        except (OSError, ValueError, AttributeError):
            continue
        if same:
            with contextlib.suppress(OSError):
                meta.with_suffix(".npz").unlink(missing_ok=True)
                meta.unlink()


#: What the knn cache may hold. Each set of trace folders an index was built from is
#: cached whole (the stdlib's and a project's: 100 MB), and a project's trace changes
#: with each edit, so without a bound every ``prove`` after an edit added one.
CACHE_LIMIT_BYTES = 2 << 30


def prune_cache(folder: Path, keep: set[Path], limit: int = CACHE_LIMIT_BYTES) -> None:
    """Remove the least recently used cached corpora (and parts) until ``folder`` holds
    at most ``limit`` bytes; ``keep`` stays (what was just written)."""
    entries = []
    for path in folder.glob("*.npz"):
        if ".tmp." in path.name:  # another process is writing it
            continue
        with contextlib.suppress(OSError):
            entries.append((path.stat().st_mtime, path.stat().st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        if path in keep:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            path.with_suffix(".json").unlink(missing_ok=True)
            total -= size
