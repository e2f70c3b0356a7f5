"""The index's ``Admitted`` lemmas, kept from a theorem whose proof may not rest on them.

A lemma whose proof ends in ``Admitted`` is an axiom to ``Print Assumptions``, and the
re-check refuses a proof that rests on one unless the theorem allows it: its
``allowed_axioms`` name it, or ``any_axiom`` is set. ``prove`` allows a project's own
unfinished lemmas (it reports a proof resting on one); a theorem file of ``search``
usually allows none. A search that offered them anyway found, in a project whose
``type_unique`` was still ``Admitted``, a proof of ``inv_false`` through it, had it
refused, and ran out of time before the proof that needs no such lemma (audit 47).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from proofsearch.theorem import Theorem


def short_name(name: str) -> str:
    return name.rsplit(".", 1)[-1]


class AdmittedPremises:
    """Which of an index's premises ended in ``Admitted``, and which of those a theorem
    may not rest on."""

    def __init__(self, name_of: Callable[[int], str], admitted: np.ndarray | None) -> None:
        """``name_of``: a premise's qualified name by its number; ``admitted``: one flag
        per premise (``None``: an index built before the flag, read as none)."""
        numbers = [] if admitted is None else np.flatnonzero(admitted).tolist()
        self.short = {number: short_name(name_of(number)) for number in numbers}

    def hidden(self, theorem: Theorem) -> list[int]:
        """The premise numbers ``theorem``'s proof may not rest on (an allowed axiom is
        matched by its last name component, as ``prove`` writes them)."""
        if not self.short or theorem.extra.get("any_axiom"):
            return []
        allowed = {short_name(str(a)) for a in theorem.extra.get("allowed_axioms") or ()}
        return [number for number, name in self.short.items() if name not in allowed]

    def hidden_names(self, theorem: Theorem) -> frozenset[str]:
        """The short names of :meth:`hidden`: a suggestion naming one is not offered."""
        return frozenset(self.short[number] for number in self.hidden(theorem))
