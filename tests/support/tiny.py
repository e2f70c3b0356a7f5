"""Tiny random checkpoints, built offline in milliseconds, for tests and benchmarks.

Nothing can be downloaded where the tests and the GPU checks run, so they build their
own models: a T5 with ByT5's byte vocabulary (ReProver's architecture) and GPT-2s with
a byte tokenizer or a small trained BPE tokenizer, saved with ``save_pretrained`` so that
the generators load them exactly as they load real checkpoints.

Plain random weights would emit mostly special tokens and invalid UTF-8 bytes and would
hardly ever stop, leaving the paths that matter (text that round-trips through the
tokenizer, EOS and newline endings) untested. So the weights are *steered*, with no
training: one hidden dimension is made constant at the output, and the output
embedding's entries along it act as per-token logit biases that rule out all but a
small printable alphabet and make EOS (and, for causal models, the newline) likely. The
rest stays random, so different goals still give different tactics.
"""

from __future__ import annotations

import string
from pathlib import Path

import torch
from transformers import (
    ByT5Tokenizer,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
    T5Config,
    T5ForConditionalGeneration,
)

#: The characters steered models may write (plus EOS, and the newline for causal ones).
ALPHABET = string.ascii_lowercase + string.digits + " _.()"

#: Goal/tactic text the BPE tokenizer is trained on (a few Lean-like lines).
_CORPUS = [
    "[GOAL]\nn : ℕ\n⊢ n + 0 = n\n[PROOFSTEP]\nsimp\n",
    "[GOAL]\na b : ℕ\n⊢ a + b = b + a\n[PROOFSTEP]\nomega\n",
    "[GOAL]\np q : Prop\nhp : p\nhq : q\n⊢ p ∧ q\n[PROOFSTEP]\nexact ⟨hp, hq⟩\n",
    "[GOAL]\nxs : List ℕ\n⊢ xs ++ [] = xs\n[PROOFSTEP]\ninduction xs with\n",
    "intro h\napply foo\nrw [add_comm]\nsimp only [mul_one]\nexact h.1\n",
]


def _byte_ids(tokenizer: ByT5Tokenizer, text: str) -> list[int]:
    ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def build_t5(
    directory: str | Path,
    *,
    seed: int = 0,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 4,
    d_ff: int = 64,
) -> Path:
    """Save a steered T5 with ByT5's tokenizer (384 ids: 3 special, 256 bytes, 125
    extra ids) to ``directory``; return it."""
    directory = Path(directory)
    tokenizer = ByT5Tokenizer()
    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=d_model,
        d_kv=d_model // heads,
        d_ff=d_ff,
        num_layers=layers,
        num_decoder_layers=layers,
        num_heads=heads,
        feed_forward_proj="gated-gelu",
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    config.decoder_start_token_id = tokenizer.pad_token_id  # T5 starts from the pad token
    model = T5ForConditionalGeneration(config).eval()
    allowed = torch.zeros(len(tokenizer), dtype=torch.bool)
    allowed[_byte_ids(tokenizer, ALPHABET)] = True
    allowed[tokenizer.pad_token_id] = True  # the decoder start token is an input, too
    with torch.no_grad():
        # T5 ties the input and output embeddings, so dimension 0 of a token's embedding
        # is both what the decoder reads for it and its logit bias. The decoder never
        # writes to dimension 0, so after the final norm it is a positive constant for
        # every allowed input token, and the entries below become relative logit biases.
        embedding = model.shared.weight
        embedding[:, 0] = -15.0
        embedding[allowed, 0] = 5.0
        embedding[tokenizer.eos_token_id, 0] = 8.0
        for block in model.decoder.block:
            block.layer[0].SelfAttention.o.weight[0].zero_()
            block.layer[1].EncDecAttention.o.weight[0].zero_()
            block.layer[2].DenseReluDense.wo.weight[0].zero_()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def _steer_gpt2(model: GPT2LMHeadModel, allowed: torch.Tensor, boosts: dict[int, float]) -> None:
    """Make ``ln_f``'s output dimension 0 the constant 1 and use the (untied) output
    embedding's column 0 as per-token logit biases."""
    with torch.no_grad():
        model.transformer.ln_f.weight[0] = 0.0
        model.transformer.ln_f.bias[0] = 1.0
        head = model.lm_head.weight
        head[:, 0] = -20.0
        head[allowed, 0] = 0.0
        for token, boost in boosts.items():
            head[token, 0] = boost


def _gpt2(
    vocab: int, seed: int, d_model: int, layers: int, heads: int, positions: int, eos: int, pad: int
) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=vocab,
        n_embd=d_model,
        n_layer=layers,
        n_head=heads,
        n_positions=positions,
        bos_token_id=eos,
        eos_token_id=eos,
        pad_token_id=pad,
        tie_word_embeddings=False,
    )
    return GPT2LMHeadModel(config).eval()


def build_gpt2_bytes(
    directory: str | Path,
    *,
    seed: int = 0,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 4,
    positions: int = 512,
) -> Path:
    """Save a steered GPT-2 that reads and writes ByT5 byte tokens; return ``directory``."""
    directory = Path(directory)
    tokenizer = ByT5Tokenizer()
    model = _gpt2(
        len(tokenizer),
        seed,
        d_model,
        layers,
        heads,
        positions,
        tokenizer.eos_token_id,
        tokenizer.pad_token_id,
    )
    allowed = torch.zeros(len(tokenizer), dtype=torch.bool)
    allowed[_byte_ids(tokenizer, ALPHABET)] = True
    newline = _byte_ids(tokenizer, "\n")[0]
    _steer_gpt2(model, allowed, {tokenizer.eos_token_id: 1.5, newline: 2.5})
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def build_bpe_tokenizer(vocab_size: int = 400) -> PreTrainedTokenizerFast:
    """A GPT-2-style byte-level BPE tokenizer trained on a few Lean lines (no download)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(_CORPUS, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )


def build_gpt2_bpe(
    directory: str | Path,
    *,
    seed: int = 0,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 4,
    positions: int = 512,
) -> Path:
    """Save a steered GPT-2 with a byte-level BPE tokenizer and no padding token (as
    GPT-2 itself); return ``directory``."""
    directory = Path(directory)
    tokenizer = build_bpe_tokenizer()
    eos = tokenizer.eos_token_id
    model = _gpt2(len(tokenizer), seed, d_model, layers, heads, positions, eos, eos)
    model.config.pad_token_id = None
    model.generation_config.pad_token_id = None
    allowed = torch.zeros(len(tokenizer), dtype=torch.bool)
    texts = tokenizer.batch_decode([[i] for i in range(len(tokenizer))])
    for index, text in enumerate(texts):
        allowed[index] = bool(text) and all(c in ALPHABET for c in text)
    newlines = [i for i, text in enumerate(texts) if text == "\n"]
    _steer_gpt2(model, allowed, {eos: 1.0, **{i: 2.5 for i in newlines}})
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
