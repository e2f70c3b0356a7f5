"""``unfold D``: the definitions a goal mentions, opened up.

One traced stdlib step in seventeen starts with ``unfold`` (4,453 of 77,370), and about
half of those unfold a definition the goal names or hides behind a notation
(``R_dist``, ``Un_cv``, ``Rdiv`` for ``/`` on ``R``, ``Qeq`` for ``==``). knn offers
such a step only when a neighbour unfolded the same constant, so a lemma about a
definition no earlier proof opened (the first lemmas after it, a project's new ones)
never got it: of 400 sampled traced ``unfold`` steps of a definition the goal named,
the merged generator offered the step for half (docs/generators.md, "Definitions
unfolded").

A name is offered as the goal prints it: Coq prints the shortest name that resolves to
the constant where the goal is, so ``unfold`` given the same name finds it. A name
counts when a definition the theorem may see (the no-leak scope,
:mod:`proofsearch.generate.knn.scope`) has it as its name's last components. An operator
stands for its definition when the type of its operands says which (``-`` on ``R`` is
``Rminus``, ``>=`` on ``nat`` is ``ge``; :func:`proofsearch.generate.knn.features.typed_operators`).
"""

from __future__ import annotations

import numpy as np

from proofsearch.generate.knn.analogy import SuffixNames
from proofsearch.generate.knn.features import binder_types, local_types, typed_operators
from proofsearch.generate.knn.goals import ParsedGoal, bound_names, tokens

#: ``operator@type`` → the definition it stands for (Coq's own names; only those that
#: are definitions, not inductives such as ``le``). Not derived from
#: :data:`proofsearch.generate.knn.notation.BINARY` (function → operator): that table
#: gives every number-type module every operator (``Nat.ge``, which Coq 8.16 does not
#: define), while ``>=`` on ``nat`` stands for Peano's ``ge``.
NOTATION_DEFINITIONS: dict[str, str] = {
    "-@R": "Rminus",
    "/@R": "Rdiv",
    ">@R": "Rgt",
    ">=@R": "Rge",
    "<=@R": "Rle",
    ">@nat": "gt",
    ">=@nat": "ge",
    "<@nat": "lt",
    "==@Q": "Qeq",
    "<=@Q": "Qle",
    "<@Q": "Qlt",
    # The binary number types define all four orders by ``compare``.
    **{
        f"{operator}@{type_}": f"{module}.{name}"
        for type_, module in (("Z", "Z"), ("N", "N"), ("positive", "Pos"))
        for operator, name in (("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge"))
    },
}
#: Negation is ``not`` whatever it negates.
NEGATION = {"~": "not", "¬": "not"}
#: Scores of the two forms: the conclusion's definitions first; a definition named only
#: by hypotheses is unfolded everywhere.
IN_CONCLUSION, IN_HYPOTHESES = -1.0, -1.5
#: At most this many definitions per goal, in order of appearance (conclusion first).
MAX_DEFINITIONS = 4


class DefinitionNames(SuffixNames):
    """Every dotted suffix of the index's definitions' names → those definitions."""


def mentioned(goal: ParsedGoal) -> tuple[list[str], list[str]]:
    """Names and notation-hidden definitions the goal mentions: those of the conclusion,
    then those only its hypotheses mention; local and bound names left out."""
    local = set(goal.hypothesis_names)
    types = local_types(goal)
    seen: set[str] = set()
    out: tuple[list[str], list[str]] = ([], [])
    for place, text in [(0, goal.conclusion), *((1, h.type) for h in goal.hypotheses)]:
        found = tokens(text)
        hidden = local | bound_names(found)
        names = [t for t in found if t not in hidden and (t[0].isalpha() or t[0] == "_")]
        names += [NEGATION[t] for t in found if t in NEGATION]
        operators = typed_operators(found, {**types, **binder_types(found)})
        names += [NOTATION_DEFINITIONS[op] for op in operators if op in NOTATION_DEFINITIONS]
        for name in names:
            if name not in seen:
                seen.add(name)
                out[place].append(name)
    return out


def unfold_tactics(
    goal: ParsedGoal, definitions: DefinitionNames, mask: np.ndarray | None, ssreflect: bool
) -> list[tuple[str, float]]:
    """``unfold D`` (ssreflect: ``rewrite /D``) for the definitions the goal mentions
    that the theorem may see, each with its score."""
    in_conclusion, in_hypotheses = mentioned(goal)
    out: list[tuple[str, float]] = []
    for names, score, where in (
        (in_conclusion, IN_CONCLUSION, ""),
        (in_hypotheses, IN_HYPOTHESES, " in *"),
    ):
        for name in names:
            if len(out) == MAX_DEFINITIONS:
                return out
            if not definitions.visible(name, mask):
                continue
            if not ssreflect:
                out.append((f"unfold {name}{where}", score))
            elif not where:  # ssreflect's ``rewrite /D`` works on the conclusion
                out.append((f"rewrite /{name}", score))
    return out
