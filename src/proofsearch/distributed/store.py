"""The results file: one JSON object a line, appended, flushed and fsynced per result.

A result is on disk before the run moves on, so a run killed at any moment (SIGKILL
included) loses at most the theorems that were in flight. ``--resume`` reads the file
back: every theorem with a final result is skipped; a last line torn by the kill is cut
off before anything new is appended.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from proofsearch.data.jsonl import json_lines
from proofsearch.search.result import Status


class ResultsFileError(Exception):
    """The results file cannot be used as asked (exists without --resume, unreadable)."""


@dataclass
class ExistingResults:
    """What a results file already holds."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    torn_tail: bool = False
    problems: list[str] = field(default_factory=list)


def read_results(path: str | Path) -> ExistingResults:
    """Read a results file, tolerating a torn last line (reported, not fatal)."""
    path = Path(path)
    existing = ExistingResults()
    if not path.exists():
        return existing
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        existing.torn_tail = True
        lines.pop()
    for line in json_lines(lines, path):
        if line.error is not None:
            existing.problems.append(line.problem(f"unreadable result line ({line.error})"))
            continue
        record = line.value
        try:
            name = record["name"]
            Status(record["status"])
        except (KeyError, TypeError, ValueError) as exc:
            existing.problems.append(line.problem(f"unreadable result line ({exc})"))
            continue
        existing.records[name] = record
    return existing


class ResultsStore:
    """Appends results durably; knows which theorems are already done."""

    def __init__(
        self,
        path: str | Path,
        *,
        resume: bool = False,
        overwrite: bool = False,
        retry_statuses: Iterable[Status] = (),
    ) -> None:
        self.path = Path(path)
        retry = {str(s) for s in retry_statuses}
        self.existing = ExistingResults()
        if self.path.exists() and self.path.stat().st_size > 0:
            if resume:
                self.existing = read_results(self.path)
                if self.existing.torn_tail:
                    self._cut_torn_tail()
            elif not overwrite:
                raise ResultsFileError(
                    f"{self.path} already exists: pass --resume to continue that run "
                    "or --overwrite to start again"
                )
        if retry:
            self.existing.records = {
                name: record
                for name, record in self.existing.records.items()
                if record["status"] not in retry
            }
        self._mode: Literal["ab", "wb"] = "ab" if resume else "wb"
        self._file: BinaryIO | None = None
        #: Called once, when the first result opens the file (the CLI records the run's
        #: settings then: a run that wrote nothing is no run of this file).
        self.on_open: Callable[[], None] | None = None

    def open(self) -> None:
        """Open (``--overwrite``: empty) the file; until then nothing on disk has changed."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open(self._mode)
            if self.on_open is not None:
                self.on_open()

    def _cut_torn_tail(self) -> None:
        data = self.path.read_bytes()
        keep = data.rfind(b"\n") + 1
        with self.path.open("r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())

    def done(self, name: str) -> bool:
        """Whether ``name`` already has a final result in the file."""
        return name in self.existing.records

    def append(self, record: dict[str, Any]) -> None:
        """Write one result and make it durable before returning."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        self.open()
        assert self._file is not None
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ResultsStore:
        """The file is opened (``--overwrite``: emptied) by the first result, not here: a
        run that fails before any (a cluster it cannot join) leaves the file as it was,
        and creates none."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
