r"""dune's ``(coq.theory (name …) (theories …))`` stanzas (or Rocq's ``rocq.theory``),
read as Coq loadpath flags.

A dune Coq project has a ``dune-project`` at its root and, in each theory's folder, a
``dune`` file whose ``coq.theory`` stanza names the theory. Coq sees a theory's folder
as ``-R FOLDER NAME`` (dune passes ``-R`` for the theory being built and its project
dependencies); ``theories`` naming a theory outside the project means an installed
library, which Coq finds in ``user-contrib`` with no flag. What the loadpath and the
file list need is read: ``name``, ``flags`` (``-arg`` values for Coq), ``modules`` (the
files dune builds: a list of module names, ``:standard`` for all, ``\`` before those
left out) and the dune file's ``(include_subdirs …)`` (without it, dune builds only the
files of the theory's own folder); the rest is dune's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_TOKEN = re.compile(r'\s+|;[^\n]*|"(?:[^"\\]|\\.)*"|[()]|[^\s();"]+')

SExp = str | list["SExp"]

#: The theory stanzas: ``coq.theory``, and dune's Rocq language's ``rocq.theory``
#: (``(using rocq 0.11)`` in ``dune-project``, the same fields).
STANZAS = ("coq.theory", "rocq.theory")


class DuneError(ValueError):
    """A ``dune`` file that cannot be read: the message names the file."""


def parse_sexps(text: str, where: str) -> list[SExp]:
    """The S-expressions of a dune file (comments dropped, strings unquoted)."""
    stack: list[list[SExp]] = [[]]
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise DuneError(f"{where}: cannot read the text at offset {position}")
        token = match.group(0)
        position = match.end()
        if token.isspace() or token.startswith(";"):
            continue
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise DuneError(f"{where}: unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        elif token.startswith('"'):
            stack[-1].append(token[1:-1])
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise DuneError(f"{where}: unbalanced '('")
    return stack[0]


@dataclass(frozen=True)
class Theory:
    """One ``coq.theory``: its folder, its logical name and its extra Coq flags."""

    folder: Path
    name: str
    flags: tuple[str, ...] = field(default=())
    #: The modules dune builds (``sub.D`` for ``sub/D.v``); ``None``: every one.
    modules: frozenset[str] | None = None
    #: Modules left out of ``:standard`` (``(modules :standard \ Scratch)``).
    excluded: frozenset[str] = frozenset()
    #: ``(include_subdirs qualified|unqualified)``: the subfolders' files too.
    subdirs: bool = False

    def builds(self, path: Path) -> bool:
        """Whether dune builds the ``.v`` file ``path`` as part of this theory."""
        relative = path.relative_to(self.folder).with_suffix("")
        if len(relative.parts) > 1 and not self.subdirs:
            return False
        module = ".".join(relative.parts)
        if module in self.excluded:
            return False
        return self.modules is None or module in self.modules


def _modules(items: list[SExp]) -> tuple[frozenset[str] | None, frozenset[str]]:
    r"""``(modules …)`` in dune's ordered set language, as (kept or ``None`` for all,
    left out): atoms, ``:standard``, and ``\`` before the atoms to leave out."""
    flat: list[str] = []

    def walk(item: SExp) -> None:
        if isinstance(item, str):
            flat.append(item)
        else:
            for inner in item:
                walk(inner)

    for item in items:
        walk(item)
    if "\\" in flat:
        cut = flat.index("\\")
        head, excluded = flat[:cut], frozenset(flat[cut + 1 :])
    else:
        head, excluded = flat, frozenset()
    if ":standard" in head or not head:
        return None, excluded
    return frozenset(head) - excluded, excluded


def _field(stanza: list[SExp], key: str) -> list[SExp] | None:
    for item in stanza[1:]:
        if isinstance(item, list) and item and item[0] == key:
            return item[1:]
    return None


def theories(root: Path) -> list[Theory]:
    """Every ``coq.theory``/``rocq.theory`` under ``root`` (``_build`` and hidden folders
    skipped)."""
    found: list[Theory] = []
    for dune in sorted(root.rglob("dune")):
        relative = dune.relative_to(root).parts
        if any(part == "_build" or part.startswith(".") for part in relative):
            continue
        where = str(dune)
        stanzas = parse_sexps(dune.read_text(encoding="utf-8"), where)
        subdirs = any(
            isinstance(stanza, list) and stanza[:1] == ["include_subdirs"] and stanza[1:2] != ["no"]
            for stanza in stanzas
        )
        for stanza in stanzas:
            if not isinstance(stanza, list) or not stanza or stanza[0] not in STANZAS:
                continue
            name = _field(stanza, "name")
            if not name or not isinstance(name[0], str):
                raise DuneError(f"{where}: {stanza[0]} without (name …)")
            flags = [f for f in (_field(stanza, "flags") or []) if isinstance(f, str)]
            listed = _field(stanza, "modules")
            modules, excluded = _modules(listed) if listed is not None else (None, frozenset())
            found.append(
                Theory(
                    dune.parent.resolve(),
                    name[0],
                    tuple(f for f in flags if f != ":standard"),
                    modules,
                    excluded,
                    subdirs,
                )
            )
    return found
