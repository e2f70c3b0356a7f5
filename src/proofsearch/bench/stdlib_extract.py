"""The stdlib benchmark's first stage: lemmas read from the ``.v`` files, no Coq needed.

The protocol is CoqHammer's and Tactician's stdlib evaluations: a lemma may use
everything that precedes it in its file (``Require``s, definitions, notations, earlier
lemmas) and nothing else of that file, so the lemma itself and everything after it are
out of reach. The header is therefore the file's prefix, sentence by sentence (comments
between sentences dropped to keep headers small), and it is compiled in a fresh
``coqc``/``coqidetop`` *outside* the library: the file's own logical path (say
``Coq.Arith.PeanoNat``) is not loaded, because loading it would load the lemma.

:func:`extract_library` parses every ``.v`` file and keeps the lemmas whose header can
stand alone: not in ``Init/`` (the prelude that every ``coqc`` loads already contains
them), not inside a ``Module Type`` or a functor (their constants do not exist until
the functor is applied), with a proof that ends in ``Qed.``/``Defined.`` and a
``Proof.`` line that can be replaced by a plain ``Proof.``. Lemmas inside an open
``Section`` or plain ``Module`` are kept: the header ends inside the section
(coqidetop accepts it), and the entry's ``footer`` holds the ``End`` sentences a ``.v``
file needs before ``coqc`` accepts it. What is left out is counted by reason
(:data:`SKIP_REASONS`). The later stages are :mod:`~proofsearch.bench.stdlib_sample`,
:mod:`~proofsearch.bench.stdlib_validate` and :mod:`~proofsearch.bench.stdlib_build`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.env.coq import vernac
from proofsearch.env.coq.sentences import Sentence, SentenceError, split_sentences
from proofsearch.env.coq.vernac import SCOPE_WORDS, Scope, ScopeStack, command_of

#: Keywords that state a lemma with a proof (``Example`` is left out: stdlib examples
#: are tests, not lemmas; ``Definition``/``Let``/``Instance`` with tactic bodies build
#: data, whose transparency later lemmas may rely on).
LEMMA_KEYWORDS = vernac.LEMMA_KEYWORDS

_PREFIXES = vernac.PREFIXES
_ENDERS = vernac.PROOF_ENDERS
_IDENT = vernac.IDENT


#: Why a lemma was not kept, with the explanation printed in summaries.
SKIP_REASONS: dict[str, str] = {
    "init": "in Init/: every coqc loads the prelude, which already contains the lemma",
    "in_module_type": "inside a Module Type: it is a field of a signature, not a constant",
    "in_functor": "inside a functor: its constants exist only once the functor is applied",
    "admitted": "ends in Admitted: there is no reference proof",
    "aborted": "ends in Abort",
    "proof_with": "opens with 'Proof with TAC.': its '...' need the default tactic",
    "mutual": "mutual statement ('with'): not one goal",
    "no_proof_end": "no Qed/Defined found before the next command",
    "unsplittable_file": "the file cannot be split into sentences",
    "unbalanced_end": "an End that closes no open Section/Module precedes it",
    "duplicate_name": "its qualified name is declared twice in the file",
    "anonymous_instance": "an Instance without a name: nothing to hole or print",
    "given_body": "its value is given with := (a Program Instance's obligations follow): "
    "no proof of the statement",
}


# -- parsing ---------------------------------------------------------------------


@dataclass
class StdlibLemma:
    """One lemma of a stdlib file, with everything needed to write its entry."""

    file: str
    part: str
    line: int
    keyword: str
    ident: str
    #: Qualified name inside the file: enclosing modules (not sections) and ident.
    qualid: str
    statement: str
    reference_proof: str
    ends_with: str
    scopes: tuple[Scope, ...]
    #: Index of the statement among the file's sentences (the header is the rest).
    index: int
    sentences: Sequence[Sentence] = field(repr=False, default=())
    allowed_axioms: tuple[str, ...] = ()
    #: The file's logical name (``Coq.Arith.PeanoNat``, ``mathcomp.ssreflect.seq``):
    #: what ``--index`` scopes the lemma by, and what its header must never load.
    module: str = ""

    @property
    def name(self) -> str:
        """Unique across the library: the file and the qualified identifier."""
        return f"{self.file}:{self.qualid}"

    @property
    def header(self) -> str:
        """Every sentence before the statement, one per line, comments between dropped.

        Open modules with a signature are opened without it (see :class:`Scope`).
        """
        texts = [s.text for s in self.sentences[: self.index]]
        for scope in self.scopes:
            if scope.unsealed is not None:
                texts[scope.index] = scope.unsealed
        return "\n".join(texts) + ("\n" if texts else "")

    @property
    def footer(self) -> str:
        """The ``End`` sentences that close the sections and modules open at the lemma."""
        return "\n".join(scope.closer for scope in reversed(self.scopes))

    def script(self, proof: str | None = None) -> str:
        """The whole ``.v`` text: header, statement, proof, ``Qed.``, footer."""
        body = self.reference_proof if proof is None else proof
        parts = [self.header.rstrip(), self.statement, "Proof.", body, "Qed.", self.footer]
        return "\n".join(part for part in parts if part) + "\n"

    def to_record(self) -> dict[str, Any]:
        """The theorem-file line (``name``, ``statement``, ``header`` and extra fields)."""
        return {
            "name": self.name,
            "statement": self.statement,
            "header": self.header,
            "footer": self.footer,
            "qualid": self.qualid,
            "reference_proof": self.reference_proof,
            "allowed_axioms": list(self.allowed_axioms),
            **({"module": self.module} if self.module else {}),
            "file": self.file,
            "line": self.line,
            "part": self.part,
            "keyword": self.keyword,
            "scopes": [f"{s.kind} {s.name}" for s in self.scopes],
            "ends_with": self.ends_with,
        }


@dataclass(frozen=True)
class Skipped:
    """A lemma that was left out, and why (a key of :data:`SKIP_REASONS`)."""

    file: str
    line: int
    ident: str
    reason: str


@dataclass
class Extraction:
    """What :func:`extract_library` found: kept lemmas, skipped ones, files read."""

    lemmas: list[StdlibLemma] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    files: int = 0
    files_unsplittable: list[str] = field(default_factory=list)
    #: Named ``Instance``s, not entries without ``instances`` (said in the summary: on a
    #: typeclass library they were a fifth of the proofs, and not counted anywhere).
    instances_left_out: int = 0

    @property
    def found(self) -> int:
        return len(self.lemmas) + len(self.skipped)

    def skipped_by_reason(self) -> Counter[str]:
        return Counter(s.reason for s in self.skipped)

    def kept_by_scope(self) -> Counter[str]:
        """Kept lemmas by where they sit: top level, in a section, in a module."""
        counts: Counter[str] = Counter()
        for lemma in self.lemmas:
            kinds = {s.kind for s in lemma.scopes}
            counts["top_level" if not kinds else "+".join(sorted(kinds))] += 1
        return counts

    def kept_by_part(self) -> Counter[str]:
        return Counter(lemma.part for lemma in self.lemmas)

    def merge(self, other: Extraction) -> None:
        self.lemmas += other.lemmas
        self.skipped += other.skipped
        self.files += other.files
        self.files_unsplittable += other.files_unsplittable
        self.instances_left_out += other.instances_left_out


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _reference_proof(
    text: str, sentences: Sequence[Sentence], start: int
) -> tuple[str, str, int] | str:
    """Read the proof after the statement at ``start``: (proof, ender, end index) or reason."""
    body = start + 1
    if body >= len(sentences):
        return "no_proof_end"
    first = command_of(sentences[body].text)
    if first.word == "Proof":
        rest = first.bare[len("Proof") :].strip()
        if rest == ".":
            body += 1
        elif first.words[1:2] == ("using",):
            body += 1  # Coq infers the section variables a proof uses
        elif first.words[1:2] == ("with",):
            return "proof_with"
        else:  # ``Proof term.`` ends the proof by itself
            term = rest[:-1].strip()
            return f"exact ({term}).", "term", body
    for index in range(body, len(sentences)):
        command = command_of(sentences[index].text)
        if vernac.is_proof_ender(command):
            proof = (
                text[sentences[body].start : sentences[index].start].strip()
                if (index > body)
                else ""
            )
            ender = _ENDERS[command.word]
            if ender in ("admitted", "aborted"):
                return ender
            return proof, ender, index
        if (
            command.word in LEMMA_KEYWORDS
            or command.word in SCOPE_WORDS | {"Require"}
            or (command.word == "Proof" and index > body)
        ):
            return "no_proof_end"
    return "no_proof_end"


def extract_file(
    path: Path,
    root: Path,
    *,
    module: str = "",
    part: str | None = None,
    prelude_parts: frozenset[str] = frozenset({"Init"}),
    functors: bool = False,
    instances: bool = False,
) -> Extraction:
    """Parse one ``.v`` file of the library rooted at ``root`` (no Coq involved).

    ``part`` (the stratum of the sample) defaults to the file's top-level folder;
    lemmas of a part in ``prelude_parts`` are skipped (``init``): the stdlib's
    ``Init/`` is loaded by every ``coqc``. ``module`` is the file's logical name.
    ``functors``: keep the lemmas inside functors (``prove`` fills such holes; a
    benchmark whose re-check names the lemma after its footer cannot). ``instances``:
    named ``Instance``s with a proof count as lemmas too (``prove`` fills them).
    """
    keywords = (LEMMA_KEYWORDS | {"Instance"}) if instances else LEMMA_KEYWORDS
    relative = path.relative_to(root).as_posix()
    if part is None:
        part = relative.split("/", 1)[0] if "/" in relative else "(top)"
    result = Extraction(files=1)
    text = path.read_text(encoding="utf-8")
    try:
        sentences = split_sentences(text)
    except SentenceError:
        result.files_unsplittable.append(relative)
        for match in re.finditer(
            rf"^\s*(?:{'|'.join(sorted(LEMMA_KEYWORDS))})\s+({_IDENT})", text, re.M
        ):
            line = _line_of(text, match.start())
            result.skipped.append(Skipped(relative, line, match.group(1), "unsplittable_file"))
        return result
    stack = ScopeStack()
    seen: set[str] = set()
    index = 0
    while index < len(sentences):
        sentence = sentences[index]
        command = command_of(sentence.text)
        stack.apply(command, index)
        scopes = stack.scopes
        if command.word not in keywords:
            if command.word == "Instance" and command.ident:
                result.instances_left_out += 1
            index += 1
            continue
        ident = command.ident
        line = _line_of(text, sentence.start)
        kinds = {s.kind for s in scopes}
        reason: str | None = None
        if part in prelude_parts:
            reason = "init"
        elif not ident and command.word == "Instance":
            reason = "anonymous_instance"
        elif "module_type" in kinds:
            reason = "in_module_type"
        elif "functor" in kinds and not functors:
            reason = "in_functor"
        elif stack.broken:
            reason = "unbalanced_end"
        elif vernac.is_mutual(command):
            reason = "mutual"
        elif vernac.gives_body(command):
            reason = "given_body"
        proof = _reference_proof(text, sentences, index)
        if isinstance(proof, str):
            reason = reason or proof
            end = index + 1
        else:
            end = proof[2] + 1
        qualid = ".".join([*(s.name for s in scopes if s.kind in ("module", "functor")), ident])
        if reason is None and qualid in seen:
            reason = "duplicate_name"
        seen.add(qualid)
        if reason is not None:
            result.skipped.append(Skipped(relative, line, ident, reason))
        else:
            assert not isinstance(proof, str)
            result.lemmas.append(
                StdlibLemma(
                    file=relative,
                    part=part,
                    line=line,
                    keyword=command.word,
                    ident=ident,
                    qualid=qualid,
                    statement=sentence.text,
                    reference_proof=proof[0],
                    ends_with=proof[1],
                    scopes=tuple(scopes),
                    index=index,
                    sentences=sentences,
                    module=module,
                )
            )
        index = max(end, index + 1)
    return result


def default_root(coqc: str = "coqc") -> Path:
    """The installed stdlib's sources: ``$(coqc -where)/theories`` for Coq 8.x,
    ``$(coqc -where)/user-contrib/Stdlib`` for Rocq 9 (see :mod:`~proofsearch.env.coq.version`)."""
    from proofsearch.env.coq.version import stdlib_root

    return stdlib_root(coqc)


def library_files(root: Path) -> list[Path]:
    """The library's ``.v`` files in a fixed order."""
    return sorted(root.rglob("*.v"))


def extract_library(root: Path, files: Iterable[Path] | None = None) -> Extraction:
    """Parse every ``.v`` file under ``root`` (or the given ones)."""
    result = Extraction()
    for path in files if files is not None else library_files(root):
        result.merge(extract_file(path, root))
    return result
