"""``vllm``: tactics from an in-process vLLM engine (optional extra ``proofsearch[vllm]``).

Written against vLLM's documented offline API as of releases 0.8–0.11 (checked in the
source of ``vllm/entrypoints/llm.py``, ``vllm/sampling_params.py`` and
``vllm/beam_search.py`` of that period):

- ``LLM(model=..., dtype=..., tensor_parallel_size=..., gpu_memory_utilization=...,
  max_model_len=..., seed=..., enforce_eager=..., **engine_args)``;
  ``LLM.get_tokenizer()`` gives the Hugging Face tokenizer.
- Sampling: ``LLM.generate(prompts, sampling_params, use_tqdm=False)`` with one
  ``SamplingParams(n=, temperature=, top_p=, top_k=, max_tokens=, logprobs=0, stop=)``
  per prompt (a list is accepted), prompts given as ``{"prompt_token_ids": [...]}``
  (``TokensPrompt``); each ``RequestOutput.outputs[i]`` (``CompletionOutput``) has
  ``text``, ``token_ids``, ``cumulative_logprob`` and ``logprobs``: one
  ``{token_id: Logprob(logprob=...)}`` per generated token, holding the chosen token
  (``logprobs=0`` asks for that token only). ``top_k=-1`` means "off" (0 was
  rejected before 0.10).
- Beam search: ``LLM.beam_search(prompts, BeamSearchParams(beam_width=, max_tokens=,
  ignore_eos=False, temperature=0.0, length_penalty=...))`` returns one
  ``BeamSearchOutput`` per prompt whose ``sequences[i]`` (``BeamSearchSequence``) hold
  ``tokens`` (prompt included), ``logprobs`` (one dict per generated token),
  ``cum_logprob`` and ``text``. ``SamplingParams(use_beam_search=True)``, which
  ReProver's ``VllmActor`` used, was removed in 0.6.3. The prompts must be dicts
  (``TokensPrompt``/``TextPrompt``), not strings.

**vLLM itself was not run when this module was written or tested** (it has no CPU build
for the development machine). Everything that is ours (option mapping, prompts, turning
outputs into scored suggestions, newline cuts, dedupe) is in the pure functions below,
tested with objects shaped like vLLM's outputs and with a stand-in ``vllm`` module.

Scores. Sampling: the sum of the chosen tokens' ``logprobs`` (vLLM's ``cumulative_logprob``
when the per-token list is absent); which distribution they come from is vLLM's
``logprobs_mode`` (V1's default is the raw model distribution, before temperature and
top-p, as in the ``hf`` generator). vLLM's ``stop`` ends the tactic at the newline and
the returned tokens include the one holding it. Beam search: ``length_penalty=0``
makes vLLM rank beams by their summed log-probabilities; vLLM's beam search knows only
EOS, not stop strings, so tactics are cut at the first newline afterwards and scored by
the sum over their tokens through the newline token. That score is exact, but beams were
chosen by whole sequences, so the best cut tactics may differ from what a newline-aware
beam search (the ``hf`` generator's) would return.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal

from proofsearch.generate.base import (
    BatchTacticGenerator,
    GenerationRequest,
    Suggestion,
    best_unique,
)
from proofsearch.generate.prompt import (
    CAUSAL_TEMPLATE,
    appends_eos,
    check_side,
    check_template,
)
from proofsearch.generate.tokenized import TokenizedPrompts

Strategy = Literal["sample", "beam"]

INSTALL_HINT = "the 'vllm' generator needs vLLM on a CUDA machine: pip install 'proofsearch[vllm]'"


class VLLMOutputError(RuntimeError):
    """vLLM's answer lacks what a score needs (log-probabilities)."""


def import_vllm() -> Any:
    """Import vLLM, or fail with the install hint (it is an optional, GPU-only extra)."""
    try:
        import vllm
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return vllm


# -- option mapping ----------------------------------------------------------------------


def sampling_kwargs(
    n: int,
    *,
    temperature: float,
    top_p: float,
    top_k: int,
    max_tokens: int,
    stop_at_newline: bool,
    logprobs: int = 0,
) -> dict[str, Any]:
    """``SamplingParams`` keyword arguments for ``n`` sampled tactics."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    return {
        "n": n,
        "temperature": temperature,
        "top_p": top_p,
        "top_k": top_k if top_k > 0 else -1,
        "max_tokens": max_tokens,
        "logprobs": logprobs,
        "stop": ["\n"] if stop_at_newline else None,
        "include_stop_str_in_output": False,
    }


def beam_kwargs(n: int, *, max_tokens: int) -> dict[str, Any]:
    """``BeamSearchParams`` keyword arguments: ``n`` beams ranked by summed log-prob."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    return {
        "beam_width": n,
        "max_tokens": max_tokens,
        "ignore_eos": False,
        "temperature": 0.0,
        "length_penalty": 0.0,
    }


# -- outputs -----------------------------------------------------------------------------


def chosen_logprob(entry: Mapping[int, Any], token_id: int) -> float:
    """The log-probability of ``token_id`` in one position's ``{id: Logprob}`` dict."""
    try:
        value = entry[token_id]
    except (KeyError, IndexError, TypeError):
        raise VLLMOutputError(
            f"vLLM's log-probabilities for a position lack the chosen token {token_id}"
        ) from None
    number = getattr(value, "logprob", value)
    if not isinstance(number, int | float) or isinstance(number, bool):
        raise VLLMOutputError(f"not a log-probability: {value!r}")
    return float(number)


def _sum_chosen(logprobs: Sequence[Mapping[int, Any]], token_ids: Sequence[int]) -> float:
    if len(logprobs) < len(token_ids):
        raise VLLMOutputError(
            f"vLLM returned {len(logprobs)} log-probability entries for {len(token_ids)} tokens"
        )
    return math.fsum(chosen_logprob(logprobs[i], t) for i, t in enumerate(token_ids))


def sampled_suggestions(output: Any, stop_at_newline: bool) -> list[Suggestion]:
    """Scored tactics of one ``RequestOutput`` (sampling), duplicates kept."""
    suggestions = []
    for completion in output.outputs:
        token_ids = list(completion.token_ids)
        if completion.logprobs is not None:
            logprob = _sum_chosen(completion.logprobs, token_ids)
        elif completion.cumulative_logprob is not None:
            logprob = float(completion.cumulative_logprob)
        else:
            raise VLLMOutputError(
                "vLLM returned no log-probabilities: SamplingParams.logprobs must be set"
            )
        text = completion.text
        if stop_at_newline:
            text = text.split("\n", 1)[0]
        suggestions.append(Suggestion(text, logprob))
    return suggestions


def beam_suggestions(
    output: Any,
    prompt_length: int,
    decode: Callable[[Sequence[int]], str],
    eos_ids: Collection[int],
    newline_ids: Collection[int],
) -> list[Suggestion]:
    """Scored tactics of one ``BeamSearchOutput``, cut at EOS or the first newline token.

    ``sequence.tokens`` include the prompt's ``prompt_length`` tokens; ``logprobs`` has
    one entry per generated token. When a sequence is cut, its score is the sum over the
    kept tokens (the newline token included); uncut, it is vLLM's ``cum_logprob``
    (equal to that sum) when the per-token entries are missing.
    """
    suggestions = []
    for sequence in output.sequences:
        generated = list(sequence.tokens[prompt_length:])
        end = len(generated)
        for position, token in enumerate(generated):
            if token in eos_ids or token in newline_ids:
                end = position + 1
                break
        kept = generated[:end]
        entries = getattr(sequence, "logprobs", None)
        if entries:
            logprob = _sum_chosen(entries, kept)
        elif end == len(generated):
            logprob = float(sequence.cum_logprob)
        else:
            raise VLLMOutputError("vLLM's beam has no per-token log-probabilities to cut with")
        text = decode([t for t in kept if t not in eos_ids]).split("\n", 1)[0]
        suggestions.append(Suggestion(text, logprob))
    return suggestions


def newline_token_ids(tokenizer: Any, special: Sequence[int] = ()) -> frozenset[int]:
    """Ids of the (non-special) tokens whose text holds a newline."""
    size = len(tokenizer)
    texts = tokenizer.batch_decode([[i] for i in range(size)])
    skip = set(special) | set(getattr(tokenizer, "all_special_ids", []))
    return frozenset(i for i, text in enumerate(texts) if "\n" in text and i not in skip)


# -- the generator -----------------------------------------------------------------------


class VLLMTacticGenerator(TokenizedPrompts, BatchTacticGenerator):
    """A decoder-only model in an in-process vLLM engine.

    Options: ``model`` (a local directory or a name vLLM can load), ``strategy``
    (``sample``, vLLM's strength; or ``beam``), ``template`` (ReProver's causal prompt),
    ``max_input_tokens`` (2048) and ``truncation_side`` (``right``: keep the start of the
    goals), ``max_new_tokens`` (256), ``temperature`` (1.0), ``top_p`` (1.0), ``top_k``
    (0 = off), ``stop_at_newline`` (True), ``seed`` (None), ``dtype`` (``auto``),
    ``tensor_parallel_size`` (1), ``gpu_memory_utilization`` (0.9), ``max_model_len``
    (None: the model's), ``enforce_eager`` (False), ``engine_options`` (more ``LLM``
    keyword arguments).
    """

    def __init__(
        self,
        model: str,
        *,
        strategy: Strategy = "sample",
        template: str = CAUSAL_TEMPLATE,
        max_input_tokens: int = 2048,
        truncation_side: str = "right",
        max_new_tokens: int = 256,
        temperature: float = 1.0,
        top_p: float = 1.0,
        top_k: int = 0,
        stop_at_newline: bool = True,
        seed: int | None = None,
        dtype: str = "auto",
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
        enforce_eager: bool = False,
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        if strategy not in ("sample", "beam"):
            raise ValueError(f"strategy must be 'sample' or 'beam', got {strategy!r}")
        self.template = check_template(template)
        self.truncation_side = check_side(truncation_side)
        self.strategy: Strategy = strategy
        self.stochastic = strategy == "sample"
        self.max_input_tokens = max_input_tokens
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.top_k = top_k
        self.stop_at_newline = stop_at_newline
        self.vllm = import_vllm()
        engine: dict[str, Any] = {
            "model": model,
            "dtype": dtype,
            "tensor_parallel_size": tensor_parallel_size,
            "gpu_memory_utilization": gpu_memory_utilization,
            "enforce_eager": enforce_eager,
            **({"seed": seed} if seed is not None else {}),
            **({"max_model_len": max_model_len} if max_model_len is not None else {}),
            **dict(engine_options or {}),
        }
        self.llm = self.vllm.LLM(**engine)
        self.tokenizer = self.llm.get_tokenizer()
        eos = self.tokenizer.eos_token_id
        self.eos_ids = frozenset([eos] if eos is not None else [])
        self.newline_ids = newline_token_ids(self.tokenizer) if stop_at_newline else frozenset()
        self._strip_eos = appends_eos(self.tokenizer, self.eos_ids)

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        """Sampling: one ``LLM.generate`` call for all requests (vLLM batches them);
        beam search: one ``LLM.beam_search`` call per distinct ``n``."""
        results: list[list[Suggestion]] = [[] for _ in requests]
        live = [i for i, r in enumerate(requests) if r.n > 0]
        if not live:
            return results
        prompts = {i: self.prompt_ids(requests[i].goals) for i in live}
        if self.strategy == "sample":
            params = [
                self.vllm.SamplingParams(
                    **sampling_kwargs(
                        requests[i].n,
                        temperature=self.temperature,
                        top_p=self.top_p,
                        top_k=self.top_k,
                        max_tokens=self.max_new_tokens,
                        stop_at_newline=self.stop_at_newline,
                    )
                )
                for i in live
            ]
            outputs = self.llm.generate(
                [{"prompt_token_ids": prompts[i]} for i in live], params, use_tqdm=False
            )
            for index, output in zip(live, outputs, strict=True):
                suggestions = sampled_suggestions(output, self.stop_at_newline)
                results[index] = best_unique(suggestions, requests[index].n)
            return results
        beam_params = importlib.import_module("vllm.sampling_params").BeamSearchParams
        groups: dict[int, list[int]] = {}
        for index in live:
            groups.setdefault(requests[index].n, []).append(index)
        for n, indices in groups.items():
            outputs = self.llm.beam_search(
                [{"prompt_token_ids": prompts[i]} for i in indices],
                beam_params(**beam_kwargs(n, max_tokens=self.max_new_tokens)),
            )
            for index, output in zip(indices, outputs, strict=True):
                suggestions = beam_suggestions(
                    output,
                    len(prompts[index]),
                    self.decode,
                    self.eos_ids,
                    self.newline_ids,
                )
                results[index] = best_unique(suggestions, n)
        return results

    def close(self) -> None:
        """Drop the engine (vLLM frees its GPU memory when the ``LLM`` is collected)."""
        if hasattr(self, "llm"):
            del self.llm
