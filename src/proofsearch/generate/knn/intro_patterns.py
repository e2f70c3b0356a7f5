"""The names a tactic introduces, and renaming those that the goal at hand already has.

A recorded ``move=> n m`` ran where ``n`` was free. Suggested where the goal already has
an ``n``, it fails (``n already used``), and so do Coq's ``intros n`` and ``destruct x
as [|n IHn]``. So the names an intro pattern introduces are found, and one that clashes
with a hypothesis of the goal is renamed to a fresh one (``n0``), from the pattern on,
unless the same tactic first takes it out of the context: ssreflect's discharge
(``case: n => [|n IHn]``, ``move: H => /eqP H``), a clear switch (``{H}``), or the
term ``destruct``/``induction`` works on (``induction n as [|n IHn]``).

Understood: ssreflect's ``=>`` patterns (names, ``[|…]`` branches, views ``/eqP``
(lemmas, not names), ``->``, ``//=``, ``{H}``, ``?``, ``_``) after any tactic of a
``;``-separated sentence, and Coq's ``intros``/``intro`` and ``as`` patterns. A ``=>``
after ``fun``/``match`` at the same depth is a term's, not a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Set
from functools import lru_cache

_TOKEN = re.compile(r"[^\W\d][\w']*|=>|->|<-|//=|//|/=|[^\s\w]|\d+")
_IDENT = re.compile(r"[^\W\d][\w']*")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = frozenset(_OPEN.values())
_COQ_INTRO = frozenset({"intros", "intro"})
_TERM_ARROW = frozenset({"fun", "match", "λ"})
_KEYWORDS = frozenset({"as", "in", "at", "with", "using", "by", "do", "first", "last"})


@lru_cache(maxsize=1 << 16)
def _identifiers(tactic: str) -> frozenset[str]:
    return frozenset(_IDENT.findall(tactic))


@lru_cache(maxsize=1 << 16)
def _introductions(tactic: str) -> tuple[tuple[tuple[str, int], ...], frozenset[str]]:
    """(name, offset) of each introduced name, and the names taken out before."""
    introduced: list[tuple[str, int]] = []
    taken: set[str] = set()
    stack: list[str] = []
    mode: str | None = None  # None, "discharge", "ssr", "coq"
    first: str | None = None
    term_arrow = False
    mode_depth = 0
    previous = ""
    for match in _TOKEN.finditer(tactic):
        token = match.group()
        depth = len(stack)
        if token in _OPEN:
            stack.append(token)
        elif token in _CLOSE:
            if stack:
                stack.pop()
            if mode is not None and len(stack) < mode_depth:
                mode = None
        elif depth == 0 and token in (";", "||", "|"):
            mode, first, term_arrow = None, None, False
        elif token == "=>" and not term_arrow:
            mode, mode_depth = "ssr", depth
        elif token in _TERM_ARROW:
            term_arrow = True
        elif depth == 0 and token == ":" and mode is None and first is not None:
            mode, mode_depth = "discharge", depth
        elif depth == 0 and token == "as" and first is not None:
            mode, mode_depth = "coq", depth
        elif _IDENT.fullmatch(token):
            if first is None:
                first = token
                if token in _COQ_INTRO:
                    mode, mode_depth = "coq", depth
            elif token in _KEYWORDS:
                pass
            elif "{" in stack[mode_depth:] or mode == "discharge":
                taken.add(token)
            elif mode == "coq" or (
                mode == "ssr" and previous != "/" and "(" not in stack[mode_depth:]
            ):
                introduced.append((token, match.start()))
            elif mode is None and first in ("destruct", "induction", "case", "elim"):
                taken.add(token)
        previous = token
    return tuple(introduced), frozenset(taken)


def fresh_intros(tactic: str, present: Set[str]) -> str:
    """``tactic`` with each introduced name that ``present`` already holds (and that the
    tactic does not first take out of the context) renamed to a fresh name."""
    if "=>" not in tactic and "intro" not in tactic and " as " not in tactic:
        return tactic  # nothing is introduced
    if not present or present.isdisjoint(_identifiers(tactic)):
        return tactic
    introduced, taken = _introductions(tactic)
    starts: dict[str, int] = {}
    for name, offset in introduced:
        if name in present and name not in taken:
            starts.setdefault(name, offset)
    if not starts:
        return tactic
    used = set(present) | _identifiers(tactic)
    fresh: dict[str, str] = {}
    for name in starts:
        number = 0
        while f"{name}{number}" in used:
            number += 1
        fresh[name] = f"{name}{number}"
        used.add(fresh[name])

    def rename(match: re.Match[str]) -> str:
        name = match.group()
        start = starts.get(name)
        return fresh[name] if start is not None and match.start() >= start else name

    return re.sub(r"(?<![\w'.])[^\W\d][\w']*(?![\w']|\.[^\W\d])", rename, tactic)
