"""Reading names out of goals printed as text (Coq's ``====`` and Lean's ``⊢`` layouts).

The portfolio generator uses this to instantiate templates such as ``induction {var}``;
it is a heuristic over text, by design independent of any prover process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from proofsearch.generate.applications import applications, heads
from proofsearch.generate.boolean_cases import case_targets
from proofsearch.generate.premise_patterns import intro_pattern
from proofsearch.generate.scrutinees import scrutinees

_HYPOTHESIS = re.compile(r"^([^\W\d][\w'.]*(?:[ ,]+[^\W\d][\w'.]*)*) : (.+)$")
_COQ_BINDER = re.compile(r"forall\s+(.+?)\s*,", re.S)
_LEAN_BINDER = re.compile(r"∀\s+(.+?)\s*,", re.S)
_BINDER_GROUP = re.compile(r"\(([^():]+):([^()]+)\)|^([^():]+):(.+)$")
#: A type that is a sort: such a variable is a type (``A : Type``), never a case split's
#: or an induction's target. So is a math-comp structure (``T : finType``, ``L :
#: latticeType d``): ``case: T`` fails, ``induction T`` only opens the structure's record.
_SORT = re.compile(r"^(?:(?:Type|Set|Prop|SProp)(?:@\{[^}]*\})?|[a-z]\w*Type(?:\s+[\w'.]+)*)$")
_PROPOSITION = re.compile(r"=|<|>|≤|≥|≠|->|→|/\\|\\/|∧|∨|¬|~|<->|↔|\bTrue\b|\bFalse\b|\bProp\b")


@dataclass
class GoalNames:
    """Names a tactic template can refer to."""

    variables: list[str] = field(default_factory=list)
    #: The conclusion's own ``forall`` binders (names ``move=> x`` can introduce; a
    #: context variable's name is already used).
    binders: list[str] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)
    equations: list[str] = field(default_factory=list)
    #: At most one entry: the atoms of a boolean conclusion as ``destruct``'s list
    #: (:func:`proofsearch.generate.boolean_cases.case_targets`).
    booleans: list[str] = field(default_factory=list)
    #: The first goal's conclusion, on one line.
    conclusion: str = ""
    #: Each context name's type, as printed (the ``{rel_hyp}`` template reads heads).
    types: dict[str, str] = field(default_factory=dict)

    def hypotheses_about(self, relations: list[str]) -> list[str]:
        """The context's hypotheses ``R a b`` whose head ``R`` is one of ``relations``
        (by its last name component: ``eqmod3`` is ``Setoids.Modular.eqmod3``)."""
        wanted = {relation.rsplit(".", 1)[-1] for relation in relations}
        return [
            name
            for name, text in self.types.items()
            if (words := text.split())
            and len(words) >= 3
            and words[0].lstrip("@").rsplit(".", 1)[-1] in wanted
        ]

    @cached_property
    def scrutinees(self) -> list[str]:
        """The terms the conclusion's ``match``es and ``if``s inspect, written ready for
        ``destruct`` (:func:`proofsearch.generate.scrutinees.scrutinees`). Read only when
        a template asks: the default lists have none, and the portfolio runs per node."""
        return scrutinees(self.conclusion)

    @cached_property
    def calls(self) -> list[str]:
        """The conclusion's function applications (``half n``): Equations' ``funelim``
        targets (:func:`proofsearch.generate.applications.applications`); read only
        when a template asks."""
        return applications(self.conclusion)

    @cached_property
    def functions(self) -> list[str]:
        """The functions those applications apply (``simp half``)."""
        return heads(self.calls)

    @cached_property
    def eliminations(self) -> list[str]:
        """``funelim (half n); simp half`` for each application: the two steps a proof
        along an Equations definition begins with, as one (the elimination's goals
        are stuck until the function's equations unfold)."""
        return [f"funelim ({call}); simp {call.split()[0]}" for call in self.calls]

    @cached_property
    def intro_patterns(self) -> list[str]:
        """At most one entry: ``intros``'s pattern taking the conclusion's structured
        premises apart (:func:`proofsearch.generate.premise_patterns.intro_pattern`);
        read only when a template asks."""
        pattern = intro_pattern(self.conclusion)
        return [pattern] if pattern else []


#: Hypothesis names a plugin makes up, which differ from one Coq process to the next:
#: Hierarchy Builder's builder context is ``fresh_name_6`` where the search opened the
#: file and ``fresh_name_2`` in ``coqc`` (audit 49), and a proof naming it breaks when
#: another builder is added above. No tactic offered names one.
UNSTABLE_NAME = re.compile(r"(?:fresh_name_\d+|HB_unnamed_\w*|elpi_\w*_\d+)")


def _add(names: list[str], name: str) -> None:
    if name not in names and name != "_" and not UNSTABLE_NAME.fullmatch(name):
        names.append(name)


def _classify(result: GoalNames, names: list[str], type_text: str) -> None:
    for name in names:
        if _SORT.match(type_text.strip()):
            continue
        if _PROPOSITION.search(type_text):
            _add(result.hypotheses, name)
            if "=" in type_text and not re.search(r"<=|>=|<>", type_text):
                _add(result.equations, name)
        else:
            _add(result.variables, name)


def _binders(conclusion: str, result: GoalNames) -> None:
    match = _COQ_BINDER.match(conclusion.strip()) or _LEAN_BINDER.match(conclusion.strip())
    if not match:
        return
    text = match.group(1)
    groups = re.findall(r"\(([^()]+)\)", text) if "(" in text else [text]
    for group in groups:
        if ":" in group:
            names_text, type_text = group.split(":", 1)
            _classify(result, names_text.split(), type_text)
        else:
            for name in group.split():
                _add(result.variables, name)


def goal_names(goals: str) -> GoalNames:
    """Variables, hypotheses and equations of the first goal in ``goals``."""
    result = GoalNames()
    first = goals.split("\n\n", 1)[0]
    lines = first.splitlines()
    conclusion_lines: list[str] = []
    in_conclusion = False
    for line in lines:
        if in_conclusion:
            conclusion_lines.append(line)
            continue
        if line.startswith("====") or line.startswith("⊢"):
            in_conclusion = True
            if line.startswith("⊢"):
                conclusion_lines.append(line[1:])
            continue
        match = _HYPOTHESIS.match(line)
        if match:
            names = [n for n in re.split(r"[ ,]+", match.group(1)) if n]
            _classify(result, names, match.group(2))
            result.types.update(dict.fromkeys(names, match.group(2).strip()))
    if not in_conclusion:
        conclusion_lines = lines
    context = list(result.variables)
    conclusion = " ".join(conclusion_lines)
    _binders(conclusion, result)
    result.binders = result.variables[len(context) :]  # never a context name: ``_add``
    result.variables = _by_relevance(context, result.variables[len(context) :], conclusion)
    targets = case_targets(conclusion)
    result.booleans = [targets] if targets else []
    result.conclusion = conclusion
    return result


def _by_relevance(context: list[str], binders: list[str], conclusion: str) -> list[str]:
    """The variables a template should try first: those of the context that the
    conclusion mentions, the latest first (a section's parameters come first in the
    context and are rarely what to split on), then the conclusion's own binders in
    order, then the rest of the context, the latest first."""
    words = set(re.findall(r"[^\W\d][\w']*", conclusion))
    mentioned = [name for name in reversed(context) if name in words]
    rest = [name for name in reversed(context) if name not in words]
    return [*mentioned, *binders, *rest]
