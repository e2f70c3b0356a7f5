"""The function applications a goal's conclusion holds, for Equations' tactics.

A function defined with Equations is unfolded by ``simp f`` (its equations as rewrite
rules) and reasoned about by ``funelim (f x y)`` (induction along its definition's
graph): ``Lemma half_le n : half n <= n`` is ``funelim (half n); simp half; lia``. Both
name something of the goal that neither knn's name adaptation nor a premise supplies, so
the portfolio's ``{call}`` and ``{fun}`` templates (offered where the header loads
Equations: :mod:`proofsearch.generate.library_tactics`) are filled from here (audit 47:
three such one-line holes stayed open).

A text heuristic over the printed conclusion, like :mod:`.scrutinees`: an application is
a lower-case identifier followed by arguments (identifiers, numbers, bracketed terms) up
to an operator, a keyword or a closing bracket. Constructors (capitalised: ``S n``,
``Some x``), keywords and names the conclusion binds itself are left out, and so is an
application whose arguments mention a bound name (it cannot be named where the tactic
runs).
"""

from __future__ import annotations

import re

from proofsearch.generate.scrutinees import BRACKETS, bound_inside

_TOKEN = re.compile(r"[^\W\d][\w'.]*|\d+|\S")
_KEYWORDS = frozenset(
    [
        "forall",
        "fun",
        "exists",
        "exists2",
        "match",
        "with",
        "end",
        "if",
        "then",
        "else",
        "let",
        "in",
        "return",
        "as",
        "is",
        "isn't",
        "Type",
        "Prop",
        "Set",
        "SProp",
        "mod",
    ]
)
#: More applications than this are not worth a tactic each.
MAX_APPLICATIONS = 4


def applications(conclusion: str) -> list[str]:
    """The conclusion's applications ``f a b``, outermost first, each once, as written
    (spaces normalised)."""
    tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(conclusion)]
    bound = bound_inside(conclusion)
    found: list[str] = []
    arguments: set[int] = set()  # an argument is no head: `k s t` in `subst k s t`
    for index, (text, start, _) in enumerate(tokens):
        if index in arguments or not _is_function(text) or text in bound:
            continue
        if index and tokens[index - 1][0] in ("@", "'", "."):
            continue
        stop = _arguments_end(tokens, index + 1)
        if stop == index + 1:
            continue
        arguments.update(_outermost(tokens, index + 1, stop))
        words = {t for t, _, _ in tokens[index + 1 : stop]}
        if words & bound or words & _KEYWORDS:
            continue
        written = " ".join(conclusion[start : tokens[stop - 1][2]].split())
        if written not in found:
            found.append(written)
        if len(found) == MAX_APPLICATIONS:
            break
    return found


def heads(calls: list[str]) -> list[str]:
    """The functions the applications apply, each once."""
    return list(dict.fromkeys(call.split()[0] for call in calls))


def _is_function(text: str) -> bool:
    """A lower-case name (``half``, ``Nat.add``): not a constructor, nor a keyword."""
    first = text.rsplit(".", 1)[-1][:1]
    return first.isalpha() and first.islower() and text not in _KEYWORDS


def _arguments_end(tokens: list[tuple[str, int, int]], start: int) -> int:
    """The index after the last argument following a head at ``start - 1``."""
    index = start
    while index < len(tokens):
        text = tokens[index][0]
        if text in BRACKETS:
            close = _closing(tokens, index)
            if close is None:
                return index
            index = close + 1
        elif (text[0].isalnum() or text[0] == "_") and text not in _KEYWORDS:
            index += 1
        else:
            break
    return index


def _outermost(tokens: list[tuple[str, int, int]], start: int, stop: int) -> list[int]:
    """The indexes in ``[start, stop)`` outside brackets."""
    depth, found = 0, []
    for index in range(start, stop):
        text = tokens[index][0]
        if text in BRACKETS:
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            found.append(index)
    return found


def _closing(tokens: list[tuple[str, int, int]], start: int) -> int | None:
    """The index of the bracket closing the one at ``start``, or None."""
    closers: list[str] = []
    for index in range(start, len(tokens)):
        text = tokens[index][0]
        if text in BRACKETS:
            closers.append(BRACKETS[text])
        elif closers and text == closers[-1]:
            closers.pop()
            if not closers:
                return index
        elif text in (")", "]", "}"):
            return None
    return None
