"""Statements and goals brought to one printed form, for matching premises to goals.

Coq prints a term with the notations of the scopes open where it prints it. A goal of
``Zdiv.v`` reads ``a * c / (b * c) = a / b``; the same lemma found by ``Search _ inside
Z`` after ``End Z`` (what ``Include`` put in ``Z``, :mod:`proofsearch.trace.premises`)
reads ``Z.div (Z.mul a c) (Z.mul b c) = Z.div a b``; and ``Decidable.decidable`` in one
is ``decidable`` in the other. 2,712 of the stdlib's 31,698 premises (``BinInt.Z.*``,
``BinNat.N.*``: the main arithmetic libraries) were printed without their notations, so
their symbols, skeletons and shapes never matched a goal's, and premise retrieval did
not find ``Z.add_move_l`` or ``Z.div_mul_cancel_r`` for goals they prove in one step.

:func:`matching_tokens` rewrites the token list of a printed term:

* an arithmetic or comparison function of a number type applied to its operands,
  ``Z.add a b``, becomes the infix notation Coq prints, ``a + b``, with parentheses only
  where Coq's levels need them (so the result reads as a goal printed with the
  notation does);
* ``Z0`` and ``N0`` are ``0``;
* a qualified name keeps its last component, and the number-type module before it
  (``Coq.ZArith.BinInt.Z.abs`` → ``Z.abs``, ``Decidable.decidable`` → ``decidable``):
  how much of a name Coq prints depends on what is imported where it prints.

Only what retrieval compares goes through it: the premise index's terms, the premises'
skeletons and shapes, and the goal's query (:mod:`proofsearch.generate.retrieval.premises`).
"""

from __future__ import annotations

from functools import lru_cache

from proofsearch.generate.knn.features import OPERATOR_LEVELS
from proofsearch.generate.knn.goals import tokens

#: Modules whose name says the type their functions work on: kept before a name.
TYPE_MODULES = frozenset({"Z", "N", "Pos", "Nat", "Q", "R"})
_BINARY_BY_SHORT = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "modulo": "mod", "pow": "^",
    "le": "<=", "lt": "<", "ge": ">=", "gt": ">", "eqb": "=?", "leb": "<=?", "ltb": "<?",
}  # fmt: skip
#: Function → infix operator (two operands).
BINARY: dict[str, str] = {
    **{f"{m}.{short}": op for m in TYPE_MODULES for short, op in _BINARY_BY_SHORT.items()},
    "Rplus": "+", "Rminus": "-", "Rmult": "*", "Rdiv": "/",
    "Rle": "<=", "Rlt": "<", "Rge": ">=", "Rgt": ">",
    "Qplus": "+", "Qminus": "-", "Qmult": "*", "Qdiv": "/", "Qle": "<=", "Qlt": "<", "Qeq": "==",
}  # fmt: skip
#: ssreflect's functions that goals print as an operator (a law states them bare:
#: ``addnC : commutative addn``), and math-comp's operators named by their scope
#: (``+%R``, read as one token, :func:`_scoped`).
BINARY.update({
    "addn": "+", "muln": "*", "subn": "-", "expn": "^", "leq": "<=", "ltn": "<",
    "orb": "||", "andb": "&&", "cat": "++",
    "+%R": "+", "*%R": "*", "-%R": "-", "+%N": "+", "*%N": "*", "*%g": "*",
})  # fmt: skip
#: Laws ssreflect states folded (``ssrfun``): what each takes (``e`` an element, ``o``
#: and ``p`` operations) and the equation it stands for over fresh variables. Premise
#: retrieval reads ``add0r : left_id 0 +%R`` as ``forall x_, 0 + x_ = x_``, so it can
#: match the goal ``0 + A = A`` (an audit's one-rewrite hole stayed open: audit 49).
LAWS: dict[str, tuple[tuple[str, ...], str]] = {
    "left_id": (("e", "o"), "o e x_ = x_"),
    "right_id": (("e", "o"), "o x_ e = x_"),
    "left_zero": (("e", "o"), "o e x_ = e"),
    "right_zero": (("e", "o"), "o x_ e = e"),
    "self_inverse": (("e", "o"), "o x_ x_ = e"),
    "commutative": (("o",), "o x_ y_ = o y_ x_"),
    "associative": (("o",), "o x_ (o y_ z_) = o (o x_ y_) z_"),
    "left_commutative": (("o",), "o x_ (o y_ z_) = o y_ (o x_ z_)"),
    "right_commutative": (("o",), "o (o x_ y_) z_ = o (o x_ z_) y_"),
    "idempotent": (("o",), "o x_ x_ = x_"),
    "idempotent_op": (("o",), "o x_ x_ = x_"),
    "left_distributive": (("o", "p"), "o (p x_ y_) z_ = p (o x_ z_) (o y_ z_)"),
    "right_distributive": (("o", "p"), "o x_ (p y_ z_) = p (o x_ y_) (o x_ z_)"),
    "involutive": (("o",), "o (o x_) = x_"),
    "cancel": (("o", "p"), "p (o x_) = x_"),
    "injective": (("o",), "o x_ = o y_ -> x_ = y_"),
}
#: Constructors Coq prints as numerals in their type's scope.
NUMERALS = {"Z0": "0", "N0": "0"}
#: Function → prefix operator (one operand).
UNARY = {"Z.opp": "-", "Q.opp": "-", "Qopp": "-", "Ropp": "-"}
#: Coq's level of each operator (``mod`` is a word, not among the features' operators).
_LEVELS = {**OPERATOR_LEVELS, "mod": 40}
#: Operators whose left / right operand may hold the same level without parentheses.
_LEFT_ASSOCIATIVE = frozenset({"+", "-", "*", "/"})
_RIGHT_ASSOCIATIVE = frozenset({"^"})
#: Neighbours a rewritten application never needs parentheses next to.
_SEPARATORS = frozenset({",", "=>", ":"})
#: The level of an application (``f x``) and of an atom.
_APPLICATION, _ATOM = 10, 0
#: Level of the prefix minus.
_NEGATION = 35

#: A parsed term: a token, or a parenthesised group of terms.
Item = str | list["Item"]


class _Written(list):  # type: ignore[type-arg]
    """A rewritten application placed among other items, and its level."""

    def __init__(self, items: list[Item], level: int) -> None:
        super().__init__(items)
        self.level = level


def short_name(token: str) -> str:
    """A qualified name's last component, with a number-type module before it kept."""
    if "." not in token or not token[:1].isalpha():
        return token
    parts = token.split(".")
    if len(parts) >= 2 and parts[-2] in TYPE_MODULES:
        return f"{parts[-2]}.{parts[-1]}"
    return parts[-1]


def _group(found: list[str]) -> list[Item]:
    """Tokens as nested groups (an unbalanced ``)`` is kept as a token)."""
    stack: list[list[Item]] = [[]]
    for token in found:
        if token == "(":
            stack.append([])
        elif token == ")" and len(stack) > 1:
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(token)
    while len(stack) > 1:  # an unclosed group: its tokens stay in place
        inner = stack.pop()
        stack[-1].extend(["(", *inner])
    return stack[0]


def _is_operand(item: Item) -> bool:
    """An argument of an application: a name, a number, or a group."""
    return isinstance(item, list) or item[:1].isalnum() or item[:1] == "_"


def _rewrite(items: list[Item]) -> tuple[list[Item], int]:
    """``items`` with the applications of :data:`BINARY` / :data:`UNARY` written infix,
    and the level of the result (an atom's when it is one item)."""
    items = [
        _rewrite_group(item) if isinstance(item, list) else NUMERALS.get(item, short_name(item))
        for item in items
    ]
    out: list[Item] = []
    level = _ATOM if len(items) == 1 else _APPLICATION
    index = 0
    while index < len(items):
        item = items[index]
        starts = index == 0 or not _is_operand(items[index - 1])
        if isinstance(item, str) and starts and (item in BINARY or item in UNARY):
            arity = 2 if item in BINARY else 1
            operands = items[index + 1 : index + 1 + arity]
            after = index + 1 + arity
            if (
                len(operands) == arity
                and all(_is_operand(o) for o in operands)
                and (after >= len(items) or not _is_operand(items[after]))
            ):
                written, written_level = _infix(item, operands)
                if index == 0 and after >= len(items):
                    return written, written_level
                out.append(_Written(written, written_level))
                index = after
                continue
        out.append(item)
        index += 1
    return _open_written(out), level


def _open_written(items: list[Item]) -> list[Item]:
    """Rewritten applications without parentheses where the operators next to them bind
    more loosely (``n + m = p``, as Coq prints it, not ``(n + m) = p``)."""
    out: list[Item] = []
    for index, item in enumerate(items):
        if isinstance(item, _Written):
            neighbours = [items[j] for j in (index - 1, index + 1) if 0 <= j < len(items)]
            if neighbours and all(item.level < _bound(n) for n in neighbours):
                out.extend(item)
            else:
                out.append(list(item))
        else:
            out.append(item)
    return out


def _bound(neighbour: Item) -> int:
    """The level below which an operand next to ``neighbour`` needs no parentheses (a
    group next to it: an application's argument, always in parentheses)."""
    if isinstance(neighbour, list):
        return -1
    return 200 if neighbour in _SEPARATORS else _LEVELS.get(neighbour, -1)


def _rewrite_group(group: list[Item]) -> list[Item]:
    return _rewrite(group)[0]


def _level(item: Item) -> int:
    """The level of an operand as it would print without its parentheses."""
    if not isinstance(item, list):
        return _ATOM
    negation = bool(item) and item[0] == "-"  # a prefix minus, not a binary one
    depth0 = [i for i in item[int(negation) :] if isinstance(i, str)]
    levels = [_LEVELS[t] for t in depth0 if t in _LEVELS]
    if levels:
        return max(levels)
    if negation:
        return _NEGATION
    return _APPLICATION if len(item) > 1 else _ATOM


def _operand(item: Item, allowed: int) -> list[Item]:
    """An operand as items of the result: its group opened when its level allows."""
    if isinstance(item, list) and _level(item) <= allowed:
        return list(item)
    return [item]


def _infix(function: str, operands: list[Item]) -> tuple[list[Item], int]:
    if function in UNARY:
        return ["-", *_operand(operands[0], _NEGATION)], _NEGATION
    operator = BINARY[function]
    level = _LEVELS[operator]
    left = level if operator in _LEFT_ASSOCIATIVE else level - 1
    right = level if operator in _RIGHT_ASSOCIATIVE else level - 1
    return [*_operand(operands[0], left), operator, *_operand(operands[1], right)], level


def _flatten(items: list[Item], out: list[str]) -> list[str]:
    for item in items:
        if isinstance(item, list):
            out.append("(")
            _flatten(item, out)
            out.append(")")
        else:
            out.append(item)
    return out


def _scoped(found: list[str]) -> list[str]:
    """``+%`` ``R`` (how the tokenizer splits math-comp's ``+%R``) as one token."""
    out: list[str] = []
    for token in found:
        if out and out[-1].endswith("%") and len(out[-1]) > 1 and token in ("R", "N", "g"):
            out[-1] += token
        else:
            out.append(token)
    return out


def _unfold_law(found: list[str]) -> list[str]:
    """A statement whose conclusion is a folded law (:data:`LAWS`) with the law's
    equation in its place, bound by a ``forall`` of its own; any other as it was."""
    start = len(found) - len(after_binders(found))
    rest = found[start:]
    if not rest or rest[0] not in LAWS:
        return found
    takes, equation = LAWS[rest[0]]
    arguments = _group(rest[1:])
    if len(arguments) != len(takes) or not all(_is_operand(a) or "%" in a for a in arguments):
        return found
    by_role = {role: _law_argument(arg) for role, arg in zip(takes, arguments, strict=True)}
    expanded: list[str] = ["forall", "x_", "y_", "z_", ","]
    for token in tokens(equation):
        expanded += by_role.get(token, [token])
    return found[:start] + expanded


def _law_argument(argument: Item) -> list[str]:
    """A law's argument as tokens: ``(0 : R)`` is ``0``, as goals print it."""
    if isinstance(argument, list) and ":" in argument:
        return _flatten([argument[: argument.index(":")]], [])
    return _flatten([argument], [])


def after_binders(found: list[str]) -> list[str]:
    """The tokens after the leading ``forall … ,`` binders and ``A ->`` premises (at
    depth 0; math-comp's ``[T : Type]`` and ``{V : zmodType}`` binders included)."""
    rest = found
    while True:
        depth, cut = 0, -1
        binder = bool(rest) and rest[0] in ("forall", "∀")
        for index, token in enumerate(rest):
            if token in ("(", "[", "{"):
                depth += 1
            elif token in (")", "]", "}"):
                depth -= 1
            elif depth == 0 and ((binder and token == ",") or (not binder and token == "->")):
                cut = index
                if binder:
                    break
        if cut < 0:
            return rest
        rest = rest[cut + 1 :]


#: ssreflect's postfix notations (``n.+1``, ``n.-1``, ``n.*2``, ``n./2``), which the
#: tokenizer splits as ``n.`` ``+`` ``1``: read as the name and one symbol, ``n``
#: ``.+1`` (a name ending in ``.`` lost its last component, the ``n``, to
#: :func:`short_name`).
_POSTFIX_OPERATORS = frozenset({"+", "-", "*", "/"})
#: math-comp's big operators by the operation and unit they iterate: ``\sum_(i < n) F i``
#: is ``\big[+%N/0%N]_(i < n) F i``, the form in which ``bigop``'s laws are stated
#: (``big_ord_recr``, ``big_split``, ``eq_bigr``), so a sum's goal meets them.
BIG_OPERATORS: dict[str, tuple[str, str]] = {
    "sum_": ("+", "0"), "prod_": ("*", "1"), "max_": ("maxn", "0"),
    "bigcup_": ("setU", "set0"), "bigcap_": ("setI", "setT"),
}  # fmt: skip


def _ssreflect_notations(found: list[str]) -> list[str]:
    """:data:`_POSTFIX_OPERATORS` and :data:`BIG_OPERATORS` read as above."""
    out: list[str] = []
    index = 0
    while index < len(found):
        token = found[index]
        after = found[index + 1 : index + 3]
        if (
            len(after) == 2 and after[0] in _POSTFIX_OPERATORS and after[1].isdigit()
            and len(token) > 1 and token.endswith(".")
        ):  # fmt: skip
            out += [token[:-1], "." + after[0] + after[1]]
            index += 3
            continue
        if token in (".+", ".-", ".*", "./") and after[:1] and after[0].isdigit():
            out.append(token + after[0])
            index += 2
            continue
        if token == "\\" and after[:1] and after[0] in BIG_OPERATORS:
            operation, unit = BIG_OPERATORS[after[0]]
            out += ["\\", "big", "[", operation, "/", unit, "]", "_"]
            index += 2
            continue
        out.append(token)
        index += 1
    return out


@lru_cache(maxsize=65_536)
def _matching(text: str) -> tuple[str, ...]:
    found = tokens(text)
    if "%" in text:
        found = _scoped(found)
    if "." in text or "\\" in text:
        found = _ssreflect_notations(found)
    if any(t in LAWS for t in found):
        found = _unfold_law(found)
    if not any("." in t or t in BINARY or t in UNARY or t in NUMERALS for t in found):
        return tuple(found)
    return tuple(_flatten(_rewrite(_group(found))[0], []))


def matching_tokens(text: str) -> list[str]:
    """The tokens of a printed term in the form retrieval compares (module docstring)."""
    return list(_matching(text))
