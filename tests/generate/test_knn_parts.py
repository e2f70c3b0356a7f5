"""A corpus over several trace folders is joined from each folder's parsed parts.

Parsing is most of a corpus's cost, and a project's trace changes with each edit: a
``prove`` after an edit parsed the whole stdlib again (22 s) and cached another 100 MB.
Each folder's parts are now cached under its own key, so only the changed folder is
parsed, and the joined corpus must be exactly the one a single pass over the same
modules gives.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from tests.generate.knn_trace import write_trace

from proofsearch.generate.knn import corpus as corpus_module
from proofsearch.generate.knn.corpus import build_corpus, prune_cache


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "proofsearch" / "knn"


def _split(whole: Path, root: Path, modules: list[str]) -> Path:
    """A trace folder holding only ``modules`` of ``whole``."""
    (root / "files").mkdir(parents=True)
    for module in modules:
        for shard in (whole / "files").glob(f"{module}.*"):
            shutil.copy(shard, root / "files" / shard.name)
    return root


def test_two_folders_join_to_the_corpus_of_one(tmp_path: Path) -> None:
    whole = write_trace(tmp_path / "whole")
    # In module order: one folder's modules, then the other's, as one folder sorts them.
    first = _split(whole, tmp_path / "first", ["Lib.A"])
    second = _split(whole, tmp_path / "second", ["Lib.B", "Lib.Other"])
    one = build_corpus(whole)
    joined = build_corpus([first, second])
    assert one.table.modules == joined.table.modules
    assert sorted(one.arrays) == sorted(joined.arrays)
    for key, array in one.arrays.items():
        assert array.dtype == joined.arrays[key].dtype, key
        assert np.array_equal(array, joined.arrays[key]), key


def test_a_changed_folder_is_parsed_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    whole = write_trace(tmp_path / "whole")
    library = _split(whole, tmp_path / "library", ["Lib.A", "Lib.B"])
    project = _split(whole, tmp_path / "project", ["Lib.Other"])
    parsed: list[str] = []
    real = corpus_module.parse_folder

    def counting(trace, modules, typed):  # type: ignore[no-untyped-def]
        parsed.append(Path(trace.root).name)
        return real(trace, modules, typed)

    monkeypatch.setattr(corpus_module, "parse_folder", counting)
    before = build_corpus([library, project])
    assert parsed == ["library", "project"]
    # The project's trace changes (an edit): its shard's key and size differ.
    meta = project / "files" / "Lib.Other.meta.json"
    meta.write_text(meta.read_text().replace("key-Lib.Other", "key-Lib.Other-edited"))
    parsed.clear()
    after = build_corpus([library, project])
    assert parsed == ["project"]
    for key, array in before.arrays.items():
        assert np.array_equal(array, after.arrays[key]), key


def test_the_cache_gives_up_the_least_recently_used_first(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "knn"
    folder.mkdir()
    for age, name in enumerate(["newest", "middle", "oldest"]):
        (folder / f"{name}.npz").write_bytes(b"x" * 100)
        (folder / f"{name}.json").write_text("{}")
        os.utime(folder / f"{name}.npz", (1000 - age, 1000 - age))
    (folder / "other.1.tmp.npz").write_bytes(b"x" * 100)  # being written: left alone
    prune_cache(folder, keep={folder / "oldest.npz"}, limit=250)
    assert sorted(p.name for p in folder.iterdir()) == [
        "newest.json", "newest.npz", "oldest.json", "oldest.npz", "other.1.tmp.npz",
    ]  # fmt: skip


def test_an_edit_replaces_the_cached_corpus_of_the_same_folders(
    tmp_path: Path, cache: Path
) -> None:
    """Each edit of a project added a 100 MB corpus of the same folders (audit 55: 503 MB
    after three edits); the one built before goes, another set of folders' stays."""
    from proofsearch.generate.knn.corpus import load_corpus

    whole = write_trace(tmp_path / "whole")
    library = _split(whole, tmp_path / "library", ["Lib.A", "Lib.B"])
    project = _split(whole, tmp_path / "project", ["Lib.Other"])
    corpus_module._PRELOADED.clear()
    load_corpus([library, project])
    load_corpus(library)
    assert len(list(cache.glob("*.json"))) == 2
    meta = project / "files" / "Lib.Other.meta.json"
    meta.write_text(meta.read_text().replace("key-Lib.Other", "key-Lib.Other-edited"))
    corpus_module._PRELOADED.clear()
    load_corpus([library, project])
    assert len(list(cache.glob("*.json"))) == 2  # the library's alone, and the new one
    corpus_module._PRELOADED.clear()
    assert load_corpus([library, project]).table.modules == ["Lib.A", "Lib.B", "Lib.Other"]
