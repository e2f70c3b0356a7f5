"""Goals text taken apart: hypotheses, conclusion, local names, and tokens.

The search hands generators the Coq backend's rendering of the focused goals
(hypothesis lines, ``============================``, the conclusion; goals separated by
blank lines), and the trace's :meth:`~proofsearch.trace.schema.Goal.render` produces the
same layout. Everything learned from a trace is computed from that rendering, so a
recorded state and a live state go through exactly the same code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

SEPARATOR = "============================"

#: Identifiers (qualified ones included), numbers, parentheses, commas, operator runs.
_TOKEN = re.compile(r"[^\W\d][\w'.]*|\d+|[(),]|[^\w\s(),]+")
_HYPOTHESIS = re.compile(r"^([^\W\d][\w']*(?:\s*,\s*[^\W\d][\w']*)*)\s*(:=|:)\s?(.*)$", re.S)
_BINDERS = frozenset({"forall", "fun", "exists", "exists2", "∀", "λ", "∃"})


@dataclass(frozen=True)
class Hyp:
    """A hypothesis line: its names, its type (and ``body`` for ``x := v : T``)."""

    names: tuple[str, ...]
    type: str
    body: str | None = None


@dataclass(frozen=True)
class ParsedGoal:
    """The first goal of a goals text."""

    hypotheses: tuple[Hyp, ...]
    conclusion: str

    @cached_property
    def hypothesis_names(self) -> tuple[str, ...]:
        return tuple(name for h in self.hypotheses for name in h.names)

    @cached_property
    def hypothesis_name_set(self) -> frozenset[str]:
        return frozenset(self.hypothesis_names)


def tokens(text: str) -> list[str]:
    """The tokens of a Coq term as printed."""
    return _TOKEN.findall(text)


def _split_body(rest: str) -> tuple[str, str | None]:
    """``v : T`` (a ``:=`` hypothesis's remainder) as type and body: the last ``" : "``
    outside brackets separates them."""
    depth = 0
    cut = -1
    for index, char in enumerate(rest):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and rest.startswith(" : ", index):
            cut = index
    if cut < 0:
        return rest.strip(), None
    return rest[cut + 3 :].strip(), rest[:cut].strip()


def parse_first_goal(goals: str) -> ParsedGoal:
    """The first goal of ``goals``; text without a separator is all conclusion."""
    first = goals.strip("\n").split("\n\n", 1)[0]
    if SEPARATOR not in first:
        return ParsedGoal((), first.strip())
    context, _, conclusion = first.partition(SEPARATOR)
    entries: list[str] = []
    for line in context.splitlines():
        if not line.strip():
            continue
        if entries and (line[:1].isspace() or not _HYPOTHESIS.match(line)):
            entries[-1] += " " + line.strip()  # a long hypothesis printed over lines
        else:
            entries.append(line.strip())
    hypotheses = []
    for entry in entries:
        match = _HYPOTHESIS.match(entry)
        if not match:
            continue
        names = tuple(n.strip() for n in match.group(1).split(","))
        if match.group(2) == ":=":
            type_text, body = _split_body(match.group(3))
            hypotheses.append(Hyp(names, type_text, body))
        else:
            hypotheses.append(Hyp(names, match.group(3).strip()))
    return ParsedGoal(tuple(hypotheses), conclusion.strip())


def bound_names(term_tokens: list[str]) -> set[str]:
    """Names bound by ``forall``/``fun``/``exists`` binders in a token list."""
    bound: set[str] = set()
    index = 0
    while index < len(term_tokens):
        if term_tokens[index] not in _BINDERS:
            index += 1
            continue
        index += 1
        while index < len(term_tokens) and term_tokens[index] not in (",", "=>"):
            token = term_tokens[index]
            if token == "(":
                index += 1
                while index < len(term_tokens) and term_tokens[index] not in (":", ")"):
                    if term_tokens[index][:1].isalpha() or term_tokens[index][:1] == "_":
                        bound.add(term_tokens[index])
                    index += 1
                depth = 1
                while index < len(term_tokens) and depth:
                    index += 1
                    if index < len(term_tokens):
                        depth += {"(": 1, ")": -1}.get(term_tokens[index], 0)
                index += 1
            elif token == ":":
                while index < len(term_tokens) and term_tokens[index] not in (",", "=>"):
                    index += 1
            else:
                if token[:1].isalpha() or token[:1] == "_":
                    bound.add(token)
                index += 1
    return bound
