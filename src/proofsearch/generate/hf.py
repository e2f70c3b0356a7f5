"""``hf``: tactics from a local Hugging Face checkpoint (ReProver's ByT5, or a causal LM).

The model is loaded offline (``local_files_only=True``) from a directory: a search that
silently downloaded weights would be unreproducible, and compute nodes often have no
network. Encoder-decoder checkpoints (T5, ByT5) read the goals as they are; decoder-only
checkpoints (GPT-2, Llama style) read ReProver's ``[GOAL]…[PROOFSTEP]`` prompt, and
their tactic is the continuation up to the first newline or end-of-sequence.

Scores are exact sequence log-probabilities: the sum, over the generated tokens up to and
including the one that ended the tactic (EOS, or the token holding the newline), of
``log_softmax`` of the model's raw logits. Beam search runs with ``length_penalty=0`` so
that its ranking score *is* that sum, and with no other logits processors: the model's
own ``generation_config`` is replaced by one holding only its special tokens, so that a
checkpoint's ``no_repeat_ngram_size`` or ``repetition_penalty`` cannot bend the numbers.
Sampling (``strategy="sample"``) records each chosen token's log-probability under the
unwarped distribution (temperature and top-k/top-p change what is drawn, not the score),
so sampled and beam-searched tactics are comparable in one search tree.
:meth:`HFTacticGenerator.rescore` recomputes a score with one forward pass; the tests
hold the generator to it.

:meth:`HFTacticGenerator.generate_batch` answers several requests with one ``generate``
call per distinct ``n`` (inputs padded: right for encoder-decoders, left for causal
models, whose new tokens must follow every prompt directly), and returns what
per-request calls return: beam search keeps each batch row's beams apart. A batching
GPU actor relies on this.
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from proofsearch.generate.base import (
    BatchTacticGenerator,
    GenerationRequest,
    Suggestion,
    best_unique,
    wait_bound,
)
from proofsearch.generate.prompt import (
    CAUSAL_TEMPLATE,
    SEQ2SEQ_TEMPLATE,
    appends_eos,
    check_side,
    check_template,
)
from proofsearch.generate.tokenized import TokenizedPrompts

try:
    import torch
    from transformers import (
        AutoConfig,
        AutoModelForCausalLM,
        AutoModelForSeq2SeqLM,
        AutoTokenizer,
        GenerationConfig,
        LogitsProcessor,
        LogitsProcessorList,
        StoppingCriteria,
        StoppingCriteriaList,
    )
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "the 'hf' generator needs torch and transformers: pip install 'proofsearch[hf]'"
    ) from error

Strategy = Literal["beam", "sample"]
FinishReason = Literal["eos", "newline", "length"]
Scoring = Literal["auto", "beam", "forward"]

_DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}


@dataclass(frozen=True)
class Candidate:
    """One generated sequence, before duplicates are merged.

    ``token_ids`` are the generated ids that ``logprob`` covers: up to and including the
    terminator (EOS, or the token holding the newline), or all of them when the length
    limit ended the sequence (``finish_reason="length"``). ``text`` is the tactic
    (special tokens dropped, cut at the newline), not yet stripped.
    ``token_logprobs`` holds the per-token terms of ``logprob`` when they were computed
    (sampling, or forward scoring); beam search's own accounting gives only the sum.
    """

    text: str
    logprob: float
    token_ids: tuple[int, ...]
    finish_reason: FinishReason
    token_logprobs: tuple[float, ...] | None = None


def resolve_device(device: str) -> torch.device:
    """``auto`` is CUDA when present, else the CPU; anything else goes to torch."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resolved = torch.device(device)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA device")
    return resolved


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    """``auto`` is bfloat16 on a GPU that supports it, float32 elsewhere (CPU kernels for
    half precision are slow, and float32 keeps CPU scores comparable across machines)."""
    if dtype == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    try:
        return _DTYPES[dtype]
    except KeyError:
        known = ", ".join(["auto", *_DTYPES])
        raise ValueError(f"unknown dtype {dtype!r} (known: {known})") from None


@dataclass(frozen=True)
class TokenScores:
    """Per-token log-probabilities of a target, and (when asked) each position's most
    likely tokens as ``(id, logprob)`` pairs, best first."""

    logprobs: list[float]
    top: list[list[tuple[int, float]]]


class _ChosenTokenLogprobs(LogitsProcessor):
    """Records the log-probability of each chosen token, one step late, in O(rows) memory.

    A logits processor sees the raw float32 logits of step ``t`` and the ids chosen up to
    step ``t - 1``; it keeps one step's ``log_softmax`` and gathers the chosen token's
    entry when the next step shows which token that was. The last step's choice is
    gathered by :meth:`matrix`. Placed first among the processors (custom processors
    precede the sampling warpers in ``generate``), it sees unwarped logits.
    """

    def __init__(self) -> None:
        self.previous: torch.Tensor | None = None
        self.columns: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.previous is not None:
            self.columns.append(self.previous.gather(1, input_ids[:, -1:]).squeeze(1))
        self.previous = torch.log_softmax(scores.float(), dim=-1)
        return scores

    def matrix(self, generated: torch.Tensor) -> torch.Tensor:
        """Per-token log-probabilities of ``generated`` (rows × steps)."""
        steps = generated.shape[1]
        columns = self.columns[:steps]
        if len(columns) < steps and self.previous is not None:
            last = generated[:, len(columns) : len(columns) + 1]
            columns.append(self.previous.gather(1, last).squeeze(1))
        if not columns:
            return torch.zeros((generated.shape[0], 0), device=generated.device)
        return torch.stack(columns, dim=1)


class _StopOnTokens(StoppingCriteria):
    """Ends a sequence whose newest token is in a set (tokens holding a newline)."""

    def __init__(self, mask: torch.Tensor) -> None:
        self.mask = mask

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        return cast(torch.BoolTensor, self.mask[input_ids[:, -1]])


class HFTacticGenerator(TokenizedPrompts, BatchTacticGenerator):
    """A local Hugging Face seq2seq or causal checkpoint behind :class:`TacticGenerator`.

    Options (all plain values, so that a registry entry can build it anywhere):

    - ``model``: the checkpoint directory (model and tokenizer files).
    - ``strategy``: ``beam`` (``num_beams = num_return_sequences = n``; ``n = 1`` is
      greedy) or ``sample`` (``n`` draws).
    - ``template``: the prompt, with ``{goals}`` (or ``%s``); default ``{goals}`` for
      encoder-decoders, ReProver's ``[GOAL]\\n{goals}\\n[PROOFSTEP]\\n`` for causal models.
    - ``max_input_tokens`` (2300, ReProver's ByT5 limit) and ``truncation_side``
      (``right``: cut the end of the goals, keep the start; see
      :func:`proofsearch.generate.prompt.fit_prompt`). Causal models' limit is lowered to
      leave ``max_new_tokens`` inside their position table.
    - ``max_new_tokens`` (None: 512, ReProver's output limit, or for a causal model half
      its position table when that is smaller: a tiny model's 512 positions left no
      room for a prompt, and every run failed on the default).
    - ``temperature``, ``top_p``, ``top_k`` (sampling only; 1.0, 1.0, 0 = off).
    - ``stop_at_newline``: causal tactics end at the first newline (default ``True``;
      encoder-decoders end only at EOS, their tactics may span lines).
    - ``device`` (``auto``, ``cpu``, ``cuda``, ``cuda:1``…), ``dtype`` (``auto``,
      ``float32``, ``bfloat16``, ``float16``).
    - ``max_batch_size``: at most this many requests per ``generate`` call (None: all).
    - ``scoring``: how beam scores are obtained. ``beam`` reads ``generate``'s own
      ``sequences_scores``, which needs ``output_scores`` (memory: steps × rows × vocab
      floats); ``forward`` rescores the finished beams with one forward pass; ``auto``
      (default) uses ``beam`` while that memory stays under ``scores_memory_limit``
      bytes (1 GiB), which holds for ByT5's 384-token vocabulary.
    - ``seed``: seeds torch once, for reproducible sampling.
    - ``cpu_threads``: torch's intra-op threads for this process (None: torch's
      default). On a shared CPU node, OpenMP threads of several processes spin against
      each other; one thread each was 20–40× faster for tiny models on a loaded 2-core
      machine here.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        strategy: Strategy = "beam",
        template: str | None = None,
        max_input_tokens: int = 2300,
        max_new_tokens: int | None = None,
        truncation_side: str = "right",
        temperature: float = 1.0,
        top_p: float = 1.0,
        top_k: int = 0,
        stop_at_newline: bool | None = None,
        device: str = "auto",
        dtype: str = "auto",
        max_batch_size: int | None = None,
        scoring: Scoring = "auto",
        scores_memory_limit: int = 1 << 30,
        seed: int | None = None,
        cpu_threads: int | None = None,
    ) -> None:
        _check_options(
            strategy, scoring, max_new_tokens, max_input_tokens, max_batch_size, temperature
        )
        self.path = _checkpoint_dir(model)
        self.strategy: Strategy = strategy
        self.stochastic = strategy == "sample"
        self.scoring: Scoring = scoring
        self.scores_memory_limit = scores_memory_limit
        self.max_new_tokens = max_new_tokens or DEFAULT_MAX_NEW_TOKENS
        self.truncation_side = check_side(truncation_side)
        self.temperature = temperature
        self.top_p = top_p
        self.top_k = top_k
        self.max_batch_size = max_batch_size
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        if seed is not None:
            torch.manual_seed(seed)
        if cpu_threads is not None:
            torch.set_num_threads(cpu_threads)
        config = self._load()
        if max_new_tokens is None:
            self.max_new_tokens = default_max_new_tokens(config)
        self.template = check_template(
            template if template is not None else self._default_template()
        )
        self._set_special_tokens()
        self._strip_eos = not self.is_encoder_decoder and appends_eos(self.tokenizer, self.eos_ids)
        self.max_input_tokens = self._input_limit(config, max_input_tokens)
        self.stop_at_newline = (
            (not self.is_encoder_decoder) if stop_at_newline is None else stop_at_newline
        )
        self._vocab = int(self.model.get_output_embeddings().weight.shape[0])
        self._set_newline_stop()
        self._lock = threading.Lock()

    # -- setup -------------------------------------------------------------------------

    def _load(self) -> Any:
        """Load the tokenizer and the model (offline) onto the device; return the
        checkpoint's configuration."""
        config = AutoConfig.from_pretrained(self.path, local_files_only=True)
        self.is_encoder_decoder = bool(getattr(config, "is_encoder_decoder", False))
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        if len(self.tokenizer) < 2:  # transformers makes an empty one when files are missing
            raise ValueError(
                f"hf generator: {self.path}: the tokenizer is empty; save the tokenizer "
                "beside the model with tokenizer.save_pretrained(DIR)"
            )
        model_class = AutoModelForSeq2SeqLM if self.is_encoder_decoder else AutoModelForCausalLM
        self.model = model_class.from_pretrained(
            self.path, local_files_only=True, **_dtype_kw(self.dtype)
        )
        self.model.to(self.device)  # type: ignore[arg-type]  # transformers' stub is wrong
        self.model.eval()
        return config

    def _default_template(self) -> str:
        return SEQ2SEQ_TEMPLATE if self.is_encoder_decoder else CAUSAL_TEMPLATE

    def _input_limit(self, config: Any, max_input_tokens: int) -> int:
        """``max_input_tokens``, lowered for a causal model so that ``max_new_tokens``
        still fit in its position table."""
        if self.is_encoder_decoder:
            return max_input_tokens
        room = _room_for_a_prompt(_max_positions(config), self.max_new_tokens)
        return max_input_tokens if room is None else min(max_input_tokens, room)

    def _set_newline_stop(self) -> None:
        """With ``stop_at_newline``, the tokens holding a newline end a tactic."""
        self._newline_stop: _StopOnTokens | None = None
        self._newline_ids: frozenset[int] = frozenset()
        if self.stop_at_newline:
            mask = self._newline_mask()
            self._newline_ids = frozenset(torch.nonzero(mask).flatten().tolist())
            self._newline_stop = _StopOnTokens(mask.to(self.device))

    def _set_special_tokens(self) -> None:
        """Keep only the special tokens of the checkpoint's generation config (see module
        docstring), and give causal models a padding token (GPT-2 has none)."""
        loaded = getattr(self.model, "generation_config", None)

        def pick(name: str) -> Any:
            value = getattr(loaded, name, None) if loaded is not None else None
            if value is None:
                value = getattr(self.model.config, name, None)
            if value is None:
                value = getattr(self.tokenizer, name, None)
            return value

        eos = pick("eos_token_id")
        if eos is None:
            raise ValueError(f"{self.path}: neither the model nor the tokenizer names an EOS token")
        self.eos_ids: list[int] = [eos] if isinstance(eos, int) else list(eos)
        pad = pick("pad_token_id")
        if pad is None:
            pad = self.eos_ids[0]
        self.pad_id = int(pad)
        clean = GenerationConfig(
            bos_token_id=pick("bos_token_id"),
            eos_token_id=eos,
            pad_token_id=self.pad_id,
            decoder_start_token_id=pick("decoder_start_token_id")
            if self.is_encoder_decoder
            else None,
        )
        self.model.generation_config = clean
        self.decoder_start_id = clean.decoder_start_token_id

    def _newline_mask(self) -> torch.Tensor:
        """A vocabulary mask of the (non-special) tokens whose text holds a newline."""
        mask = torch.zeros(self._vocab, dtype=torch.bool)
        special = set(self.tokenizer.all_special_ids)
        size = min(len(self.tokenizer), self._vocab)
        texts = self.tokenizer.batch_decode([[i] for i in range(size)])
        for index, text in enumerate(texts):
            if "\n" in text and index not in special:
                mask[index] = True
        if not mask.any():
            raise ValueError(f"{self.path}: no token of the vocabulary holds a newline")
        return mask

    # -- generation --------------------------------------------------------------------

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        """One ``generate`` call per distinct ``n`` (and per ``max_batch_size`` requests)."""
        return [
            best_unique([Suggestion(c.text, c.logprob) for c in candidates], request.n)
            for request, candidates in zip(requests, self.candidates(requests), strict=True)
        ]

    def candidates(self, requests: Sequence[GenerationRequest]) -> list[list[Candidate]]:
        """Every generated sequence for each request, duplicates kept, best first."""
        results: list[list[Candidate]] = [[] for _ in requests]
        groups: dict[int, list[int]] = {}
        for index, request in enumerate(requests):
            if request.n > 0:
                groups.setdefault(request.n, []).append(index)
        prompts = {i: self.prompt_ids(requests[i].goals) for g in groups.values() for i in g}
        for n, indices in groups.items():
            for chunk in _chunks(indices, self.max_batch_size):
                answers = self.generate_ids([prompts[i] for i in chunk], n)
                for index, answer in zip(chunk, answers, strict=True):
                    results[index] = answer
        return results

    def generate_ids(
        self,
        prompts: Sequence[Sequence[int]],
        n: int,
        *,
        max_new_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
    ) -> list[list[Candidate]]:
        """Run one batched ``generate`` over tokenized prompts: ``n`` sequences each.

        The keyword arguments override the generator's options for this call (the
        OpenAI-compatible server passes a request's ``max_tokens`` and sampling knobs).
        """
        if not prompts:
            return []
        steps = self.max_new_tokens if max_new_tokens is None else max_new_tokens
        if steps < 1:
            raise ValueError(f"max_new_tokens must be positive, got {steps}")
        beam = self.strategy == "beam" and n > 1
        use_beam_scores = beam and self._beam_scores_fit(steps, len(prompts) * n)
        decoding = self._decoding(beam, temperature, top_p, top_k)
        config = self._generation_config(steps, n, beam, use_beam_scores, decoding)
        recorder = None if beam else _ChosenTokenLogprobs()
        input_ids, attention_mask = self._pad(prompts, left=not self.is_encoder_decoder)
        with self._lock, torch.inference_mode():
            output = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention_mask,
                generation_config=config,
                logits_processor=LogitsProcessorList([recorder]) if recorder else None,
                stopping_criteria=StoppingCriteriaList([self._newline_stop])
                if self._newline_stop is not None
                else None,
            )
            start = 1 if self.is_encoder_decoder else input_ids.shape[1]
            generated = output.sequences[:, start:]
            cut = [self._cut(row) for row in generated.tolist()]
            if use_beam_scores:
                totals: list[float] = output.sequences_scores.float().tolist()
                token_logprobs: list[list[float]] | None = None
            else:
                token_logprobs = self._token_logprobs(recorder, generated, cut, prompts, n)
                totals = [math.fsum(row) for row in token_logprobs]
        return self._candidates(cut, totals, token_logprobs, n)

    def _token_logprobs(
        self,
        recorder: _ChosenTokenLogprobs | None,
        generated: torch.Tensor,
        cut: Sequence[tuple[list[int], FinishReason]],
        prompts: Sequence[Sequence[int]],
        n: int,
    ) -> list[list[float]]:
        """Each row's per-token log-probabilities through its terminator: recorded while
        generating (sampling, greedy), else by a forward pass over the finished beams.
        Called with the lock held."""
        if recorder is not None:
            matrix = recorder.matrix(generated).tolist()
            return [row[: len(ids)] for row, (ids, _) in zip(matrix, cut, strict=True)]
        expanded = [list(p) for p in prompts for _ in range(n)]
        return [row.logprobs for row in self._score_locked(expanded, [ids for ids, _ in cut])]

    def _beam_scores_fit(self, steps: int, rows: int) -> bool:
        """Whether beam scores come from ``generate`` itself (see ``scoring``)."""
        if self.scoring == "auto":
            return steps * rows * self._vocab * 4 <= self.scores_memory_limit
        return self.scoring == "beam"

    def _decoding(
        self, beam: bool, temperature: float | None, top_p: float | None, top_k: int | None
    ) -> dict[str, Any]:
        """The decoding strategy's options. Sampling: the call's knobs where given, else
        the generator's. Beam search: ranked by the summed log-probability (no length
        penalty). Greedy decoding (one beam): none."""
        if self.strategy == "sample":
            return {
                "temperature": self.temperature if temperature is None else temperature,
                "top_p": self.top_p if top_p is None else top_p,
                "top_k": self.top_k if top_k is None else top_k,
            }
        if beam:
            return {"length_penalty": 0.0, "early_stopping": False}
        return {}

    def _generation_config(
        self,
        steps: int,
        n: int,
        beam: bool,
        output_scores: bool,
        decoding: dict[str, Any],
    ) -> GenerationConfig:
        """A configuration holding only what is asked (no checkpoint defaults); a call
        made for a search stops decoding at the search's deadline (``max_time``)."""
        left, cut = wait_bound(math.inf)
        return GenerationConfig(
            max_new_tokens=steps,
            max_time=left if cut else None,
            num_return_sequences=n,
            num_beams=n if beam else 1,
            do_sample=self.strategy == "sample",
            output_scores=output_scores,
            return_dict_in_generate=True,
            use_cache=True,
            bos_token_id=self.model.generation_config.bos_token_id,
            eos_token_id=self.model.generation_config.eos_token_id,
            pad_token_id=self.pad_id,
            decoder_start_token_id=self.decoder_start_id,
            **decoding,
        )

    def _candidates(
        self,
        cut: Sequence[tuple[list[int], FinishReason]],
        totals: Sequence[float],
        token_logprobs: Sequence[Sequence[float]] | None,
        n: int,
    ) -> list[list[Candidate]]:
        """Rows grouped by prompt (``n`` consecutive rows each), best first."""
        answers: list[list[Candidate]] = []
        for first in range(0, len(cut), n):
            answer = []
            for row in range(first, first + n):
                ids, finish = cut[row]
                answer.append(
                    Candidate(
                        text=self._text(ids, finish),
                        logprob=totals[row],
                        token_ids=tuple(ids),
                        finish_reason=finish,
                        token_logprobs=tuple(token_logprobs[row]) if token_logprobs else None,
                    )
                )
            answer.sort(key=lambda c: -c.logprob)
            answers.append(answer)
        return answers

    def _pad(
        self, prompts: Sequence[Sequence[int]], left: bool
    ) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, prompt in enumerate(prompts):
            if not prompt:
                raise ValueError("empty prompt")
            span = slice(width - len(prompt), width) if left else slice(0, len(prompt))
            ids[row, span] = torch.tensor(list(prompt), dtype=torch.long)
            mask[row, span] = 1
        return ids.to(self.device), mask.to(self.device)

    def _cut(self, ids: list[int]) -> tuple[list[int], FinishReason]:
        """The generated ids through the terminator, and what ended them."""
        for position, token in enumerate(ids):
            if token in self.eos_ids:
                return ids[: position + 1], "eos"
            if token in self._newline_ids:
                return ids[: position + 1], "newline"
        return ids, "length"

    def _text(self, ids: Sequence[int], finish: FinishReason) -> str:
        text = self.decode(ids)
        if finish == "newline":
            text = text.split("\n", 1)[0]
        return text

    # -- scoring -----------------------------------------------------------------------

    def score_ids(
        self, prompts: Sequence[Sequence[int]], targets: Sequence[Sequence[int]]
    ) -> list[list[float]]:
        """Per-token log-probabilities of ``targets`` after ``prompts``, by forward passes.

        ``targets`` are generated ids (for encoder-decoders, after the decoder start
        token). Rows are chunked so that the logits of a chunk stay near
        ``scores_memory_limit`` bytes.
        """
        return [row.logprobs for row in self.score_tokens(prompts, targets)]

    def score_tokens(
        self, prompts: Sequence[Sequence[int]], targets: Sequence[Sequence[int]], top: int = 0
    ) -> list[TokenScores]:
        """:meth:`score_ids`, plus each position's ``top`` most likely tokens."""
        with self._lock, torch.inference_mode():
            return self._score_locked(prompts, targets, top)

    def _score_locked(
        self, prompts: Sequence[Sequence[int]], targets: Sequence[Sequence[int]], top: int = 0
    ) -> list[TokenScores]:
        if len(prompts) != len(targets):
            raise ValueError("score_ids: as many prompts as targets are needed")
        longest = max((len(p) + len(t) for p, t in zip(prompts, targets, strict=True)), default=1)
        per_row = max(1, longest) * self._vocab * 4
        chunk = max(1, self.scores_memory_limit // per_row)
        out: list[TokenScores] = []
        for begin in range(0, len(prompts), chunk):
            rows = range(begin, min(begin + chunk, len(prompts)))
            out.extend(
                self._score_chunk([prompts[i] for i in rows], [targets[i] for i in rows], top)
            )
        return out

    def _score_chunk(
        self, prompts: Sequence[Sequence[int]], targets: Sequence[Sequence[int]], top: int
    ) -> list[TokenScores]:
        if all(not t for t in targets):
            return [TokenScores([], []) for _ in targets]
        if self.is_encoder_decoder:
            input_ids, attention_mask = self._pad(prompts, left=False)
            start = self.decoder_start_id
            decoder_rows = [[start, *t[:-1]] if t else [start] for t in targets]
            decoder_ids, decoder_mask = self._pad(decoder_rows, left=False)
            logits = self.model(
                input_ids=input_ids,
                attention_mask=attention_mask,
                decoder_input_ids=decoder_ids,
                decoder_attention_mask=decoder_mask,
            ).logits
            offsets = [0] * len(targets)
        else:
            # Right padding: positions stay 0.., and causal attention never sees the pads.
            rows = [[*p, *t] for p, t in zip(prompts, targets, strict=True)]
            input_ids, attention_mask = self._pad(rows, left=False)
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask).logits
            offsets = [len(p) - 1 for p in prompts]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        out: list[TokenScores] = []
        for row, (offset, target) in enumerate(zip(offsets, targets, strict=True)):
            if not target:
                out.append(TokenScores([], []))
                continue
            index = torch.tensor(list(target), device=logprobs.device)
            positions = torch.arange(offset, offset + len(target), device=logprobs.device)
            chosen = logprobs[row, positions, index].tolist()
            best: list[list[tuple[int, float]]] = []
            if top > 0:
                values, ids = logprobs[row, positions].topk(min(top, logprobs.shape[-1]), dim=-1)
                best = [
                    list(zip(i, v, strict=True))
                    for i, v in zip(ids.tolist(), values.tolist(), strict=True)
                ]
            out.append(TokenScores(chosen, best))
        return out

    def rescore(self, goals: str, tactic: str, finish: FinishReason | None = None) -> float:
        """The model's log-probability of producing ``tactic`` for ``goals``.

        ``finish`` says how the tactic ends: ``eos`` (the EOS token follows), ``newline``
        (a newline follows; the tactic and newline are tokenized together, the canonical
        tokenization), or ``length`` (nothing follows: the score of a cut-off prefix).
        By default ``newline`` for models that stop at newlines, else ``eos``.
        This is the number the generator reports for a candidate with that text and
        finish reason, whenever the tokenizer maps the text back to the same ids (always
        for byte-level vocabularies such as ByT5's).
        """
        if finish is None:
            finish = "newline" if self.stop_at_newline else "eos"
        if finish == "eos":
            target = [*self.encode_plain(tactic), self.eos_ids[0]]
        elif finish == "newline":
            target = self.encode_plain(tactic + "\n")
        elif finish == "length":
            target = self.encode_plain(tactic)
        else:
            raise ValueError(f"unknown finish reason {finish!r}")
        return math.fsum(self.score_ids([self.prompt_ids(goals)], [target])[0])

    def close(self) -> None:
        """Drop the model (and CUDA's cached blocks, so another model can load)."""
        model = getattr(self, "model", None)
        if model is not None:
            del self.model
            if self.device.type == "cuda":
                torch.cuda.empty_cache()

    def __repr__(self) -> str:
        kind = "seq2seq" if self.is_encoder_decoder else "causal"
        return (
            f"HFTacticGenerator({str(self.path)!r}, {kind}, strategy={self.strategy!r}, "
            f"device={str(self.device)!r}, dtype={str(self.dtype).removeprefix('torch.')!r})"
        )


def _check_options(
    strategy: str,
    scoring: str,
    max_new_tokens: int | None,
    max_input_tokens: int,
    max_batch_size: int | None,
    temperature: float,
) -> None:
    """Reject bad options before a model is loaded."""
    if strategy not in ("beam", "sample"):
        raise ValueError(f"strategy must be 'beam' or 'sample', got {strategy!r}")
    if scoring not in ("auto", "beam", "forward"):
        raise ValueError(f"scoring must be 'auto', 'beam' or 'forward', got {scoring!r}")
    if (max_new_tokens is not None and max_new_tokens < 1) or max_input_tokens < 1:
        raise ValueError("max_new_tokens and max_input_tokens must be positive")
    if max_batch_size is not None and max_batch_size < 1:
        raise ValueError(f"max_batch_size must be positive or None, got {max_batch_size}")
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")


#: Files one of which a saved tokenizer leaves in its folder (``save_pretrained``).
TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "vocab.json", "vocab.txt", "tokenizer.model",
    "spiece.model", "sentencepiece.bpe.model",
)  # fmt: skip


#: The weights ``from_pretrained`` loads for torch (one file, or an index of shards).
WEIGHT_FILES = (
    "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)  # fmt: skip


def check_checkpoint(model: str | Path, **options: Any) -> None:
    """What :class:`HFTacticGenerator` would refuse, found without loading the weights
    (checked before a run starts: a model that loads in each Ray worker would otherwise
    fail there, once per worker). Options take the constructor's defaults."""
    bound = inspect.signature(HFTacticGenerator.__init__).bind(None, model, **options)
    bound.apply_defaults()
    given = bound.arguments
    _check_options(
        given["strategy"], given["scoring"], given["max_new_tokens"],
        given["max_input_tokens"], given["max_batch_size"], given["temperature"],
    )  # fmt: skip
    path = _checkpoint_dir(model)
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"hf generator: {path}: no config.json; save the model there with "
            "model.save_pretrained(DIR)"
        )
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise FileNotFoundError(
            f"hf generator: {path}: no tokenizer files ({', '.join(TOKENIZER_FILES[:3])}, …); "
            "save the tokenizer beside the model with tokenizer.save_pretrained(DIR)"
        )
    if not any((path / name).is_file() for name in WEIGHT_FILES):
        raise FileNotFoundError(
            f"hf generator: {path}: no weights ({', '.join(WEIGHT_FILES)}); save the model "
            "there with model.save_pretrained(DIR)"
        )
    resolve_dtype(given["dtype"], resolve_device(given["device"]))
    if given["template"] is not None:
        check_template(given["template"])
    config = AutoConfig.from_pretrained(path, local_files_only=True)
    if not getattr(config, "is_encoder_decoder", False):
        wanted = given["max_new_tokens"] or default_max_new_tokens(config)
        _room_for_a_prompt(_max_positions(config), wanted)


#: ReProver's output limit: the default ``max_new_tokens`` where the model has room.
DEFAULT_MAX_NEW_TOKENS = 512


def default_max_new_tokens(config: Any) -> int:
    """512, or half a causal model's position table when that is smaller."""
    positions = _max_positions(config)
    if getattr(config, "is_encoder_decoder", False) or positions is None:
        return DEFAULT_MAX_NEW_TOKENS
    return max(1, min(DEFAULT_MAX_NEW_TOKENS, positions // 2))


def _room_for_a_prompt(positions: int | None, max_new_tokens: int) -> int | None:
    """The prompt tokens a causal model's position table leaves (``None``: no limit)."""
    if positions is None:
        return None
    room = positions - max_new_tokens
    if room < 1:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} leaves no room for a prompt in the model's "
            f"{positions} positions; give a smaller one (--gen-option max_new_tokens=N, "
            f"N < {positions})"
        )
    return room


def _checkpoint_dir(model: str | Path) -> Path:
    path = Path(model).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(
            f"hf generator: model directory {str(path)!r} not found (weights are never "
            "downloaded: point 'model' at a local checkpoint directory)"
        )
    return path


def _dtype_kw(dtype: torch.dtype) -> dict[str, Any]:
    """``from_pretrained`` took ``torch_dtype`` before transformers 4.56, ``dtype`` since."""
    import transformers
    from packaging.version import Version

    name = "dtype" if Version(transformers.__version__) >= Version("4.56") else "torch_dtype"
    return {name: dtype}


def _max_positions(config: Any) -> int | None:
    for name in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _chunks(items: list[int], size: int | None) -> Iterator[list[int]]:
    if size is None:
        yield items
        return
    for begin in range(0, len(items), size):
        yield items[begin : begin + size]
