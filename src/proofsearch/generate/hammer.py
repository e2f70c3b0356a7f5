"""``hammer``: CoqHammer's automation tactics at the root, with retrieved premises.

CoqHammer's ``hammer`` finds the lemmas a goal needs with external provers and then
proves the goal again with its own tactics (``sauto``, ``hauto``, ``qauto``,
``sfirstorder`` ...), given those lemmas (``hauto use: L1, L2``). On held-out math-comp
and Flocq lemmas those tactics proved lemmas that no learned step did (docs/benchmarks.md).
This generator offers them without the external provers (which write files and run
other programs, so the tactic guard refuses ``hammer`` itself): the tactics alone, and
with the premises BM25 retrieves for the goal (:class:`PremiseRetriever`) in place of
the provers' selection.

The tactics exist only where ``From Hammer Require Import Tactics.`` has run: the
search opens the theorem with it after the header for this generator's stage alone
(:attr:`HammerTacticsGenerator.header_suffix`, see ``proofsearch search
--hammer-tactics``), and the re-check refuses a proof that uses a library the import
loads beyond the header. Where it is off (CoqHammer missing, not asked for, ``prove``)
the schedule leaves the stage out (:func:`proofsearch.generate.schedule.without_stage`).

Each tactic either closes the goal or fails, so a search with this generator alone
expands only the root: as a schedule stage it is a short, time-boxed attempt.
"""

from __future__ import annotations

from proofsearch.generate.base import Suggestion, TacticGenerator, best_unique
from proofsearch.generate.knn.corpus import TraceCorpus
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.retrieval.premises import PremiseRetriever
from proofsearch.theorem import Theorem

#: The import that defines CoqHammer's tactics (not ``hammer``'s, which needs
#: ``Hammer.Hammer`` and the external provers).
HAMMER_TACTICS_IMPORT = "From Hammer Require Import Tactics."

#: The tactics alone, with a prior score each (best first: how often CoqHammer's own
#: reconstructions on math-comp and Flocq used each, docs/benchmarks.md).
PLAIN: dict[str, float] = {
    "sauto": -0.5,
    "hauto": -0.7,
    "sfirstorder": -0.9,
    "scongruence": -1.1,
    "qauto": -1.2,
}
#: Given the retrieved premises (``{PS}``: their names, comma-separated).
WITH_PREMISES: dict[str, float] = {
    "hauto use: {PS}": -0.6,
    "sauto use: {PS}": -0.8,
}


def loads_hammer_tactics(theorem: Theorem) -> bool:
    """Whether CoqHammer's tactics are defined where ``theorem`` is proved: its
    ``header_suffix`` (added by the search) or its header imports them."""
    suffix = str(theorem.extra.get("header_suffix") or "")
    return HAMMER_TACTICS_IMPORT in suffix or HAMMER_TACTICS_IMPORT in theorem.header


class HammerTacticsGenerator(TacticGenerator):
    """CoqHammer's tactics, alone and with the ``premises`` best retrieved premises.

    The search opens each theorem with :data:`HAMMER_TACTICS_IMPORT` after its header
    for this generator alone (:attr:`header_suffix`), so the import's libraries, hints
    and instances never reach the other generators' searches. Only built where CoqHammer
    is installed and the user asked for it (``search --hammer-tactics``); otherwise the
    schedule leaves the stage out.
    """

    def __init__(self, corpus: TraceCorpus | None = None, premises: int = 6) -> None:
        self.retriever = PremiseRetriever(corpus) if corpus is not None else None
        self.premises = premises
        self.header_suffix = HAMMER_TACTICS_IMPORT

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        if n <= 0 or not loads_hammer_tactics(theorem):
            return []
        out = [Suggestion(tactic, prior) for tactic, prior in PLAIN.items()]
        if self.retriever is not None and self.premises > 0:
            found = self.retriever.retrieve(parse_first_goal(goals), theorem, self.premises)
            if found:
                names = ", ".join(premise.name for premise in found)
                out += [Suggestion(t.replace("{PS}", names), p) for t, p in WITH_PREMISES.items()]
        return best_unique(out, n)
