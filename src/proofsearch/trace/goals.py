"""Structured goals from the text coqidetop prints: hypotheses split into names, body, type.

Coq prints a hypothesis as ``x, y : nat`` or ``n := S m : nat``. The names end at the
first `` := `` or `` : ``; a body ends at the first `` : `` outside brackets and
outside a binder (``fun x : nat => x`` has its own `` : ``). The split is checked: the
record renders back to exactly the printed text, so :meth:`Goal.render` gives what the
Coq backend shows generators; a hypothesis that cannot be split that way keeps its
whole text as the type, with no names (never seen in the standard library).
"""

from __future__ import annotations

import re

from proofsearch.env.coq import xml
from proofsearch.trace.schema import Goal, Hypothesis

_NAMES = re.compile(r"([^\s,:]+(?:, [^\s,:]+)*) (:=|:) ")
_TOKEN = re.compile(r"[^\W\d][\w']*|:=|=>|\S")
_OPENERS = {"(": ")", "[": "]", "{": "}"}
#: Binders and what closes them at their own depth.
_BINDERS = {"fun": "=>", "forall": ",", "exists": ",", "exists2": ",", "let": "in", "fix": ":="}


def _body_end(text: str, start: int) -> int | None:
    """Index of the `` : `` that ends a hypothesis body starting at ``start``."""
    closers: list[str] = []
    binders: list[str] = []
    for match in _TOKEN.finditer(text, start):
        token = match.group()
        if token in _OPENERS:
            closers.append(_OPENERS[token])
        elif closers and token == closers[-1]:
            closers.pop()
        elif closers:
            continue
        elif token in _BINDERS:
            binders.append(_BINDERS[token])
        elif binders and token == binders[-1]:
            binders.pop()
        elif token == "match":
            binders.append("end")
        elif (
            token == ":"
            and not binders
            and text[match.start() - 1 : match.start()] == " "
            and text[match.end() : match.end() + 1] == " "
        ):
            return match.start() - 1
    return None


def hypothesis(text: str) -> Hypothesis:
    """Split one printed hypothesis into names, body and type."""
    match = _NAMES.match(text)
    if match is not None:
        names = match.group(1).split(", ")
        rest = match.end()
        parsed: Hypothesis | None
        if match.group(2) == ":":
            parsed = Hypothesis(names=names, type=text[rest:])
        else:
            end = _body_end(text, rest)
            parsed = (
                Hypothesis(names=names, body=text[rest:end], type=text[end + 3 :])
                if end is not None
                else None
            )
        if parsed is not None and parsed.render() == text:
            return parsed
    return Hypothesis(names=[], type=text)


def goal(printed: xml.Goal) -> Goal:
    return Goal(
        hypotheses=[hypothesis(h) for h in printed.hypotheses], conclusion=printed.conclusion
    )
