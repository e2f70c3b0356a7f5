"""The atoms of a boolean goal, for closing it by case analysis on all of them at once.

math-comp proves set and predicate identities in two moves: ``apply/setP => x; rewrite
!inE`` turns ``A :\\: (B :&: C) = (A :\\: B) :|: (A :\\: C)`` into a boolean identity over
membership atoms, ``~~ ((x \\in B) && (x \\in C)) && (x \\in A) = (x \\notin B) && (x \\in
A) || (x \\notin C) && (x \\in A)``, and a lemma such as ``negb_and`` or ``orb_andl``
finishes it. Knowing which lemma is the hard part; but an identity of propositional
logic holds for every value of its atoms, so ``destruct (x \\in A), (x \\in B), (x \\in C);
reflexivity`` proves it without knowing any (8 cases, each closed by computation).
The same holds for the stdlib's ``Bool`` identities (``negb (a && b) = negb a || negb
b``). The portfolio's ``{bools}`` template (:mod:`proofsearch.generate.portfolio`) is
filled with the atoms :func:`boolean_atoms` finds; the tactic closes the goal or fails,
so it adds no node to the search.

A text heuristic over the printed conclusion, like :mod:`.goals_text`: connectives are
``&&``, ``||``, ``==>``, ``~~``, ``[&& …]``, ``[|| …]`` and the functions ``negb``,
``andb``, ``orb``, ``xorb``, ``implb``, ``addb``; an atom is a maximal operand without
them (``x \\notin A`` is the atom ``x \\in A`` under a negation). A conclusion with a
binder, an ``if``, a ``match`` or a connective of ``Prop`` is left alone (``None``):
case analysis on a term under a binder, or on a proposition, is not what this is for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: Identifiers, numbers, parentheses, commas, brackets, operator runs (with spans).
_TOKEN = re.compile(r"[^\W\d][\w'.]*|\d+|[(),\[\]]|\\notin|\\in|[^\w\s(),\[\]]+")
#: Infix connectives, loosest first (``==>`` at level 55, ``||`` 50, ``&&`` 40).
_INFIX = ("==>", "||", "&&")
_PREFIX = frozenset({"~~", "negb"})
_FUNCTIONS = frozenset({"andb", "orb", "xorb", "implb", "addb"})
#: Tokens that make the conclusion something else than a boolean identity.
_REFUSED = frozenset({
    "forall", "exists", "exists2", "fun", "let", "if", "match", "->", "<->", "/\\", "\\/",
    "~", ":=", "∀", "∃", "λ", "→", "↔", "∧", "∨", "¬",
})  # fmt: skip
#: Atoms that are values, not atoms.
_CONSTANTS = frozenset({"true", "false"})
#: More atoms than this: 2^n cases is too many for one tactic.
MAX_ATOMS = 5


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class _Group:
    """A bracketed group, its opening and closing tokens kept."""

    opening: _Token
    items: tuple[_Token | _Group, ...]
    closing: _Token


class _NotBoolean(Exception):
    """The conclusion is not a boolean identity this module can split."""


def _parse(text: str) -> list[_Token | _Group]:
    stack: list[tuple[_Token | None, list[_Token | _Group]]] = [(None, [])]
    for match in _TOKEN.finditer(text):
        token = _Token(match.group(), match.start(), match.end())
        if token.text in _REFUSED:
            raise _NotBoolean(token.text)
        if token.text in ("(", "["):
            stack.append((token, []))
        elif token.text in (")", "]"):
            if len(stack) == 1:
                raise _NotBoolean("unbalanced")
            opening, items = stack.pop()
            assert opening is not None
            stack[-1][1].append(_Group(opening, tuple(items), token))
        else:
            stack[-1][1].append(token)
    if len(stack) != 1:
        raise _NotBoolean("unbalanced")
    return stack[0][1]


def _span(items: list[_Token | _Group]) -> tuple[int, int]:
    first, last = items[0], items[-1]
    start = first.opening.start if isinstance(first, _Group) else first.start
    end = last.closing.end if isinstance(last, _Group) else last.end
    return start, end


def _split(items: list[_Token | _Group], separators: set[str]) -> list[list[_Token | _Group]]:
    parts: list[list[_Token | _Group]] = [[]]
    for item in items:
        if isinstance(item, _Token) and item.text in separators:
            parts.append([])
        else:
            parts[-1].append(item)
    return parts


class _Atoms:
    """Collects the atoms of one conclusion, and whether any connective was seen."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.atoms: list[str] = []
        self.connectives = 0

    def term(self, items: list[_Token | _Group]) -> None:
        if not items:
            raise _NotBoolean("empty operand")
        for connective in _INFIX:
            parts = _split(items, {connective})
            if len(parts) > 1:
                self.connectives += 1
                for part in parts:
                    self.term(part)
                return
        head = items[0]
        if isinstance(head, _Token) and head.text in _PREFIX:
            self.connectives += 1
            self.term(items[1:])
            return
        if isinstance(head, _Token) and head.text in _FUNCTIONS:
            self.connectives += 1
            for argument in items[1:]:
                self.term([argument])
            return
        if len(items) == 1 and isinstance(head, _Group):
            self.group(head)
            return
        self.atom(items)

    def group(self, group: _Group) -> None:
        items = list(group.items)
        if group.opening.text == "(":
            self.term(items)
            return
        head = items[0] if items else None
        if isinstance(head, _Token) and head.text in ("&&", "||"):  # [&& a, b & c]
            self.connectives += 1
            last = "&" if head.text == "&&" else "|"
            for part in _split(items[1:], {",", last}):
                self.term(part)
            return
        self.atom([group])

    def atom(self, items: list[_Token | _Group]) -> None:
        if any(token.text in ("=", ",") for token in _tokens(items)):
            raise _NotBoolean("an equation or a tuple inside an operand")
        start, end = _span(items)
        raw = " ".join(self.text[start:end].split())
        if "\\notin" in raw:
            self.connectives += 1  # ``x \\notin A`` is ``~~ (x \\in A)``
        text = raw.replace("\\notin", "\\in")
        if text not in _CONSTANTS and text not in self.atoms:
            self.atoms.append(text)


def _tokens(items: Iterable[_Token | _Group]) -> Iterator[_Token]:
    for item in items:
        if isinstance(item, _Group):
            yield from _tokens(item.items)
        else:
            yield item


def boolean_atoms(conclusion: str) -> list[str] | None:
    """The atoms of ``conclusion`` if it is a boolean identity over at most
    :data:`MAX_ATOMS` of them (an equation ``l = r`` of two boolean terms, or one boolean
    term), with at least one connective; otherwise ``None``."""
    try:
        items = _parse(conclusion)
        sides = _split(items, {"="})
        if len(sides) > 2:
            return None
        found = _Atoms(conclusion)
        for side in sides:
            found.term(side)
    except _NotBoolean:
        return None
    if not found.connectives or not found.atoms or len(found.atoms) > MAX_ATOMS:
        return None
    return found.atoms


def case_targets(conclusion: str) -> str | None:
    """The atoms as ``destruct``'s list (``a, (x \\in A)``), or ``None`` (see
    :func:`boolean_atoms`)."""
    atoms = boolean_atoms(conclusion)
    if atoms is None:
        return None
    return ", ".join(
        atom if re.fullmatch(r"[^\W\d][\w'.]*", atom) else f"({atom})" for atom in atoms
    )
