"""How a tactic at a theorem's point names a premise of the theorem's own file.

A premise of a required library is named by its qualified name (unambiguous once the
library is loaded). A premise of the theorem's own file is not: the header that opens
the theorem is the file's prefix compiled under another name, so the file's logical
name does not resolve there, and a premise declared inside ``Module Nat`` is ``Nat.foo``
once ``End Nat.`` has closed it but ``foo`` inside it. The name is the premise's path
inside its file, less the modules the theorem is itself inside.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from proofsearch.theorem import Theorem

_SENTENCE = re.compile(
    r"(?:^|(?<=\.)\s)\s*(?:(Module(?:\s+Type)?)\s+(?:(?:Import|Export)\s+)?([\w']+)([^.]*)"
    r"|(Section)\s+([\w']+)|End\s+([\w']+))\s*\.(?=\s|$)",
    re.M,
)


def open_modules(theorem: Theorem) -> tuple[str, ...]:
    """The modules (innermost last) the theorem's statement sits inside: the theorem
    file's ``scopes`` field when it has one (``["module Nat", "section S"]``), else read
    from ``Module``/``Section``/``End`` sentences of its header."""
    scopes = theorem.extra.get("scopes")
    if isinstance(scopes, list) and all(isinstance(s, str) for s in scopes):
        return tuple(s.split()[1] for s in scopes if s.startswith("module "))
    stack: list[tuple[str, str]] = []
    for match in _SENTENCE.finditer(theorem.header):
        module, name, rest, section, section_name, end = match.groups()
        if module is not None:
            if ":=" not in rest:  # ``Module M := N.`` declares, it does not open
                stack.append(("module", name))
        elif section is not None:
            stack.append(("section", section_name))
        elif stack and stack[-1][1] == end:
            stack.pop()
    return tuple(name for kind, name in stack if kind == "module")


def own_file_name(qualified: str, file_module: str, opened: Sequence[str]) -> str:
    """``qualified`` (a premise of ``file_module``) as named inside modules ``opened``.
    A premise of a functor's body is named as the body names it already (``X.op_comm``,
    not under the file's name): it is kept whole (it was cut to ``op_comm``)."""
    relative = qualified[len(file_module) + 1 :] if qualified.startswith(file_module + ".") else ""
    parts = (relative or qualified).split(".")
    common = 0
    while common < min(len(opened), len(parts) - 1) and opened[common] == parts[common]:
        common += 1
    return ".".join(parts[common:])
