"""Reading theorem files (JSONL, one theorem a line) with errors that name file, line, field.

Fields: ``name`` (required, unique), ``statement`` (required; ``formal_statement`` is
accepted as a synonym, as in miniF2F files), ``header`` (optional). Every other field is
kept and copied to the results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proofsearch.data.jsonl import json_lines
from proofsearch.theorem import Theorem


class TheoremLine(BaseModel):
    """The schema of one line of a theorem file."""

    model_config = ConfigDict(extra="allow", strict=True)

    name: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    header: str = ""
    # Optional fields the re-check (and knn's scope: ``learn_from``) reads, kept in the
    # theorem's ``extra``: typed here so that a mistyped one is refused with its field
    # named, before any work, not misread later.
    allowed_axioms: list[str] | None = None
    any_axiom: bool | None = None
    footer: str | None = None
    qualid: str | None = None
    functor_parameters: list[str] | None = None
    #: Print the assumptions inside the checked file, before the footer (a lemma that
    #: cannot be named after it: inside Hierarchy-Builder's ``HB.builders``).
    check_in_place: bool | None = None
    learn_from: list[str] | None = None
    #: Refuse a statement whose type is data (``prove`` sets it on every hole):
    #: :mod:`proofsearch.env.coq.data_probe`.
    propositions_only: bool | None = None
    #: ``Hint Rewrite`` databases the theorem may use (``prove`` sets it from the
    #: project): the portfolio's ``autorewrite with {rewrite_db}``.
    rewrite_databases: list[str] | None = None
    #: Relations with a setoid instance the theorem may rewrite along (``prove`` sets
    #: it from the project): the portfolio's ``rewrite {rel_hyp}``.
    setoid_relations: list[str] | None = None
    # A theorem's place in a traced project (``--index``): ``"line": "6"`` was accepted
    # and failed inside the run, one ``error`` row per theorem.
    module: str | None = None
    file: str | None = None
    line: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _synonyms(cls, data: Any) -> Any:
        if isinstance(data, dict) and "statement" not in data and "formal_statement" in data:
            data = dict(data)
            data["statement"] = data.pop("formal_statement")
        return data


#: The optional fields :class:`TheoremLine` types and hands on in ``extra``.
CHECKED_FIELDS = (
    "allowed_axioms", "any_axiom", "footer", "qualid", "functor_parameters", "check_in_place",
    "learn_from", "propositions_only", "rewrite_databases", "setoid_relations",
    "module", "file", "line",
)  # fmt: skip


@dataclass(frozen=True)
class InvalidLine:
    """A line that could not be read, and why."""

    source: str
    line: int
    field: str
    message: str
    name: str | None = None

    def __str__(self) -> str:
        if self.field == "(line)":  # the whole line: no field to name
            return f"{self.source}:{self.line}: {self.message}"
        return f"{self.source}:{self.line}: field '{self.field}': {self.message}"


@dataclass
class TheoremFile:
    """The theorems of a file, and the lines that were rejected."""

    theorems: list[Theorem] = field(default_factory=list)
    invalid: list[InvalidLine] = field(default_factory=list)


def parse_theorem_lines(lines: Iterable[str], source: str) -> TheoremFile:
    """Parse JSONL text; every bad line is reported, none is dropped silently."""
    result = TheoremFile()
    seen: dict[str, int] = {}
    for entry in json_lines(lines, source):
        number, data = entry.number, entry.value
        if entry.error is not None:
            message = entry.invalid  # without the decoder's "line 1 column 2"
            result.invalid.append(InvalidLine(source, number, "(line)", message))
            continue
        if not isinstance(data, dict):
            result.invalid.append(InvalidLine(source, number, "(line)", "expected a JSON object"))
            continue
        raw_name = data.get("name") if isinstance(data.get("name"), str) else None
        try:
            line = TheoremLine.model_validate(data)
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"]) or "(line)"
                if where == "statement" and error["type"] == "missing":
                    message = "missing (give 'statement' or 'formal_statement')"
                else:
                    message = error["msg"]
                result.invalid.append(InvalidLine(source, number, where, message, raw_name))
            continue
        if line.name in seen:
            result.invalid.append(
                InvalidLine(
                    source,
                    number,
                    "name",
                    f"duplicate name {line.name!r} (first on line {seen[line.name]})",
                    line.name,
                )
            )
            continue
        seen[line.name] = number
        extra = dict(line.model_extra or {})
        extra.update(
            (field, value)
            for field in CHECKED_FIELDS
            if (value := getattr(line, field)) is not None
        )
        result.theorems.append(
            Theorem(
                name=line.name,
                statement=line.statement,
                header=line.header,
                extra=extra,
                source=f"{source}:{number}",
            )
        )
    return result


def load_theorems(path: str | Path) -> TheoremFile:
    """Read a theorem file; an unreadable file raises ``OSError``."""
    path = Path(path)
    with path.open(encoding="utf-8") as handle:
        return parse_theorem_lines(handle, str(path))
