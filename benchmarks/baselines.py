"""Baselines for the Coq benchmarks: one-shot portfolio, CoqHammer's ``hammer``, ``sauto``.

Each baseline runs on a slice of a theorem file with the same budget per theorem and
writes a results file in exactly the format of :meth:`SearchResult.to_record`, so that
``proofsearch report`` puts them beside search runs. As in the search, a proof is
reported ``proved`` only after :meth:`CoqProver.check` re-checked it from scratch; a
proof the re-check rejects is reported as ``error`` with the proof in
``rejected_proof``.

* ``one-shot``: every tactic of the default Coq portfolio (templates instantiated on
  the root goal) applied once to the root; no search.
* ``hammer``: CoqHammer's ``hammer`` (premise selection, external ATPs, proof
  reconstruction), run by ``coqc`` because the reconstruction tactic it prints is what
  gets re-checked (coqidetop's notices do not reach :class:`CoqProver`).
* ``sauto``: CoqHammer's ``sauto`` alone, through :class:`CoqProver` like the search.

Leaks: ``From Hammer Require Import ...`` loads a large part of the stdlib (``Bool``,
``Arith``, ``ZArith``, ``Lists``...), often including the lemma's own file, so ``hammer``
would happily "prove" ``Bool.andb_true_iff`` with ``use: Bool.andb_true_iff``. For
theorems with a ``file`` field (the stdlib benchmark), the libraries the Hammer import
loads beyond the header's own are therefore (1) filtered out of hammer's premise
selection (``Add Hammer Filter``), and (2) checked after the fact: a re-checked proof
whose ``Print All Dependencies`` names a constant of such a library (each name located
to its full path, so math-comp's ``eqtype.Equality`` is not the stdlib's
``Program.Equality``) is reported as an ``error`` ("leak"), like a proof the re-check
rejects. A theorem's own library is its ``module`` field (the library benchmarks), else
the stdlib module of its ``file``.

The ``hammer`` and ``sauto`` results carry ``header_suffix`` (the Hammer import their
proofs need after the theorem's header); ``proofsearch export`` appends it.

Timing: the budget covers proving (the tactics), not loading the header; the header's
time is reported in ``header_time``. ``total_time`` is proving plus re-check.
Published anchors on the whole stdlib (Tactician 39.3 %, CoqHammer 40.8 % with ~40 s
on 8 CPUs, both 56.7 %) are printed beside the results; they are not comparable
one-to-one with a sample and a different budget.

Usage (the sample restored first: ``proofsearch bench restore-coq-stdlib
benchmarks/coq/stdlib-sample.index.jsonl --out benchmarks/coq/stdlib-sample.jsonl``)::

    python benchmarks/baselines.py one-shot benchmarks/coq/stdlib-sample.jsonl \\
        --slice 0:20 --budget 30 --out-dir out/baselines
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from proofsearch.cli.errors import CommandError
from proofsearch.cli.traces import recorded_coq_args
from proofsearch.data.theorems import load_theorems
from proofsearch.env.base import EnvError, ProofSession, ProofState, Proved, TacticTimeout
from proofsearch.env.coq.backend import CoqConfig, CoqProver
from proofsearch.env.coq.checker import proof_script, statement_name
from proofsearch.env.coq.leaks import dependency_names, leaked, locate_script, located_paths
from proofsearch.env.coq.version import binary_version, stdlib_module
from proofsearch.generate.portfolio import PortfolioGenerator, default_tactics
from proofsearch.search.result import CHECK_DISAGREEMENT, SearchResult, Status, error_result
from proofsearch.theorem import Theorem
from proofsearch.trace.schema import TraceDir, TraceFormatError

BASELINES = ("one-shot", "hammer", "sauto")
#: Published results on the whole Coq standard library.
ANCHORS: tuple[tuple[str, float], ...] = (
    ("Tactician (published)", 39.3),
    ("CoqHammer (published, ~40 s, 8 CPUs)", 40.8),
    ("Tactician + CoqHammer (published)", 56.7),
)
#: Where Debian's libcoq-hammer installs ``predict`` and ``htimeout``, which the
#: plugin calls by name (without them on PATH it cannot run CVC4).
HAMMER_LIBEXEC = "/usr/libexec/coq-hammer"
HAMMER_IMPORT = "From Hammer Require Import Hammer."
TACTICS_IMPORT = "From Hammer Require Import Tactics."


@dataclass(frozen=True)
class BaselineConfig:
    """The budget and the Coq options every baseline shares."""

    #: Wall-clock seconds of proving per theorem.
    budget: float = 30.0
    #: Per-tactic limit of the one-shot baseline (capped by what is left of the budget).
    tactic_timeout: float = 5.0
    #: Tactics per ``apply_all`` batch in the one-shot baseline (the budget is checked
    #: between batches).
    batch: int = 8
    #: ``Set Hammer GSMode``: strategies run in parallel (CoqHammer advises the core count).
    hammer_gsmode: int = max(1, os.cpu_count() or 1)
    coq: CoqConfig = field(default_factory=CoqConfig)


def with_header_suffix(theorem: Theorem, line: str) -> Theorem:
    """``theorem`` with ``line`` appended to its header.

    Appending (rather than prepending) leaves every header sentence as it was, and a
    ``Require`` is accepted inside the sections a stdlib header may leave open.
    """
    header = theorem.header.rstrip()
    return replace(theorem, header=(header + "\n" if header else "") + line + "\n")


def _check(
    prover: CoqProver, theorem: Theorem, proof: list[str], result: SearchResult
) -> SearchResult:
    """Re-check ``proof``; a rejected proof turns the result into an ``error``."""
    start = time.perf_counter()
    verdict = prover.check(theorem, proof)
    result.check_time = time.perf_counter() - start
    result.total_time += result.check_time
    if verdict.ok:
        result.status = Status.PROVED
        result.proof = proof
        result.checked = True
        if verdict.axioms:
            result.extra["axioms"] = list(verdict.axioms)
    else:
        result.status = Status.ERROR
        result.error = f"the baseline found a proof but the re-check rejected it: {verdict.message}"
        result.extra["rejected_proof"] = proof
        if verdict.disagreement:
            result.extra[CHECK_DISAGREEMENT] = True
    return result


def open_timed(
    prover: CoqProver, target: Theorem, theorem: Theorem
) -> tuple[ProofSession, float] | SearchResult:
    """Open ``target`` and time its header; a header that fails is ``theorem``'s error."""
    opened = time.perf_counter()
    try:
        session = prover.open(target)
    except EnvError as exc:
        result = error_result(theorem, str(exc))
        result.extra["header_time"] = round(time.perf_counter() - opened, 6)
        return result
    return session, time.perf_counter() - opened


# -- one-shot --------------------------------------------------------------------


def one_shot(theorem: Theorem, prover: CoqProver, config: BaselineConfig) -> SearchResult:
    """Apply each portfolio tactic once to the root goal, best first, within the budget."""
    opened = open_timed(prover, theorem, theorem)
    if isinstance(opened, SearchResult):
        return opened
    session, header_time = opened
    start = time.perf_counter()
    generator = PortfolioGenerator(default_tactics("coq"))
    suggestions = generator.generate(session.root.text, theorem, 10_000)
    actor_time = time.perf_counter() - start
    tactics = [s.tactic for s in suggestions]
    keys: set[str] = set()
    proof: list[str] | None = None
    tried = 0
    timed_out = False
    env_start = time.perf_counter()
    try:
        for first in range(0, len(tactics), config.batch):
            left = config.budget - (time.perf_counter() - start)
            if left <= 0:
                timed_out = True
                break
            batch = tactics[first : first + config.batch]
            outcomes = session.apply_all(session.root, batch, min(config.tactic_timeout, left))
            tried += len(batch)
            for tactic, outcome in zip(batch, outcomes, strict=True):
                if isinstance(outcome, Proved) and proof is None:
                    proof = [tactic]
                elif isinstance(outcome, ProofState):
                    keys.add(outcome.key)
            if proof is not None:
                break
    finally:
        session.close()
    environment_time = time.perf_counter() - env_start
    result = SearchResult(
        theorem,
        Status.OPEN if timed_out and proof is None else Status.FAILED,
        actor_time=actor_time,
        environment_time=environment_time,
        total_time=time.perf_counter() - start,
        num_total_nodes=1 + len(keys),
        num_searched_nodes=1,
        num_tactic_applications=tried,
        extra={"header_time": round(header_time, 6), "baseline": "one-shot"},
    )
    if proof is None:
        return result
    return _check(prover, theorem, proof, result)


# -- sauto -----------------------------------------------------------------------


def sauto(theorem: Theorem, prover: CoqProver, config: BaselineConfig) -> SearchResult:
    """``sauto`` alone on the root goal, limited to the budget by ``Timeout``."""
    target = with_header_suffix(theorem, TACTICS_IMPORT)
    opened = open_timed(prover, target, theorem)
    if isinstance(opened, SearchResult):
        return opened
    session, header_time = opened
    start = time.perf_counter()
    try:
        outcome = session.apply(session.root, "sauto", config.budget)
    finally:
        session.close()
    spent = time.perf_counter() - start
    status = Status.OPEN if isinstance(outcome, TacticTimeout) else Status.FAILED
    result = SearchResult(
        theorem,
        status,
        environment_time=spent,
        total_time=spent,
        num_total_nodes=1 + (isinstance(outcome, ProofState)),
        num_searched_nodes=1,
        num_tactic_applications=1,
        extra={"header_time": round(header_time, 6), "baseline": "sauto"},
    )
    if not isinstance(outcome, Proved):
        if not isinstance(outcome, ProofState | TacticTimeout):
            result.extra["message"] = getattr(outcome, "message", "")[:500]
        return result
    result.extra["header_suffix"] = TACTICS_IMPORT
    result = _check(prover, target, ["sauto"], result)
    return _leak_check(target, forbidden_libraries(theorem, config, TACTICS_IMPORT), config, result)


# -- hammer ----------------------------------------------------------------------

_REPLACE = "Replace the hammer tactic with:"
_FINISHED = re.compile(r"Finished (failing )?transaction in ([0-9.]+) secs")
_HAMMER_MARK = "proofsearch-hammer-start"


@dataclass(frozen=True)
class HammerRun:
    """What one ``coqc`` run of ``hammer`` printed."""

    reconstruction: str | None
    tactic_seconds: float | None
    failed: bool
    output: str
    wall_seconds: float
    killed: bool = False


def hammer_environment(tmpdir: str | None = None) -> dict[str, str]:
    """The environment for ``coqc``: ``predict``/``htimeout`` on PATH, and ``tmpdir`` as
    the temporary folder of CoqHammer and its provers (audit 55: ``predict*`` and
    ``coqhammer_out*`` files, 28 MB, stayed in /tmp after a budget killed ``coqc``)."""
    env = dict(os.environ)
    if tmpdir is not None:
        env.update(TMPDIR=tmpdir, TMP=tmpdir, TEMP=tmpdir)
    if shutil.which("predict") is None and Path(HAMMER_LIBEXEC).is_dir():
        env["PATH"] = f"{HAMMER_LIBEXEC}{os.pathsep}{env.get('PATH', '')}"
    return env


_LIBRARIES_MARK = "Loaded library files:"


def loaded_libraries(
    header: str, footer: str, config: BaselineConfig, after_header: str = ""
) -> frozenset[str]:
    """The library files loaded after ``header`` (and ``after_header``), per ``coqc``."""
    lines = [header.rstrip(), after_header, "Print Libraries.", footer.strip()]
    script = "\n".join(line for line in lines if line) + "\n"
    with tempfile.TemporaryDirectory(prefix="proofsearch-libs-") as tmp:
        path = Path(tmp) / "Libraries.v"
        path.write_text(script)
        done = subprocess.run(
            [config.coq.coqc, *config.coq.args, "-Q", tmp, "", str(path)],
            cwd=tmp, capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip
    if done.returncode != 0 or _LIBRARIES_MARK not in done.stdout:
        return frozenset()
    listed = done.stdout.split(_LIBRARIES_MARK, 1)[1].split()
    return frozenset(name for name in listed if re.fullmatch(r"[\w.']+", name))


_HAMMER_LIBRARIES: dict[str, frozenset[str]] = {}


def forbidden_libraries(theorem: Theorem, config: BaselineConfig, line: str) -> frozenset[str]:
    """Libraries that ``line`` (a Hammer import) loads beyond the theorem's header.

    Only for theorems that say which ``file`` they come from (the library benchmarks),
    whose protocol allows nothing beyond the header; the lemma's own module (its
    ``module`` field, else the stdlib module of its ``file``) is always in.
    """
    file = theorem.extra.get("file")
    module = theorem.extra.get("module")
    if not isinstance(file, str) or not file.endswith(".v"):
        return frozenset()
    if line not in _HAMMER_LIBRARIES:
        _HAMMER_LIBRARIES[line] = loaded_libraries("", "", config, line)
    footer = str(theorem.extra.get("footer") or "")
    header = loaded_libraries(theorem.header, footer, config)
    own = (
        module
        if isinstance(module, str) and module
        else stdlib_module(file, binary_version(config.coq.coqc).stdlib_prefix)
    )
    extra = {lib for lib in _HAMMER_LIBRARIES[line] - header if not lib.startswith("Hammer.")}
    return frozenset({*extra, own})


def leaked_dependencies(
    theorem: Theorem, proof: list[str], forbidden: frozenset[str], config: BaselineConfig
) -> list[str]:
    """Constants of ``forbidden`` libraries the proof depends on (transitively).

    ``Print All Dependencies`` prints the shortest names that are unambiguous where it
    runs (``Bool.andb_true_iff``, ``eqtype.Equality.sort``), which say nothing sure about
    the library: ``Equality`` is both math-comp's ``eqtype.Equality`` module and the
    stdlib's ``Coq.Program.Equality`` file. Each name is therefore resolved to its full
    path with ``Locate Term`` in the same place, and counts as a leak only when that path
    lies inside a forbidden library.
    """
    if not forbidden:
        return []
    qualid = str(theorem.extra.get("qualid") or statement_name(theorem.statement) or "")
    footer = str(theorem.extra.get("footer") or "").strip()
    script = proof_script(theorem.header, theorem.statement, proof) + (
        footer + "\n" if footer else ""
    )
    with tempfile.TemporaryDirectory(prefix="proofsearch-leak-") as tmp:
        Path(tmp, "LeakCheck.v").write_text(script)
        Path(tmp, "Dependencies.v").write_text(
            "Require LeakCheck.\nSet Printing Width 100000.\n"
            f"Print All Dependencies LeakCheck.{qualid}.\n"
        )
        for name in ("LeakCheck.v", "Dependencies.v"):
            done = _coqc(config, tmp, name)
            if done.returncode != 0:
                return [f"(cannot list the dependencies: {_last_error(done.stderr)})"]
        names = dependency_names(done.stdout)
        Path(tmp, "Located.v").write_text(locate_script("LeakCheck", names))
        located = _coqc(config, tmp, "Located.v")
        if located.returncode != 0:
            return [f"(cannot locate the dependencies: {_last_error(located.stderr)})"]
    try:
        paths = located_paths(located.stdout, len(names), "LeakCheck")
    except ValueError as exc:
        return [f"(cannot locate the dependencies: {exc})"]
    return leaked(names, paths, forbidden)


def _coqc(config: BaselineConfig, folder: str, name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [config.coq.coqc, *config.coq.args, "-Q", folder, "", name],
        cwd=folder, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


def _leak_check(
    theorem: Theorem, forbidden: frozenset[str], config: BaselineConfig, result: SearchResult
) -> SearchResult:
    """Turn a proved result that uses a forbidden library into an ``error``."""
    if result.status is not Status.PROVED or result.proof is None:
        return result
    start = time.perf_counter()
    leaks = leaked_dependencies(theorem, result.proof, forbidden, config)
    spent = time.perf_counter() - start
    result.check_time += spent
    result.total_time += spent
    if leaks:
        result.extra["rejected_proof"] = result.proof
        result.extra["leaks"] = leaks[:20]
        result.status = Status.ERROR
        result.proof = None
        result.checked = False
        result.error = (
            "leak: the proof uses libraries the header does not load (the Hammer import "
            f"loads them): {', '.join(leaks[:5])}"
        )
    return result


def hammer_script(
    theorem: Theorem, config: BaselineConfig, forbidden: frozenset[str] = frozenset()
) -> str:
    """Header, the hammer's options, statement, ``Time Timeout B (hammer).``, footer."""
    limit = max(1, int(config.budget))
    atp = max(1, int(config.budget * 0.6))
    reconstruction = max(1, int(config.budget * 0.25))
    lines = [
        theorem.header.rstrip(),
        HAMMER_IMPORT,
        f"Set Hammer ATPLimit {atp}.",
        f"Set Hammer ReconstrLimit {reconstruction}.",
        f"Set Hammer GSMode {config.hammer_gsmode}.",
        # Only loaded libraries can be filtered (others are an error, and harmless).
        *(
            f"Add Hammer Filter {library}."
            for library in sorted(forbidden & _HAMMER_LIBRARIES.get(HAMMER_IMPORT, forbidden))
        ),
        theorem.statement.strip(),
        "Proof.",
        f'idtac "{_HAMMER_MARK}".',
        f"Time Timeout {limit} (hammer).",
        "Qed.",
    ]
    footer = theorem.extra.get("footer")
    if isinstance(footer, str) and footer.strip():
        lines.append(footer.strip())
    return "\n".join(line for line in lines if line) + "\n"


def run_hammer(
    theorem: Theorem,
    config: BaselineConfig,
    header_allowance: float,
    forbidden: frozenset[str] = frozenset(),
) -> HammerRun:
    """Compile the hammer script with ``coqc``; read the reconstruction it prints."""
    script = hammer_script(theorem, config, forbidden)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="proofsearch-hammer-") as tmp:
        path = Path(tmp) / "HammerRun.v"
        path.write_text(script)
        # Its own process group: the provers CoqHammer starts go with coqc at the budget.
        process = subprocess.Popen(
            [config.coq.coqc, *config.coq.args, "-Q", tmp, "", str(path)],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=hammer_environment(tmp), start_new_session=True,
        )  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=config.budget + header_allowance)
            killed = False
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            killed = True
        output = _text(stdout) + "\n" + _text(stderr)
    wall = time.perf_counter() - start
    after = output.split(_HAMMER_MARK, 1)[1] if _HAMMER_MARK in output else ""
    reconstruction = read_reconstruction(after)
    finished = _FINISHED.findall(after)
    seconds = float(finished[-1][1]) if finished else None
    failed = bool(finished and finished[-1][0])
    return HammerRun(reconstruction, seconds, failed, output, wall, killed)


def read_reconstruction(output: str) -> str | None:
    """The tactic after "Replace the hammer tactic with:", on one line, without its dot.

    It starts on the same line or the next (indented) one; a long one continues on
    indented lines; the next unindented line (``Finished transaction ...``) ends it.
    """
    index = output.find(_REPLACE)
    if index < 0:
        return None
    lines = output[index + len(_REPLACE) :].split("\n")
    parts = [lines[0].strip()]
    for line in lines[1:]:
        if not line.strip() or not line[0].isspace():
            break
        parts.append(line.strip())
    text = " ".join(" ".join(parts).split()).rstrip(".").strip()
    # CoqHammer prints ``srun eauto use: x``, which does not parse: ``srun``'s tactic
    # argument swallows ``use:``. The parenthesized form is the same tactic.
    text = re.sub(r"^srun\s+(?!\()(\w+)", r"srun (\1)", text)
    return text or None


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def hammer(
    theorem: Theorem,
    prover: CoqProver,
    config: BaselineConfig,
    header_allowance: float = 600.0,
    forbidden: frozenset[str] | None = None,
) -> SearchResult:
    """``hammer`` under the budget; the reconstruction it prints is re-checked.

    ``forbidden`` (default: :func:`forbidden_libraries`) names the libraries hammer must
    not use; a caller that knows the header's loadpath better (a library outside the
    stdlib, see ``prove_library.py``) passes its own.
    """
    if forbidden is None:
        forbidden = forbidden_libraries(theorem, config, HAMMER_IMPORT)
    run = run_hammer(theorem, config, header_allowance, forbidden)
    spent = run.tactic_seconds
    header_time = max(0.0, run.wall_seconds - (spent or 0.0))
    extra: dict[str, object] = {"header_time": round(header_time, 6), "baseline": "hammer"}
    if spent is None:
        result = error_result(
            theorem,
            "hammer did not run: " + (
                f"coqc ran past {config.budget + header_allowance:g} s" if run.killed
                else _last_error(run.output)
            ),
            **extra,
        )  # fmt: skip
        result.total_time = run.wall_seconds
        return result
    status = Status.FAILED
    if run.failed and ("Timeout" in run.output or spent >= config.budget - 0.5):
        status = Status.OPEN
    result = SearchResult(
        theorem,
        status,
        environment_time=spent,
        total_time=spent,
        num_total_nodes=1,
        num_searched_nodes=1,
        num_tactic_applications=1,
        extra=extra,
    )
    if run.reconstruction is None or run.failed:
        if run.failed:
            result.extra["message"] = _last_error(run.output)[:500]
        return result
    result.extra["hammer_reconstruction"] = run.reconstruction
    result.extra["header_suffix"] = HAMMER_IMPORT
    target = with_header_suffix(theorem, HAMMER_IMPORT)
    result = _check(prover, target, [run.reconstruction], result)
    return _leak_check(target, forbidden, config, result)


def _last_error(output: str) -> str:
    index = output.rfind("Error:")
    return " ".join(output[index:].split())[:500] if index >= 0 else output.strip()[-500:]


# -- running a slice -------------------------------------------------------------

Baseline = Callable[[Theorem, CoqProver, BaselineConfig], SearchResult]
FUNCTIONS: dict[str, Baseline] = {"one-shot": one_shot, "hammer": hammer, "sauto": sauto}


def parse_slice(text: str | None, length: int) -> range:
    """``START:STOP`` (Python slice syntax, either side optional) over ``length`` items."""
    if not text:
        return range(length)
    start_text, sep, stop_text = text.partition(":")
    if not sep:
        raise ValueError(f"expected START:STOP, got {text!r}")
    start = int(start_text) if start_text else None
    stop = int(stop_text) if stop_text else None
    return range(length)[slice(start, stop)]


def run_baseline(
    name: str,
    theorems: Sequence[Theorem],
    out: Path,
    config: BaselineConfig,
    *,
    resume: bool = False,
    progress: Callable[[SearchResult], None] | None = None,
) -> list[SearchResult]:
    """Run baseline ``name`` on ``theorems``, appending one line per theorem to ``out``."""
    function = FUNCTIONS[name]
    done: set[str] = set()
    if resume and out.exists():
        for raw in out.read_text(encoding="utf-8").splitlines():
            try:
                done.add(json.loads(raw)["name"])
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    out.parent.mkdir(parents=True, exist_ok=True)
    results: list[SearchResult] = []
    with CoqProver(config.coq) as prover, out.open("a" if resume else "w") as handle:
        for theorem in theorems:
            if theorem.name in done:
                continue
            try:
                result = function(theorem, prover, config)
            except EnvError as exc:
                result = error_result(theorem, f"prover failed: {exc}")
                prover.restart()
            handle.write(json.dumps(result.to_record(), ensure_ascii=False) + "\n")
            handle.flush()
            results.append(result)
            if progress is not None:
                progress(result)
    return results


def summarize(name: str, records: Iterable[dict[str, object]], *, anchors: bool = True) -> str:
    """One line: proved (checked) out of total (every line of the results file, a
    resumed run's earlier ones too), errors apart, with the published anchors when
    ``anchors`` (they are the stdlib's: beside a library's sample they mislead)."""
    items = list(records)
    proved = sum(1 for r in items if r.get("status") == "proved")
    errors = sum(1 for r in items if r.get("status") == "error")
    rate = 100 * proved / len(items) if items else 0.0
    failed = f", {errors} error(s)" if errors else ""
    line = f"{name}: {proved}/{len(items)} proved ({rate:.1f}%){failed}"
    if not anchors:
        return line
    return line + f"   [anchors: {', '.join(f'{label} {value}%' for label, value in ANCHORS)}]"


def stdlib_sample(theorems: Iterable[Theorem]) -> bool:
    """Whether every theorem is a stdlib lemma (its ``module`` says so), the only
    sample the published anchors are figures of."""
    modules = [str(t.extra.get("module") or "") for t in theorems]
    return bool(modules) and all(m.startswith(("Coq.", "Stdlib.")) for m in modules)


def read_records(out: Path) -> list[dict[str, object]]:
    """The results file's lines (the last of each theorem), for the summary."""
    records: dict[str, dict[str, object]] = {}
    for raw in out.read_text(encoding="utf-8").splitlines() if out.exists() else []:
        try:
            record = json.loads(raw)
            records[str(record["name"])] = record
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return list(records.values())


def header_failures(records: Sequence[dict[str, object]]) -> str | None:
    """The message when every theorem's header failed: no measurement, but a setup
    problem (a project's sample without its loadpath printed "0/8 proved" and exit 0)."""
    errors = [str(r.get("error") or "") for r in records]

    # `sauto`/one-shot open the header sentence by sentence; `hammer` runs the file
    # whole (its header and `hammer` in one coqc): its error says it did not run (a
    # header that fails), not that it ran out of time.
    def setup(error: str) -> bool:
        hammer = error.startswith("hammer did not run") and "ran past" not in error
        return "header sentence" in error or hammer

    if records and all(setup(error) for error in errors):
        return (
            f"every header failed ({errors[0][:300]}); give the loadpath its files need: "
            "--index TRACE (the trace of the project the sample comes from) or --coq-arg"
        )
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run the Coq baselines (one-shot portfolio, hammer, sauto) on a slice.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("baseline", choices=(*BASELINES, "all"))
    parser.add_argument("theorems", type=Path, help="theorem file (JSONL)")
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--slice", default=None, help="START:STOP of the theorem file")
    parser.add_argument(
        "--budget", type=float, default=20.0,
        help="seconds per theorem (the benchmarks' protocol: 20, as search --timeout)",
    )  # fmt: skip
    parser.add_argument(
        "--tactic-timeout", type=float, default=5.0, help="seconds per one-shot tactic"
    )
    parser.add_argument("--gsmode", type=int, default=None, help="Set Hammer GSMode N")
    parser.add_argument("--resume", action="store_true", help="skip theorems already done")
    parser.add_argument(
        "--coq-arg", action="append", default=[], metavar="ARG",
        help="argument for Coq (the loadpath a library's headers need, as the search's "
        "--coq-arg): --coq-arg=-R --coq-arg=DIR --coq-arg=Flocq",
    )  # fmt: skip
    parser.add_argument(
        "--index", action="append", default=[], metavar="TRACE",
        help="a trace folder whose recorded Coq arguments (its project's loadpath) the "
        "headers need, as search --index reads them",
    )  # fmt: skip
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    theorem_file = load_theorems(args.theorems)
    for invalid in theorem_file.invalid:
        print(f"error: {invalid}", file=sys.stderr)
    if theorem_file.invalid:
        return 2
    try:
        indexes = parse_slice(args.slice, len(theorem_file.theorems))
    except ValueError as exc:
        print(f"error: --slice: {exc}", file=sys.stderr)
        return 2
    theorems = [theorem_file.theorems[i] for i in indexes]
    try:
        recorded = recorded_coq_args([TraceDir(path) for path in args.index])
    except (CommandError, TraceFormatError) as exc:  # no work done, nothing written
        where = "" if isinstance(exc, CommandError) else "--index: "
        print(f"error: {where}{exc}", file=sys.stderr)
        return 2
    config = BaselineConfig(
        budget=args.budget,
        tactic_timeout=args.tactic_timeout,
        coq=CoqConfig(args=(*recorded, *args.coq_arg)),
    )
    if args.gsmode is not None:
        config = replace(config, hammer_gsmode=args.gsmode)
    names = BASELINES if args.baseline == "all" else (args.baseline,)
    summaries = []
    for name in names:

        def progress(result: SearchResult, name: str = name) -> None:
            if not args.quiet:
                print(
                    f"[{name}] {result.theorem.name}: {result.status} {result.total_time:.1f}s"
                    + (f" {result.proof}" if result.proof else ""),
                    file=sys.stderr,
                    flush=True,
                )

        out = args.out_dir / f"{name}.jsonl"
        try:
            run_baseline(name, theorems, out, config, resume=args.resume, progress=progress)
        except KeyboardInterrupt:
            kept = len(read_records(out))
            print(
                f"interrupted: {kept} result(s) kept in {out}; the same command with "
                "--resume goes on",
                file=sys.stderr,
            )
            return 130
        records = read_records(out)
        problem = header_failures(records)
        if problem:
            print(f"error: {name}: {problem}", file=sys.stderr)
            return 1
        line = summarize(name, records, anchors=stdlib_sample(theorems))
        summaries.append(f"{line}   -> {out}")
    print("\n".join(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
