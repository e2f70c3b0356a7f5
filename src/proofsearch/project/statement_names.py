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

from proofsearch.env.coq.binders import NAME, statement_binders

#: The first step's leading ``intro x`` / ``intros x y …`` (plain names only), and the rest.
_INTROS = re.compile(
    rf"(?P<head>\s*intros?\s+)(?P<names>{NAME}(?:\s+{NAME})*)(?P<rest>\s*(?:;.*)?)$", re.S
)


def _introduced(proof: Sequence[str]) -> list[str]:
    """The names the proof's leading ``intro``/``intros`` steps give, in order: ``intros
    x. intros x0.`` gives ``[x, x0]`` (audit 55: `y` written `x0`); a step with more after
    its names (``intro n; induction n``) ends the run."""
    names: list[str] = []
    for step in proof:
        found = _INTROS.match(step)
        if found is None:
            break
        names += found["names"].split()
        if found["rest"].strip():
            break
    return names


def with_statement_names(proof: Sequence[str], statement: str) -> list[str] | None:
    """``proof`` with the names its leading ``intro(s)`` give the statement's binders
    replaced by the binders' own, everywhere in the proof; None when nothing would
    change or a new name is already used in the proof for something else."""
    binders = statement_binders(statement)
    given = _introduced(proof)
    if not given or not binders:
        return None
    mapping = {old: new for old, new in zip(given, binders, strict=False) if old != new}
    if not mapping or len(set(mapping.values())) != len(mapping):
        return None
    text = "\n".join(proof)
    used = set(re.findall(rf"(?<![\w'.]){NAME}", text))
    if any(new in used and new not in mapping for new in mapping.values()):
        return None  # `intros n m` where the proof also says `b` for something else
    word = re.compile(rf"(?<![\w'.])({'|'.join(map(re.escape, mapping))})(?![\w'])")
    return [word.sub(lambda m: mapping[m[1]], step) for step in proof]
