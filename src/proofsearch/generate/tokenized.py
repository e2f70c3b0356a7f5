"""Prompts as token ids, for generators that run a Hugging Face tokenizer's model.

The ``hf`` and ``vllm`` generators both hand the model token ids, not text: the template
filled, the goals cut to the input limit on token boundaries
(:func:`proofsearch.generate.prompt.fit_prompt`), and a causal model's EOS dropped from
the end of its prompt. :class:`TokenizedPrompts` is that one recipe, so the same goals
give the same ids whichever of the two engines runs the model.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from proofsearch.generate.prompt import TruncationSide, fit_prompt


class TokenizedPrompts:
    """Mixin: prompt ids from ``tokenizer``, ``template``, ``max_input_tokens`` and
    ``truncation_side``; with ``_strip_eos``, a trailing EOS (one of ``eos_ids``) is
    dropped, since a causal prompt must not end the sequence it starts."""

    tokenizer: Any
    template: str
    max_input_tokens: int
    truncation_side: TruncationSide
    eos_ids: Collection[int]
    _strip_eos: bool

    def encode_prompt(self, text: str) -> list[int]:
        """A whole prompt's ids, with the special tokens the model expects."""
        ids = list(self.tokenizer(text, add_special_tokens=True)["input_ids"])
        if self._strip_eos and ids and ids[-1] in self.eos_ids:
            ids = ids[:-1]
        return ids

    def encode_plain(self, text: str) -> list[int]:
        """Ids of ``text`` alone (no special tokens): a cut of the goals, a tactic."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``, special tokens dropped."""
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=True))

    def prompt_ids(self, goals: str) -> list[int]:
        """The token ids the model reads for ``goals`` (template filled, goals cut)."""
        return fit_prompt(
            self.template,
            goals,
            self.encode_prompt,
            self.encode_plain,
            self.decode,
            self.max_input_tokens,
            self.truncation_side,
        )[1]
