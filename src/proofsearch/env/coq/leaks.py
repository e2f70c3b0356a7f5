"""Which libraries a proof may use when a line was added after the theorem's header.

CoqHammer's tactics need ``From Hammer Require Import Tactics.`` after the header (the
search's ``header_suffix``). That import loads stdlib libraries of its own (``Lia``,
``ZArith``'s ``BinInt``, ``Program.Equality``, ``Bool`` ...), which the theorem's header
may not load: a held-out stdlib lemma could then be proved through a later module of
its own library, and a library lemma through modules its file never required. So a
proof checked with a suffix must not depend on a constant of a library the suffix
loads beyond the header.

``Print Libraries`` before and after the suffix (in the compiled file, where they cost
nothing) says which libraries those are; ``Print All Dependencies`` lists the proof's
constants by their shortest unambiguous names, which say nothing sure about the library
(``Equality`` is math-comp's ``eqtype.Equality`` and the stdlib's ``Program.Equality``),
so each is located to its full path with ``Locate Term`` where the proof was compiled.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: What ``Print Libraries`` prints before its list.
LIBRARIES_MARK = "Loaded library files:"
#: Printed between two ``Locate`` answers (``Module M``), to tell them apart.
LOCATE_SEPARATOR = "Locate Module {module}."
_LOCATED = re.compile(r"^(?:Constant|Inductive|Constructor|Projection|Ltac|Notation)\s+(\S+)")


def printed_libraries(printed: str) -> list[frozenset[str]]:
    """Each ``Print Libraries`` list in ``printed``, in order (its indented lines)."""
    lists: list[frozenset[str]] = []
    for block in printed.split(LIBRARIES_MARK)[1:]:
        names = []
        for line in block.splitlines()[1:]:
            if not line.startswith("  "):
                break
            names.append(line.strip())
        lists.append(frozenset(n for n in names if re.fullmatch(r"[\w.']+", n)))
    return lists


def added_libraries(printed: str, ignore: Iterable[str] = ("Hammer.",)) -> frozenset[str]:
    """Libraries the second ``Print Libraries`` list has beyond the first (those under a
    prefix in ``ignore``, the suffix's own library, left out)."""
    lists = printed_libraries(printed)
    if len(lists) < 2:
        raise ValueError(f"expected two {LIBRARIES_MARK!r} lists, found {len(lists)}")
    prefixes = tuple(ignore)
    return frozenset(lib for lib in lists[1] - lists[0] if not lib.startswith(prefixes))


def dependency_names(printed: str) -> list[str]:
    """The names ``Print All Dependencies`` lists, in order.

    "name : type" (8.16), or "name :" with the type on the next lines (8.20, 9.x).
    """
    names = []
    for line in printed.splitlines():
        match = re.match(r"([^\s:]\S*) :(?: |$)", line)
        if match:
            names.append(match.group(1))
    return names


def locate_script(module: str, names: Iterable[str]) -> str:
    """``Locate Term`` of each name after ``Require module``, answers separated."""
    separator = LOCATE_SEPARATOR.format(module=module)
    return f"Require {module}.\nSet Printing Width 100000.\n" + "".join(
        f"Locate Term {name}.\n{separator}\n" for name in names
    )


def located_paths(printed: str, count: int, module: str) -> list[str]:
    """The full path of each ``Locate Term`` answer (its first line), in order.

    Answers are separated by the ``Module <module>`` line that :func:`locate_script`'s
    separator prints; an answer without a path gives ``""`` (never a leak, but never
    silently shifted).
    """
    paths: list[str] = []
    current: str | None = None
    separator = re.compile(rf"^Module\s+{re.escape(module)}\b")
    for line in printed.splitlines():
        if separator.match(line):
            paths.append(current or "")
            current = None
            continue
        match = _LOCATED.match(line)
        if match and current is None:
            current = match.group(1)
    if len(paths) != count:
        raise ValueError(f"Locate gave {len(paths)} answers for {count} names")
    return paths


def leaked(names: list[str], paths: list[str], forbidden: Iterable[str]) -> list[str]:
    """The names whose path lies inside a ``forbidden`` library."""
    libraries = tuple(f"{lib}." for lib in forbidden)
    return [name for name, path in zip(names, paths, strict=True) if path.startswith(libraries)]
