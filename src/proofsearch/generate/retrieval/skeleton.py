"""A conclusion's skeleton: its head symbol and the heads of the head's operands.

``apply L`` works when ``L``'s conclusion unifies with the goal's, which needs at least
the same head symbol, and, where ``L`` has a constant under its head, that constant in
the goal too. So ``S n <= m`` has the skeleton ``(<=, S, $)``; a premise ending in
``$ <= $`` (``le_trans``'s ``n <= p``) fits it, one ending in ``S $ <= S $`` does not
(``S`` fits, but the right side needs ``S`` too), nor one ending in ``$ < $``. ``>`` and
``>=`` are read as the ``<`` and ``<=`` they stand for (Coq unfolds them when applying),
so ``alpha > 0`` fits ``0 < p``.

Comparing skeletons is a cheap heuristic, not unification (``apply`` may unfold a
definition, ``0 < 1`` to ``1 <= 1``; a notation the tokenizer does not know, ``=1`` or
``\\in``, gets a rough skeleton): it only orders the premises BM25 found
(:mod:`.premises`), those that may apply first, and drops none.
"""

from __future__ import annotations

from proofsearch.generate.knn.features import head

#: A skeleton: the head symbol, then the heads of its operands (infix heads only).
Skeleton = tuple[str | None, ...]
#: ``a > b`` is ``b < a``: the flipped operator.
_FLIPPED = {">": "<", ">=": "<=", "≥": "≤"}
_INFIX = frozenset(
    {"=", "<>", "<", "<=", "≤", "≠", "<->", "==", "++", "::", "+", "-", "*", "/", "^", "\\/", "/\\"}
)
#: Stands for a local or bound name: fits anything.
ANY = "$"


def _strip(tokens: list[str]) -> list[str]:
    """``tokens`` without parentheses that wrap the whole term."""
    while len(tokens) >= 2 and tokens[0] == "(" and tokens[-1] == ")":
        depth = 0
        for position, token in enumerate(tokens):
            depth += {"(": 1, ")": -1}.get(token, 0)
            if depth == 0 and position < len(tokens) - 1:
                return tokens  # ``(a) + (b)``: the first group closes early
        tokens = tokens[1:-1]
    return tokens


def _head_of(tokens: list[str], hidden: set[str]) -> str | None:
    tokens = _strip(tokens)
    if not tokens:
        return None
    position = head(tokens)
    if position is None:
        return None
    symbol = tokens[position]
    return ANY if symbol in hidden else symbol


def skeleton(conclusion: list[str], hidden: set[str]) -> Skeleton | None:
    """The skeleton of a conclusion (tokens, binders and hypotheses taken off); ``None``
    when its head is a local name (it would fit every goal) or it has none."""
    tokens = _strip(conclusion)
    if not tokens:
        return None
    position = head(tokens)
    if position is None or tokens[position] in hidden:
        return None
    symbol = tokens[position]
    if symbol in _FLIPPED and position > 0:
        return (_FLIPPED[symbol], _head_of(tokens[position + 1 :], hidden),
                _head_of(tokens[:position], hidden))  # fmt: skip
    if symbol in _INFIX and position > 0:
        return (symbol, _head_of(tokens[:position], hidden),
                _head_of(tokens[position + 1 :], hidden))  # fmt: skip
    return (symbol,)


def fits(premise: Skeleton | None, goal: Skeleton | None) -> bool:
    """May a premise with this skeleton apply to a goal with that one?"""
    if premise is None or goal is None or len(premise) != len(goal) or premise[0] != goal[0]:
        return False
    return all(p in (ANY, g) for p, g in zip(premise[1:], goal[1:], strict=True))


#: Heads of a conclusion ``rewrite`` can use.
_REWRITING = frozenset({"=", "<->"})
_PUNCTUATION = frozenset({"(", ")", ","})
#: The symbols of each side of an equation or equivalence.
Sides = tuple[frozenset[str], ...]


def sides(conclusion: list[str], hidden: set[str]) -> Sides:
    """The symbols (no local or bound names) of each side of a conclusion ``l = r`` or
    ``l <-> r``; ``()`` for any other conclusion."""
    tokens = _strip(conclusion)
    position = head(tokens) if tokens else None
    if position is None or position == 0 or tokens[position] not in _REWRITING:
        return ()
    return tuple(
        frozenset(t for t in part if t not in hidden and t not in _PUNCTUATION)
        for part in (tokens[:position], tokens[position + 1 :])
    )


def rewrites(premise: Sides, goal_symbols: set[str]) -> bool:
    """May ``rewrite`` (or ``rewrite <-``) with an equation of these sides find its side
    in a goal of those symbols? Needs a side with symbols, all of them in the goal."""
    return any(side and side <= goal_symbols for side in premise)
