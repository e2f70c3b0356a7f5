"""``openai``: tactics from any OpenAI-compatible ``/v1/completions`` server.

For a model served elsewhere: a user's vLLM (``vllm serve``), llama.cpp's
``llama-server``, or :mod:`proofsearch.generate.serve`. The prompt is built here
(ReProver's ``[GOAL]…[PROOFSTEP]`` template by default) and sent as is; the server's
``stop`` (``["\\n"]`` by default) ends the tactic at the first newline.

A suggestion's score is the sum of the ``choices[i].logprobs.token_logprobs`` the server
returns, which the generator always requests (``logprobs``, default 1: some servers take
0 as "off"). A server that answers without them is an error, not a silent zero: the
search orders its frontier by these numbers.

Failures: connection errors, 408, 429 and 5xx answers are retried with exponential
back-off (``backoff`` doubling up to ``max_backoff`` seconds, with jitter so that many
provers do not retry in step; a ``Retry-After`` header is honoured up to
``max_backoff``), at most ``max_retries`` times. A read timeout is *not* retried: the
server has the request and is working on it, and sending it again only adds load; the
caller sees :class:`OpenAITimeoutError` after ``timeout`` seconds. Other 4xx answers are
the request's fault and raise :class:`OpenAIHTTPError` at once. A call made for a
search waits no longer than the search's deadline (its limits, back-offs and retries
included): then it raises :class:`~proofsearch.generate.base.AnswerDeadline`, and the
theorem ends on time.

The API key is read from the environment variable named by ``api_key_env``
(``OPENAI_API_KEY``); it is sent as ``Authorization: Bearer`` when set and never
appears in ``repr``, logs or errors.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import os
import random
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from proofsearch.generate.base import (
    AnswerDeadline,
    GenerationRequest,
    Suggestion,
    TacticGenerator,
    best_unique,
    wait_bound,
)
from proofsearch.generate.prompt import CAUSAL_TEMPLATE, check_side, check_template, cut_text, fill
from proofsearch.theorem import Theorem

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
#: Transport failures after which the request cannot have been processed, or the
#: connection broke: safe and useful to retry. ReadTimeout is deliberately absent.
_RETRY_ERRORS: tuple[type[Exception], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.WriteTimeout,
)

#: What one attempt at a request gave: the server's answer, or a transport failure.
_Sent = httpx.Response | httpx.TransportError


class OpenAIGeneratorError(RuntimeError):
    """The server could not give usable suggestions."""


class OpenAIHTTPError(OpenAIGeneratorError):
    """The server answered with an error status (after any retries)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class OpenAITimeoutError(OpenAIGeneratorError):
    """The server did not answer within ``timeout`` seconds."""


class MissingLogprobsError(OpenAIGeneratorError):
    """The server answered without the token log-probabilities the scores are made of."""


class OpenAITacticGenerator(TacticGenerator):
    """Suggests tactics by asking an OpenAI-compatible completions endpoint.

    Options: ``base_url`` (``http://127.0.0.1:8000/v1``), ``model`` (None: the first id
    of ``GET /models``), ``n`` (completions asked per call; None: the call's ``n``; more
    than that helps when sampling repeats itself, since duplicates are merged),
    ``template`` (ReProver's causal prompt), ``temperature`` (1.0), ``top_p`` (1.0),
    ``max_tokens`` (256), ``logprobs`` (1), ``stop`` (``["\\n"]``), ``max_goal_chars``
    (None: no cut) and ``truncation_side`` (``right``: keep the start of the goals),
    ``api_key_env`` (``OPENAI_API_KEY``), ``timeout`` (60 s per answer),
    ``connect_timeout`` (10 s), ``max_retries`` (4), ``backoff`` (0.5 s),
    ``max_backoff`` (8 s), ``batch_prompts`` (False: one HTTP request per prompt, sent
    concurrently by :meth:`generate_batch`, which every server accepts; True: one
    request with a list of prompts per distinct ``n``), ``max_concurrency`` (8), and
    ``extra_body`` (more request fields, e.g. vLLM's ``top_k`` or
    ``skip_special_tokens``).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000/v1",
        model: str | None = None,
        *,
        n: int | None = None,
        template: str = CAUSAL_TEMPLATE,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        logprobs: int = 1,
        stop: Sequence[str] | None = ("\n",),
        max_goal_chars: int | None = None,
        truncation_side: str = "right",
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        connect_timeout: float = 10.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        batch_prompts: bool = False,
        max_concurrency: int = 8,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if logprobs < 0:
            raise ValueError(f"logprobs must be ≥ 0 (it is always requested), got {logprobs}")
        if max_retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("max_retries, backoff and max_backoff must be ≥ 0")
        if timeout <= 0 or connect_timeout <= 0:
            raise ValueError("timeouts must be positive")
        if n is not None and n < 1:
            raise ValueError(f"n must be positive or None, got {n}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be positive, got {max_concurrency}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.n = n
        self.template = check_template(template)
        self.temperature = temperature
        self.stochastic = temperature > 0  # a server samples unless told not to
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.logprobs = logprobs
        # `--gen-option stop=lia` is one stop string, not the list of its letters.
        self.stop = [stop] if isinstance(stop, str) else list(stop) if stop else []
        self.max_goal_chars = max_goal_chars
        self.truncation_side = check_side(truncation_side)
        self.api_key_env = api_key_env
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.batch_prompts = batch_prompts
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        self._timeout = httpx.Timeout(timeout, connect=connect_timeout)
        self._client: httpx.Client | None = None
        self._async_clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, httpx.AsyncClient
        ] = weakref.WeakKeyDictionary()
        self._model_lock = threading.Lock()

    def __repr__(self) -> str:
        # The key is never part of the representation, only whether one is set.
        has_key = bool(os.environ.get(self.api_key_env))
        return (
            f"OpenAITacticGenerator({self.base_url!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r}, key_set={has_key})"
        )

    # -- requests ----------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def prompt(self, goals: str) -> str:
        """The prompt sent for ``goals``."""
        return fill(self.template, cut_text(goals, self.max_goal_chars, self.truncation_side))

    def _body(self, prompt: str | list[str], n: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "prompt": prompt,
            "n": n,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "logprobs": self.logprobs,
            **self.extra_body,
        }
        if self.model is not None:
            body["model"] = self.model
        if self.stop:
            body["stop"] = self.stop
        return body

    def _sent_n(self, n: int) -> int:
        return max(n, self.n) if self.n is not None else n

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        delay = min(self.max_backoff, self.backoff * 2.0**attempt) * random.uniform(0.5, 1.0)
        if response is not None:
            retry_after = response.headers.get("Retry-After")
            try:
                if retry_after is not None:
                    delay = min(self.max_backoff, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return delay

    def _client_sync(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(base_url=self.base_url, timeout=self._timeout)
        return self._client

    def _post(self, path: str, body: Mapping[str, Any] | None) -> dict[str, Any]:
        """POST with retries (see the module docstring and :meth:`_retry`); ``body=None``:
        a GET (``/models``), retried the same way (a server still loading its model)."""
        client = self._client_sync()
        for attempt in itertools.count():
            limits, cut = self._limits()
            try:
                sent: _Sent = (
                    client.get(path, headers=self._headers(), timeout=limits)
                    if body is None
                    else client.post(path, json=body, headers=self._headers(), timeout=limits)
                )
            except httpx.TransportError as error:
                sent = _cut_or(error, cut)
            if isinstance(answer := self._retry(attempt, sent), httpx.Response):
                return self._json(answer)
            time.sleep(self._backoff_in_time(answer, sent, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _apost(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The asynchronous :meth:`_post`, on an ``httpx.AsyncClient`` of this loop."""
        client = self._client_async()
        for attempt in itertools.count():
            limits, cut = self._limits()
            try:
                sent: _Sent = await client.post(
                    path, json=body, headers=self._headers(), timeout=limits
                )
            except httpx.TransportError as error:
                sent = _cut_or(error, cut)
            if isinstance(answer := self._retry(attempt, sent), httpx.Response):
                return self._json(answer)
            await asyncio.sleep(self._backoff_in_time(answer, sent, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _limits(self) -> tuple[httpx.Timeout, bool]:
        """This attempt's time limits: the configured ones, or the time left before the
        search's deadline where that is shorter (True: a timeout is then the deadline's)."""
        read, cut = wait_bound(self._timeout.read or math.inf)
        connect = min(self._timeout.connect or math.inf, read)
        return httpx.Timeout(read, connect=connect), cut

    def _retry(self, attempt: int, outcome: _Sent) -> httpx.Response | float:
        """The retry policy of :meth:`_post` and :meth:`_apost`: after attempt number
        ``attempt`` (from 0), the response to use, or the seconds to wait before sending
        again; raises when the request failed for good."""
        if isinstance(outcome, httpx.ReadTimeout):
            raise self._timeout_error() from outcome
        if isinstance(outcome, _RETRY_ERRORS):
            if attempt == self.max_retries:
                raise self._connection_error(outcome) from outcome
            delay = self._delay(attempt, None)
            log.warning("%s: %s; retrying in %.2fs", self.base_url, _describe(outcome), delay)
            return delay
        if isinstance(outcome, httpx.TransportError):
            raise self._connection_error(outcome, attempt + 1) from outcome
        if outcome.status_code in _RETRY_STATUS and attempt < self.max_retries:
            delay = self._delay(attempt, outcome)
            log.warning(
                "%s answered %d; retrying in %.2fs", self.base_url, outcome.status_code, delay
            )
            return delay
        return outcome

    def _backoff_in_time(self, delay: float, sent: _Sent, attempt: int) -> float:
        """``delay``, the back-off before a retry, unless the search's deadline comes first.
        Then there is no time to retry: the theorem's time is up (:class:`AnswerDeadline`),
        unless the server was never reached (connection refused): that is no slow server
        but none at all, a failure of the generator, so that a run against a server that is
        down stops after its first theorems, as documented, and its rows say ``error``, not
        ``open`` and "too slow" (audit 51: which of the two a run got hung on the random
        back-off)."""
        if wait_bound(delay)[1]:
            if isinstance(sent, httpx.ConnectError):
                raise self._connection_error(sent, attempt + 1) from sent
            raise AnswerDeadline("the search's deadline came before a retry")
        return delay

    def _client_async(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(loop)
        if client is None:
            client = httpx.AsyncClient(base_url=self.base_url, timeout=self._timeout)
            self._async_clients[loop] = client
        return client

    def _timeout_error(self) -> OpenAITimeoutError:
        return OpenAITimeoutError(
            f"{self.base_url} did not answer within {self._timeout.read} s (the 'timeout' "
            "option); a read timeout is not retried"
        )

    def _connection_error(
        self, error: Exception, attempts: int | None = None
    ) -> OpenAIGeneratorError:
        attempts = self.max_retries + 1 if attempts is None else attempts
        return OpenAIGeneratorError(
            f"cannot reach {self.base_url} after {attempts} attempt(s): {_describe(error)}"
        )

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code >= 400:
            raise OpenAIHTTPError(
                response.status_code,
                f"{self.base_url} answered {response.status_code}: {_error_message(response)}",
            )
        try:
            payload = response.json()
        except ValueError as error:
            raise OpenAIGeneratorError(
                f"{self.base_url} answered non-JSON: {response.text[:200]!r}"
            ) from error
        if not isinstance(payload, dict):
            raise OpenAIGeneratorError(f"{self.base_url} answered {type(payload).__name__}")
        return payload

    def _ensure_model(self) -> None:
        """Ask ``GET /models`` for the model name once, when none was given."""
        if self.model is not None:
            return
        with self._model_lock:
            if self.model is not None:
                return
            data = self._post("/models", None).get("data") or []
            if not data or "id" not in data[0]:
                raise OpenAIGeneratorError(
                    f"{self.base_url}/models lists no model; set the 'model' option"
                )
            self.model = str(data[0]["id"])

    # -- answers -----------------------------------------------------------------------

    def _suggestions(
        self, payload: Mapping[str, Any], prompts: int, n: int
    ) -> list[list[Suggestion]]:
        """Group choices by prompt (``index = prompt * n + j``) and score them.

        A server that says it decodes by beam search (``"decoding": "beam"``, as
        ``proofsearch.generate.serve`` does by default) answers the same tactics when asked
        again: the client is then no sampler, whatever its temperature, and the search does
        not widen a node by asking again (with the default temperature it widened, ran out
        of time, and called the server too slow: audit 51)."""
        if payload.get("decoding") == "beam":
            self.stochastic = False
        choices = payload.get("choices")
        if not isinstance(choices, list):
            raise OpenAIGeneratorError(f"{self.base_url}: the answer has no 'choices' list")
        grouped: list[list[Suggestion]] = [[] for _ in range(prompts)]
        for position, choice in enumerate(choices):
            index = choice.get("index", position)
            bucket = index // n if isinstance(index, int) else -1
            if not 0 <= bucket < prompts:
                raise OpenAIGeneratorError(f"{self.base_url}: choice index {index!r} out of range")
            grouped[bucket].append(Suggestion(self._text(choice), self._logprob(choice)))
        return grouped

    def _text(self, choice: Mapping[str, Any]) -> str:
        text = choice.get("text")
        if not isinstance(text, str):
            raise OpenAIGeneratorError(f"{self.base_url}: a choice has no 'text'")
        for marker in self.stop:  # servers that ignore 'stop' still give one tactic
            text = text.split(marker, 1)[0]
        return text

    def _logprob(self, choice: Mapping[str, Any]) -> float:
        logprobs = choice.get("logprobs")
        values = logprobs.get("token_logprobs") if isinstance(logprobs, Mapping) else None
        if not isinstance(values, list) or any(
            not isinstance(v, int | float) or isinstance(v, bool) for v in values
        ):
            raise MissingLogprobsError(
                f"{self.base_url} returned no token log-probabilities "
                f"(choices[].logprobs.token_logprobs) although logprobs={self.logprobs} was "
                "requested; the search needs them to rank tactics. Use a server that "
                "returns them (vLLM, llama.cpp's llama-server, proofsearch.generate.serve)."
            )
        total = math.fsum(values)
        if math.isnan(total) or total > 1e-6:
            raise OpenAIGeneratorError(f"{self.base_url}: invalid log-probability sum {total}")
        return min(total, 0.0)

    # -- the generator interface -------------------------------------------------------

    def generate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        if n <= 0:
            return []
        self._ensure_model()
        sent = self._sent_n(n)
        payload = self._post("/completions", self._body(self.prompt(goals), sent))
        return best_unique(self._suggestions(payload, 1, sent)[0], n)

    async def agenerate(self, goals: str, theorem: Theorem, n: int) -> list[Suggestion]:
        if n <= 0:
            return []
        if self.model is None:
            await asyncio.to_thread(self._ensure_model)
        sent = self._sent_n(n)
        payload = await self._apost("/completions", self._body(self.prompt(goals), sent))
        return best_unique(self._suggestions(payload, 1, sent)[0], n)

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[list[Suggestion]]:
        """Several requests at once: concurrent single-prompt requests, or (with
        ``batch_prompts``) one list-of-prompts request per distinct ``n``."""
        if not requests:
            return []
        self._ensure_model()
        results: list[list[Suggestion]] = [[] for _ in requests]
        if not self.batch_prompts:
            live = [i for i, r in enumerate(requests) if r.n > 0]
            workers = min(self.max_concurrency, max(1, len(live)))
            with ThreadPoolExecutor(workers, thread_name_prefix="openai") as pool:
                answers = pool.map(
                    lambda i: self.generate(requests[i].goals, requests[i].theorem, requests[i].n),
                    live,
                )
                for index, answer in zip(live, answers, strict=True):
                    results[index] = answer
            return results
        groups: dict[int, list[int]] = {}
        for index, request in enumerate(requests):
            if request.n > 0:
                groups.setdefault(request.n, []).append(index)
        for n, indices in groups.items():
            sent = self._sent_n(n)
            prompts = [self.prompt(requests[i].goals) for i in indices]
            payload = self._post("/completions", self._body(prompts, sent))
            for index, suggestions in zip(
                indices, self._suggestions(payload, len(prompts), sent), strict=True
            ):
                results[index] = best_unique(suggestions, n)
        return results

    def close(self) -> None:
        """Close the HTTP connections (asynchronous clients of loops no longer running
        are closed on their loop; those of running loops close with :meth:`aclose`)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        for loop, client in list(self._async_clients.items()):
            if not loop.is_closed() and not loop.is_running():
                loop.run_until_complete(client.aclose())
        self._async_clients.clear()

    async def aclose(self) -> None:
        """Close the current loop's asynchronous client (and the synchronous one)."""
        client = self._async_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()
        if self._client is not None:
            self._client.close()
            self._client = None


def _cut_or(error: httpx.TransportError, cut: bool) -> httpx.TransportError:
    """``error``, unless it is a timeout that the search's deadline set (``cut``): the
    theorem's time is up, no failure of the server."""
    if cut and isinstance(error, httpx.TimeoutException):
        raise AnswerDeadline("the search's deadline came while the server answered") from error
    return error


def _describe(error: Exception) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _error_message(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if payload.get("message"):
            return str(payload["message"])
    return str(payload)[:300]
