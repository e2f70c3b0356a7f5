"""The ``openai`` generator against a real HTTP server on 127.0.0.1 that serves a tiny
model through the project's own ``hf`` generator (:mod:`proofsearch.generate.serve`)."""

from __future__ import annotations

import asyncio
import math
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
import httpx

from proofsearch.generate.base import AnswerDeadline, GenerationRequest, answer_by
from proofsearch.generate.hf import FinishReason as Finish
from proofsearch.generate.hf import HFTacticGenerator
from proofsearch.generate.openai import (
    MissingLogprobsError,
    OpenAIGeneratorError,
    OpenAIHTTPError,
    OpenAITacticGenerator,
    OpenAITimeoutError,
)
from proofsearch.generate.registry import make_generator
from proofsearch.generate.serve import CompletionHandler, CompletionHTTPServer, make_server, running

from .conftest import GOALS, THEOREM, TinyModels

EXACT = 1e-4
MAX_NEW = 10


@pytest.fixture(scope="module")
def served(tiny_models: TinyModels) -> HFTacticGenerator:
    """The causal tiny model as the server runs it: whole prompts in, beam search."""
    return HFTacticGenerator(
        tiny_models.gpt2, template="{goals}", max_new_tokens=MAX_NEW, device="cpu", dtype="float32"
    )


@pytest.fixture(scope="module")
def local(tiny_models: TinyModels) -> HFTacticGenerator:
    """The same model run in-process with ReProver's prompt, for comparison."""
    return HFTacticGenerator(
        tiny_models.gpt2, max_new_tokens=MAX_NEW, device="cpu", dtype="float32"
    )


@pytest.fixture
def server(served: HFTacticGenerator) -> Iterator[CompletionHTTPServer]:
    with running(make_server(served, model_name="tiny")) as live:
        yield live


def _client(url: str, **options: Any) -> OpenAITacticGenerator:
    options = {"model": "tiny", "max_tokens": MAX_NEW, "backoff": 0.01, **options}
    return OpenAITacticGenerator(url, **options)


def test_suggestions_equal_the_local_hf_generator(
    server: CompletionHTTPServer, local: HFTacticGenerator
) -> None:
    client = _client(server.url)
    compared = 0
    for goal in GOALS:
        remote = client.generate(goal, THEOREM, 5)
        here = local.generate(goal, THEOREM, 5)
        assert [s.tactic for s in remote] == [s.tactic for s in here]
        assert [s.logprob for s in remote] == pytest.approx([s.logprob for s in here], abs=EXACT)
        compared += len(here)
    assert compared > 0
    client.close()


def test_completion_response_shape(server: CompletionHTTPServer, served: HFTacticGenerator) -> None:
    prompts = ["[GOAL]\n⊢ True\n[PROOFSTEP]\n", "[GOAL]\nn : ℕ\n⊢ n = n\n[PROOFSTEP]\n"]
    body = {"model": "tiny", "prompt": prompts, "n": 3, "max_tokens": 6, "logprobs": 2}
    answer = httpx.post(f"{server.url}/completions", json=body, timeout=30).json()
    assert answer["object"] == "text_completion" and answer["model"] == "tiny"
    choices = answer["choices"]
    assert [c["index"] for c in choices] == list(range(6))
    completion_tokens = rescored = 0
    for choice in choices:
        prompt = prompts[choice["index"] // 3]
        logprobs = choice["logprobs"]
        tokens = logprobs["tokens"]
        assert len(tokens) == len(logprobs["token_logprobs"]) == len(logprobs["top_logprobs"])
        assert all(len(alternatives) == 2 for alternatives in logprobs["top_logprobs"])
        assert logprobs["text_offset"][0] == 0
        completion_tokens += len(tokens)
        assert choice["finish_reason"] in ("stop", "length")
        assert "\n" not in choice["text"]
        # The returned terms are the model's: the same tactic rescored here agrees (the
        # server's template is "{goals}", so the prompt is the goals).
        if choice["finish_reason"] == "stop":
            finish: Finish = "newline" if tokens[-1] == "\n" else "eos"
            expected = served.rescore(prompt, choice["text"], finish)
            assert math.fsum(logprobs["token_logprobs"]) == pytest.approx(expected, abs=EXACT)
            rescored += 1
        # Each chosen token's log-probability is at most the best alternative's.
        for chosen, alternatives in zip(
            logprobs["token_logprobs"], logprobs["top_logprobs"], strict=True
        ):
            assert chosen <= max(alternatives.values()) + 1e-6
    assert rescored > 0
    assert answer["usage"]["completion_tokens"] == completion_tokens
    assert answer["usage"]["total_tokens"] > completion_tokens


def test_logprobs_zero_and_none(server: CompletionHTTPServer) -> None:
    base = {"model": "tiny", "prompt": "[GOAL]\n⊢ True\n[PROOFSTEP]\n", "n": 2, "max_tokens": 4}
    plain = httpx.post(f"{server.url}/completions", json=base, timeout=30).json()
    assert all(c["logprobs"] is None for c in plain["choices"])
    zero = httpx.post(f"{server.url}/completions", json={**base, "logprobs": 0}, timeout=30).json()
    for choice in zero["choices"]:
        assert choice["logprobs"]["top_logprobs"] is None
        assert choice["logprobs"]["token_logprobs"]


@pytest.mark.parametrize("batch_prompts", [False, True])
def test_generate_batch_equals_per_request(
    server: CompletionHTTPServer, batch_prompts: bool
) -> None:
    client = _client(server.url, batch_prompts=batch_prompts)
    requests = [GenerationRequest(g, THEOREM, n) for g, n in zip(GOALS, [3, 3, 5, 0], strict=True)]
    single = [client.generate(r.goals, r.theorem, r.n) for r in requests]
    batched = client.generate_batch(requests)
    assert batched[-1] == [] and any(single)
    for one, many in zip(single, batched, strict=True):
        assert [s.tactic for s in many] == [s.tactic for s in one]
        assert [s.logprob for s in many] == pytest.approx([s.logprob for s in one], abs=EXACT)


def test_agenerate_is_natively_asynchronous(
    server: CompletionHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _client(server.url)
    expected = [client.generate(goal, THEOREM, 4) for goal in GOALS]

    def no_threads(*args: object, **kwargs: object) -> None:
        raise AssertionError("agenerate must not fall back to a thread")

    monkeypatch.setattr(asyncio, "to_thread", no_threads)

    async def run_all() -> list[Any]:
        answers = await asyncio.gather(*(client.agenerate(g, THEOREM, 4) for g in GOALS))
        await client.aclose()
        return answers

    assert asyncio.run(run_all()) == expected


def test_model_name_is_discovered(server: CompletionHTTPServer) -> None:
    client = OpenAITacticGenerator(server.url, max_tokens=4)
    assert client.generate(GOALS[0], THEOREM, 5)
    assert client.model == "tiny"


class _Scripted(CompletionHandler):
    """Answers the first POSTs from a script of (status, headers), then serves normally;
    records what it saw."""

    script: ClassVar[list[tuple[int, dict[str, str]]]] = []
    seen: ClassVar[list[dict[str, Any]]] = []
    delay: ClassVar[float] = 0.0
    strip_logprobs: ClassVar[bool] = False

    def handle_completion(self, body: dict[str, Any]) -> None:
        type(self).seen.append({"body": body, "authorization": self.headers.get("Authorization")})
        if type(self).delay:
            time.sleep(type(self).delay)
        if type(self).script:
            status, headers = type(self).script.pop(0)
            self.send_json(status, {"error": {"message": f"scripted {status}"}}, headers)
            return
        if type(self).strip_logprobs:
            payload = self.server.completions.complete(body)
            for choice in payload["choices"]:
                choice["logprobs"] = None
            self.send_json(200, payload)
            return
        super().handle_completion(body)


def _scripted(**state: Any) -> type[_Scripted]:
    return type("Scripted", (_Scripted,), {"script": [], "seen": [], **state})


def test_retries_503_then_succeeds(served: HFTacticGenerator) -> None:
    handler = _scripted(script=[(503, {}), (503, {})])
    with running(make_server(served, model_name="tiny", handler=handler)) as live:
        suggestions = _client(live.url, max_retries=3).generate(GOALS[0], THEOREM, 5)
    assert suggestions
    assert len(handler.seen) == 3  # two 503s, then the answer


def test_retries_are_bounded(served: HFTacticGenerator) -> None:
    handler = _scripted(script=[(503, {})] * 5)
    server = make_server(served, model_name="tiny", handler=handler)
    with running(server) as live, pytest.raises(OpenAIHTTPError, match="scripted 503") as caught:
        _client(live.url, max_retries=2).generate(GOALS[0], THEOREM, 5)
    assert caught.value.status == 503
    assert len(handler.seen) == 3


class RecordedSleeps:
    """Stands for the client module's ``time``: records each back-off it sleeps."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        time.sleep(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> RecordedSleeps:
    """The back-offs the client sleeps (the behaviour, rather than a wall-clock time)."""
    import proofsearch.generate.openai as client_module

    recorded = RecordedSleeps()
    monkeypatch.setattr(client_module, "time", recorded)
    return recorded


def test_429_honours_retry_after(served: HFTacticGenerator, slept: RecordedSleeps) -> None:
    handler = _scripted(script=[(429, {"Retry-After": "0.3"})])
    with running(make_server(served, model_name="tiny", handler=handler)) as live:
        assert _client(live.url, max_backoff=1.0).generate(GOALS[0], THEOREM, 5)
    assert len(handler.seen) == 2
    assert slept.sleeps == [0.3]


def test_client_errors_are_not_retried(served: HFTacticGenerator) -> None:
    handler = _scripted(script=[(400, {})])
    server = make_server(served, model_name="tiny", handler=handler)
    with running(server) as live, pytest.raises(OpenAIHTTPError) as caught:
        _client(live.url).generate(GOALS[0], THEOREM, 5)
    assert caught.value.status == 400 and len(handler.seen) == 1


def test_connection_refused_is_retried_then_reported(slept: RecordedSleeps) -> None:
    port = _free_port()  # nobody listens on it
    client = _client(f"http://127.0.0.1:{port}/v1", max_retries=2, max_backoff=0.2)
    with pytest.raises(OpenAIGeneratorError, match="after 3 attempt"):
        client.generate(GOALS[0], THEOREM, 5)
    # Two back-offs between three attempts, each within max_backoff.
    assert len(slept.sleeps) == 2 and all(0 <= s <= 0.2 for s in slept.sleeps)


def test_model_discovery_is_retried_like_a_completion(slept: RecordedSleeps) -> None:
    """``GET /models`` (no model named) waits for a server still starting, as POSTs do:
    it was tried once and reported at once."""
    port = _free_port()  # nobody listens on it
    client = OpenAITacticGenerator(f"http://127.0.0.1:{port}/v1", max_retries=2, max_backoff=0.2)
    with pytest.raises(OpenAIGeneratorError, match="after 3 attempt"):
        client.generate(GOALS[0], THEOREM, 5)
    assert len(slept.sleeps) == 2


def test_missing_logprobs_is_a_clear_error(served: HFTacticGenerator) -> None:
    handler = _scripted(strip_logprobs=True)
    server = make_server(served, model_name="tiny", handler=handler)
    with running(server) as live, pytest.raises(MissingLogprobsError, match="token_logprobs"):
        _client(live.url).generate(GOALS[0], THEOREM, 5)
    assert handler.seen[0]["body"]["logprobs"] == 1  # it was asked for


def test_api_key_is_sent_and_checked(
    served: HFTacticGenerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = _scripted()
    server = make_server(served, model_name="tiny", api_key="s3cret", handler=handler)
    with running(server) as live:
        monkeypatch.setenv("PROOFSEARCH_TEST_KEY", "s3cret")
        client = _client(live.url, api_key_env="PROOFSEARCH_TEST_KEY")
        assert client.generate(GOALS[0], THEOREM, 5)
        assert handler.seen[-1]["authorization"] == "Bearer s3cret"
        assert "s3cret" not in repr(client)

        monkeypatch.setenv("PROOFSEARCH_TEST_KEY", "not-Zq81")
        with pytest.raises(OpenAIHTTPError) as caught:
            client.generate(GOALS[0], THEOREM, 5)
        assert caught.value.status == 401 and "Zq81" not in str(caught.value)

        monkeypatch.delenv("PROOFSEARCH_TEST_KEY")
        with pytest.raises(OpenAIHTTPError, match="API key"):
            client.generate(GOALS[0], THEOREM, 5)
    assert len(handler.seen) == 1  # refused requests never reach the completion handler


def test_read_timeout_is_reported_and_not_retried(
    served: HFTacticGenerator, slept: RecordedSleeps
) -> None:
    handler = _scripted(delay=1.5)
    with running(make_server(served, model_name="tiny", handler=handler)) as live:
        client = _client(live.url, timeout=0.3, max_retries=3)
        with pytest.raises(OpenAITimeoutError, match=r"0\.3"):
            client.generate(GOALS[0], THEOREM, 5)
        assert slept.sleeps == []  # no back-off: it was not retried
        with pytest.raises(OpenAITimeoutError):
            asyncio.run(client.agenerate(GOALS[0], THEOREM, 5))
        time.sleep(0.1)
    assert len(handler.seen) == 2  # one sync and one async attempt, no retries


def test_a_call_for_a_search_waits_no_longer_than_its_deadline(
    served: HFTacticGenerator, slept: RecordedSleeps
) -> None:
    """A server slower than the theorem's budget: the call is cut at the search's deadline
    (AnswerDeadline, not a server failure), however long the 'timeout' option, and a
    back-off that would outlast the deadline is not slept (audit 43-a, D2)."""
    handler = _scripted(delay=3.0)
    with running(make_server(served, model_name="tiny", handler=handler)) as live:
        client = _client(live.url, timeout=60, max_retries=3)
        start = time.perf_counter()
        with answer_by(time.perf_counter() + 0.5), pytest.raises(AnswerDeadline):
            client.generate(GOALS[0], THEOREM, 5)
        assert time.perf_counter() - start < 2.5  # not the server's 3 s
        with answer_by(time.perf_counter() + 0.5), pytest.raises(AnswerDeadline):
            asyncio.run(client.agenerate(GOALS[0], THEOREM, 5))
        assert time.perf_counter() - start < 5.0
        time.sleep(0.1)
    assert len(handler.seen) == 2 and slept.sleeps == []
    handler = _scripted(script=[(503, {"Retry-After": "2"})])
    with running(make_server(served, model_name="tiny", handler=handler)) as live:
        client = _client(live.url, max_backoff=5, max_retries=3)
        with answer_by(time.perf_counter() + 1.0), pytest.raises(AnswerDeadline, match="retry"):
            client.generate(GOALS[0], THEOREM, 5)
        assert slept.sleeps == []
        with answer_by(time.perf_counter() - 1.0), pytest.raises(AnswerDeadline):
            client.generate(GOALS[0], THEOREM, 5)  # no time left: nothing is sent
        assert len(handler.seen) == 1
        assert client.generate(GOALS[0], THEOREM, 5)  # outside a search: no deadline


def test_a_server_never_reached_is_a_failure_even_when_the_deadline_cuts_the_retries(
    slept: RecordedSleeps,
) -> None:
    """Audit 51: against a server that is down, a back-off that would outlast the
    theorem's deadline ended the theorem as cut by the deadline (``open``, "the generator
    is too slow"), so whether the run stopped after its first theorems, as documented, hung
    on the random back-off. Connection refused is no slow server: the failure is raised,
    whatever the deadline."""
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nobody listens there
    client = _client(url, backoff=5.0, max_backoff=5.0, max_retries=3)
    with answer_by(time.perf_counter() + 1.0), pytest.raises(OpenAIGeneratorError) as caught:
        client.generate(GOALS[0], THEOREM, 5)
    assert "cannot reach" in str(caught.value) and "1 attempt(s)" in str(caught.value)
    assert not isinstance(caught.value, AnswerDeadline)
    with answer_by(time.perf_counter() + 1.0), pytest.raises(OpenAIGeneratorError):
        asyncio.run(client.agenerate(GOALS[0], THEOREM, 5))
    assert slept.sleeps == []  # nothing was slept past the deadline


def test_server_refusals_reach_the_caller(server: CompletionHTTPServer) -> None:
    with pytest.raises(OpenAIHTTPError, match="does not exist") as caught:
        _client(server.url, model="other").generate(GOALS[0], THEOREM, 5)
    assert caught.value.status == 404
    with pytest.raises(OpenAIHTTPError, match="stream"):
        _client(server.url, extra_body={"stream": True}).generate(GOALS[0], THEOREM, 5)
    with pytest.raises(OpenAIHTTPError, match="more than this server's limit"):
        _client(server.url).generate("x" * 600, THEOREM, 5)
    # Cutting the goals on the client side makes the same request fit.
    assert _client(server.url, max_goal_chars=100).generate("x" * 600, THEOREM, 5) is not None
    bad = httpx.post(f"{server.url}/completions", content=b"{", timeout=10)
    assert bad.status_code == 400 and "JSON" in bad.json()["error"]["message"]


def test_sampling_server_honours_temperature(tiny_models: TinyModels) -> None:
    sampler = HFTacticGenerator(
        tiny_models.gpt2,
        template="{goals}",
        strategy="sample",
        max_new_tokens=6,
        device="cpu",
        dtype="float32",
        seed=0,
    )
    with running(make_server(sampler, model_name="tiny")) as live:
        body = {"prompt": "[GOAL]\n⊢ True\n[PROOFSTEP]\n", "n": 6, "temperature": 0, "logprobs": 0}
        greedy = httpx.post(f"{live.url}/completions", json=body, timeout=30).json()["choices"]
    # Temperature 0 is greedy: every draw is the same argmax sequence.
    assert len({c["text"] for c in greedy}) == 1


def test_options_and_registry() -> None:
    generator = make_generator("openai", {"base_url": "http://127.0.0.1:9/v1/", "model": "m"})
    assert isinstance(generator, OpenAITacticGenerator)
    assert generator.base_url == "http://127.0.0.1:9/v1"
    assert generator.prompt("⊢ {x}") == "[GOAL]\n⊢ {x}\n[PROOFSTEP]\n"
    cut = OpenAITacticGenerator(max_goal_chars=3, template="{goals}")
    assert cut.prompt("abcdef") == "abc"
    with pytest.raises(ValueError, match="logprobs"):
        OpenAITacticGenerator(logprobs=-1)
    with pytest.raises(ValueError, match="placeholder"):
        OpenAITacticGenerator(template="none")
    assert generator.generate(GOALS[0], THEOREM, 0) == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.slow
def test_serve_command_line(tiny_models: TinyModels) -> None:
    port = _free_port()
    env = {**os.environ, "SERVE_TEST_KEY": "k", "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable,
        "-m",
        "proofsearch.generate.serve",
        "--model",
        str(tiny_models.gpt2),
        "--port",
        str(port),
        "--max-new-tokens",
        "6",
        "--device",
        "cpu",
        "--api-key-env",
        "SERVE_TEST_KEY",
        "--served-model-name",
        "cli",
    ]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/health", headers={"Authorization": "Bearer k"}).is_success:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        os.environ["SERVE_TEST_KEY"] = "k"
        try:
            client = OpenAITacticGenerator(url, api_key_env="SERVE_TEST_KEY", max_tokens=6)
            assert client.generate(GOALS[0], THEOREM, 5)
            assert client.model == "cli"
        finally:
            del os.environ["SERVE_TEST_KEY"]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_says_what_is_wrong_with_a_checkpoint_in_one_line(
    tiny_models: TinyModels, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from proofsearch.generate.serve import main as serve

    prog = "python -m proofsearch.generate.serve: "
    assert serve(["--model", str(tmp_path / "none")]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith(prog)]
    assert "model directory" in line and "not found" in line
    assert serve(["--model", str(tiny_models.gpt2), "--max-new-tokens", "100000"]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith(prog)]
    assert "leaves no room for a prompt" in line and "--max-new-tokens" in line


def test_a_client_that_went_away_is_no_traceback_in_the_servers_log(
    server: CompletionHTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A request the client gave up on (its search's deadline) wrote a traceback to the
    server's log each time (nine in one audit's run, audit 51); other errors still do."""
    for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
        try:
            raise gone
        except OSError:
            server.handle_error(None, ("127.0.0.1", 5))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a real bug")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 5))
    assert "a real bug" in capsys.readouterr().err


def test_a_beam_server_makes_the_client_no_sampler(
    server: CompletionHTTPServer, tiny_models: TinyModels
) -> None:
    """With its default temperature the client took ``serve``'s beam search for a sampler:
    the search asked again for new tactics, which a beam answers with the same ones, and
    the run said the server was too slow (audit 51). The server says how it decodes."""
    client = _client(server.url)  # temperature 1.0: a sampler until the server says not
    assert client.stochastic
    assert client.generate(GOALS[0], THEOREM, 3)
    assert not client.stochastic
    # With --index the client is wrapped: the wrapper asks the client each time.
    from proofsearch.generate.retrieval.augment import RetrievalAugmentedGenerator

    fresh = _client(server.url)
    wrapped = RetrievalAugmentedGenerator(fresh, retriever=None, premises=0)  # type: ignore[arg-type]
    assert wrapped.stochastic
    fresh.generate(GOALS[0], THEOREM, 3)
    assert not wrapped.stochastic
    sampling = HFTacticGenerator(
        tiny_models.gpt2, template="{goals}", max_new_tokens=MAX_NEW, device="cpu",
        dtype="float32", strategy="sample",
    )  # fmt: skip
    with running(make_server(sampling, model_name="tiny")) as live:
        client = _client(live.url)
        assert client.generate(GOALS[0], THEOREM, 3) is not None
        assert client.stochastic  # a sampling server: asking again may give new tactics
