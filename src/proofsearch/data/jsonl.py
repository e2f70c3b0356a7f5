"""Reading JSONL files: one JSON value a line, each problem named ``path:line``.

The theorem files and the results files are both JSONL. Every reader of them goes
through :func:`json_lines`, so blank lines, line numbers and undecodable lines are
treated the same everywhere; what a line must hold is each caller's business.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line: its decoded value, or why it could not be decoded."""

    source: str
    number: int
    value: Any = None
    #: ``json.JSONDecodeError``, or ``UnicodeDecodeError`` for bytes that are no UTF-8.
    error: ValueError | None = None

    @property
    def where(self) -> str:
        """``path:line``, the prefix of every message about this line."""
        return f"{self.source}:{self.number}"

    @property
    def invalid(self) -> str:
        """``invalid JSON: why``, without the decoder's position inside the line."""
        if not isinstance(self.error, json.JSONDecodeError):
            return f"invalid JSON: {self.error}"
        # The decoder's message ends where its position was ("Invalid control character
        # at"): cut there, and say what such a character is.
        why = self.error.msg.removesuffix(" at")
        if why == "Invalid control character":
            why += " inside a string (a raw tab or line break: write it \\t or \\n)"
        return f"invalid JSON: {why}"

    def problem(self, why: str) -> str:
        """``path:line: why``."""
        return f"{self.where}: {why}"


def json_lines(lines: Iterable[str | bytes], source: str | Path) -> Iterator[JsonLine]:
    """Decode each non-blank line of ``lines`` (numbered from 1) as JSON."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            yield JsonLine(str(source), number, error=exc)
            continue
        data = raw if isinstance(raw, bytes) else raw.encode()
        if b"\\ud" in data or b"\\uD" in data:  # a surrogate's escape, lone or paired
            try:  # "\ud800" alone decodes to no character: nothing downstream can write it
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                no_text = ValueError("a lone surrogate escape (\\ud800-\\udfff) is no character")
                yield JsonLine(str(source), number, error=no_text)
                continue
        yield JsonLine(str(source), number, value)


def read_json_lines(path: str | Path, unreadable: Callable[[str], Exception]) -> Iterator[JsonLine]:
    """The lines of the file at ``path``; a file that cannot be opened raises
    ``unreadable("path: cannot read: why")``."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise unreadable(f"{path}: cannot read: {exc.strerror or exc}") from None
    with handle:
        yield from json_lines(handle, path)
