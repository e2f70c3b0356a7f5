"""The terms a goal's ``match`` and ``if`` inspect, for case analysis on them.

A conclusion such as ``match Z.compare x y with Lt => … | _ => … end = …`` or ``(if
Rle_bool x y then x else y) <= z`` is stuck until the inspected term is taken apart:
``destruct (Z.compare x y) eqn:?`` splits the goal into one case per constructor, each
with an equation that says which case it is (the stdlib's ``Z.max``/``Z.min`` proofs,
Flocq's ``Rcompare`` and ``Rlt_bool`` cases, math-comp's ``if x == y`` all start so).
A recorded step writes its own lemma's term out, and knn's name adaptation maps
hypotheses, not subterms, so the portfolio's ``{scrutinee}`` template
(:mod:`proofsearch.generate.portfolio`) is filled from here. It is for tactics files
(``--tactics-file``): in the default list, ``destruct {scrutinee} eqn:?`` proved the same
lemmas as without it on 235 held-out lemmas, none of its proofs using it
(docs/generators.md, *Tried and not kept*), so the default list does not hold it.

A text heuristic over the printed conclusion, like :mod:`.goals_text`: the term runs
from ``match``/``if`` to the first ``with``, ``as``, ``in``, ``return``, ``then`` or
``is`` outside brackets. A term holding another ``match``, ``if``, ``fun`` or ``let``,
or a name bound inside the conclusion (``forall``/``fun``/``exists`` binders, a
``match`` branch's pattern variables), is left out: it cannot be destructed where the
tactic runs.
"""

from __future__ import annotations

import re

#: Identifiers (qualified, with primes), and single bracket characters.
_TOKEN = re.compile(r"[^\W\d][\w'.]*|\S")
#: Each opening bracket → its closing one.
BRACKETS = {"(": ")", "[": "]", "{": "}"}
_END = {
    "match": frozenset({"with", "as", "in", "return"}),
    "if": frozenset({"then", "is", "isn't", "as", "return"}),
}
_NESTED = frozenset({"match", "if", "fun", "let", "forall", "exists", "λ", "∀", "∃"})
#: ``forall x y : T,``, ``fun (x : T) =>``, ``exists x,``: the names up to ``,``/``=>``.
_BINDER = re.compile(r"\b(?:forall|fun|exists2?)\s+([^,=]*?)(?:,|=>)", re.S)
#: A match branch's pattern: ``| S n =>``, ``| (a, b) =>``, and the first, after ``with``.
_BRANCH = re.compile(r"(?:\||\bwith)\s*([^|=]*?)=>", re.S)
_WORD = re.compile(r"[^\W\d][\w']*")
#: More terms than this are not worth a tactic each.
MAX_SCRUTINEES = 4


def bound_inside(conclusion: str) -> set[str]:
    """Names the conclusion binds itself (binders, branch patterns)."""
    names: set[str] = set()
    for pattern in (_BINDER, _BRANCH):
        for match in pattern.finditer(conclusion):
            group = re.sub(r":[^()]*", " ", match.group(1))  # drop ``: T`` annotations
            names.update(_WORD.findall(group))
    return names


def scrutinees(conclusion: str) -> list[str]:
    """The terms the conclusion's ``match``es and ``if``s inspect, outermost first,
    each once, parenthesised unless a single name (ready for ``destruct``)."""
    tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(conclusion)]
    bound = bound_inside(conclusion)
    found: list[str] = []
    for position, (text, _, _) in enumerate(tokens):
        if text not in _END:
            continue
        term = _term(tokens, position + 1, _END[text])
        if term is None:
            continue
        start, stop = term
        words = {t for t, _, _ in tokens[start:stop]}
        if not words or words & _NESTED or words & bound:
            continue
        written = " ".join(conclusion[tokens[start][1] : tokens[stop - 1][2]].split())
        if stop - start > 1:
            written = f"({written})"
        if written not in found:
            found.append(written)
        if len(found) == MAX_SCRUTINEES:
            break
    return found


def _term(
    tokens: list[tuple[str, int, int]], start: int, ends: frozenset[str]
) -> tuple[int, int] | None:
    """The token span ``[start, stop)`` up to the first of ``ends`` outside brackets, or
    ``None`` when brackets do not balance first."""
    closers: list[str] = []
    for index in range(start, len(tokens)):
        text = tokens[index][0]
        if text in BRACKETS:
            closers.append(BRACKETS[text])
        elif closers and text == closers[-1]:
            closers.pop()
        elif text in (")", "]", "}"):
            return None
        elif not closers and text in ends:
            return (start, index) if index > start else None
    return None
