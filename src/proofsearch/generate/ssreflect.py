"""Whether a theorem is stated where ssreflect's tactic language is loaded.

math-comp and the stdlib's ``ssr`` files are proved in ssreflect's tactic language
(``move=>``, ``case:``, ``elim:``, ``apply/V``, ``rewrite -L``, ``by []``, ``done``).
The portfolio and the premise templates offer those forms only where they parse and
mean what they should: when the theorem's header ``Require``s and imports the
``ssreflect`` module (``From mathcomp Require Import ssreflect ...``, ``From Coq Require
Import ssreflect``, ``all_ssreflect``). Elsewhere they would be syntax errors, wasted
suggestions. A text check on the header: no Coq process is involved.
"""

from __future__ import annotations

import functools
import re

#: Modules whose import brings ssreflect's tactic language (by their last component).
SSREFLECT_MODULES = frozenset({"ssreflect", "all_ssreflect"})
#: math-comp 2.5's renamings of ``all_ssreflect`` (``all_boot``, then ``boot`` in 2.6),
#: which export ssreflect too; counted only under ``mathcomp`` (``boot`` is a common name).
MATHCOMP_SSREFLECT_MODULES = frozenset({"boot", "all_boot"})

#: ``[From P] Require Import|Export names.``: group 2 holds the (dotted) names.
_REQUIRE = re.compile(
    r"(?:^|(?<=[.\s]))(?:From\s+([\w.']+)\s+)?Require\s+(?:Import|Export)\s+"
    r"([^.]*(?:\.[\w'][^.]*)*)\.(?:\s|$)"
)
_COMMENT = re.compile(r"\(\*.*?\*\)", re.S)


@functools.lru_cache(maxsize=256)
def imported_paths(header: str) -> tuple[str, ...]:
    """The modules ``header`` ``Require``s and imports or exports, each as written with
    its ``From`` prefix (``From mathcomp Require Import eqtype`` gives
    ``mathcomp.eqtype``). A text check: no Coq process is involved."""
    text = _COMMENT.sub(" ", header)
    return tuple(
        f"{match.group(1)}.{name}" if match.group(1) else name
        for match in _REQUIRE.finditer(text)
        for name in match.group(2).split()
    )


def loads_ssreflect(header: str) -> bool:
    """Whether ``header`` imports ssreflect (``Require Import``/``Export`` of a module
    named ``ssreflect`` or ``all_ssreflect``, with or without ``From``, or of math-comp's
    ``boot``/``all_boot``)."""
    if "ssreflect" not in header and "boot" not in header:
        return False
    for path in imported_paths(header):
        last = path.rsplit(".", 1)[-1]
        if last in SSREFLECT_MODULES:
            return True
        if last in MATHCOMP_SSREFLECT_MODULES and path.split(".", 1)[0] == "mathcomp":
            return True
    return False
