"""The one value every layer shares: a theorem to prove.

It lives at the bottom of the package so that provers, generators and the search can
all name it without depending on how theorem files are read (that is ``data``'s job).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

#: Fields of a benchmark's theorem that hold its answer (``bench extract-coq`` writes the
#: lemma's own proof): copied to the results, never shown to a tactic generator, whose
#: code may be a user's own and put a theorem's fields into a prompt (audit 51).
ANSWER_FIELDS = frozenset({"reference_proof"})


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

    def without_answers(self) -> Theorem:
        """The theorem as a tactic generator sees it: no :data:`ANSWER_FIELDS`."""
        if not ANSWER_FIELDS & self.extra.keys():
            return self
        kept = {k: v for k, v in self.extra.items() if k not in ANSWER_FIELDS}
        return replace(self, extra=kept)
