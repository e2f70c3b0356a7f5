"""A written proof that introduces the statement's variables under the statement's names.

The search's first step often comes from a neighbour's proof: ``intros n m`` for a
statement ``forall b c : bool, …``, ``intros A P H`` for ``forall X (l1 l2 : list X)``
(a list called ``H``). Coq accepts any names; a reader (a teacher grading an exercise:
audit 54) sees the proof talk about variables the statement does not have. Here the
names the first ``intro``/``intros`` gives the statement's ``forall`` binders are
replaced, throughout the proof, by the binders' own; the caller keeps the version only
when it still proves the hole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NAME = r"[A-Za-z_][\w']*"
#: The first step's leading ``intro x`` / ``intros x y …`` (plain names only), and the rest.
_INTROS = re.compile(
    rf"(?P<head>\s*intros?\s+)(?P<names>{_NAME}(?:\s+{_NAME})*)(?P<rest>\s*(?:;.*)?)$", re.S
)


def _top_level(text: str, char: str, start: int = 0) -> int:
    """The index of the first ``char`` outside brackets from ``start`` (-1: none); a
    colon of ``:=`` does not count."""
    depth = 0
    for index in range(start, len(text)):
        c = text[index]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == char and depth == 0 and not text.startswith(":=", index):
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


def _binder_names(binders: str) -> list[str] | None:
    """``X (l1 l2 : list X)`` → ``[X, l1, l2]``; None for a pattern or anything else."""
    names: list[str] = []
    rest = binders.strip()
    while rest:
        if rest[0] in "([{":
            end = _closing(rest)
            inner = rest[1:end] if end > 0 else ""
            colon = _top_level(inner, ":")
            group = (inner[:colon] if colon >= 0 else inner).split()
            if not group or not all(re.fullmatch(_NAME, name) for name in group):
                return None
            names.extend(group)
            rest = rest[end + 1 :].lstrip()
            continue
        plain = re.match(rf"({_NAME})\s*", rest)
        if plain is None:
            return None
        if plain[1] == "_":
            return names  # an anonymous binder: the names after it are not renamed
        names.append(plain[1])
        rest = rest[plain.end() :]
        if rest.startswith(":"):  # `forall x y : nat, …`: the type of the names before
            return names
    return names


def statement_binders(statement: str) -> list[str]:
    """The names the statement's type binds with its leading ``forall``s, in order
    (``Theorem t (n : nat) : forall m k, P`` gives ``[m, k]``: ``n`` is no ``intro``'s)."""
    colon = _top_level(statement, ":")
    if colon < 0:
        return []
    kind = statement[colon + 1 :].strip().removesuffix(".")
    names: list[str] = []
    while kind.startswith("forall") and kind[6:7].isspace():
        comma = _top_level(kind, ",", 6)
        if comma < 0:
            break
        group = _binder_names(kind[6:comma])
        if group is None:
            break
        names.extend(group)
        kind = kind[comma + 1 :].strip()
    return names


def with_statement_names(proof: Sequence[str], statement: str) -> list[str] | None:
    """``proof`` with the names its first ``intro(s)`` gives the statement's binders
    replaced by the binders' own, everywhere in the proof; None when nothing would
    change or a new name is already used in the proof for something else."""
    if not proof:
        return None
    found = _INTROS.match(proof[0])
    binders = statement_binders(statement)
    if found is None or not binders:
        return None
    given = found["names"].split()
    mapping = {old: new for old, new in zip(given, binders, strict=False) if old != new}
    if not mapping or len(set(mapping.values())) != len(mapping):
        return None
    text = "\n".join(proof)
    used = set(re.findall(rf"(?<![\w'.]){_NAME}", text))
    if any(new in used and new not in mapping for new in mapping.values()):
        return None  # `intros n m` where the proof also says `b` for something else
    word = re.compile(rf"(?<![\w'.])({'|'.join(map(re.escape, mapping))})(?![\w'])")
    return [word.sub(lambda m: mapping[m[1]], step) for step in proof]
