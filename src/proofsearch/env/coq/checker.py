"""Re-checking a finished Coq proof from scratch with ``coqc``.

Two compilations in a fresh temporary folder. The first is header + statement + proof +
``Qed.`` (+ the footer that closes open Sections and Modules); it must succeed. The
second is a file that only ``Require``s the first and prints ``Print Assumptions`` of
the theorem's qualified name; only its output is read. It runs no tactic, so nothing a
proof prints (``idtac "Closed under the global context"``) can reach it, and nothing
the header set (an open scope, a notation, an open section) can change it.

Axiom names print as they do where nothing is imported (``Classical_Prop.classic``,
``PrimInt63.ltb``), which is how the benchmark extractors record a lemma's
``allowed_axioms``: printed in the proof's own file they would be shorter (``classic``,
``ltb``) whenever the header imported their modules, and a legitimate proof would be
refused for an axiom its reference proof uses too. A bare allowed name (``classic``)
still allows that axiom under any qualification.

A lemma inside a functor (``Module Make (A : T). … Lemma l … End Make.``) is no constant
that a second file could name: given the functors' parameters, ``Print Assumptions``
runs in the first file right after ``Qed.``, inside the functor, and only what follows a
marker holding a fresh random word is read (a tactic, which ran before, cannot print
it). The parameters' fields print as axioms there (``A.t``): the proof may use them, as
the functor's own proofs do. The fields of a parameter the functor imports print short
(``t``) and are checked like any other axiom (``prove`` allows any, below).

``any_axiom``: a proof may rest on any axiom the header makes available (a project's own
``Axiom``s, the Reals' axioms, ``Classical``): ``prove`` fills a user's holes in the
user's development, where a tactic can declare nothing and the header loads nothing the
user did not write. The axioms are still read and returned, and the proof must be closed.

A Program obligation's statement (``Next Obligation.``) names no constant: the first
file asks Coq which one it opens, and admits the program's later obligations after the
proof (:mod:`proofsearch.env.coq.obligations`).

Before compiling, the file is split into sentences: the proof must be exactly one
sentence per tactic between ``Proof.`` and ``Qed.``, so a proof that ends the theorem
and starts another (``exact I. Qed. Theorem other ...``) is refused whatever the guard
let through.
"""

from __future__ import annotations

import re
import secrets
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from proofsearch.env.base import CheckResult
from proofsearch.env.coq.leaks import (
    added_libraries,
    dependency_names,
    leaked,
    locate_script,
    located_paths,
)
from proofsearch.env.coq.obligations import (
    ADMIT_LATER,
    ObligationStatement,
    constant_name,
    obligation_statement,
)
from proofsearch.env.coq.private_folders import CHECK_PREFIX, private_folder
from proofsearch.env.coq.sentences import SentenceError, split_sentences
from proofsearch.env.coq.vernac import strip_comments
from proofsearch.env.coq.version import (
    NATIVE_OFF,
    coq_env,
    supported_range,
    without_native_warning,
)

_NAMED = re.compile(
    r"^\s*(?:#\[[^\]]*\]\s*)*(?:(?:Local|Global|Polymorphic|Monomorphic|Program)\s+)*"
    r"(?:Theorem|Lemma|Fact|Remark|Corollary|Proposition|Property|Example|Definition|Instance"
    r"|Function)"
    r"\s+"
    r"([^\W\d][\w']*)"  # Coq's identifiers: Unicode letters too (Theorem θ : …)
)
_GOAL = re.compile(r"^\s*Goal\b")
MODULE = "ProofsearchCheck"
#: How a user lets a proof rest on an axiom (the Reals' own, ``Classical``'s…).
AXIOM_FIX = (
    " (to allow them: the theorem's allowed_axioms or any_axiom field, or --allow-axiom NAME)"
)
#: The second file, which only prints the first's assumptions.
ASSUMPTIONS_MODULE = "ProofsearchAssumptions"
#: With a header suffix: the files that list the proof's dependencies and locate them.
DEPENDENCIES_MODULE = "ProofsearchDependencies"
LOCATE_MODULE = "ProofsearchLocate"


def statement_name(statement: str) -> str | None:
    """The identifier a Coq statement declares (``Unnamed_thm`` for ``Goal``); comments
    before or inside the statement's first words do not count."""
    statement = strip_comments(statement)
    match = _NAMED.match(statement)
    if match:
        return match.group(1)
    if _GOAL.match(statement):
        return "Unnamed_thm"
    return None


#: Every tactic of a search works on the first goal, whatever the project's default
#: (stdpp and Iris ``Export Set Default Goal Selector "!"``, under which a tactic fails
#: while two goals are focused): the line runs between the header and the statement,
#: in the search's prover and in the re-check alike. ``prove`` writes such a proof into
#: the user's file with bullets, which need no selector.
FIRST_GOAL = 'Set Default Goal Selector "1".'


#: A ``Proof using …`` sentence a lemma inside a Section may carry (``Proof using x.``,
#: ``Proof using -(H0).``, ``Proof using Type*.``): one sentence, no other command.
PROOF_USING = re.compile(r"Proof\s+using\b[^.]*\.")


def proof_script(header: str, statement: str, proof: Sequence[str], proof_using: str = "") -> str:
    """The whole ``.v`` text of a proof, as it is compiled and as it is exported.
    ``proof_using``: the lemma's own ``Proof using …`` sentence, so that a proof using a
    section variable it excludes fails at ``Qed`` as it would in the user's file."""
    opening = proof_using.strip() if PROOF_USING.fullmatch(proof_using.strip()) else "Proof."
    lines = [header.rstrip(), FIRST_GOAL, statement.strip(), opening]
    lines += [f"  {tactic}." for tactic in proof]
    lines.append("Qed.")
    return "\n".join(line for line in lines if line) + "\n"


def proof_structure_problem(statement: str, proof: Sequence[str]) -> str:
    """Why ``statement`` and ``proof`` are not one statement and one sentence per tactic.

    Empty when they are. Checked on the text that is compiled, independently of the
    tactic guard: whatever splits differently (a ``.`` that ends a sentence, ``Qed``
    followed by another theorem) would prove something else than the statement.
    """
    try:
        if len(split_sentences(statement.strip())) != 1:
            return "the statement is not exactly one sentence"
        for tactic in proof:
            sentences = split_sentences(f"{tactic}.")
            if len(sentences) != 1 or sentences[0].text != f"{tactic}.":
                return f"tactic {tactic!r} is not exactly one sentence (it would leave the proof)"
    except SentenceError as exc:
        return f"cannot split the proof into sentences: {exc}"
    return ""


#: What ``Print Assumptions`` says of a typing flag under ``Axioms:`` (a constant
#: compiled with ``-type-in-type``, an unguarded fixpoint), and under ``Theory:``.
_FLAG_LINE = re.compile(
    r"^(\S+) (relies on an unsafe hierarchy|relies on definitional UIP|"
    r"is assumed to be guarded|is assumed to be positive)\.?$"
)


def parse_assumptions(
    output: str, *, in_section: bool = False, accept_flags: bool = False
) -> tuple[bool, tuple[str, ...], str]:
    """Read ``Print Assumptions``: (closed-or-only-axioms, axiom names, other findings).

    ``in_section``: printed before the lemma's Sections close, where the section
    variables it uses are listed (``Section Variables:``); they become its arguments at
    ``End``, so they are neither axioms nor findings. Typing flags (``Theory: Set is
    impredicative``, ``X relies on an unsafe hierarchy``) are findings, said in words,
    unless ``accept_flags``: a user's project chose them (``-impredicative-set``, a
    library built with ``-type-in-type`` such as UniMath), and no tactic can set one
    (the guard keeps vernacular out)."""
    if "Closed under the global context" in output and "Theory:" not in output:
        return True, (), ""
    axioms: list[str] = []
    other: list[str] = []
    flags: list[str] = []
    section = ""
    headed = False
    for line in output.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace() and line.rstrip().endswith(":"):
            section = line.strip()
            known = {"Axioms:", "Theory:"} | ({"Section Variables:"} if in_section else set())
            if section not in known:
                other.append(section)
            headed = True
            continue
        if section == "Theory:":
            flags.append(line.strip())
            continue
        flag = _FLAG_LINE.match(line.strip())
        if flag and section == "Axioms:":
            flags.append(flag.group(2))
            continue
        # "name : type", or a long name alone with ": type" indented on the next line.
        match = re.match(r"^(\S+)(?: :|$)", line)
        if match and section == "Axioms:":
            axioms.append(match.group(1))
    if not headed or ("Axioms:" in output.splitlines() and not axioms and not flags):
        return False, (), f"unexpected Print Assumptions output: {output.strip()[:500]}"
    if flags and not accept_flags:
        other.append(f"typing flags: {'; '.join(dict.fromkeys(flags))}")
    return not other, tuple(axioms), "; ".join(other)


def run_coqc(
    source: str,
    folder: Path,
    module: str,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    memory_limit: int | None,
) -> subprocess.CompletedProcess[str]:
    """Compile ``source`` as ``folder/module.v``: native compilation off, and Coq's
    temporary files in ``folder/tmp`` (removed with the folder)."""
    path = folder / f"{module}.v"
    path.write_text(source)
    tmpdir = folder / "tmp"
    tmpdir.mkdir(exist_ok=True)
    command = [coqc, *args, *NATIVE_OFF, "-Q", str(folder), "", str(path)]
    if memory_limit:
        command = ["prlimit", f"--as={memory_limit}", "--", *command]
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=timeout, check=False,
        env=coq_env(tmpdir=tmpdir),
    )  # fmt: skip
    done.stderr = without_native_warning(done.stderr)
    return done


def compile_source(
    source: str,
    module: str,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    memory_limit: int | None = None,
) -> subprocess.CompletedProcess[str] | None:
    """Compile ``source`` in a scratch folder (removed after); ``None`` when ``coqc``
    ran past ``timeout`` or is not installed. For the queries and checks made around a
    proof already found, whose failure only means "keep the proof as it is"."""
    with private_folder(prefix=CHECK_PREFIX) as tmp:
        try:
            return run_coqc(
                source, Path(tmp), module,
                coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
            )  # fmt: skip
        except (subprocess.TimeoutExpired, FileNotFoundError):
            return None


def check_proof(
    header: str,
    statement: str,
    proof: Sequence[str],
    *,
    coqc: str = "coqc",
    args: Sequence[str] = (),
    timeout: float = 120.0,
    memory_limit: int | None = None,
    allowed_axioms: Iterable[str] = (),
    footer: str = "",
    name: str | None = None,
    header_suffix: str = "",
    any_axiom: bool = False,
    functor_parameters: Sequence[str] = (),
    in_place: bool = False,
    proof_using: str = "",
) -> CheckResult:
    """Compile the proof from scratch and require it to rest on allowed axioms only.

    ``footer`` closes what the header left open (``End Facts.`` for a lemma inside a
    section: ``coqc`` refuses a file that ends with a section open), and ``name`` is the
    lemma's name after it (``Nat.add_comm`` for ``add_comm`` inside ``Module Nat``).
    ``header_suffix`` (CoqHammer's import) follows the header, and the proof must not
    use a library it loads beyond the header (:mod:`proofsearch.env.coq.leaks`).
    ``any_axiom``, and ``functor_parameters`` (the parameters of the functors the lemma
    is inside, which make the check an in-place one): see the module's docstring.
    ``in_place``: print the assumptions inside the file too (a lemma no name reaches
    after the footer: one inside Hierarchy-Builder's ``HB.builders … HB.end.``).
    ``proof_using``: the lemma's ``Proof using …`` sentence (:func:`proof_script`).
    """
    if (functor_parameters or in_place) and header_suffix.strip():
        return CheckResult(
            False, "a lemma inside a functor is not re-checked after a header suffix "
            "(--hammer-tactics): its leak check needs a second file that cannot name it",
        )  # fmt: skip
    if functor_parameters or in_place:
        return _check_in_place(
            header, statement, proof, footer,
            coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
            allowed=None if any_axiom else set(allowed_axioms),
            parameters=frozenset(functor_parameters), proof_using=proof_using,
        )  # fmt: skip
    obligation = obligation_statement(statement)
    if obligation is None:
        name = name or statement_name(statement)
        if name is None:
            return CheckResult(False, "cannot find the name the statement declares")
    problem = proof_structure_problem(statement, proof)
    if problem:
        return CheckResult(False, problem)
    allowed = set(allowed_axioms)
    suffix = header_suffix.strip()
    if suffix:
        # Where the libraries are listed costs nothing: the file loads them anyway.
        header = f"{header.rstrip()}\nPrint Libraries.\n{suffix}\nPrint Libraries.\n"
    marker = f"proofsearch_obligations_{secrets.token_hex(16)}"
    if obligation is not None and obligation.needs_query:
        header = f"{header.rstrip()}\nLocate {marker}.\n{obligation.query()}\n"
    closing = f"{ADMIT_LATER}\n" if obligation is not None else ""
    source = (
        proof_script(header, statement, proof, proof_using)
        + closing
        + (footer.strip() + "\n" if footer.strip() else "")
    )
    limits = {"coqc": coqc, "args": args, "timeout": timeout, "memory_limit": memory_limit}
    with private_folder(prefix=CHECK_PREFIX) as tmp:
        compiled = _compiled_one(source, MODULE, Path(tmp), limits)
        if isinstance(compiled, CheckResult):
            return compiled
        if obligation is not None:
            name = _obligation_name(obligation, compiled.stdout, marker, scope=name)
            if name is None:
                return CheckResult(
                    False, "cannot tell which obligation the statement opens", disagreement=True
                )
        assert name is not None
        printing = (
            f"Require {MODULE}.\nSet Printing Width 100000.\nPrint Assumptions {MODULE}.{name}.\n"
        )
        printed = _compiled_one(printing, ASSUMPTIONS_MODULE, Path(tmp), limits)
        if isinstance(printed, CheckResult):
            return printed
        clean, printed_axioms, other = parse_assumptions(printed.stdout, accept_flags=any_axiom)
        # Axioms the header declares print under the check's own module.
        axioms = tuple(a.removeprefix(f"{MODULE}.") for a in printed_axioms)
        if not clean:
            return CheckResult(False, other or "not closed", axioms)
        extra = [a for a in axioms if a not in allowed and a.split(".")[-1] not in allowed]
        if extra and not any_axiom:
            return CheckResult(
                False, f"uses axioms not allowed: {', '.join(extra)}{AXIOM_FIX}", axioms
            )
        if suffix:
            leak = _suffix_leak(
                compiled.stdout, Path(tmp), name, suffix,
                coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
            )  # fmt: skip
            if leak:
                return CheckResult(False, leak, axioms)
        return CheckResult(True, "closed" if not axioms else "allowed axioms only", axioms)


def _obligation_name(
    obligation: ObligationStatement, printed: str, marker: str, *, scope: str | None
) -> str | None:
    """The proved obligation's constant, qualified by the modules of ``scope`` (the
    theorem's ``qualid``: ``M.h_obligation@12`` is in ``M``), from what the compiled
    file printed after ``marker``."""
    listed = printed.split(marker, 1)[1] if marker in printed else ""
    constant = constant_name(obligation, listed)
    if constant is None:
        return None
    modules = scope.rsplit(".", 1)[0] if scope and "." in scope else ""
    return f"{modules}.{constant}" if modules else constant


def coq_errors(stderr: str) -> str:
    """``coqc``'s errors without its warnings: a file loading math-comp printed eleven
    notation warnings before the error, and the one-line reason a user sees (its first
    200 characters) showed only warnings (audit 49). Each message starts at its ``File
    "…", line …`` line; those without an ``Error`` are left out and counted."""
    blocks = [block.strip() for block in re.split(r'(?m)^(?=File ")', stderr) if block.strip()]
    errors = [block for block in blocks if "Error" in block]
    if not errors:
        return stderr.strip()
    left = len(blocks) - len(errors)
    return "\n".join(errors) + (f" ({left} warning(s) left out)" if left else "")


def _compiled_one(
    source: str, module: str, folder: Path, limits: dict[str, Any]
) -> subprocess.CompletedProcess[str] | CheckResult:
    """:func:`_compiled` of one file (``limits``: its keyword arguments)."""
    runs = _compiled([(source, module)], folder, **limits)
    return runs if isinstance(runs, CheckResult) else runs[0]


def _compiled(
    sources: Sequence[tuple[str, str]],
    folder: Path,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    memory_limit: int | None,
) -> list[subprocess.CompletedProcess[str]] | CheckResult:
    """Compile each ``(source, module)`` in ``folder``, in order: their runs, or the
    refusal at the first that fails, runs past ``timeout`` or finds no ``coqc``."""
    runs: list[subprocess.CompletedProcess[str]] = []
    try:
        for source, module in sources:
            run = run_coqc(
                source, folder, module,
                coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
            )  # fmt: skip
            if run.returncode != 0:
                if module == MODULE:
                    message = f"coqc rejected the proof: {coq_errors(run.stderr)}"
                else:
                    message = f"coqc could not print the assumptions: {run.stderr.strip()[-2000:]}"
                return CheckResult(False, message, disagreement=True)
            runs.append(run)
    except subprocess.TimeoutExpired:
        # A time bound, not a bug of either side: the search's Qed ran under the
        # theorem's budget, the re-check under --check-timeout, header included.
        message = f"coqc did not finish within {timeout:g} s (--check-timeout): not a proof"
        return CheckResult(False, message)
    except FileNotFoundError:
        message = f"{coqc} not found: install Coq {supported_range()}"
        return CheckResult(False, message, disagreement=True)
    return runs


def _check_in_place(
    header: str,
    statement: str,
    proof: Sequence[str],
    footer: str,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    memory_limit: int | None,
    allowed: set[str] | None,
    parameters: frozenset[str],
    proof_using: str = "",
) -> CheckResult:
    """:func:`check_proof` with ``Print Assumptions`` in the compiled file itself, after
    a marker no tactic can know; ``allowed`` None: any axiom; the fields of the functor
    ``parameters`` (``A.t``) are allowed."""
    name = statement_name(statement)
    if name is None:
        return CheckResult(False, "cannot find the name the statement declares")
    problem = proof_structure_problem(statement, proof)
    if problem:
        return CheckResult(False, problem)
    marker = f"proofsearch_assumptions_{secrets.token_hex(16)}"
    source = (
        proof_script(header, statement, proof, proof_using)
        + f"Locate {marker}.\nSet Printing Width 100000.\nPrint Assumptions {name}.\n"
        + (footer.strip() + "\n" if footer.strip() else "")
    )
    with private_folder(prefix=CHECK_PREFIX) as tmp:
        runs = _compiled(
            [(source, MODULE)], Path(tmp),
            coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
        )  # fmt: skip
    if isinstance(runs, CheckResult):
        return runs
    lines = runs[0].stdout.splitlines()
    after = [i for i, line in enumerate(lines) if marker in line]
    if len(after) != 1:
        return CheckResult(False, "cannot find the assumptions' marker", disagreement=True)
    printed = "\n".join(lines[after[0] + 1 :])
    if not printed.strip():
        return CheckResult(False, "Print Assumptions printed nothing", disagreement=True)
    clean, axioms, other = parse_assumptions(printed, in_section=True, accept_flags=allowed is None)
    if not clean:
        return CheckResult(False, other or "not closed", axioms)
    if allowed is not None:
        # Names print as the functor's body sees them: compare the last component.
        short = {a.split(".")[-1] for a in allowed}
        extra = [
            a for a in axioms
            if a.split(".")[-1] not in short and a.split(".")[0] not in parameters
        ]  # fmt: skip
        if extra:
            return CheckResult(
                False, f"uses axioms not allowed: {', '.join(extra)}{AXIOM_FIX}", axioms
            )
    return CheckResult(True, "closed" if not axioms else "allowed axioms only", axioms)


def _suffix_leak(
    printed: str,
    folder: Path,
    name: str,
    suffix: str,
    *,
    coqc: str,
    args: Sequence[str],
    timeout: float,
    memory_limit: int | None,
) -> str:
    """Why the compiled proof in ``folder`` uses a library that only ``suffix`` loads
    ("" when it does not). Two more ``coqc`` runs, only when the suffix loads any."""
    try:
        forbidden = added_libraries(printed)
    except ValueError as exc:
        return f"cannot tell which libraries {suffix!r} loads: {exc}"
    if not forbidden:
        return ""
    listing = (
        f"Require {MODULE}.\nSet Printing Width 100000.\nPrint All Dependencies {MODULE}.{name}.\n"
    )
    options: dict[str, Any] = {
        "coqc": coqc, "args": args, "timeout": timeout, "memory_limit": memory_limit
    }  # fmt: skip
    try:
        listed = run_coqc(listing, folder, DEPENDENCIES_MODULE, **options)
        names = dependency_names(listed.stdout)
        located = run_coqc(locate_script(MODULE, names), folder, LOCATE_MODULE, **options)
        if listed.returncode != 0 or located.returncode != 0:
            return (
                f"cannot list the proof's dependencies: {(listed.stderr + located.stderr)[-500:]}"
            )
        leaks = leaked(names, located_paths(located.stdout, len(names), MODULE), forbidden)
    except subprocess.TimeoutExpired:
        return f"listing the proof's dependencies took over {timeout:g} s"
    except ValueError as exc:
        return f"cannot locate the proof's dependencies: {exc}"
    if not leaks:
        return ""
    return (
        f"leak: the proof uses {', '.join(leaks[:5])}, from libraries the header does not "
        f"load ({suffix!r} loads them)"
    )
