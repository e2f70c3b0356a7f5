"""A benchmark from the Coq standard library: each lemma with its file's prefix as header.

The protocol is CoqHammer's and Tactician's stdlib evaluations: a lemma may use
everything that precedes it in its file (``Require``s, definitions, notations, earlier
lemmas) and nothing else of that file, so the lemma itself and everything after it are
out of reach. The header is therefore the file's prefix, sentence by sentence (comments
between sentences dropped to keep headers small), and it is compiled in a fresh
``coqc``/``coqidetop`` *outside* the library: the file's own logical path (say
``Coq.Arith.PeanoNat``) is not loaded, because loading it would load the lemma.

Three stages, each with counts by reason so that what was left out is never silent:

1. :func:`extract_library` parses every ``.v`` file (no Coq needed) and keeps the
   lemmas whose header can stand alone: not in ``Init/`` (the prelude that every
   ``coqc`` loads already contains them), not inside a ``Module Type`` or a functor
   (their constants do not exist until the functor is applied), with a proof that ends
   in ``Qed.``/``Defined.`` and a ``Proof.`` line that can be replaced by a plain
   ``Proof.``. Lemmas inside an open ``Section`` or plain ``Module`` are kept: the
   header ends inside the section (coqidetop accepts it), and the entry's ``footer``
   holds the ``End`` sentences a ``.v`` file needs before ``coqc`` accepts it.
2. :func:`sample_stratified` draws a seeded sample, stratified by the library's parts.
3. :func:`validate` compiles header + statement + ``Proof.`` + reference proof +
   ``Qed.`` + footer with ``coqc`` and reads ``Print Assumptions`` of the result, which
   gives the axioms the reference proof rests on (``allowed_axioms``); lemmas that do
   not compile outside the library are replaced by the next ones drawn from their part.
   :func:`check_opens` then opens the kept lemmas in :class:`CoqProver` as the search
   does, and reports (or, on request, replaces) those that fail there.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import random
import re
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.env.coq import vernac
from proofsearch.env.coq.checker import parse_assumptions
from proofsearch.env.coq.sentences import Sentence, SentenceError, split_sentences
from proofsearch.env.coq.vernac import Scope, ScopeStack, command_of

#: Keywords that state a lemma with a proof (``Example`` is left out: stdlib examples
#: are tests, not lemmas; ``Definition``/``Let``/``Instance`` with tactic bodies build
#: data, whose transparency later lemmas may rely on).
LEMMA_KEYWORDS = vernac.LEMMA_KEYWORDS

_PREFIXES = vernac.PREFIXES
_ENDERS = vernac.PROOF_ENDERS
_IDENT = vernac.IDENT
_MUTUAL = re.compile(rf"\bwith\s+{_IDENT}\s*[(:{{]")
#: The module name coqc gives the compiled check file (a plain identifier that no
#: stdlib file uses).
CHECK_MODULE = "StdlibBench"
#: Seconds a ``coqc`` run may take.
DEFAULT_TIMEOUT = 300.0
#: What :func:`build_benchmark` does with the CoqProver open check.
OPEN_CHECKS = ("report", "reject", "off")


# -- reasons ---------------------------------------------------------------------

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
}

#: Why a drawn lemma failed validation.
VALIDATION_REASONS: dict[str, str] = {
    "header_fails": "the header does not compile outside the library",
    "statement_fails": "the statement is rejected after the header",
    "proof_fails": "the reference proof does not compile outside the library",
    "footer_fails": "closing the open sections/modules fails",
    "timeout": "compiling took longer than the limit",
    "assumptions_fail": "Print Assumptions could not be read",
    "idetop_fails": "coqc accepts it but it does not open in CoqProver (coqidetop, sentence by"
    " sentence as the search sends it)",
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
        return "\n".join(f"End {scope.name}." for scope in reversed(self.scopes))

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
            or command.word in ("Section", "Module", "End", "Require")
            or (command.word == "Proof" and index > body)
        ):
            return "no_proof_end"
    return "no_proof_end"


def extract_file(path: Path, root: Path) -> Extraction:
    """Parse one ``.v`` file of the library rooted at ``root`` (no Coq involved)."""
    relative = path.relative_to(root).as_posix()
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
        if command.word not in LEMMA_KEYWORDS:
            index += 1
            continue
        ident = command.ident
        line = _line_of(text, sentence.start)
        kinds = {s.kind for s in scopes}
        reason: str | None = None
        if part == "Init":
            reason = "init"
        elif "module_type" in kinds:
            reason = "in_module_type"
        elif "functor" in kinds:
            reason = "in_functor"
        elif stack.broken:
            reason = "unbalanced_end"
        elif _MUTUAL.search(command.bare):
            reason = "mutual"
        proof = _reference_proof(text, sentences, index)
        if isinstance(proof, str):
            reason = reason or proof
            end = index + 1
        else:
            end = proof[2] + 1
        qualid = ".".join([*(s.name for s in scopes if s.kind == "module"), ident])
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
                )
            )
        index = max(end, index + 1)
    return result


def default_root(coqc: str = "coqc") -> Path:
    """``$(coqc -where)/theories``, where Debian's package installs the sources."""
    where = subprocess.run([coqc, "-where"], capture_output=True, text=True, check=True)
    return Path(where.stdout.strip()) / "theories"


def library_files(root: Path) -> list[Path]:
    """The library's ``.v`` files in a fixed order."""
    return sorted(root.rglob("*.v"))


def extract_library(root: Path, files: Iterable[Path] | None = None) -> Extraction:
    """Parse every ``.v`` file under ``root`` (or the given ones)."""
    result = Extraction()
    for path in files if files is not None else library_files(root):
        result.merge(extract_file(path, root))
    return result


# -- sampling --------------------------------------------------------------------


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Split ``n`` draws over strata proportionally (largest remainder), at least 1 each.

    Every part of the library with a lemma gets one, so small parts (``Array``,
    ``funind``) are represented; the rest follows the parts' sizes.
    """
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    quota = {part: min(1, size) for part, size in sizes.items()}
    left = n - sum(quota.values())
    if left <= 0:
        return quota
    shares = {part: left * size / total for part, size in sizes.items()}
    for part, share in shares.items():
        quota[part] = min(sizes[part], quota[part] + int(share))
    order = sorted(sizes, key=lambda p: (-(shares[p] - int(shares[p])), p))
    while sum(quota.values()) < n:
        progressed = False
        for part in order:
            if sum(quota.values()) >= n:
                break
            if quota[part] < sizes[part]:
                quota[part] += 1
                progressed = True
        if not progressed:
            break
    return quota


def stratified_order(lemmas: Sequence[StdlibLemma], seed: int) -> dict[str, list[StdlibLemma]]:
    """Each part's lemmas in a seeded random order (deterministic across runs)."""
    by_part: dict[str, list[StdlibLemma]] = defaultdict(list)
    for lemma in sorted(lemmas, key=lambda item: item.name):
        by_part[lemma.part].append(lemma)
    for part in sorted(by_part):
        random.Random(f"{seed}:{part}").shuffle(by_part[part])
    return dict(sorted(by_part.items()))


def sample_stratified(
    lemmas: Sequence[StdlibLemma],
    n: int,
    seed: int,
    accept: Callable[[list[StdlibLemma]], list[bool]] | None = None,
) -> list[StdlibLemma]:
    """``n`` lemmas stratified by part; with ``accept``, rejected draws are replaced.

    ``accept`` judges a batch of candidates (it compiles them); a rejected candidate is
    replaced by the next one of its part's seeded order, so the sample stays
    deterministic and keeps each part's quota while the part has lemmas left.
    """
    order = stratified_order(lemmas, seed)
    quota = allocate({part: len(items) for part, items in order.items()}, n)
    chosen: dict[str, list[StdlibLemma]] = {part: [] for part in order}
    position = dict.fromkeys(order, 0)
    while True:
        batch: list[StdlibLemma] = []
        for part, items in order.items():
            need = quota[part] - len(chosen[part])
            take = items[position[part] : position[part] + max(need, 0)]
            position[part] += len(take)
            batch += take
        if not batch:
            break
        verdicts = accept(batch) if accept is not None else [True] * len(batch)
        for lemma, ok in zip(batch, verdicts, strict=True):
            if ok:
                chosen[lemma.part].append(lemma)
    picked = [lemma for part in order for lemma in chosen[part]]
    return sorted(picked, key=lambda item: (item.file, item.line))


# -- validation ------------------------------------------------------------------


@dataclass(frozen=True)
class Validation:
    """The verdict of compiling a lemma outside the library."""

    ok: bool
    reason: str = ""
    message: str = ""
    axioms: tuple[str, ...] = ()
    seconds: float = 0.0
    #: Which check: ``coqc`` (compile and axioms) or ``open`` (CoqProver).
    check: str = "coqc"


_ERROR_LINE = re.compile(r'File "[^"]*", line (\d+)')


def _classify_failure(lemma: StdlibLemma, script: str, stderr: str) -> str:
    """Say which part of the script the first error is in."""
    match = _ERROR_LINE.search(stderr)
    if not match:
        return "proof_fails"
    line = int(match.group(1))
    header_lines = lemma.header.rstrip().count("\n") + 1 if lemma.header.strip() else 0
    statement_end = header_lines + lemma.statement.count("\n") + 1
    footer_start = (
        script.rstrip("\n").count("\n") + 1 - (lemma.footer.count("\n") + 1 if lemma.footer else 0)
    )
    if line <= header_lines:
        return "header_fails"
    if line <= statement_end:
        return "statement_fails"
    if lemma.footer and line > footer_start:
        return "footer_fails"
    return "proof_fails"


def validate(
    lemma: StdlibLemma,
    *,
    coqc: str = "coqc",
    args: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
) -> Validation:
    """Compile the lemma with its reference proof and read its ``Print Assumptions``.

    Two ``coqc`` runs, as in the proof re-checker: the script, then a file that only
    ``Require``s it and prints the assumptions of the lemma's qualified name.
    """
    start = time.perf_counter()
    script = lemma.script()
    with tempfile.TemporaryDirectory(prefix="proofsearch-stdlib-") as tmp:
        folder = Path(tmp)
        (folder / f"{CHECK_MODULE}.v").write_text(script)
        (folder / "Assumptions.v").write_text(
            f"Require {CHECK_MODULE}.\nSet Printing Width 100000.\n"
            f"Print Assumptions {CHECK_MODULE}.{lemma.qualid}.\n"
        )
        try:
            compiled = subprocess.run(
                [coqc, *args, "-Q", str(folder), "", f"{CHECK_MODULE}.v"],
                cwd=folder, capture_output=True, text=True, timeout=timeout, check=False,
            )  # fmt: skip
            if compiled.returncode != 0:
                return Validation(
                    False,
                    _classify_failure(lemma, script, compiled.stderr),
                    compiled.stderr.strip()[-2000:],
                    seconds=time.perf_counter() - start,
                )
            printed = subprocess.run(
                [coqc, *args, "-Q", str(folder), "", "Assumptions.v"],
                cwd=folder, capture_output=True, text=True, timeout=timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return Validation(False, "timeout", f"more than {timeout:g} s")
    seconds = time.perf_counter() - start
    if printed.returncode != 0:
        return Validation(False, "assumptions_fail", printed.stderr.strip()[-2000:], (), seconds)
    clean, axioms, other = parse_assumptions(printed.stdout)
    if not clean:
        return Validation(False, "assumptions_fail", other or printed.stdout[-2000:], (), seconds)
    # Axioms the header declares print as ``StdlibBench.foo`` here and as
    # ``ProofsearchCheck.foo`` in the re-checker, which also accepts the bare name.
    prefix = f"{CHECK_MODULE}."
    names = tuple(a.rsplit(".", 1)[-1] if a.startswith(prefix) else a for a in axioms)
    return Validation(True, axioms=names, seconds=seconds)


def validate_all(
    lemmas: Sequence[StdlibLemma],
    *,
    jobs: int | None = None,
    coqc: str = "coqc",
    args: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    progress: Callable[[StdlibLemma, Validation], None] | None = None,
) -> list[Validation]:
    """Validate lemmas in parallel (``coqc`` processes; threads only wait on them)."""
    workers = jobs or max(1, os.cpu_count() or 1)
    results: list[Validation | None] = [None] * len(lemmas)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(validate, lemma, coqc=coqc, args=args, timeout=timeout): i
            for i, lemma in enumerate(lemmas)
        }
        for future in concurrent.futures.as_completed(futures):
            i = futures[future]
            verdict = results[i] = future.result()
            if progress is not None:
                progress(lemmas[i], verdict)
    return [r for r in results if r is not None]


# -- the whole pipeline ----------------------------------------------------------


@dataclass
class Benchmark:
    """A sample and the counts of every stage (for the summary and the README)."""

    extraction: Extraction
    sample: list[StdlibLemma]
    rejected: list[tuple[StdlibLemma, Validation]] = field(default_factory=list)
    validated: bool = False
    #: Sample lemmas that compile but do not open in CoqProver (``open_check="report"``).
    open_failures: list[tuple[StdlibLemma, Validation]] = field(default_factory=list)

    def rejected_by_reason(self) -> Counter[str]:
        return Counter(v.reason for _, v in self.rejected)

    def counts(self) -> dict[str, Any]:
        """The counts of :meth:`summary`, as JSON-ready data."""
        ex = self.extraction
        return {
            "files": ex.files,
            "files_unsplittable": ex.files_unsplittable,
            "found": ex.found,
            "kept": len(ex.lemmas),
            "kept_by_scope": dict(sorted(ex.kept_by_scope().items())),
            "kept_by_part": dict(sorted(ex.kept_by_part().items())),
            "skipped_by_reason": dict(ex.skipped_by_reason().most_common()),
            "validated": self.validated,
            "rejected_by_reason": dict(self.rejected_by_reason().most_common()),
            "rejected": [
                {"name": lemma.name, "reason": v.reason, "message": v.message[-500:]}
                for lemma, v in self.rejected
            ],
            "sample": len(self.sample),
            "sample_by_part": dict(sorted(Counter(x.part for x in self.sample).items())),
            "sample_with_axioms": sum(1 for x in self.sample if x.allowed_axioms),
            "open_failures": [
                {"name": lemma.name, "message": v.message[-500:]} for lemma, v in self.open_failures
            ],
        }

    def summary(self) -> str:
        """A plain-text summary: found, kept, skipped by reason, sample by part."""
        ex = self.extraction
        lines = [
            f"files read: {ex.files} ({len(ex.files_unsplittable)} unsplittable)",
            f"lemmas found: {ex.found}",
            f"lemmas kept: {len(ex.lemmas)}",
        ]
        for scope, count in sorted(ex.kept_by_scope().items()):
            lines.append(f"  {scope}: {count}")
        lines.append(f"lemmas skipped: {len(ex.skipped)}")
        for reason, count in ex.skipped_by_reason().most_common():
            lines.append(f"  {reason}: {count} ({SKIP_REASONS.get(reason, reason)})")
        if self.validated:
            drawn = len(self.sample) + len(self.rejected)
            lines.append(f"drawn and compiled: {drawn}; rejected: {len(self.rejected)}")
            for reason, count in self.rejected_by_reason().most_common():
                lines.append(f"  {reason}: {count} ({VALIDATION_REASONS.get(reason, reason)})")
        lines.append(f"sample: {len(self.sample)}")
        by_part = Counter(lemma.part for lemma in self.sample)
        lines.append("  " + ", ".join(f"{p} {c}" for p, c in sorted(by_part.items())))
        with_axioms = sum(1 for lemma in self.sample if lemma.allowed_axioms)
        if self.validated:
            lines.append(f"sample lemmas resting on axioms: {with_axioms}")
        if self.open_failures:
            lines.append(
                f"sample lemmas that compile but do not open in CoqProver: "
                f"{len(self.open_failures)} (kept; a prover bug to fix)"
            )
            for lemma, verdict in self.open_failures:
                message = " ".join(verdict.message.split())
                lines.append(f"  {lemma.name}: {message[:150]}...{message[-150:]}")
        return "\n".join(lines)


class ValidationCache:
    """Verdicts already computed, kept in a JSONL file so a rebuild does not recompile.

    The key hashes everything a verdict depends on (the script and the qualified name,
    and which check it is), so a changed header or proof is validated again.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, Validation] = {}
        if path is not None and path.exists():
            for raw in path.read_text(encoding="utf-8").splitlines():
                try:
                    data = json.loads(raw)
                    key = data.pop("key")
                    data["axioms"] = tuple(data["axioms"])
                    self.entries[key] = Validation(**data)
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue

    @staticmethod
    def key(lemma: StdlibLemma, check: str) -> str:
        digest = hashlib.sha256(f"{check}\0{lemma.qualid}\0{lemma.script()}".encode())
        return f"{check}:{lemma.name}:{digest.hexdigest()[:24]}"

    def get(self, lemma: StdlibLemma, check: str) -> Validation | None:
        return self.entries.get(self.key(lemma, check))

    def put(self, lemma: StdlibLemma, check: str, verdict: Validation) -> None:
        key = self.key(lemma, check)
        self.entries[key] = verdict
        if self.path is not None:
            record = {"key": key, **dataclasses.asdict(verdict)}
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")


def check_opens(
    lemmas: Sequence[StdlibLemma],
    progress: Callable[[StdlibLemma, Validation], None] | None = None,
) -> list[Validation]:
    """Open each lemma in :class:`CoqProver`, as the search will, in file order.

    ``coqc`` accepting a header is not enough: the search sends it to coqidetop one
    sentence at a time, after the project's own sentence splitter, and any sentence
    it splits differently from Coq fails there. Opening in file order lets the
    prover's line cache share each file's prefix.
    """
    from proofsearch.env.base import EnvError
    from proofsearch.env.coq.backend import CoqProver
    from proofsearch.theorem import Theorem

    order = sorted(range(len(lemmas)), key=lambda i: (lemmas[i].file, lemmas[i].index))
    verdicts: dict[int, Validation] = {}
    with CoqProver() as prover:
        for i in order:
            lemma = lemmas[i]
            record = lemma.to_record()
            theorem = Theorem(record.pop("name"), record.pop("statement"), record.pop("header"))
            start = time.perf_counter()
            try:
                prover.open(theorem).close()
                verdict = Validation(True, seconds=time.perf_counter() - start, check="open")
            except EnvError as exc:
                prover.restart()
                verdict = Validation(
                    False, "idetop_fails", str(exc)[-2000:],
                    seconds=time.perf_counter() - start, check="open",
                )  # fmt: skip
            verdicts[i] = verdict
            if progress is not None:
                progress(lemma, verdict)
    return [verdicts[i] for i in range(len(lemmas))]


def build_benchmark(
    root: Path,
    *,
    sample: int | None,
    seed: int = 0,
    validate_sample: bool = True,
    jobs: int | None = None,
    coqc: str = "coqc",
    timeout: float = DEFAULT_TIMEOUT,
    progress: Callable[[StdlibLemma, Validation], None] | None = None,
    cache: Path | None = None,
    open_check: str = "report",
) -> Benchmark:
    """Extract, sample (all lemmas when ``sample`` is None) and validate.

    Validation compiles each drawn lemma with ``coqc`` (and reads its axioms); a lemma
    that fails is replaced by the next one drawn from its part. ``open_check`` then
    opens the lemmas that compiled in :class:`CoqProver`: ``report`` lists the ones
    that fail there (the sample stays defined by Coq alone, so a prover bug shows as
    an error to fix rather than silently reshaping the benchmark), ``reject`` replaces
    them too, ``off`` skips the check.
    """
    if open_check not in OPEN_CHECKS:
        raise ValueError(f"open_check must be one of {', '.join(OPEN_CHECKS)}")
    extraction = extract_library(root)
    rejected: list[tuple[StdlibLemma, Validation]] = []
    open_failures: list[tuple[StdlibLemma, Validation]] = []
    store = ValidationCache(cache)

    def accept(batch: list[StdlibLemma]) -> list[bool]:
        todo = [lemma for lemma in batch if store.get(lemma, "coqc") is None]
        for lemma, verdict in zip(
            todo,
            validate_all(todo, jobs=jobs, coqc=coqc, timeout=timeout, progress=progress),
            strict=True,
        ):
            store.put(lemma, "coqc", verdict)
        verdicts = [store.get(lemma, "coqc") for lemma in batch]
        if open_check != "off":
            todo = [
                lemma
                for lemma, verdict in zip(batch, verdicts, strict=True)
                if verdict is not None and verdict.ok and store.get(lemma, "open") is None
            ]
            for lemma, verdict in zip(todo, check_opens(todo, progress), strict=True):
                store.put(lemma, "open", verdict)
            opened = [store.get(lemma, "open") for lemma in batch]
            open_failures.extend(
                (lemma, verdict)
                for lemma, verdict in zip(batch, opened, strict=True)
                if verdict is not None and not verdict.ok
            )
        if open_check == "reject":
            verdicts = [
                opened if verdict is not None and verdict.ok and opened is not None else verdict
                for verdict, opened in zip(
                    verdicts, (store.get(lemma, "open") for lemma in batch), strict=True
                )
            ]
        ok: list[bool] = []
        for lemma, verdict in zip(batch, verdicts, strict=True):
            assert verdict is not None
            compiled = store.get(lemma, "coqc")
            if verdict.ok and compiled is not None:
                lemma.allowed_axioms = compiled.axioms
            else:
                rejected.append((lemma, verdict))
            ok.append(verdict.ok)
        return ok

    n = len(extraction.lemmas) if sample is None else sample
    chosen = sample_stratified(extraction.lemmas, n, seed, accept if validate_sample else None)
    benchmark = Benchmark(extraction, chosen, rejected, validated=validate_sample)
    if open_check == "report":
        kept = {lemma.name for lemma in chosen}
        benchmark.open_failures = [(x, v) for x, v in open_failures if x.name in kept]
    return benchmark


def iter_records(lemmas: Iterable[StdlibLemma]) -> Iterator[dict[str, Any]]:
    for lemma in lemmas:
        yield lemma.to_record()


# -- header leak check (tests and users) -------------------------------------------

_DECLARING = (
    "Theorem|Lemma|Fact|Remark|Corollary|Proposition|Property|Example|Definition|"
    "Fixpoint|CoFixpoint|Inductive|CoInductive|Record|Structure|Class|Instance|Let|"
    "Axiom|Parameter|Conjecture|Variable|Hypothesis|Function|Notation"
)


def declares(header: str, qualid: str) -> bool:
    """Whether ``header`` declares ``qualid`` (a lemma must not leak into its header).

    ``qualid`` is module-qualified (``Nat.add_comm``) and so is the check: the same
    identifier declared in another module of the file (``Generic.paradox`` before
    ``PropNeqType.paradox`` in ``Logic/Hurkens.v``) is a different constant.
    """
    *modules, ident = qualid.split(".")
    pattern = re.compile(
        rf"^\s*(?:#\[[^\]]*\]\s*)*(?:(?:{'|'.join(_PREFIXES)})\s+)*(?:{_DECLARING})\s+"
        rf"{re.escape(ident)}(?![A-Za-z0-9_'])"
    )
    stack = ScopeStack()
    for sentence in split_sentences(header):
        command = command_of(sentence.text)
        stack.apply(command)
        if pattern.match(command.bare) and stack.module_path() == modules:
            return True
    return False
