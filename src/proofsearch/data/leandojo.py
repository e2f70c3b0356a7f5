"""Reading LeanDojo Benchmark 4 theorem files into :class:`TheoremFile`.

A LeanDojo Benchmark 4 file (``random/test.json`` ...) is a JSON list of objects
``{url, commit, file_path, full_name, start, end, traced_tactics}``. It does NOT hold
the statement's text: only where the theorem is (``start`` and ``end``, 1-based line
and column, as LeanDojo's ``Pos``) in ``file_path`` of the repository ``url`` at
``commit``. The statement is therefore read from a local checkout of that repository at
that commit: the text from ``start`` up to the ``:=`` that begins the proof. Without a
checkout, :func:`load_leandojo` raises :class:`LeanDojoSourceMissing`.

The header of each theorem is everything in its file before ``start`` (imports, opens,
namespaces, variables and earlier declarations): a statement inside ``namespace Foo``
with ``variable (x : α)`` means nothing without them. Theorems of the same file have
different headers, so the Lean backend runs one header per theorem.

Invalid entries are reported by file, index and field (like ``data/theorems.py``
reports lines), never dropped silently.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proofsearch.data.theorems import InvalidLine, TheoremFile
from proofsearch.env.lean.statements import mask_comments_and_strings
from proofsearch.theorem import Theorem


class LeanDojoError(ValueError):
    """The file is not a LeanDojo Benchmark 4 theorem list (not JSON, not a list)."""


class LeanDojoSourceMissing(LeanDojoError):
    """Statements cannot be read without the repository's source at the right commit."""


class LeanDojoEntry(BaseModel):
    """The schema of one LeanDojo Benchmark 4 entry (other fields are kept as extra)."""

    model_config = ConfigDict(extra="allow", strict=True)

    url: str = Field(min_length=1)
    commit: str = Field(min_length=1)
    file_path: str = Field(min_length=1)
    full_name: str = Field(min_length=1)
    start: tuple[int, int]
    end: tuple[int, int]
    traced_tactics: list[Any] = Field(default_factory=list)


@dataclass(frozen=True)
class InvalidEntry(InvalidLine):
    """An entry that could not be read; ``line`` holds its index in the JSON list."""

    def __str__(self) -> str:
        return f"{self.source}[{self.line}]: field '{self.field}': {self.message}"


def _offset(lines: list[str], line: int, column: int) -> int | None:
    """Character offset of a 1-based (line, column) position in the file's text."""
    if line < 1 or line > len(lines) or column < 1 or column > len(lines[line - 1]) + 1:
        return None
    return sum(len(text) + 1 for text in lines[: line - 1]) + column - 1


def _proof_start(text: str) -> int | None:
    """Index of the ``:=`` that ends the signature: the first outside brackets,
    comments and strings (``(x : ℕ := 0)`` is a default value, not the proof)."""
    masked = mask_comments_and_strings(text)
    depth = 0
    for index, char in enumerate(masked):
        if char in "([{⟨⦃":
            depth += 1
        elif char in ")]}⟩⦄":
            depth -= 1
        elif depth == 0 and masked.startswith(":=", index):
            return index
    return None


def _head_commit(repo: Path) -> str | None:
    if not (repo / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def parse_leandojo(data: Any, source: str, repo: str | Path | None) -> TheoremFile:
    """Turn a parsed LeanDojo Benchmark 4 list into theorems, reading statements from
    ``repo`` (a checkout of the entries' repository at their commit)."""
    if not isinstance(data, list):
        raise LeanDojoError(f"{source}: expected a JSON list of theorems")
    if repo is None:
        raise LeanDojoSourceMissing(
            f"{source}: LeanDojo Benchmark 4 gives each theorem's position (file_path, start,"
            " end at a commit), not its statement; pass a local checkout of the repository at"
            " that commit to read the statements from its source files"
        )
    root = Path(repo)
    if not root.is_dir():
        raise LeanDojoSourceMissing(f"{source}: the checkout {root} does not exist")
    head = _head_commit(root)
    result = TheoremFile()
    files: dict[str, list[str] | None] = {}
    seen: dict[str, int] = {}

    def invalid(index: int, field: str, message: str, name: str | None = None) -> None:
        result.invalid.append(InvalidEntry(source, index, field, message, name))

    for index, raw in enumerate(data):
        if not isinstance(raw, dict):
            invalid(index, "(entry)", "expected a JSON object")
            continue
        raw_name = raw.get("full_name") if isinstance(raw.get("full_name"), str) else None
        try:
            entry = LeanDojoEntry.model_validate({**raw, **_positions(raw)})
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"]) or "(entry)"
                invalid(index, where, error["msg"], raw_name)
            continue
        name = entry.full_name
        if head is not None and entry.commit != head:
            invalid(index, "commit", f"{entry.commit} but the checkout is at {head}", name)
            continue
        if entry.file_path not in files:
            path = root / entry.file_path
            try:
                files[entry.file_path] = path.read_text(encoding="utf-8").split("\n")
            except (OSError, UnicodeDecodeError):
                files[entry.file_path] = None
        lines = files[entry.file_path]
        if lines is None:
            invalid(index, "file_path", f"cannot read {entry.file_path} in {root}", name)
            continue
        start = _offset(lines, *entry.start)
        end = _offset(lines, *entry.end)
        if start is None:
            invalid(index, "start", f"{list(entry.start)} is outside {entry.file_path}", name)
            continue
        if end is None or end <= start:
            invalid(index, "end", f"{list(entry.end)} is not after start", name)
            continue
        text = "\n".join(lines)
        declaration = text[start:end]
        cut = _proof_start(declaration)
        if cut is None:
            invalid(index, "start", "no ':=' after the signature (pattern-matching proof?)", name)
            continue
        if name in seen:
            invalid(index, "full_name", f"duplicate name {name!r} (first at [{seen[name]}])", name)
            continue
        seen[name] = index
        extra = {k: v for k, v in raw.items() if k != "traced_tactics"}
        result.theorems.append(
            Theorem(
                name=name,
                statement=declaration[:cut].rstrip() + " := by",
                header=text[:start],
                extra=extra,
                source=f"{source}[{index}]",
            )
        )
    return result


def _positions(raw: dict[str, Any]) -> dict[str, Any]:
    """JSON has no tuples: accept ``[line, column]`` lists for the strict tuple fields."""
    fixed: dict[str, Any] = {}
    for key in ("start", "end"):
        value = raw.get(key)
        if isinstance(value, list):
            fixed[key] = tuple(value)
    return fixed


def load_leandojo(path: str | Path, repo: str | Path | None = None) -> TheoremFile:
    """Read a LeanDojo Benchmark 4 JSON file; ``repo`` is the checkout holding the source.

    Raises ``OSError`` if the file cannot be read, :class:`LeanDojoError` if it is not a
    JSON list, :class:`LeanDojoSourceMissing` without ``repo``.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LeanDojoError(f"{path}: invalid JSON: {exc}") from None
    return parse_leandojo(data, str(path), repo)
