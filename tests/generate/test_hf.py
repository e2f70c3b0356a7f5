"""The ``hf`` generator on tiny real checkpoints: exact scores, batching, prompts, options."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from proofsearch.generate.base import GenerationRequest
from proofsearch.generate.hf import Candidate, HFTacticGenerator
from proofsearch.generate.registry import make_generator

from .conftest import GOALS, THEOREM, TinyModels

MODELS = ["t5", "gpt2", "bpe"]
#: float32 forward passes with and without the KV cache (and padding) agree to ~1e-6.
EXACT = 1e-4


def _generator(models: TinyModels, name: str, **options: object) -> HFTacticGenerator:
    options = {"max_new_tokens": 12, "device": "cpu", "dtype": "float32", **options}
    return HFTacticGenerator(models.path(name), **options)  # type: ignore[arg-type]


def _requests(n: int, goals: list[str] = GOALS) -> list[GenerationRequest]:
    return [GenerationRequest(goal, THEOREM, n) for goal in goals]


def _check_against_forward(
    generator: HFTacticGenerator, goals: list[str], answers: list[list[Candidate]]
) -> Counter[str]:
    """Every candidate's score equals a forward pass over its ids; returns the finishes."""
    finishes: Counter[str] = Counter()
    for goal, candidates in zip(goals, answers, strict=True):
        prompt = generator.prompt_ids(goal)
        terms = generator.score_ids([prompt] * len(candidates), [c.token_ids for c in candidates])
        for candidate, per_token in zip(candidates, terms, strict=True):
            finishes[candidate.finish_reason] += 1
            assert len(per_token) == len(candidate.token_ids) > 0
            assert candidate.logprob == pytest.approx(math.fsum(per_token), abs=EXACT)
            if candidate.token_logprobs is not None:
                assert candidate.token_logprobs == pytest.approx(per_token, abs=EXACT)
            assert candidate.logprob < 0
    return finishes


@pytest.mark.parametrize("name", MODELS)
def test_beam_scores_are_summed_token_logprobs(tiny_models: TinyModels, name: str) -> None:
    finishes: Counter[str] = Counter()
    for max_new_tokens in (8, 1):  # the short limit cuts some beams off ("length")
        generator = _generator(tiny_models, name, max_new_tokens=max_new_tokens)
        answers = generator.candidates(_requests(6))
        assert [len(a) for a in answers] == [6] * len(GOALS)
        finishes += _check_against_forward(generator, GOALS, answers)
    # The steered models end tactics every way there is, so each ending is checked.
    assert finishes["eos"] > 0 and finishes["length"] > 0
    if name != "t5":
        assert finishes["newline"] > 0


@pytest.mark.parametrize("name", ["t5", "gpt2"])
def test_rescore_by_text_matches_generated_scores(tiny_models: TinyModels, name: str) -> None:
    generator = _generator(tiny_models, name)
    checked = 0
    for goal, candidates in zip(GOALS, generator.candidates(_requests(6)), strict=True):
        for candidate in candidates:
            # Byte vocabularies give every text one tokenization, so text is enough.
            rescored = generator.rescore(goal, candidate.text, candidate.finish_reason)
            assert rescored == pytest.approx(candidate.logprob, abs=EXACT)
            checked += 1
    assert checked == 6 * len(GOALS)


def test_rescore_distinguishes_endings(tiny_models: TinyModels) -> None:
    generator = _generator(tiny_models, "gpt2")
    goal = GOALS[0]
    bare = generator.rescore(goal, "simp", "length")
    assert generator.rescore(goal, "simp", "eos") < bare
    assert generator.rescore(goal, "simp", "newline") < bare
    assert generator.rescore(goal, "simp", "eos") != generator.rescore(goal, "simp", "newline")
    assert generator.rescore(goal, "simp") == generator.rescore(goal, "simp", "newline")
    t5 = _generator(tiny_models, "t5")
    assert t5.rescore(goal, "simp") == t5.rescore(goal, "simp", "eos")
    with pytest.raises(ValueError, match="finish"):
        generator.rescore(goal, "simp", "stop")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["t5", "bpe"])
def test_beam_and_forward_scoring_agree(tiny_models: TinyModels, name: str) -> None:
    by_beam = _generator(tiny_models, name, scoring="beam").candidates(_requests(5))
    by_forward = _generator(tiny_models, name, scoring="forward").candidates(_requests(5))
    for beam, forward in zip(by_beam, by_forward, strict=True):
        assert [c.token_ids for c in beam] == [c.token_ids for c in forward]
        assert [c.logprob for c in beam] == pytest.approx([c.logprob for c in forward], abs=EXACT)
        assert all(c.token_logprobs is None for c in beam)
        assert all(c.token_logprobs is not None for c in forward)


def test_auto_scoring_falls_back_to_forward_over_the_memory_limit(tiny_models: TinyModels) -> None:
    generator = _generator(tiny_models, "t5", scores_memory_limit=1024)
    candidates = generator.candidates(_requests(4, GOALS[:1]))[0]
    assert all(c.token_logprobs is not None for c in candidates)
    _check_against_forward(generator, GOALS[:1], [candidates])


@pytest.mark.parametrize("name", MODELS)
def test_sampling_scores_are_unwarped_model_logprobs(tiny_models: TinyModels, name: str) -> None:
    # Temperature and top-k change what is drawn; the score stays the model's own
    # log-probability, equal to a forward pass (which knows nothing of the warpers).
    generator = _generator(tiny_models, name, strategy="sample", temperature=0.7, top_k=5, seed=3)
    answers = generator.candidates(_requests(6))  # one padded batch of 4 prompts
    finishes = _check_against_forward(generator, GOALS, answers)
    assert sum(finishes.values()) == 6 * len(GOALS)
    assert all(c.token_logprobs is not None for a in answers for c in a)


@pytest.mark.parametrize("name", ["t5", "gpt2"])
def test_greedy_is_the_best_beam_of_one(tiny_models: TinyModels, name: str) -> None:
    generator = _generator(tiny_models, name)
    answers = generator.candidates(_requests(1))
    _check_against_forward(generator, GOALS, answers)
    assert all(len(a) == 1 and a[0].token_logprobs is not None for a in answers)


@pytest.mark.parametrize("name", MODELS)
def test_generate_batch_equals_per_request_calls(tiny_models: TinyModels, name: str) -> None:
    generator = _generator(tiny_models, name)
    requests = [GenerationRequest(g, THEOREM, n) for g, n in zip(GOALS, [4, 4, 6, 4], strict=True)]
    requests.append(GenerationRequest(GOALS[0], THEOREM, 0))
    one_by_one = [generator.generate(r.goals, r.theorem, r.n) for r in requests]
    batched = generator.generate_batch(requests)
    assert len(batched) == len(requests)
    assert batched[-1] == [] == one_by_one[-1]
    assert any(one_by_one[:-1]), "no tactic at all: the comparison would be empty"
    for single, together in zip(one_by_one, batched, strict=True):
        assert [s.tactic for s in together] == [s.tactic for s in single]
        assert [s.logprob for s in together] == pytest.approx(
            [s.logprob for s in single], abs=EXACT
        )
    # The same holds at the candidate level, where nothing is merged or dropped.
    alone = [generator.candidates([r])[0] for r in requests[:3]]
    for first, second in zip(alone, generator.candidates(requests[:3]), strict=True):
        assert [c.token_ids for c in second] == [c.token_ids for c in first]


def test_generate_batch_runs_one_generate_call_per_distinct_n(
    tiny_models: TinyModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = _generator(tiny_models, "gpt2")
    calls: list[int] = []
    original = generator.model.generate

    def counting(*args: object, **kwargs: torch.Tensor) -> object:
        calls.append(int(kwargs["input_ids"].shape[0]))
        return original(*args, **kwargs)

    monkeypatch.setattr(generator.model, "generate", counting)
    generator.generate_batch(_requests(4))
    assert calls == [len(GOALS)]
    calls.clear()
    generator.generate_batch([*_requests(4), *_requests(2, GOALS[:2])])
    assert sorted(calls) == [2, len(GOALS)]
    calls.clear()
    generator.max_batch_size = 3
    generator.generate_batch(_requests(4))
    assert calls == [3, 1]


def test_max_batch_size_chunks_give_the_same_answers(tiny_models: TinyModels) -> None:
    whole = _generator(tiny_models, "t5").generate_batch(_requests(4))
    chunked = _generator(tiny_models, "t5", max_batch_size=1).generate_batch(_requests(4))
    assert [[s.tactic for s in a] for a in chunked] == [[s.tactic for s in a] for a in whole]


@pytest.mark.parametrize("name", MODELS)
def test_suggestions_are_unique_nonempty_best_first(tiny_models: TinyModels, name: str) -> None:
    generator = _generator(tiny_models, name, strategy="sample", seed=0)
    goal = GOALS[1]
    candidates = generator.candidates([GenerationRequest(goal, THEOREM, 24)])[0]
    texts = Counter(c.text.strip() for c in candidates)
    assert max(texts.values()) > 1, "no duplicate sampled: dedupe would be untested"
    torch.manual_seed(0)
    generator = _generator(tiny_models, name, strategy="sample", seed=0)
    suggestions = generator.generate(goal, THEOREM, 24)
    tactics = [s.tactic for s in suggestions]
    assert len(tactics) == len(set(tactics)) == len({t for t in texts if t})
    assert all(t and t == t.strip() for t in tactics)
    scores = [s.logprob for s in suggestions]
    assert scores == sorted(scores, reverse=True)
    best: dict[str, float] = {}
    for c in candidates:
        best[c.text.strip()] = max(best.get(c.text.strip(), -math.inf), c.logprob)
    for s in suggestions:
        assert s.logprob == best[s.tactic]
    assert len(generator.generate(goal, THEOREM, 2)) <= 2


@pytest.mark.parametrize("name", ["gpt2", "bpe"])
def test_causal_tactics_stop_at_the_first_newline(tiny_models: TinyModels, name: str) -> None:
    generator = _generator(tiny_models, name, max_new_tokens=16)
    newline_ended = 0
    for candidates in generator.candidates(_requests(8)):
        for c in candidates:
            assert "\n" not in c.text
            if c.finish_reason == "newline":
                newline_ended += 1
                assert "\n" in generator.tokenizer.decode([c.token_ids[-1]])
                assert all("\n" not in generator.tokenizer.decode([t]) for t in c.token_ids[:-1])
    assert newline_ended > 0


def test_seq2seq_tactics_may_span_lines_when_asked(tiny_models: TinyModels) -> None:
    assert _generator(tiny_models, "t5").stop_at_newline is False
    assert _generator(tiny_models, "gpt2").stop_at_newline is True
    assert _generator(tiny_models, "gpt2", stop_at_newline=False)._newline_stop is None


def test_prompt_templates_and_truncation(tiny_models: TinyModels) -> None:
    t5 = _generator(tiny_models, "t5", max_input_tokens=12)
    assert t5.template == "{goals}"
    long_goal = "h0 : a = b\n" * 10 + "⊢ a + c = b + c"
    ids = t5.prompt_ids(long_goal)
    assert len(ids) == 12 and ids[-1] == t5.tokenizer.eos_token_id
    assert t5.tokenizer.decode(ids, skip_special_tokens=True) == long_goal[:11]
    t5_left = _generator(tiny_models, "t5", max_input_tokens=12, truncation_side="left")
    assert (
        t5_left.tokenizer.decode(t5_left.prompt_ids(long_goal), skip_special_tokens=True)
        == (long_goal[-11:])
    )

    gpt2 = _generator(tiny_models, "gpt2", max_input_tokens=40)
    assert gpt2.template == "[GOAL]\n{goals}\n[PROOFSTEP]\n"
    ids = gpt2.prompt_ids(long_goal)
    text = str(gpt2.tokenizer.decode(ids))
    assert len(ids) == 40
    assert text.startswith("[GOAL]\nh0 : a = b\n") and text.endswith("\n[PROOFSTEP]\n")
    assert ids[-1] != gpt2.tokenizer.eos_token_id  # a causal prompt never ends the sequence
    custom = _generator(tiny_models, "gpt2", template="Goal: %s\nTactic:")
    assert custom.tokenizer.decode(custom.prompt_ids("⊢ True")) == "Goal: ⊢ True\nTactic:"
    # The position table bounds causal prompts: 512 positions - 500 new tokens.
    assert _generator(tiny_models, "gpt2", max_new_tokens=500).max_input_tokens == 12


def test_bfloat16_on_cpu_agrees_with_float32(tiny_models: TinyModels) -> None:
    full = _generator(tiny_models, "t5")
    half = _generator(tiny_models, "t5", dtype="bfloat16")
    assert next(half.model.parameters()).dtype == torch.bfloat16
    assert half.dtype == torch.bfloat16 and full.dtype == torch.float32
    for goal, candidates in zip(GOALS, half.candidates(_requests(4)), strict=True):
        for c in candidates:
            tokens = len(c.token_ids)
            # bf16 against its own forward pass (cached vs uncached bf16 arithmetic) ...
            own = math.fsum(half.score_ids([half.prompt_ids(goal)], [c.token_ids])[0])
            assert c.logprob == pytest.approx(own, abs=0.02 + 0.005 * tokens)
            # ... and against float32 arithmetic on the same ids.
            exact = math.fsum(full.score_ids([full.prompt_ids(goal)], [c.token_ids])[0])
            assert c.logprob == pytest.approx(exact, abs=0.05 + 0.01 * tokens)


def test_device_and_dtype_options(tiny_models: TinyModels) -> None:
    auto = _generator(tiny_models, "gpt2", device="auto", dtype="auto")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert auto.device.type == expected
    assert next(auto.model.parameters()).device.type == expected
    if expected == "cpu":
        assert auto.dtype == torch.float32
    half = _generator(tiny_models, "gpt2", dtype="float16")
    assert next(half.model.parameters()).dtype == torch.float16
    full = _generator(tiny_models, "gpt2")
    for goal, candidates in zip(GOALS, half.candidates(_requests(3)), strict=True):
        for c in candidates:
            exact = math.fsum(full.score_ids([full.prompt_ids(goal)], [c.token_ids])[0])
            assert c.logprob == pytest.approx(exact, abs=0.05 + 0.01 * len(c.token_ids))
    with pytest.raises(ValueError, match="unknown dtype"):
        _generator(tiny_models, "gpt2", dtype="float8")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA"):
            _generator(tiny_models, "gpt2", device="cuda")


def test_bad_options_fail_clearly(tiny_models: TinyModels, tmp_path: object) -> None:
    with pytest.raises(FileNotFoundError, match="never downloaded"):
        HFTacticGenerator("no/such/dir")
    with pytest.raises(ValueError, match="placeholder"):
        _generator(tiny_models, "t5", template="no goals here")
    with pytest.raises(ValueError, match="strategy"):
        _generator(tiny_models, "t5", strategy="nucleus")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="truncation_side"):
        _generator(tiny_models, "t5", truncation_side="middle")
    with pytest.raises(ValueError, match="room"):
        _generator(tiny_models, "gpt2", max_new_tokens=512)


def test_registry_builds_hf(tiny_models: TinyModels) -> None:
    generator = make_generator(
        "hf",
        {"model": str(tiny_models.t5), "max_new_tokens": 6, "device": "cpu", "dtype": "float32"},
    )
    assert isinstance(generator, HFTacticGenerator)
    suggestions = generator.generate(GOALS[0], THEOREM, 3)
    assert 0 < len(suggestions) <= 3
    generator.close()
    assert not hasattr(generator, "model")


def test_agenerate_matches_generate(tiny_models: TinyModels) -> None:
    import asyncio

    generator = _generator(tiny_models, "t5")
    expected = generator.generate(GOALS[2], THEOREM, 4)
    assert asyncio.run(generator.agenerate(GOALS[2], THEOREM, 4)) == expected


def test_checkpoint_generation_settings_cannot_bend_scores(
    tiny_models: TinyModels, tmp_path: Path
) -> None:
    # A checkpoint whose generation_config.json asks for processors that change the
    # numbers (ReProver-era configs carry such settings): they must not apply.
    import json
    import shutil

    copy = tmp_path / "t5-with-settings"
    shutil.copytree(tiny_models.t5, copy)
    settings = json.loads((copy / "generation_config.json").read_text())
    settings.update({"no_repeat_ngram_size": 1, "repetition_penalty": 5.0, "length_penalty": 2.0})
    (copy / "generation_config.json").write_text(json.dumps(settings))
    generator = HFTacticGenerator(copy, max_new_tokens=12, device="cpu", dtype="float32")
    answers = generator.candidates(_requests(6))
    _check_against_forward(generator, GOALS, answers)
    # no_repeat_ngram_size=1 would forbid any repeated token; the steered model repeats.
    repeats = [c for a in answers for c in a if len(set(c.token_ids)) < len(c.token_ids)]
    assert repeats


def test_a_call_for_a_search_stops_decoding_at_its_deadline(
    tiny_models: TinyModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a search's call, decoding is bounded by the time left (``max_time``), and a
    call made after the deadline decodes nothing; outside one nothing is bounded."""
    import time

    from proofsearch.generate.base import AnswerDeadline, answer_by

    generator = _generator(tiny_models, "gpt2")
    limits: list[float | None] = []
    original = generator.model.generate

    def recording(*args: object, **kwargs: object) -> object:
        limits.append(kwargs["generation_config"].max_time)  # type: ignore[attr-defined]
        return original(*args, **kwargs)

    monkeypatch.setattr(generator.model, "generate", recording)
    plain = generator.generate(GOALS[0], THEOREM, 4)
    with answer_by(time.perf_counter() + 30.0):
        assert generator.generate(GOALS[0], THEOREM, 4) == plain  # in time: the same
    with answer_by(time.perf_counter() - 1.0), pytest.raises(AnswerDeadline):
        generator.generate(GOALS[0], THEOREM, 4)
    assert len(limits) == 2 and limits[0] is None
    assert limits[1] is not None and 25.0 < limits[1] <= 30.0
