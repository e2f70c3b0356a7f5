"""One ``intros`` that also takes apart the conclusion's structured premises.

Library proofs open with named patterns (Flocq's ``intros x m e l [Hx|l' Hx Hl]``): a
premise that is a conjunction, a disjunction or an existential is split as it is
introduced. A plain ``intros`` leaves ``H : A /\\ B`` whole, and the next tactics (knn's
recorded ones among them) expect its parts. Destructing hypotheses afterwards was
measured and lost (docs/generators.md, *destruct H for hypotheses that hold structure*:
it also took apart a Section's standing assumptions); this pattern touches only what the
conclusion itself introduces. The portfolio's ``{intro_pattern}`` template
(:mod:`proofsearch.generate.portfolio`) is filled from here. It is for tactics files
(``--tactics-file``): in the default list, ``intros {intro_pattern}`` proved the same
lemmas as without it on the 125 lemmas of the tuning slices, none of its proofs using it
(docs/generators.md, *Tried and not kept*), so the default list does not hold it.

A text heuristic over the printed conclusion, like :mod:`.goals_text`: ``forall``
binders and premises (split at ``->`` outside brackets) up to the last arrow; a premise
(or a binder's type) gets ``[p q]`` for ``/\\``, ``[p|q]`` for ``\\/`` (``\\/`` binds
looser), ``[? p]`` per ``exists`` name, and ``?`` otherwise (Coq names it as ``intros``
would). ``None`` when nothing is structured: a plain ``intros`` does the same.
"""

from __future__ import annotations

import re

#: Words, the connectives as single tokens (``<->`` before ``->``), brackets, the rest.
_TOKEN = re.compile(r"<->|->|/\\|\\/|[^\W\d][\w'.]*|\d+|[()\[\]{}]|,|:=|:|\S")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = frozenset(_OPEN.values())
#: A binder or a construct that runs to the end of its text: not a premise's connective.
_BINDERS = frozenset({"forall", "exists", "exists2", "fun", "let", "match", "if", "∀", "∃"})


def intro_pattern(conclusion: str) -> str | None:
    """The pattern (``? ? [? ?] ?``) introducing every binder and premise of
    ``conclusion``, or ``None`` when none is a conjunction, disjunction or existential."""
    tokens = _TOKEN.findall(conclusion)
    patterns: list[str] = []
    while tokens:
        if tokens[0] == "forall":
            comma = _top_level(tokens, 1, ",")
            if comma is None:
                return None
            binders = _binders(tokens[1:comma])
            if binders is None:
                return None
            patterns += binders
            tokens = tokens[comma + 1 :]
            continue
        pieces = _split(tokens, "->")
        if pieces is None or len(pieces) == 1:
            break
        patterns += [_pattern(piece) for piece in pieces[:-1]]
        tokens = pieces[-1]
    if not any(p != "?" for p in patterns):
        return None
    return " ".join(patterns)


def _pattern(tokens: list[str]) -> str:
    """A premise's pattern: how ``intros`` should take it apart."""
    tokens = _unwrap(tokens)
    if not tokens:
        return "?"
    if tokens[0] == "exists":
        comma = _top_level(tokens, 1, ",")
        if comma is None:
            return "?"
        names = _binders(tokens[1:comma])
        if names is None or not names:
            return "?"
        body = _pattern(tokens[comma + 1 :])
        for _ in names:
            body = f"[? {body}]"
        return body
    for connective, joiner in (("\\/", "|"), ("/\\", " ")):
        parts = _split(tokens, connective)
        if parts is not None and len(parts) > 1:
            inner = _pattern(parts[-1])
            for part in reversed(parts[:-1]):
                inner = f"[{_pattern(part)}{joiner}{inner}]"
            return inner
    return "?"


def _binders(tokens: list[str]) -> list[str] | None:
    """One pattern per name of ``x y : T`` or ``(x : T) (H : P)``; ``None`` when it is
    not a plain binder list (``'(a, b)``, ``{x}`` with a default, ``:=``)."""
    if not tokens:
        return []
    if tokens[0] != "(":
        colon = _top_level(tokens, 0, ":")
        names = tokens if colon is None else tokens[:colon]
        if not names or not all(re.fullmatch(r"[^\W\d][\w']*", n) for n in names):
            return None
        pattern = "?" if colon is None else _pattern(tokens[colon + 1 :])
        return [pattern] * len(names)
    out: list[str] = []
    index = 0
    while index < len(tokens):
        if tokens[index] != "(":
            return None
        close = _closing(tokens, index)
        if close is None:
            return None
        group = _binders(tokens[index + 1 : close])
        if group is None or ":=" in tokens[index + 1 : close]:
            return None
        out += group
        index = close + 1
    return out


def _split(tokens: list[str], connective: str) -> list[list[str]] | None:
    """``tokens`` cut at ``connective`` outside brackets, up to a binder that runs to
    the end; ``None`` when brackets do not balance."""
    pieces: list[list[str]] = [[]]
    depth = 0
    for index, token in enumerate(tokens):
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and token in _BINDERS:
            pieces[-1] += tokens[index:]
            return pieces
        if depth == 0 and token == connective:
            pieces.append([])
        else:
            pieces[-1].append(token)
    return pieces if depth == 0 else None


def _top_level(tokens: list[str], start: int, wanted: str) -> int | None:
    """The index of the first ``wanted`` outside brackets from ``start``."""
    depth = 0
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth -= 1
        elif depth == 0 and token == wanted:
            return index
    return None


def _closing(tokens: list[str], start: int) -> int | None:
    depth = 0
    for index in range(start, len(tokens)):
        if tokens[index] in _OPEN:
            depth += 1
        elif tokens[index] in _CLOSE:
            depth -= 1
            if depth == 0:
                return index
    return None


def _unwrap(tokens: list[str]) -> list[str]:
    """Without brackets around the whole premise."""
    while tokens and tokens[0] == "(" and _closing(tokens, 0) == len(tokens) - 1:
        tokens = tokens[1:-1]
    return tokens
