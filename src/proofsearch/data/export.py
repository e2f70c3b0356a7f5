"""Exporting found proofs as source files that compile as they are.

One file per proved theorem. For Coq: exactly the text the re-checker compiles
(:func:`proofsearch.env.coq.checker.proof_script`), with a results line's
``header_suffix`` after the header (the Hammer import the ``hammer``/``sauto`` baselines'
proofs need) and the theorem's ``footer`` at the end (the ``End`` sentences of the
sections and modules a stdlib-benchmark header leaves open). For Lean: the header, then
the statement and the tactics as the Lean re-checker composes them (one per line,
indented under the statement's ``by``).

File names are valid Coq module names (``coqc`` refuses others) that are unique even on
case-insensitive file systems, and start with ``Proof_`` so that no exported file can
shadow a library module a header ``Require``s (``List.v`` next to ``Require Import
List.`` would). ``index.md`` and ``index.json`` map theorem names to files.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from proofsearch.data.jsonl import read_json_lines
from proofsearch.env.coq.checker import proof_script
from proofsearch.theorem import Theorem

PROVERS = ("coq", "lean")
EXTENSIONS = {"coq": ".v", "lean": ".lean"}
FILE_PREFIX = "Proof_"
#: Longest file stem written (file systems take 255 bytes; leave room for suffixes).
MAX_STEM = 120

_LEAN_HINT = re.compile(r"^\s*import\s+\w", re.M)


class ExportError(Exception):
    """The results file cannot be read at all."""


@dataclass(frozen=True)
class FoundProof:
    """A proved results line: the theorem's name, its tactics, whether it was checked."""

    name: str
    proof: tuple[str, ...]
    checked: bool
    line: int
    #: Sentences the proof needs after the theorem's header (a baseline's
    #: ``From Hammer Require Import Hammer.``), from the results line.
    header_suffix: str = ""


@dataclass
class ExportedFile:
    name: str
    path: str
    prover: str
    checked: bool
    tactics: int


@dataclass
class Export:
    """What :func:`export_proofs` wrote and what it could not."""

    files: list[ExportedFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped_unchecked: int = 0


def read_proofs(path: str | Path) -> tuple[list[FoundProof], list[str]]:
    """The proved lines of a results file, and ``file:line: why`` for unusable lines.

    A theorem listed twice keeps its last line.
    """
    found: dict[str, FoundProof] = {}
    problems: list[str] = []
    for line in read_json_lines(path, ExportError):
        if line.error is not None:
            problems.append(line.problem(line.invalid))
            continue
        data = line.value
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            problems.append(line.problem("expected an object with a string 'name'"))
            continue
        name = data["name"]
        if data.get("status") != "proved":
            found.pop(name, None)
            continue
        proof = data.get("proof")
        if not isinstance(proof, list) or not all(isinstance(t, str) for t in proof):
            problems.append(line.problem("field 'proof': expected a list of tactics"))
            continue
        suffix = data.get("header_suffix")
        found.pop(name, None)
        found[name] = FoundProof(
            name,
            tuple(proof),
            data.get("checked") is True,
            line.number,
            suffix if isinstance(suffix, str) else "",
        )
    return list(found.values()), problems


def guess_prover(theorem: Theorem) -> str:
    """``coq`` or ``lean`` for a theorem, when ``--prover`` is not given.

    A ``prover`` field of the theorem file wins. Otherwise: a Coq statement is one
    sentence, so it ends with ``.``; a Lean one does not (it ends with ``:= by``, ``:=``
    or the type), and a Lean header has ``import`` lines where Coq's say ``Require``.
    """
    given = theorem.extra.get("prover")
    if isinstance(given, str) and given.lower() in PROVERS:
        return given.lower()
    if not theorem.statement.rstrip().endswith(".") or _LEAN_HINT.search(theorem.header):
        return "lean"
    return "coq"


def coq_source(theorem: Theorem, proof: Iterable[str]) -> str:
    """The Coq file: the re-checker's script, then the theorem's ``footer`` if any."""
    text = proof_script(theorem.header, theorem.statement, list(proof))
    footer = theorem.extra.get("footer")
    if isinstance(footer, str) and footer.strip():
        text += footer.strip() + "\n"
    return text


def lean_source(theorem: Theorem, proof: Iterable[str]) -> str:
    """The Lean file: the header, then the statement and tactics as the Lean re-check
    runs them (``proof_text``: tactics indented under ``by``, ``:= by`` added if the
    statement lacks it)."""
    tactics = [tactic.strip("\n") for tactic in proof]
    try:
        from proofsearch.env.lean.statements import proof_text

        body = proof_text(theorem.statement, tactics)
    except ImportError:  # a build without the Lean backend
        body = theorem.statement.rstrip() + "".join(f"\n  {t.strip()}" for t in tactics)
    header = theorem.header.rstrip("\n")
    return (header + "\n\n" if header else "") + body + "\n"


def module_name(name: str, taken: set[str]) -> str:
    """A valid, unique (case-insensitively) Coq/Lean module name for a theorem name."""
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")
    stem = re.sub(r"_+", "_", stem) or "theorem"
    stem = (FILE_PREFIX + stem)[:MAX_STEM].rstrip("_")
    candidate, counter = stem, 2
    while candidate.lower() in taken:
        candidate = f"{stem}_{counter}"
        counter += 1
    taken.add(candidate.lower())
    return candidate


def export_proofs(
    proofs: Iterable[FoundProof],
    theorems: Mapping[str, Theorem],
    out: str | Path,
    *,
    prover: str | None = None,
    only_checked: bool = False,
    coq_args: Sequence[str] = (),
) -> Export:
    """Write one file per proof into ``out``, plus ``index.md``/``index.json``.

    ``prover`` forces ``coq`` or ``lean``; ``None`` guesses per theorem
    (:func:`guess_prover`). ``coq_args`` (the project's loadpath) go into the
    ``_CoqProject``, so that the files compile against the project they came from.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = Export()
    taken: set[str] = set()
    for found in proofs:
        if only_checked and not found.checked:
            result.skipped_unchecked += 1
            continue
        theorem = theorems.get(found.name)
        if theorem is None:
            result.problems.append(
                f"results line {found.line}: theorem {found.name!r} is not in the theorem file"
            )
            continue
        which = prover or guess_prover(theorem)
        if found.header_suffix.strip():
            header = theorem.header.rstrip()
            suffix = found.header_suffix.strip()
            theorem = replace(theorem, header=(header + "\n" if header else "") + suffix + "\n")
        stem = module_name(found.name, taken)
        filename = stem + EXTENSIONS[which]
        source = (coq_source if which == "coq" else lean_source)(theorem, found.proof)
        (out / filename).write_text(source, encoding="utf-8")
        result.files.append(
            ExportedFile(found.name, filename, which, found.checked, len(found.proof))
        )
    write_index(result, out, coq_args)
    return result


def coqproject_text(files: Sequence[str], coq_args: Sequence[str] = ()) -> str:
    """A ``_CoqProject``: the export folder as the empty prefix, the project's
    ``-R``/``-Q``/``-I`` lines, every other argument as ``-arg``, then the files."""
    lines = ['-Q . ""']
    i = 0
    while i < len(coq_args):
        width = {"-R": 3, "-Q": 3, "-I": 2}.get(coq_args[i], 0)
        if width and i + width <= len(coq_args):
            lines.append(" ".join(shlex.quote(a) for a in coq_args[i : i + width]))
            i += width
        else:
            lines.append(f"-arg {shlex.quote(coq_args[i])}")
            i += 1
    return "\n".join([*lines, *files]) + "\n"


def write_index(result: Export, out: Path, coq_args: Sequence[str] = ()) -> None:
    """``index.json`` (machine-readable), ``index.md`` and, for Coq, ``_CoqProject``."""
    records: list[dict[str, Any]] = [vars(item) for item in result.files]
    (out / "index.json").write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Exported proofs",
        "",
        f"{len(result.files)} proof(s). *checked*: the proof passed the from-scratch "
        "re-check when it was found.",
        "",
        "| theorem | file | checked | tactics |",
        "|---|---|---|---:|",
    ]
    for item in result.files:
        theorem = item.name.replace("|", "\\|")
        lines.append(
            f"| `{theorem}` | [{item.path}]({item.path}) | "
            f"{'yes' if item.checked else 'no'} | {item.tactics} |"
        )
    (out / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    coq_files = [item.path for item in result.files if item.prover == "coq"]
    if coq_files:
        (out / "_CoqProject").write_text(coqproject_text(coq_files, coq_args), encoding="utf-8")
