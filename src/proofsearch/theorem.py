"""The one value every layer shares: a theorem to prove.

It lives at the bottom of the package so that provers, generators and the search can
all name it without depending on how theorem files are read (that is ``data``'s job).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Theorem:
    """A statement to prove, in the prover's own syntax.

    ``statement`` is the full statement (``Theorem foo : ... .`` for Coq,
    ``theorem foo ... := by`` for Lean). ``header`` is everything that must precede it
    (imports, definitions, notations). ``extra`` keeps the input's other fields so that
    they can be copied to the results untouched. ``source`` says where the theorem came
    from (``file:line``), for error messages.
    """

    name: str
    statement: str
    header: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    source: str = ""

    def __hash__(self) -> int:
        return hash((self.name, self.statement, self.header))
