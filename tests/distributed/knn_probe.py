"""A generator that tells, through the proof it suggests, whether its trace index came
from Ray's object store (read-only shared arrays) or was loaded in the worker."""

from __future__ import annotations

from proofsearch.generate.base import Suggestion, TacticGenerator
from proofsearch.generate.knn.corpus import load_corpus
from proofsearch.theorem import Theorem


class _Probe(TacticGenerator):
    def __init__(self, shared: bool) -> None:
        self.tactic = "exact I" if shared else "fail"

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(self.tactic, 0.0)]


def make(index: str, **_: object) -> TacticGenerator:
    arrays = load_corpus(index, use_cache=False).arrays
    return _Probe(not any(a.flags.writeable for a in arrays.values()))


#: A step no recorded state suggests: only a proof learned during the run can bring it.
LEARNED_STEP = "exact (conj (fun x : True => x) I)"


class _OnlyFor(TacticGenerator):
    """Suggests ``LEARNED_STEP`` to the theorem named ``first`` and to no other."""

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return [Suggestion(LEARNED_STEP, 0.0)] if theorem.name == "first" else []


def make_learner(index: str, **_: object) -> TacticGenerator:
    """``knn`` on ``index`` merged with a helper that proves ``first`` only: a later
    theorem with the same goal is proved only if ``first``'s proof was learned."""
    from proofsearch.generate.knn.generator import KnnGenerator
    from proofsearch.generate.merged import MergedGenerator

    return MergedGenerator([KnnGenerator(load_corpus(index)), _OnlyFor()])
