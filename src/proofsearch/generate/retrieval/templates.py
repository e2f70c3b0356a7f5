"""``premises``: tactic templates over the retrieved premises.

For the ``k`` best applicable premises (lemmas, theorems, constructors, axioms), best
first: ``apply P``, ``rewrite P``, ``rewrite <- P``, ``eapply P``, ``apply P in H`` (for
the goal's hypotheses) and automation with the top ``m`` as hints (``eauto using P1, ...,
Pm``, ``auto using``, ``firstorder using``). A suggestion's score is the
template's own (how often such a step helps) plus the log of the premise's BM25 score
against that of a premise holding every symbol of the goal (its coverage), so a premise
that matches the goal well ranks near the template's prior and a weak match sinks below
the portfolio's tactics when merged.

Premises named after the theorem (``big_seq_cond`` for ``big_seq``, :mod:`.namesake`;
option ``namesakes``, how many) and its siblings (``lcmnMl`` for ``lcmnMr``: option
``siblings``) join the retrieved ones.

And ``unfold D`` for the definitions the goal mentions (by name or behind a notation,
:mod:`.unfold`; option ``unfold``), which no premise template names.

When the theorem's header imports ssreflect, the ssreflect forms are offered too
(:data:`SSREFLECT_TEMPLATES`: ``apply: P``, ``apply/P``, ``by rewrite P``, ``rewrite -P``,
``exact: P``), as math-comp's own proofs use premises.
"""

from __future__ import annotations

import math
from typing import Any

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.generate.knn.corpus import TraceCorpus, load_corpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.retrieval.namesake import NAMESAKE_COVERAGE, SIBLING_COVERAGE, Namesakes
from proofsearch.generate.retrieval.premises import PremiseRetriever, RetrievedPremise
from proofsearch.generate.retrieval.ranking import Use
from proofsearch.generate.retrieval.unfold import DefinitionNames, unfold_tactics
from proofsearch.generate.ssreflect import loads_ssreflect
from proofsearch.theorem import Theorem

#: Template → its own score (a log-probability-like prior), by what the premise is
#: retrieved for: the premises that may ``apply`` to the goal and those that may rewrite
#: it are ranked apart (:meth:`PremiseRetriever.retrieve_for`).
TEMPLATES: dict[Use, dict[str, float]] = {
    "apply": {"apply {P}": -0.3, "eapply {P}": -1.0, "apply {P} in {H}": -1.2},
    "rewrite": {"rewrite {P}": -0.5, "rewrite <- {P}": -0.8},
}
#: ssreflect forms, added when the header imports ssreflect (a view ``apply/P`` is
#: how math-comp uses its ``reflect`` lemmas, ``andP``, ``eqP`` ...).
SSREFLECT_TEMPLATES: dict[Use, dict[str, float]] = {
    "apply": {"apply: {P}": -0.3, "exact: {P}": -0.6, "apply/{P}": -0.7},
    "rewrite": {"by rewrite {P}": -0.4, "rewrite -{P}": -0.8},
}
#: Coq forms that an ssreflect form does the same as, left out when ssreflect is loaded
#: (``rewrite -P`` is ``rewrite <- P``, ``apply: P`` does what ``eapply P`` does), so
#: the templates crowd out fewer of knn's suggestions in a merged list.
SSREFLECT_REPLACES = frozenset({"rewrite <- {P}", "eapply {P}"})
#: Automation given the top premises as hints (``{PS}``: their names, comma-separated).
AUTOMATION_USING = {
    "eauto using {PS}": -0.6,
    "auto using {PS}": -0.8,
    "firstorder using {PS}": -1.2,
}


#: Siblings of the theorem (one name edit away, :mod:`.namesake`) the templates take by
#: default: none. Two proved no more on the tuning slices (58 → 58, docs/generators.md,
#: "Siblings"), so it is an option (``--gen-option siblings=2``).
DEFAULT_SIBLINGS = 0


class PremiseTemplateGenerator(TacticGenerator):
    """Tactics that name the premises BM25 retrieves for the goal."""

    def __init__(
        self,
        corpus: TraceCorpus,
        premises: int = 8,
        eauto_premises: int = 4,
        hypotheses: int = 2,
        ranking: str = "match",
        unfold: bool = True,
        namesakes: int = 2,
        siblings: int = DEFAULT_SIBLINGS,
    ) -> None:
        self.retriever = PremiseRetriever(corpus, ranking)
        self.premises = premises
        self.eauto_premises = eauto_premises
        self.hypotheses = hypotheses
        self.definitions = (
            DefinitionNames(corpus.premise_names, corpus.arrays["premise_definition"])
            if unfold
            else None
        )
        self.namesakes = namesakes
        self.siblings = siblings
        #: The last theorem's namesakes: they depend on the theorem only, and the search
        #: asks the templates at every node.
        self._namesakes_of: tuple[tuple[str, ...], list[RetrievedPremise]] = ((), [])
        self.named = Namesakes(
            corpus.premise_names,
            corpus.arrays["premise_applicable"],
            corpus.arrays["premise_module"],
        )

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        goal = parse_first_goal(goals)
        if n <= 0:
            return []
        found = self.retriever.retrieve_for(
            goal, theorem, self.premises, applicable_only=True, uses=("apply", "rewrite", "hints")
        )
        hypotheses = [name for h in goal.hypotheses for name in h.names][-self.hypotheses :]
        ssreflect = loads_ssreflect(theorem.header)
        namesakes = self._namesakes(theorem)
        out: list[Suggestion] = []
        for use in ("apply", "rewrite"):
            premises = [*found[use], *namesakes]
            templates = dict(TEMPLATES[use])
            if ssreflect:
                templates = {t: p for t, p in templates.items() if t not in SSREFLECT_REPLACES}
                templates.update(SSREFLECT_TEMPLATES[use])
            for premise in premises:
                relative = math.log(max(premise.coverage, 1e-4))
                for template, prior in templates.items():
                    named = template.replace("{P}", premise.name)
                    for tactic in (
                        [named.replace("{H}", h) for h in hypotheses] if "{H}" in named else [named]
                    ):
                        out.append(Suggestion(tactic, prior + relative))
        applicable = found["hints"]
        if self.eauto_premises > 0 and applicable:
            names = ", ".join(p.name for p in applicable[: self.eauto_premises])
            relative = math.log(max(applicable[0].coverage, 1e-4))
            for template, prior in AUTOMATION_USING.items():
                out.append(Suggestion(template.replace("{PS}", names), prior + relative))
        if self.definitions is not None:
            mask = self.retriever.scopes.get(theorem.name, theorem.extra)[1]
            for tactic, score in unfold_tactics(goal, self.definitions, mask, ssreflect):
                out.append(Suggestion(tactic, score))
        return best_unique(out, n)

    def _namesakes(self, theorem: Theorem) -> list[RetrievedPremise]:
        """The premises named after the theorem (:mod:`.namesake`), for either use: the
        name does not say whether the helper is applied or rewritten with."""
        if self.namesakes <= 0 and self.siblings <= 0:
            return []
        key = (theorem.name, *(str(theorem.extra.get(k)) for k in ("module", "line", "qualid")))
        if self._namesakes_of[0] != key:
            scope, mask = self.retriever.scopes.get(theorem.name, theorem.extra)
            own_module = None if scope is None else scope.module
            found = self.named.of(theorem, mask, own_module, self.namesakes)
            named = self.retriever.named(found, theorem, NAMESAKE_COVERAGE)
            kin = self.named.siblings(theorem, mask, own_module, self.siblings)
            named += self.retriever.named(kin, theorem, SIBLING_COVERAGE)
            self._namesakes_of = (key, named)
        return self._namesakes_of[1]


def make_premise_templates(index: str, **options: Any) -> PremiseTemplateGenerator:
    """The ``premises`` generator on the trace folder ``index``."""
    return PremiseTemplateGenerator(load_corpus(index), **options)
