"""A Coq statement read into its parts: keyword, name, parameters, type, and the names
(with their types) the type's leading ``forall`` binds.

A small reader, not Coq's parser: it gives up (``None``, or fewer binders) on anything
it does not know (patterns ``'(x, y)``, attributes, notations for binders), and every
use of what it reads is checked by Coq afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = r"[A-Za-z_][\w']*"

#: Keywords of a statement that is a proposition to prove (not data to define).
PROPOSITION_KEYWORDS = frozenset(
    ("Lemma", "Theorem", "Fact", "Remark", "Corollary", "Proposition", "Example", "Property")
)
_STATEMENT = re.compile(
    rf"\s*(?P<keyword>{'|'.join(sorted(PROPOSITION_KEYWORDS))})\s+(?P<name>{NAME})(?P<rest>.*)$",
    re.S,
)


@dataclass(frozen=True)
class Statement:
    """``Lemma name params : type.`` in parts (``params`` as written, maybe empty)."""

    keyword: str
    name: str
    params: str
    type: str


def top_level(text: str, token: str, start: int = 0) -> int:
    """The index of the first ``token`` outside brackets from ``start`` (-1: none); the
    colon of ``:=`` is no ``:``."""
    depth = 0
    for index in range(start, len(text)):
        c = text[index]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif (
            depth == 0
            and text.startswith(token, index)
            and not (token == ":" and text.startswith(":=", index))
        ):
            return index
    return -1


def _closing(text: str) -> int:
    """The index of the bracket closing ``text[0]`` (-1: none)."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def statement_parts(statement: str) -> Statement | None:
    """A proposition's statement in parts; None for anything else (a ``Definition``, an
    attribute, no type)."""
    found = _STATEMENT.match(statement)
    if found is None:
        return None
    rest = found["rest"]
    colon = top_level(rest, ":")
    if colon < 0:
        return None
    kind = rest[colon + 1 :].strip()
    if not kind.endswith("."):
        return None
    return Statement(found["keyword"], found["name"], rest[:colon].strip(), kind[:-1].strip())


def binder_group(binders: str) -> tuple[list[tuple[str, str | None]], bool] | None:
    """``X (l1 l2 : list X)`` → ``[(X, None), (l1, list X), (l2, list X)]``, and whether
    the group was read to its end; a plain list ``x y : nat`` gives each name the type;
    None for a pattern or anything else. An anonymous binder ``_`` stops the reading
    (the names after it are not given, and the group is not read to its end)."""
    names: list[tuple[str, str | None]] = []
    rest = binders.strip()
    while rest:
        if rest[0] in "([{":
            end = _closing(rest)
            inner = rest[1:end] if end > 0 else ""
            colon = top_level(inner, ":")
            group = (inner[:colon] if colon >= 0 else inner).split()
            kind = inner[colon + 1 :].strip() if colon >= 0 else None
            if not group or not all(re.fullmatch(NAME, name) for name in group):
                return None
            if "_" in group:
                return names + [(n, kind) for n in group[: group.index("_")]], False
            names += [(name, kind) for name in group]
            rest = rest[end + 1 :].lstrip()
            continue
        plain = re.match(rf"({NAME})\s*", rest)
        if plain is None:
            return None
        if plain[1] == "_":
            return names, False
        names.append((plain[1], None))
        rest = rest[plain.end() :]
        if rest.startswith(":"):  # `x y : nat`: the type of the plain names before it
            kind = rest[1:].strip()
            return [(n, kind if k is None else k) for n, k in names], True
    return names, True


def leading_binders(kind: str) -> list[tuple[str, str | None]]:
    """The names (and types, where written) a type's leading ``forall``s bind, in order:
    ``forall X : Type, forall l : list X, P`` gives ``[(X, Type), (l, list X)]``."""
    names: list[tuple[str, str | None]] = []
    kind = kind.strip()
    while kind.startswith("forall") and kind[6:7].isspace():
        comma = top_level(kind, ",", 6)
        if comma < 0:
            break
        read = binder_group(kind[6:comma])
        if read is None:
            break
        group, whole = read
        names += group
        if not whole:
            break
        kind = kind[comma + 1 :].strip()
    return names


def statement_binders(statement: str) -> list[str]:
    """The names the statement's type binds with its leading ``forall``s, in order
    (``Theorem t (n : nat) : forall m k, P`` gives ``[m, k]``: ``n`` is no ``intro``'s).
    Any declaring keyword is read here, ``Definition`` and ``Instance`` too."""
    colon = top_level(statement, ":")
    if colon < 0:
        return []
    return [name for name, _ in leading_binders(statement[colon + 1 :].strip().removesuffix("."))]
