"""Tactics a library brings, offered where the theorem's header loads that library.

Some libraries' automation is a tactic of their own: CoqInterval's ``interval``, Gappa's
``gappa``, Coquelicot's ``auto_derive``, Equations' ``simp`` and ``funelim``. Where the
header imports a module of the library, the portfolio offers its tactics
(``portfolios/coq-<library>.txt``), as it offers ssreflect's forms where ssreflect is
loaded; elsewhere such a tactic is an unknown name, a wasted suggestion. Until
2026-12-07 they reached a search only through knn, so only where the project's own
proofs already used them (audit 44: two lemmas that ``interval with (i_taylor x)`` and
``gappa`` prove stayed unproved). A text check on the header: no Coq process is
involved.
"""

from __future__ import annotations

import functools

from proofsearch.generate.base import Suggestion
from proofsearch.generate.ssreflect import imported_paths

#: Library → its portfolio file's name: offered when the header imports a module whose
#: path (with its ``From`` prefix) starts with the library's logical name.
LIBRARIES: dict[str, str] = {
    "Interval": "coq-interval",
    "Gappa": "coq-gappa",
    "Coquelicot": "coq-coquelicot",
    "Equations": "coq-equations",
}


def loaded_libraries(header: str) -> list[str]:
    """The :data:`LIBRARIES` that ``header`` imports a module of, in the table's order."""
    roots = {path.split(".", 1)[0] for path in imported_paths(header)}
    return [library for library in LIBRARIES if library in roots]


@functools.cache
def _tactics(name: str) -> tuple[Suggestion, ...]:
    from proofsearch.generate.portfolio import default_tactics

    return tuple(default_tactics(name))


def library_tactics(header: str) -> list[Suggestion]:
    """The tactics of every library ``header`` loads (none for most headers)."""
    if not any(library in header for library in LIBRARIES):  # the common case, cheaply
        return []
    return [s for library in loaded_libraries(header) for s in _tactics(LIBRARIES[library])]
