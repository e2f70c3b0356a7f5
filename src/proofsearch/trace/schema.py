"""The records a trace is made of, and the reader of a trace folder.

A trace folder (``proofsearch trace --out DIR``) holds one shard per traced source file:

- ``DIR/files/<module>.steps.jsonl``: one :class:`ProofStep` a line;
- ``DIR/files/<module>.premises.jsonl``: one :class:`Premise` a line;
- ``DIR/files/<module>.meta.json``: one :class:`FileRecord` (dependencies, key, status);
- ``DIR/project.json``: one :class:`ProjectRecord`, the project's folder and the Coq
  arguments (loadpath) its files were traced with, so that ``search``, ``check`` and
  ``export`` given the trace as ``--index`` need no ``--coq-arg``. Traces written before
  it was recorded have none: :meth:`TraceDir.project` returns ``None`` for them.

``<module>`` is the file's logical name (``Coq.Arith.PeanoNat``). The records are the
product: people who train models read them directly, so every field is plain JSON and
documented in ``docs/trace.md``. ``offset`` fields (character offsets in the source)
order declarations within a file, which is what "declared before this lemma" needs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

#: Version of the on-disk format; bumped when a field changes meaning.
FORMAT_VERSION = 1

SEPARATOR = "============================"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Hypothesis(_Record):
    """A hypothesis as Coq prints it: ``x, y : nat`` or ``n := 3 : nat``."""

    names: list[str]
    type: str
    body: str | None = None

    def render(self) -> str:
        body = f" := {self.body}" if self.body is not None else ""
        return f"{', '.join(self.names)}{body} : {self.type}"


class Goal(_Record):
    """One goal: its hypotheses and its conclusion."""

    hypotheses: list[Hypothesis]
    conclusion: str

    def render(self) -> str:
        """The goal as text, laid out as the Coq backend shows goals to generators."""
        return "\n".join((*(h.render() for h in self.hypotheses), SEPARATOR, self.conclusion))


class ProofStep(_Record):
    """One tactic sentence inside a proof, with the goals it was run on."""

    file: str
    module: str
    #: The lemma's qualified name (``Coq.Arith.PeanoNat.Nat.add_comm``).
    lemma: str
    #: Character offset of the lemma's statement in the file (orders it among premises).
    lemma_offset: int
    #: 0-based index of this step among the lemma's tactic sentences.
    index: int
    #: 1-based line and character offset of the tactic sentence.
    line: int
    offset: int
    #: The focused goals before the step; the first is the one the step works on.
    goals: list[Goal]
    background: int
    shelved: int
    given_up: int = 0
    #: The tactic sentence exactly as written, without bullets or braces.
    tactic: str
    #: Bullets and braces that came right before the tactic (``["-"]``, ``["{", "+"]``).
    structure: list[str] = []
    #: The step closed the goal it worked on (no new goal took its place).
    closed_goal: bool


PremiseKind = Literal[
    "Lemma",
    "Theorem",
    "Definition",
    "Fixpoint",
    "CoFixpoint",
    "Inductive",
    "CoInductive",
    "Record",
    "Constructor",
    "Instance",
    "Axiom",
    "Parameter",
    "Primitive",
    "Scheme",
    "Projection",
    "Included",
    "Other",
]


class Premise(_Record):
    """A constant a file declares, with its statement (its type, as Coq prints it)."""

    name: str
    kind: str
    statement: str
    file: str
    module: str
    line: int
    offset: int
    #: A declaration inside a functor's body (or one of its parameters' fields): named
    #: as the body names it (``X.op_comm``, ``twice_idem``), and a premise only there:
    #: the line of the functor's ``End``. ``None``: a constant of the library.
    until: int | None = None


class FileError(_Record):
    line: int
    message: str


class FileRecord(_Record):
    """What a shard is about: the file, what it requires, and the key that makes it fresh."""

    format: int = FORMAT_VERSION
    file: str
    module: str
    #: Logical names of the files this one requires (direct dependencies).
    requires: list[str]
    #: Each required module → the line of the first ``Require`` that loads it (0: not
    #: found in the text). ``None`` in shards written before this field existed.
    require_lines: dict[str, int] | None = None
    #: sha256 of the source, the loadpath arguments and the Coq version together.
    key: str
    coq_version: str
    status: Literal["traced", "failed"]
    error: FileError | None = None
    lemmas: int = 0
    steps: int = 0
    premises: int = 0
    seconds: float = 0.0
    #: Each proof that ends in ``Admitted`` (by qualified name) → the goals still open
    #: at ``Admitted`` (``[]``: none; ``None``: goals were left outside the focus, in the
    #: background or shelved). ``prove`` searches those goals instead of the whole
    #: statement, keeping the user's tactics. ``None`` in shards written before it
    #: (``prove`` traces such a file again, :func:`proofsearch.project.learn.trace_project`).
    admitted: dict[str, list[Goal] | None] | None = None
    #: Each proof of :attr:`admitted` → the offset of its statement in the file: the
    #: name Coq gave a Program obligation (``f_obligation_2``), which the file's text
    #: cannot tell, for the hole at that place. ``None`` in shards written before it.
    admitted_at: dict[str, int] | None = None


class ProjectRecord(_Record):
    """What a trace was made from: the project folder and its Coq arguments."""

    format: int = FORMAT_VERSION
    name: str
    #: Absolute path of the project folder; a :class:`FileRecord`'s ``file`` is relative
    #: to it (or absolute, for a file outside it).
    root: str
    #: ``-R``/``-Q``/``-I`` with absolute folders, and the ``-arg`` values, in order:
    #: exactly what coqidetop and coqc need to load the project's files.
    coq_args: list[str]


PROJECT_FILE = "project.json"


def write_project(root: str | Path, record: ProjectRecord) -> None:
    """Record (or replace) the trace's :class:`ProjectRecord`, atomically."""
    path = Path(root) / PROJECT_FILE
    temporary = path.with_name(PROJECT_FILE + ".tmp")
    temporary.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


_R = TypeVar("_R", bound=_Record)


class TraceFormatError(ValueError):
    """A trace file is malformed; the message names the file and line."""


def _read_jsonl(path: Path, model: type[_R]) -> Iterator[_R]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield model.model_validate_json(line)
            except ValidationError as error:
                raise TraceFormatError(f"{path}:{number}: {error}") from None


#: The shards of one module: its steps, its premises, and its record (written last).
ShardKind = Literal["steps", "premises", "meta"]
SHARD_KINDS: tuple[ShardKind, ...] = ("steps", "premises", "meta")


class TraceDir:
    """Read access to a trace folder, by module."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not (self.root / "files").is_dir():
            raise TraceFormatError(f"{self.root}: not a trace folder (no files/ inside)")

    def shard(self, module: str, kind: ShardKind) -> Path:
        suffix = "meta.json" if kind == "meta" else f"{kind}.jsonl"
        return self.root / "files" / f"{module}.{suffix}"

    def modules(self) -> set[str]:
        """The modules this folder has a record of, by their shards' names (nothing read)."""
        return {
            path.name[: -len(".meta.json")] for path in (self.root / "files").glob("*.meta.json")
        }

    def project(self) -> ProjectRecord | None:
        """The project the trace was made from; ``None`` for a trace older than the record."""
        path = self.root / PROJECT_FILE
        if not path.exists():
            return None
        try:
            return ProjectRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, ValidationError) as error:
            raise TraceFormatError(f"{path}: {error}") from None

    def files(self) -> list[FileRecord]:
        """Every shard's record, sorted by module."""
        records = []
        for path in sorted((self.root / "files").glob("*.meta.json")):
            try:
                records.append(FileRecord.model_validate(json.loads(path.read_text())))
            except (ValueError, ValidationError) as error:
                raise TraceFormatError(f"{path}: {error}") from None
        return records

    def steps(self, module: str) -> Iterator[ProofStep]:
        return _read_jsonl(self.shard(module, "steps"), ProofStep)

    def premises(self, module: str) -> Iterator[Premise]:
        return _read_jsonl(self.shard(module, "premises"), Premise)

    def dependencies(self) -> dict[str, list[str]]:
        """Module → the modules it requires directly."""
        return {record.module: record.requires for record in self.files()}

    def closure(self, module: str) -> set[str]:
        """Every module ``module`` depends on, directly or not (itself excluded)."""
        graph = self.dependencies()
        seen: set[str] = set()
        todo = list(graph.get(module, []))
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(graph.get(name, []))
        return seen
