"""Prompt templates and fitting goals into a token budget (pure; a character tokenizer)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from proofsearch.generate.prompt import (
    CAUSAL_TEMPLATE,
    check_side,
    check_template,
    cut_text,
    fill,
    fit_prompt,
)


def test_templates() -> None:
    assert check_template("[GOAL]\n%s\n[PROOFSTEP]\n") == CAUSAL_TEMPLATE
    assert check_template("{goals}") == "{goals}"
    for bad in ("no placeholder", "{goals} and {goals}", "%s {goals}"):
        with pytest.raises(ValueError, match="exactly one"):
            check_template(bad)
    # Goals are inserted verbatim: braces and percent signs need no escaping.
    assert fill(CAUSAL_TEMPLATE, "⊢ {x | x > 0} %d") == "[GOAL]\n⊢ {x | x > 0} %d\n[PROOFSTEP]\n"


def test_cut_text() -> None:
    assert cut_text("abcdef", None) == "abcdef"
    assert cut_text("abcdef", 4) == "abcd"
    assert cut_text("abcdef", 4, "left") == "cdef"
    assert cut_text("abcdef", 0) == ""
    assert check_side("left") == "left"
    with pytest.raises(ValueError):
        check_side("both")


def _chars(text: str) -> list[int]:
    return [ord(c) for c in text]


def _with_eos(text: str) -> list[int]:
    return [*_chars(text), 0]


def _decode(ids: Sequence[int]) -> str:
    return "".join(chr(i) for i in ids if i)


@pytest.mark.parametrize("side", ["right", "left"])
def test_fit_prompt_cuts_only_the_goals(side: str) -> None:
    template = "<{goals}>"
    goals = "0123456789"
    prompt, ids = fit_prompt(template, goals, _with_eos, _chars, _decode, 8, side)  # type: ignore[arg-type]
    # "<" ">" and EOS take 3 of the 8 tokens; 5 characters of the goals remain.
    assert len(ids) == 8 and ids[-1] == 0
    assert prompt == ("<01234>" if side == "right" else "<56789>")
    # A prompt that fits is left alone.
    assert fit_prompt(template, "ab", _with_eos, _chars, _decode, 8)[0] == "<ab>"


def test_fit_prompt_recovers_from_seam_merges() -> None:
    # A tokenizer that spends two ids on "9": cutting by goal tokens alone overshoots,
    # and the re-tokenized prompt must be cut again.
    def encode(text: str) -> list[int]:
        return [i for c in text for i in ([ord(c)] * (2 if c == "9" else 1))]

    def decode(ids: Sequence[int]) -> str:
        return "".join(chr(i) for i in ids)

    prompt, ids = fit_prompt("{goals}", "9999", encode, _chars, decode, 5)
    assert len(ids) <= 5 and prompt == "99"


def test_fit_prompt_rejects_a_template_longer_than_the_limit() -> None:
    with pytest.raises(ValueError, match="template alone"):
        fit_prompt("[GOAL]{goals}[PROOFSTEP]", "x" * 50, _chars, _chars, _decode, 10)
    with pytest.raises(ValueError, match="positive"):
        fit_prompt("{goals}", "x", _chars, _chars, _decode, 0)
