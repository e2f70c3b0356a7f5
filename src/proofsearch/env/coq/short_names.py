"""Proofs as a person would write them: each qualified name by its shortest form.

A premise of a required library reaches a tactic by its full path
(``apply Coq.Arith.PeanoNat.Nat.add_comm``, ``apply: RegLang.misc.card_leq_inj``):
unambiguous wherever the library is loaded, but not what anyone writes into their file,
and tied to a library's logical prefix (the standard library's is ``Stdlib`` from Rocq 9
on). Coq itself says which shorter name refers to the same object at a point: ``Locate``
prints ``(shorter name to refer to it in current context is Nat.add_comm)``. The names
are asked where the statement stands (its header, then ``Locate`` per name), and the
shortened proof is used only when it passes the same re-check as the proof found, with
the same axioms: a short name that a hypothesis of the proof shadows fails that check,
and the proof stays as found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from proofsearch.env.coq.checker import check_proof, compile_source
from proofsearch.env.coq.obligations import ADMIT_LATER, OBLIGATION_CONSTANT, obligation_statement
from proofsearch.env.coq.version import stdlib_spellings

#: A name with at least two dotted parts, none starting with a digit (``H.1`` is
#: ssreflect's projection, not a path).
_QUALIFIED = re.compile(r"(?<![\w'.])(?:[^\W\d][\w']*\.)+[^\W\d][\w']*(?![\w'])")
#: What follows an object ``Locate`` prints (on its line, or the next when the line is
#: narrow), when a shorter name than the one asked refers to it at that point.
_SHORTER = re.compile(r"\(shorter name to refer to it in current context is ([\w'.]+)\)")
#: Asked after each name: its answer (``No object of basename …``) ends the name's.
MARKER = "proofsearch_end_of_answer"
_MODULE = "ProofsearchNames"


@dataclass(frozen=True)
class ShortenedProof:
    """The proof to write, and whether it differs from the one found."""

    proof: tuple[str, ...]
    renamed: Mapping[str, str]


def qualified_names(proof: Sequence[str]) -> list[str]:
    """The dotted names the tactics use, in first-use order, each once."""
    seen: dict[str, None] = {}
    for tactic in proof:
        for match in _QUALIFIED.finditer(tactic):
            seen.setdefault(match.group(0), None)
    return list(seen)


def parse_shorter(output: str, asked: Sequence[str]) -> dict[str, str]:
    """``Locate`` output read as asked name → shorter name.

    ``Locate`` of :data:`MARKER` comes before the first name (what the header printed
    ends there) and after each name (its answer ends there). The first object printed
    is the one the name resolves to; Coq adds ``(shorter name … is S)`` to it only when
    one exists. An alias such as Rocq 9's ``Coq.…`` for ``Stdlib.…`` prints the object's
    real path, so answers are matched to the names asked by position.
    """
    answers: list[list[str]] = [[]]
    for line in output.splitlines():
        if MARKER in line:
            answers.append([])
        elif line.strip():
            answers[-1].append(line)
    found: dict[str, str] = {}
    for name, lines in zip(asked, answers[1:], strict=False):
        if not lines:
            continue
        first = " ".join(lines[:2]) if len(lines) > 1 and lines[1][:1].isspace() else lines[0]
        match = _SHORTER.search(first)
        if match and match.group(1) != name:
            found[name] = match.group(1)
    return found


def _past(full: str, brief: str) -> str:
    """``full`` by one more component than ``brief`` ("" when that is ``full`` itself)."""
    parts = full.split(".")
    longer = ".".join(parts[-(brief.count(".") + 2) :])
    return "" if longer == full else longer


def rename(proof: Sequence[str], names: Mapping[str, str]) -> tuple[str, ...]:
    """Each tactic with every whole occurrence of a name replaced."""
    if not names:
        return tuple(proof)
    pattern = re.compile(
        r"(?<![\w'.])(?:"
        + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        + r")(?![\w']|\.[^\W\d])"
    )
    return tuple(pattern.sub(lambda m: names[m.group(0)], tactic) for tactic in proof)


def shorter_names(
    header: str,
    footer: str,
    names: Sequence[str],
    *,
    obligation: bool = False,
    coqc: str = "coqc",
    args: Sequence[str] = (),
    timeout: float = 120.0,
    memory_limit: int | None = None,
) -> dict[str, str]:
    """Ask Coq, after ``header``, the shortest name of each of ``names``. ``obligation``:
    the header leaves a program's obligations unsolved, which the file must admit before
    it may end (:mod:`proofsearch.env.coq.obligations`)."""
    if not names:
        return {}
    asked = [variant for n in names for variant in spellings(n)]
    queries = f"Locate {MARKER}.\n" + "".join(f"Locate {n}.\nLocate {MARKER}.\n" for n in asked)
    closing = f"{ADMIT_LATER}\n" if obligation else ""
    source = f"{header.rstrip()}\nSet Printing Width 100000.\n{queries}{closing}{footer.strip()}\n"
    compiled = compile_source(
        source, _MODULE, coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit
    )
    if compiled is None or compiled.returncode != 0:
        return {}
    found = parse_shorter(compiled.stdout, asked)
    out: dict[str, str] = {}
    for name in names:
        short = next((found[v] for v in spellings(name) if v in found), None)
        if short is not None and short != name:
            out[name] = short
    return out


def spellings(name: str) -> list[str]:
    """The spellings ``Locate`` is asked for ``name`` (:func:`stdlib_spellings`): Rocq 9
    runs ``apply Coq.Arith.PeanoNat.Nat.add_comm`` (a generator trained on Coq 8 proofs
    writes such names), but its ``Locate`` finds no object of that suffix; on Coq 8 the
    ``Stdlib`` spelling finds nothing and the first answers."""
    return stdlib_spellings(name)


def shorten_proof(
    header: str,
    statement: str,
    proof: Sequence[str],
    *,
    footer: str = "",
    name: str | None = None,
    allowed_axioms: Iterable[str] = (),
    any_axiom: bool = False,
    functor_parameters: Sequence[str] = (),
    in_place: bool = False,
    axioms: Iterable[str] = (),
    coqc: str = "coqc",
    args: Sequence[str] = (),
    timeout: float = 120.0,
    memory_limit: int | None = None,
) -> ShortenedProof:
    """``proof`` with its qualified names shortened, when that still checks.

    ``axioms`` are those the proof as found rests on: the shortened proof must rest on
    exactly those (a short name could name another lemma with other assumptions).
    """
    found = ShortenedProof(tuple(proof), {})
    # An obligation's constant keeps its path: ``Import`` brings a solved one's name in
    # no more (an admitted one's it does), so a short name that resolves here breaks
    # once ``prove`` fills it (an audit: "The reference between_obligation_1 was not found").
    asked = [
        n for n in qualified_names(proof) if not OBLIGATION_CONSTANT.fullmatch(n.split(".")[-1])
    ]
    names = shorter_names(
        header, footer, asked,
        obligation=obligation_statement(statement) is not None,
        coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
    )  # fmt: skip
    if name is not None:
        # ``Lemma map_map … apply map_map.`` compiles (the lemma is not defined yet) but
        # reads as a proof of itself, and the name means the new lemma from then on.
        # Such a name gets one more component of its path (``Continuity.is_lim_const``
        # for the hole ``is_lim_const``), which the re-check below confirms.
        own = {name, name.rsplit(".", 1)[-1]}
        names = {
            full: _past(full, brief) if brief in own else brief for full, brief in names.items()
        }
        names = {full: brief for full, brief in names.items() if brief and brief not in own}
    if not names:
        return found
    short = rename(proof, names)
    result = check_proof(
        header, statement, short, footer=footer, name=name, allowed_axioms=allowed_axioms,
        any_axiom=any_axiom, functor_parameters=functor_parameters, in_place=in_place,
        coqc=coqc, args=args, timeout=timeout, memory_limit=memory_limit,
    )  # fmt: skip
    if not result.ok or set(result.axioms) != set(axioms):
        return found
    return ShortenedProof(short, names)
