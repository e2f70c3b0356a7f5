"""The ``vllm`` generator's own parts, with objects shaped like vLLM's outputs and a
stand-in ``vllm`` module: vLLM itself cannot be installed here (no CPU build), so these
tests check our wiring against its documented API, not vLLM."""

from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from proofsearch.generate import vllm as ours
from proofsearch.generate.base import GenerationRequest, Suggestion

from .conftest import GOALS, THEOREM, TinyModels


@dataclass
class Logprob:  # vllm.logprobs.Logprob (vllm.sequence.Logprob before 0.9)
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclass
class CompletionOutput:  # vllm.outputs.CompletionOutput
    index: int
    text: str
    token_ids: list[int]
    cumulative_logprob: float | None
    logprobs: list[dict[int, Logprob]] | None
    finish_reason: str | None = "stop"


@dataclass
class RequestOutput:  # vllm.outputs.RequestOutput
    outputs: list[CompletionOutput]
    prompt_token_ids: list[int] = field(default_factory=list)


@dataclass
class BeamSearchSequence:  # vllm.beam_search.BeamSearchSequence
    tokens: list[int]
    logprobs: list[dict[int, Logprob]]
    cum_logprob: float
    text: str | None = None


@dataclass
class BeamSearchOutput:  # vllm.beam_search.BeamSearchOutput
    sequences: list[BeamSearchSequence]


def _completion(
    tokens: list[tuple[int, float]], text: str, *, others: bool = True
) -> CompletionOutput:
    entries = []
    for token, value in tokens:
        entry = {token: Logprob(value, rank=1)}
        if others:  # logprobs=k also lists other tokens; only the chosen one counts
            entry[token + 1000] = Logprob(value + 0.5, rank=0)
        entries.append(entry)
    return CompletionOutput(
        0, text, [t for t, _ in tokens], math.fsum(v for _, v in tokens), entries
    )


def test_option_mapping() -> None:
    kwargs = ours.sampling_kwargs(
        8, temperature=0.7, top_p=0.9, top_k=0, max_tokens=64, stop_at_newline=True
    )
    assert kwargs == {
        "n": 8,
        "temperature": 0.7,
        "top_p": 0.9,
        "top_k": -1,
        "max_tokens": 64,
        "logprobs": 0,
        "stop": ["\n"],
        "include_stop_str_in_output": False,
    }
    assert (
        ours.sampling_kwargs(
            2, temperature=1.0, top_p=1.0, top_k=5, max_tokens=8, stop_at_newline=False
        )["top_k"]
        == 5
    )
    assert ours.beam_kwargs(4, max_tokens=32) == {
        "beam_width": 4,
        "max_tokens": 32,
        "ignore_eos": False,
        "temperature": 0.0,
        "length_penalty": 0.0,
    }
    with pytest.raises(ValueError):
        ours.beam_kwargs(0, max_tokens=1)


def test_sampled_suggestions_sum_the_chosen_tokens() -> None:
    output = RequestOutput(
        [
            _completion([(5, -0.5), (6, -1.25), (13, -0.25)], "ab"),
            _completion([(7, -2.0)], "c\nd"),
        ]
    )
    suggestions = ours.sampled_suggestions(output, stop_at_newline=True)
    assert suggestions == [Suggestion("ab", -2.0), Suggestion("c", -2.0)]
    # Without per-token entries, vLLM's cumulative_logprob is the score.
    output.outputs[0].logprobs = None
    assert ours.sampled_suggestions(output, True)[0].logprob == -2.0
    output.outputs[0].cumulative_logprob = None
    with pytest.raises(ours.VLLMOutputError, match="logprobs must be set"):
        ours.sampled_suggestions(output, True)


def test_sampled_suggestions_reject_a_missing_chosen_token() -> None:
    broken = _completion([(5, -0.5)], "a")
    broken.logprobs = [{99: Logprob(-0.1)}]
    with pytest.raises(ours.VLLMOutputError, match="chosen token 5"):
        ours.sampled_suggestions(RequestOutput([broken]), True)
    assert ours.chosen_logprob({3: -0.75}, 3) == -0.75  # plain floats are accepted too


def test_beam_suggestions_cut_at_newline_and_eos() -> None:
    prompt = [101, 102, 103]
    newline, eos = 13, 1

    def beam(tokens: list[tuple[int, float]]) -> BeamSearchSequence:
        entries = [{t: Logprob(v), t + 500: Logprob(v - 1)} for t, v in tokens]
        return BeamSearchSequence(
            prompt + [t for t, _ in tokens], entries, math.fsum(v for _, v in tokens)
        )

    texts = {5: "a", 6: "b", newline: "\n", eos: ""}

    def decode(ids: Any) -> str:
        return "".join(texts[i] for i in ids)

    output = BeamSearchOutput(
        [
            beam([(5, -0.5), (eos, -0.25)]),
            beam([(5, -0.5), (6, -0.5), (newline, -0.25), (6, -3.0), (eos, -1.0)]),
            beam([(6, -0.75), (6, -0.75)]),
        ]
    )
    suggestions = ours.beam_suggestions(
        output, len(prompt), decode, frozenset({eos}), frozenset({newline})
    )
    # The cut beam scores its kept tokens (newline included), not vLLM's whole-beam sum.
    assert suggestions == [Suggestion("a", -0.75), Suggestion("ab", -1.25), Suggestion("bb", -1.5)]
    no_entries = BeamSearchOutput([BeamSearchSequence([*prompt, 6, 6], [], -1.5)])
    assert ours.beam_suggestions(no_entries, 3, decode, frozenset({eos}), frozenset())[0] == (
        Suggestion("bb", -1.5)
    )
    cut_without_entries = BeamSearchOutput([BeamSearchSequence([*prompt, 6, newline, 6], [], -2)])
    with pytest.raises(ours.VLLMOutputError, match="cut"):
        ours.beam_suggestions(cut_without_entries, 3, decode, frozenset(), frozenset({newline}))


def test_missing_vllm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'proofsearch\[vllm\]'"):
        ours.VLLMTacticGenerator("some/model")
    from proofsearch.generate.registry import make_generator

    with pytest.raises(ImportError, match="proofsearch"):
        make_generator("vllm", {"model": "some/model"})


class _StandIn:
    """A ``vllm`` module stand-in recording calls; answers are scripted per call."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.engine: dict[str, Any] = {}
        self.calls: list[tuple[str, Any, Any]] = []
        self.answers: list[list[Any]] = []
        outer = self

        class LLM:
            def __init__(self, **engine: Any) -> None:
                outer.engine = engine

            def get_tokenizer(self) -> Any:
                return outer.tokenizer

            def generate(self, prompts: Any, params: Any, use_tqdm: bool = True) -> list[Any]:
                outer.calls.append(("generate", prompts, params))
                return outer.answers.pop(0)

            def beam_search(self, prompts: Any, params: Any) -> list[Any]:
                outer.calls.append(("beam_search", prompts, params))
                return outer.answers.pop(0)

        class Params:
            def __init__(self, **kwargs: Any) -> None:
                self.kwargs = kwargs

        self.module = types.ModuleType("vllm")
        self.module.LLM = LLM  # type: ignore[attr-defined]
        self.module.SamplingParams = Params  # type: ignore[attr-defined]
        self.sampling = types.ModuleType("vllm.sampling_params")
        self.sampling.BeamSearchParams = Params  # type: ignore[attr-defined]
        self.module.sampling_params = self.sampling  # type: ignore[attr-defined]


@pytest.fixture
def stand_in(tiny_models: TinyModels, monkeypatch: pytest.MonkeyPatch) -> _StandIn:
    from transformers import AutoTokenizer

    fake = _StandIn(AutoTokenizer.from_pretrained(Path(tiny_models.gpt2), local_files_only=True))
    monkeypatch.setitem(sys.modules, "vllm", fake.module)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", fake.sampling)
    return fake


def test_sampling_through_the_stand_in(stand_in: _StandIn) -> None:
    generator = ours.VLLMTacticGenerator(
        "/models/m", seed=7, max_new_tokens=32, top_k=0, max_model_len=4096
    )
    assert stand_in.engine == {
        "model": "/models/m",
        "dtype": "auto",
        "tensor_parallel_size": 1,
        "gpu_memory_utilization": 0.9,
        "enforce_eager": False,
        "seed": 7,
        "max_model_len": 4096,
    }
    stand_in.answers.append(
        [
            RequestOutput(
                [
                    _completion([(104, -1.0), (13, -0.5)], "a"),
                    _completion([(104, -0.25), (13, -0.25)], "a"),  # a better copy of "a"
                    _completion([(105, -2.0)], "b"),
                ]
            ),
            RequestOutput([_completion([(1, -0.1)], "")]),  # only an empty tactic
        ]
    )
    requests = [
        GenerationRequest(GOALS[0], THEOREM, 3),
        GenerationRequest(GOALS[1], THEOREM, 1),
        GenerationRequest(GOALS[2], THEOREM, 0),
    ]
    results = generator.generate_batch(requests)
    assert results == [[Suggestion("a", -0.5), Suggestion("b", -2.0)], [], []]
    [(kind, prompts, params)] = stand_in.calls
    assert kind == "generate" and len(prompts) == 2  # one call, n=0 skipped
    decoded = stand_in.tokenizer.decode(prompts[0]["prompt_token_ids"])
    assert decoded == f"[GOAL]\n{GOALS[0]}\n[PROOFSTEP]\n"  # no trailing </s> either
    assert [p.kwargs["n"] for p in params] == [3, 1]
    assert params[0].kwargs["logprobs"] == 0 and params[0].kwargs["stop"] == ["\n"]
    assert params[0].kwargs["top_k"] == -1 and params[0].kwargs["max_tokens"] == 32


def test_beam_search_through_the_stand_in(stand_in: _StandIn) -> None:
    generator = ours.VLLMTacticGenerator("m", strategy="beam", max_new_tokens=16)
    newline = stand_in.tokenizer("\n", add_special_tokens=False)["input_ids"][0]
    eos = stand_in.tokenizer.eos_token_id
    letter = stand_in.tokenizer("x", add_special_tokens=False)["input_ids"][0]

    def answer(prompt_length: int, tokens: list[int], value: float) -> BeamSearchSequence:
        entries = [{t: Logprob(value)} for t in tokens]
        return BeamSearchSequence([0] * prompt_length + tokens, entries, value * len(tokens))

    lengths = [len(generator.prompt_ids(g)) for g in GOALS[:3]]
    stand_in.answers.append(
        [
            BeamSearchOutput([answer(lengths[0], [letter, newline, letter], -0.5)]),
            BeamSearchOutput([answer(lengths[2], [letter, letter, eos], -1.0)]),
        ]
    )
    stand_in.answers.append([BeamSearchOutput([answer(lengths[1], [letter], -0.25)])])
    requests = [
        GenerationRequest(GOALS[0], THEOREM, 2),
        GenerationRequest(GOALS[1], THEOREM, 1),
        GenerationRequest(GOALS[2], THEOREM, 2),
    ]
    results = generator.generate_batch(requests)
    assert results == [[Suggestion("x", -1.0)], [Suggestion("x", -0.25)], [Suggestion("xx", -3.0)]]
    assert [call[0] for call in stand_in.calls] == ["beam_search", "beam_search"]
    assert [len(call[1]) for call in stand_in.calls] == [2, 1]  # grouped by n
    assert stand_in.calls[0][2].kwargs == ours.beam_kwargs(2, max_tokens=16)


def test_prompt_is_cut_to_max_input_tokens(stand_in: _StandIn) -> None:
    generator = ours.VLLMTacticGenerator("m", max_input_tokens=30)
    ids = generator.prompt_ids("h : a = b\n" * 20 + "⊢ a = b")
    text = stand_in.tokenizer.decode(ids)
    assert len(ids) <= 30
    assert text.startswith("[GOAL]\nh : a = b\n") and text.endswith("\n[PROOFSTEP]\n")
