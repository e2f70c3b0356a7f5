"""A library benchmark: extract, sample, validate, with the counts of every stage.

One pipeline for every :class:`~proofsearch.bench.library.CoqLibrary` (the stdlib, an
installed library, a project). Lemmas that do not compile outside the library are
replaced by the next ones drawn from their part, so the sample keeps its size and
stratification.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofsearch.bench.library import CoqLibrary
from proofsearch.bench.stdlib_extract import SKIP_REASONS, Extraction, StdlibLemma
from proofsearch.bench.stdlib_sample import sample_stratified
from proofsearch.bench.stdlib_validate import (
    DEFAULT_TIMEOUT,
    VALIDATION_REASONS,
    Validation,
    ValidationCache,
    check_opens,
    validate_all,
)

#: What :func:`build_benchmark` does with the CoqProver open check.
OPEN_CHECKS = ("report", "reject", "off")


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
            "instances_left_out": ex.instances_left_out,
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
        if ex.instances_left_out:
            lines.append(
                f"named Instances left out: {ex.instances_left_out} (--instances makes those "
                "with a proof entries too)"
            )
        lines.append(f"lemmas skipped (no usable reference proof): {len(ex.skipped)}")
        for reason, count in ex.skipped_by_reason().most_common():
            lines.append(f"  {reason}: {count} ({SKIP_REASONS.get(reason, reason)})")
        if self.validated:
            drawn = len(self.sample) + len(self.rejected)
            lines.append(
                f"drawn and compiled: {drawn}; reference proofs dropped: {len(self.rejected)}"
            )
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


@dataclass
class _SampleValidator:
    """Decides, batch by batch, which drawn lemmas stay in the sample.

    A lemma stays when it compiles with ``coqc`` (and, with ``open_check="reject"``, also
    opens in CoqProver). Verdicts are cached, so a rebuilt sample compiles nothing twice.
    """

    store: ValidationCache
    jobs: int | None
    coqc: str
    args: tuple[str, ...]
    timeout: float
    progress: Callable[[StdlibLemma, Validation], None] | None
    open_check: str
    rejected: list[tuple[StdlibLemma, Validation]] = field(default_factory=list)
    open_failures: list[tuple[StdlibLemma, Validation]] = field(default_factory=list)

    def __call__(self, batch: list[StdlibLemma]) -> list[bool]:
        self._compile(batch)
        verdicts = [self.store.get(lemma, "coqc") for lemma in batch]
        if self.open_check != "off":
            self._open(batch, verdicts)
        if self.open_check == "reject":
            verdicts = [
                self._open_verdict(lemma, verdict)
                for lemma, verdict in zip(batch, verdicts, strict=True)
            ]
        return [self._keep(lemma, verdict) for lemma, verdict in zip(batch, verdicts, strict=True)]

    def _compile(self, batch: list[StdlibLemma]) -> None:
        todo = [lemma for lemma in batch if self.store.get(lemma, "coqc") is None]
        verdicts = validate_all(
            todo,
            jobs=self.jobs,
            coqc=self.coqc,
            args=self.args,
            timeout=self.timeout,
            progress=self.progress,
        )
        for lemma, verdict in zip(todo, verdicts, strict=True):
            self.store.put(lemma, "coqc", verdict)

    def _open(self, batch: list[StdlibLemma], compiled: list[Validation | None]) -> None:
        todo = [
            lemma
            for lemma, verdict in zip(batch, compiled, strict=True)
            if verdict is not None and verdict.ok and self.store.get(lemma, "open") is None
        ]
        for lemma, verdict in zip(todo, check_opens(todo, self.progress, self.args), strict=True):
            self.store.put(lemma, "open", verdict)
        for lemma in batch:
            opened = self.store.get(lemma, "open")
            if opened is not None and not opened.ok:
                self.open_failures.append((lemma, opened))

    def _open_verdict(self, lemma: StdlibLemma, compiled: Validation | None) -> Validation | None:
        """With ``open_check="reject"``: a lemma that compiled is judged by its open."""
        opened = self.store.get(lemma, "open")
        return opened if compiled is not None and compiled.ok and opened is not None else compiled

    def _keep(self, lemma: StdlibLemma, verdict: Validation | None) -> bool:
        assert verdict is not None
        compiled = self.store.get(lemma, "coqc")
        if verdict.ok and compiled is not None:
            lemma.allowed_axioms = compiled.axioms
        else:
            self.rejected.append((lemma, verdict))
        return verdict.ok


def build_benchmark(
    library: CoqLibrary,
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
    instances: bool = False,
) -> Benchmark:
    """Extract, sample (all lemmas when ``sample`` is None) and validate; ``instances``:
    named ``Instance``s with a proof are entries too.

    Validation compiles each drawn lemma with ``coqc`` (and reads its axioms); a lemma
    that fails is replaced by the next one drawn from its part. ``open_check`` then
    opens the lemmas that compiled in :class:`CoqProver`: ``report`` lists the ones
    that fail there (the sample stays defined by Coq alone, so a prover bug shows as
    an error to fix rather than silently reshaping the benchmark), ``reject`` replaces
    them too, ``off`` skips the check.
    """
    if open_check not in OPEN_CHECKS:
        raise ValueError(f"open_check must be one of {', '.join(OPEN_CHECKS)}")
    extraction = library.extract(instances)
    validator = _SampleValidator(
        ValidationCache(cache), jobs, coqc, tuple(library.args), timeout, progress, open_check
    )
    n = len(extraction.lemmas) if sample is None else sample
    chosen = sample_stratified(extraction.lemmas, n, seed, validator if validate_sample else None)
    benchmark = Benchmark(extraction, chosen, validator.rejected, validated=validate_sample)
    if open_check == "report":
        kept = {lemma.name for lemma in chosen}
        benchmark.open_failures = [(x, v) for x, v in validator.open_failures if x.name in kept]
    return benchmark


def iter_records(lemmas: Iterable[StdlibLemma]) -> Iterator[dict[str, Any]]:
    for lemma in lemmas:
        yield lemma.to_record()
