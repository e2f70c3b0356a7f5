"""The stdlib benchmark kept small: an index without headers, restored from the sources.

A stdlib entry's ``header`` is its file's whole prefix, so headers are 90 % of a sample
(6.9 of 7.5 MB for 500 lemmas) and repeat what the installed Coq already ships. The
committed ``benchmarks/coq/stdlib-sample.index.jsonl`` holds every other field of each
entry (statement, reference proof, allowed axioms found by the validation, ...);
:func:`restore` re-extracts each entry's file with
:func:`~proofsearch.bench.stdlib_extract.extract_file` and puts the header back. The
statement and reference proof must come out exactly as recorded, or the installed
stdlib is not the one the sample was drawn from, and the entry is reported, never
silently changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.bench.stdlib_extract import StdlibLemma, extract_file

#: Fields restore needs in every index line; all of them are compared or used.
REQUIRED = ("name", "file", "qualid", "statement", "reference_proof")
#: Fields that must equal what the installed sources give.
COMPARED = ("statement", "reference_proof")


def index_record(record: dict[str, Any]) -> dict[str, Any]:
    """A benchmark entry as the index keeps it: everything but the header."""
    return {key: value for key, value in record.items() if key != "header"}


def full_record(entry: dict[str, Any], header: str) -> dict[str, Any]:
    """The theorem-file entry: ``name``, ``statement``, ``header``, then the rest."""
    record = {"name": entry["name"], "statement": entry["statement"], "header": header}
    record.update((key, value) for key, value in entry.items() if key not in record)
    return record


@dataclass
class Restored:
    """The entries restored, and one message per index line that could not be."""

    records: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class _Library:
    """The installed stdlib's lemmas by name, each file parsed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, dict[str, StdlibLemma] | None] = {}

    def lemma(self, file: str, qualid: str) -> StdlibLemma | str:
        """The lemma, or why it cannot be found."""
        if file not in self._files:
            path = self.root / file
            self._files[file] = (
                {lemma.qualid: lemma for lemma in extract_file(path, self.root).lemmas}
                if path.is_file()
                else None
            )
        lemmas = self._files[file]
        if lemmas is None:
            return f"{file} is not under {self.root}"
        found = lemmas.get(qualid)
        return found if found is not None else f"{file} has no kept lemma {qualid}"


def restore(lines: Iterable[str], source: str, root: Path) -> Restored:
    """Restore the headers of the index ``lines`` (read from ``source``) from ``root``.

    Every bad line gets a message naming ``source``, its line number and the field.
    """
    library = _Library(root)
    result = Restored()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            result.errors.append(f"{where}: invalid JSON: {exc.msg}")
            continue
        if not isinstance(entry, dict):
            result.errors.append(f"{where}: expected a JSON object")
            continue
        missing = [key for key in REQUIRED if not isinstance(entry.get(key), str)]
        if missing:
            result.errors.append(f"{where}: field {missing[0]!r}: missing or not a string")
            continue
        if "header" in entry:
            result.errors.append(f"{where}: field 'header': an index line has no header")
            continue
        lemma = library.lemma(entry["file"], entry["qualid"])
        if isinstance(lemma, str):
            result.errors.append(f"{where}: field 'qualid': {lemma}")
            continue
        differs = [key for key in COMPARED if getattr(lemma, key) != entry[key]]
        if differs:
            result.errors.append(
                f"{where}: field {differs[0]!r}: differs from {lemma.file} line {lemma.line} "
                "(the installed stdlib is not the one this index was drawn from)"
            )
            continue
        result.records.append(full_record(entry, lemma.header))
    return result


def restore_file(index: Path, out: Path, root: Path) -> Restored:
    """Restore ``index`` into the theorem file ``out`` (the entries that could be)."""
    restored = restore(index.read_text(encoding="utf-8").splitlines(), str(index), root)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for record in restored.records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return restored
