"""The stdlib benchmark's third stage: each drawn lemma compiled outside the library.

:func:`validate` compiles header + statement + ``Proof.`` + reference proof + ``Qed.`` +
footer with ``coqc`` and reads ``Print Assumptions`` of the result, which gives the
axioms the reference proof rests on (``allowed_axioms``). :func:`check_opens` opens the
kept lemmas in :class:`CoqProver` as the search does. Verdicts are cached
(:class:`ValidationCache`) so that a rebuild does not recompile.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from proofsearch.bench.stdlib_extract import StdlibLemma
from proofsearch.env.coq.checker import parse_assumptions

#: The module name coqc gives the compiled check file (a plain identifier that no
#: stdlib file uses).
CHECK_MODULE = "StdlibBench"
#: Seconds a ``coqc`` run may take.
DEFAULT_TIMEOUT = 300.0


#: Why a drawn lemma failed validation.
VALIDATION_REASONS: dict[str, str] = {
    "header_fails": "the header does not compile outside the library",
    "statement_fails": "the statement is rejected after the header",
    "proof_fails": "the reference proof does not compile outside the library",
    "footer_fails": "closing the open sections/modules fails",
    "timeout": "compiling took longer than the limit",
    "assumptions_fail": "Print Assumptions could not be read",
    "header_leaks": "the header loads the lemma's own module (or one that requires it) from"
    " the installed library, so the lemma would be reachable",
    "idetop_fails": "coqc accepts it but it does not open in CoqProver (coqidetop, sentence by"
    " sentence as the search sends it)",
}


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


#: What ``Print Libraries`` prints before the loaded libraries.
LIBRARIES_MARK = "Loaded library files:"


def loaded_names(printed: str) -> frozenset[str]:
    """The logical names in ``Print Libraries``' list (the text after its mark)."""
    return frozenset(word for word in printed.split() if re.fullmatch(r"[\w.']+", word))


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
    ``Require``s it and prints the assumptions of the lemma's qualified name, and the
    libraries loaded (``Print Libraries``). Those are exactly the header's (with their
    transitive requires): if the lemma's own ``module`` is among them, a compiled copy
    of the lemma is in reach (``header_leaks``). A later module (one requiring the
    lemma's) cannot be loaded without loading the lemma's too, so this covers both.
    """
    start = time.perf_counter()
    script = lemma.script()
    with tempfile.TemporaryDirectory(prefix="proofsearch-stdlib-") as tmp:
        folder = Path(tmp)
        (folder / f"{CHECK_MODULE}.v").write_text(script)
        (folder / "Assumptions.v").write_text(
            f"Require {CHECK_MODULE}.\nSet Printing Width 100000.\n"
            f"Print Assumptions {CHECK_MODULE}.{lemma.qualid}.\n"
            f"Print Libraries.\n"
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
    assumptions, _, libraries = printed.stdout.partition(LIBRARIES_MARK)
    if lemma.module and lemma.module in loaded_names(libraries):
        return Validation(
            False,
            "header_leaks",
            f"the header loads {lemma.module}, the lemma's own module",
            seconds=seconds,
        )
    clean, axioms, other = parse_assumptions(assumptions)
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
        text = f"{check}\0{lemma.qualid}\0{lemma.module}\0{lemma.script()}"
        digest = hashlib.sha256(text.encode())
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
    args: Sequence[str] = (),
) -> list[Validation]:
    """Open each lemma in :class:`CoqProver`, as the search will, in file order.

    ``coqc`` accepting a header is not enough: the search sends it to coqidetop one
    sentence at a time, after the project's own sentence splitter, and any sentence
    it splits differently from Coq fails there. Opening in file order lets the
    prover's line cache share each file's prefix.
    """
    from proofsearch.env.base import EnvError
    from proofsearch.env.coq.backend import CoqConfig, CoqProver
    from proofsearch.theorem import Theorem

    order = sorted(range(len(lemmas)), key=lambda i: (lemmas[i].file, lemmas[i].index))
    verdicts: dict[int, Validation] = {}
    with CoqProver(CoqConfig(args=tuple(args))) as prover:
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
