"""Prompts for model generators: templates, and fitting long goals into a token budget.

The ``hf``, ``vllm`` and ``openai`` generators share this so that the same goals give the
same prompt whichever engine runs the model: a search can move from a local checkpoint to
a vLLM server without its scores shifting because the prompt was built differently.

Templates name the goals ``{goals}`` (``%s`` is accepted too, as in ReProver's
``"[GOAL]\\n%s\\n[PROOFSTEP]\\n"``); they are filled by plain replacement, not
``str.format``, so braces in Coq or Lean goals need no escaping.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal

#: ReProver's prompt for decoder-only models (its ``VllmGenerator`` used the same text).
CAUSAL_TEMPLATE = "[GOAL]\n{goals}\n[PROOFSTEP]\n"
#: Encoder-decoder models (ReProver's ByT5) read the goals themselves.
SEQ2SEQ_TEMPLATE = "{goals}"

#: Which end of the goals is cut when they do not fit: ``right`` keeps the start.
TruncationSide = Literal["left", "right"]

_PLACEHOLDERS = ("{goals}", "%s")


def check_template(template: str) -> str:
    """Return ``template`` with its one placeholder written ``{goals}``; reject others.

    Exactly one placeholder is required: a template without one would send every goal
    the same prompt, and one with two would repeat a possibly long goal.
    """
    counts = {p: template.count(p) for p in _PLACEHOLDERS}
    total = sum(counts.values())
    if total != 1:
        raise ValueError(
            f"a prompt template needs exactly one '{{goals}}' (or '%s') placeholder; "
            f"{template!r} has {total}"
        )
    return template.replace("%s", "{goals}") if counts["%s"] else template


def fill(template: str, goals: str) -> str:
    """The prompt for ``goals`` (``template`` as returned by :func:`check_template`)."""
    return template.replace("{goals}", goals)


def check_side(side: str) -> TruncationSide:
    """Validate a truncation side option."""
    if side not in ("left", "right"):
        raise ValueError(f"truncation_side must be 'left' or 'right', got {side!r}")
    return side  # type: ignore[return-value]


def cut_text(goals: str, max_chars: int | None, side: TruncationSide = "right") -> str:
    """``goals`` cut to ``max_chars`` characters (for engines whose tokenizer we lack)."""
    if max_chars is None or len(goals) <= max_chars:
        return goals
    if max_chars <= 0:
        return ""
    return goals[:max_chars] if side == "right" else goals[len(goals) - max_chars :]


def fit_prompt(
    template: str,
    goals: str,
    encode_prompt: Callable[[str], list[int]],
    encode_goals: Callable[[str], list[int]],
    decode: Callable[[Sequence[int]], str],
    max_tokens: int,
    side: TruncationSide = "right",
) -> tuple[str, list[int]]:
    """Fill ``template`` with as much of ``goals`` as fits in ``max_tokens`` tokens.

    Only the goals are cut, never the template: a causal model must still see the
    ``[PROOFSTEP]`` cue after its goal. ``side="right"`` cuts the end and keeps the start:
    Coq and Lean both print the goal the next tactic acts on first, with its hypotheses,
    and ReProver trained its models on inputs truncated the same way (the tokenizer's
    default). Goals are cut on token boundaries (``encode_goals``: no special tokens),
    decoded, and the prompt re-tokenized with ``encode_prompt`` (which adds what the
    model expects, e.g. ByT5's ``</s>``), cutting further if merges at the seams made it
    longer.

    Returns the prompt text and its token ids.
    """
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    prompt = fill(template, goals)
    ids = encode_prompt(prompt)
    if len(ids) <= max_tokens:
        return prompt, ids
    overhead = len(encode_prompt(fill(template, "")))
    if overhead > max_tokens:
        raise ValueError(
            f"the prompt template alone takes {overhead} tokens, more than the "
            f"input limit of {max_tokens}"
        )
    goal_ids = encode_goals(goals)

    def attempt(budget: int) -> tuple[str, list[int]]:
        kept = goal_ids[:budget] if side == "right" else goal_ids[len(goal_ids) - budget :]
        text = fill(template, decode(kept) if budget > 0 else "")
        return text, encode_prompt(text)

    budget = min(len(goal_ids), max_tokens - overhead)
    best = attempt(budget)
    if len(best[1]) <= max_tokens:
        return best
    # Merges at the seams made it longer: the longest cut that fits, by bisection.
    best = attempt(0)
    low, high = 1, budget - 1
    while low <= high:
        middle = (low + high) // 2
        candidate = attempt(middle)
        if len(candidate[1]) <= max_tokens:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


def appends_eos(tokenizer: Any, eos_ids: Collection[int]) -> bool:
    """Whether ``tokenizer`` ends every encoded text with EOS (ByT5's does).

    A causal model's prompt must not end the sequence it starts, so generators drop
    that EOS; BOS and other leading specials (Llama's ``<s>``) are kept.
    """
    marked = tokenizer("a", add_special_tokens=True)["input_ids"]
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    return len(marked) > len(plain) and marked[-1] in eos_ids
