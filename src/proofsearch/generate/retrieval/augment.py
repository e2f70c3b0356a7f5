"""Retrieval-augmented prompts for model generators, in ReProver's format.

ReProver's ``format_augmented_state`` puts the retrieved premises before the state, each
serialized with its name marked ``<a>name</a>`` and followed by a blank line, the best
premise last (nearest the state); a premise that does not fit the model's input budget
is skipped, and the state is never cut for a premise. This wrapper does the same in
front of ``hf``, ``vllm`` and ``openai``: the wrapped generator's template then
surrounds the augmented state (``[GOAL]\\n<premises><state>\\n[PROOFSTEP]\\n`` for causal
models), and its own truncation only ever acts on a state that alone is too long.

The budget is counted with the model's tokenizer when the generator has one
(``max_input_tokens``), else in UTF-8 bytes like ReProver's ByT5 (``max_goal_chars``,
or 2300).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from proofsearch.generate.base import GenerationRequest, Suggestion, TacticGenerator
from proofsearch.generate.knn.goals import parse_first_goal
from proofsearch.generate.prompt import fill
from proofsearch.generate.retrieval.premises import PremiseRetriever, RetrievedPremise
from proofsearch.theorem import Theorem

#: ReProver's input limit for ByT5, in bytes.
DEFAULT_BUDGET = 2300


def serialize(premise: RetrievedPremise) -> str:
    """A premise as the prompt shows it (ReProver marks the name with ``<a>``/``</a>``)."""
    return f"<a>{premise.name}</a> : {premise.statement}"


def augment(
    goals: str,
    premises: Sequence[RetrievedPremise],
    budget: int,
    count: Callable[[str], int],
) -> str:
    """``goals`` preceded by as many of ``premises`` (best first) as fit in ``budget``."""
    room = budget - count(goals)
    text = ""
    used = 0
    for premise in premises:
        entry = f"{serialize(premise)}\n\n"
        size = count(entry)
        if used + size > room:
            continue
        used += size
        text = entry + text
    return text + goals


class RetrievalAugmentedGenerator(TacticGenerator):
    """Puts the premises retrieved for the goal in front of it, then asks ``inner``."""

    def __init__(self, inner: TacticGenerator, retriever: PremiseRetriever, premises: int = 16):
        self.inner = inner
        self.retriever = retriever
        self.premises = premises
        self.count, self.budget = _budget(inner)

    @property
    def stochastic(self) -> bool:  # type: ignore[override]
        """The inner generator's, asked each time: a client learns it from its server's
        first answer (``"decoding": "beam"``)."""
        return self.inner.stochastic

    def augmented(self, goals: str, theorem: Theorem) -> str:
        """The state text the inner generator receives for ``goals``."""
        found = self.retriever.retrieve(parse_first_goal(goals), theorem, self.premises)
        return augment(goals, found, self.budget, self.count)

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return self.inner.generate(self.augmented(goals, theorem), theorem, n)

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        return self.inner.generate_batch(
            [
                GenerationRequest(self.augmented(r.goals, r.theorem), r.theorem, r.n)
                for r in requests
            ]
        )

    async def agenerate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        return await self.inner.agenerate(self.augmented(goals, theorem), theorem, n)

    def close(self) -> None:
        self.inner.close()


def _budget(inner: Any) -> tuple[Callable[[str], int], int]:
    """How to count and how much room the inner generator's prompt leaves for the state."""
    tokenizer = getattr(inner, "tokenizer", None)
    limit = getattr(inner, "max_input_tokens", None)
    template = getattr(inner, "template", "{goals}")
    if tokenizer is not None and isinstance(limit, int):

        def count(text: str) -> int:
            return len(tokenizer(text, add_special_tokens=False)["input_ids"])

        # The template's own tokens (and one for a special token such as EOS) come first.
        return count, limit - count(fill(template, "")) - 1

    def count_bytes(text: str) -> int:
        return len(text.encode("utf-8"))

    chars = getattr(inner, "max_goal_chars", None)
    return count_bytes, chars if isinstance(chars, int) else DEFAULT_BUDGET
