"""A small OpenAI-compatible ``/v1/completions`` server over the ``hf`` generator.

``python -m proofsearch.generate.serve --model DIR --port 8000`` serves a local
checkpoint to any OpenAI-compatible client, the ``openai`` generator among them, so that
one GPU can answer the provers of several machines. It also lets the ``openai``
generator be tested against a real HTTP server with a real model, without vLLM.

What it implements of the completions API: ``prompt`` (a string or a list of strings),
``n``, ``max_tokens``, ``temperature``/``top_p``/``top_k`` (in ``--strategy sample``;
beam search ignores them, as vLLM's beam search did), ``logprobs`` (``tokens``,
``token_logprobs``, ``top_logprobs``, ``text_offset``), ``stop``, ``model``; choices are
indexed ``prompt_index * n + j`` as OpenAI and vLLM do. Not implemented (answered 400):
``stream``, ``echo``, ``best_of``, ``suffix``, token-id prompts. Prompts are used as they
come (the client builds them); one longer than ``--max-input-tokens`` is refused with
400, as vLLM refuses prompts longer than its context, rather than cut silently.

Each choice's ``token_logprobs`` are the model's log-probabilities of the returned
tokens, terminator (EOS or the newline token) included, so their sum is the score the
``hf`` generator gives the same tactic. Requests run one at a time (the generator holds
a lock); a request with several prompts is answered by one batched ``generate`` call.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proofsearch.generate.hf import Candidate, HFTacticGenerator

log = logging.getLogger(__name__)

#: The most completions one request may ask for (a guard against ``n=10**6`` typos).
MAX_N = 256


class RequestError(Exception):
    """A request the server refuses; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The OpenAI error shape."""
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class Completions:
    """Turns completion request bodies into response bodies (no HTTP here)."""

    def __init__(
        self,
        generator: HFTacticGenerator,
        model_name: str,
        max_input_tokens: int | None = None,
    ) -> None:
        self.generator = generator
        self.model_name = model_name
        limit = generator.max_input_tokens  # already within a causal model's positions
        self.max_input_tokens = min(max_input_tokens, limit) if max_input_tokens else limit
        # One request at a time: the model runs one batch at a time anyway, and Rust
        # tokenizers may refuse concurrent use ("Already borrowed").
        self._lock = threading.Lock()

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model_name, "object": "model", "owned_by": "proofsearch"}],
        }

    def complete(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The response body for a request body; raises :class:`RequestError`."""
        with self._lock:
            return self._complete(body)

    def _complete(self, body: Mapping[str, Any]) -> dict[str, Any]:
        for unsupported in ("stream", "echo", "suffix"):
            if body.get(unsupported):
                raise RequestError(400, f"'{unsupported}' is not supported by this server")
        if body.get("best_of") not in (None, body.get("n", 1)):
            raise RequestError(400, "'best_of' is not supported by this server")
        model = body.get("model")
        if model is not None and model != self.model_name:
            raise RequestError(
                404,
                f"the model {model!r} does not exist (serving {self.model_name!r})",
                "not_found_error",
            )
        prompts = body.get("prompt")
        if isinstance(prompts, str):
            prompts = [prompts]
        if (
            not isinstance(prompts, list)
            or not prompts
            or not all(isinstance(p, str) for p in prompts)
        ):
            raise RequestError(400, "'prompt' must be a string or a non-empty list of strings")
        n = _integer(body, "n", 1, 1, MAX_N)
        cap = self.generator.max_new_tokens
        max_tokens = _integer(body, "max_tokens", cap, 1, cap)
        logprobs = body.get("logprobs")
        if logprobs is not None and (
            isinstance(logprobs, bool) or not isinstance(logprobs, int) or logprobs < 0
        ):
            raise RequestError(400, "'logprobs' must be a non-negative integer or null")
        stop = body.get("stop") or []
        if isinstance(stop, str):
            stop = [stop]
        if not isinstance(stop, list) or not all(isinstance(s, str) and s for s in stop):
            raise RequestError(400, "'stop' must be a string or a list of non-empty strings")
        sampling: dict[str, Any] = {}
        if self.generator.strategy == "sample":
            temperature = _number(body, "temperature", self.generator.temperature, 0.0)
            if temperature == 0.0:
                # OpenAI's temperature 0 is greedy decoding: a very low temperature keeps
                # the draw on the argmax without dividing by zero.
                temperature = 1e-5
            sampling = {
                "temperature": temperature,
                "top_p": _number(body, "top_p", self.generator.top_p, 0.0),
                "top_k": _integer(body, "top_k", self.generator.top_k, 0, None),
            }

        ids = [self.generator.encode_prompt(p) for p in prompts]
        for index, prompt_ids in enumerate(ids):
            if len(prompt_ids) > self.max_input_tokens:
                raise RequestError(
                    400,
                    f"prompt {index} has {len(prompt_ids)} tokens, more than this server's "
                    f"limit of {self.max_input_tokens}",
                )
        answers = self.generator.generate_ids(ids, n, max_new_tokens=max_tokens, **sampling)
        choices: list[dict[str, Any]] = []
        completion_tokens = 0
        for prompt_index, (prompt_ids, candidates) in enumerate(zip(ids, answers, strict=True)):
            scored = self._token_scores(prompt_ids, candidates, logprobs)
            for j, (candidate, scores) in enumerate(zip(candidates, scored, strict=True)):
                choice = self._choice(candidate, scores, logprobs, stop)
                choice["index"] = prompt_index * n + j
                completion_tokens += len(candidate.token_ids)
                choices.append(choice)
        prompt_tokens = sum(len(i) for i in ids)
        return {
            "id": f"cmpl-{uuid.uuid4().hex}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": choices,
            # Not OpenAI's: how the choices were decoded, so that proofsearch's client
            # does not ask a beam search again for new tactics (audit 51).
            "decoding": self.generator.strategy,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _token_scores(
        self, prompt_ids: list[int], candidates: Sequence[Candidate], top: int | None
    ) -> list[tuple[list[float], list[list[tuple[int, float]]]]]:
        """Per-token log-probabilities (and alternatives) of each candidate: recorded
        during sampling, else one forward pass (beam search keeps only sums)."""
        if top is None:
            return [([], []) for _ in candidates]
        if top == 0 and all(c.token_logprobs is not None for c in candidates):
            return [(list(c.token_logprobs or ()), []) for c in candidates]
        scored = self.generator.score_tokens(
            [prompt_ids] * len(candidates), [c.token_ids for c in candidates], top
        )
        return [(s.logprobs, s.top) for s in scored]

    def _choice(
        self,
        candidate: Candidate,
        scores: tuple[list[float], list[list[tuple[int, float]]]],
        logprobs: int | None,
        stop: Sequence[str],
    ) -> dict[str, Any]:
        tokenizer = self.generator.tokenizer
        token_ids = list(candidate.token_ids)
        texts = [str(tokenizer.decode([t])) for t in token_ids]
        text = candidate.text
        finish = "length" if candidate.finish_reason == "length" else "stop"
        kept = len(token_ids)
        for marker in stop:
            at = text.find(marker)
            if at < 0:
                continue
            text = text[:at]
            finish = "stop"
            # Keep the tokens through the one that completes the stop string (vLLM too
            # reports the token that held the stop string).
            seen = ""
            for index, piece in enumerate(texts[:kept]):
                seen += piece
                if len(seen) >= at + len(marker):
                    kept = index + 1
                    break
        choice: dict[str, Any] = {"text": text, "finish_reason": finish, "logprobs": None}
        if logprobs is not None:
            per_token, alternatives = scores
            offsets, position = [], 0
            for piece in texts[:kept]:
                offsets.append(position)
                position += len(piece)
            choice["logprobs"] = {
                "tokens": texts[:kept],
                "token_logprobs": per_token[:kept],
                "top_logprobs": [
                    {tokenizer.decode([i]): v for i, v in row} for row in alternatives[:kept]
                ]
                if logprobs > 0
                else None,
                "text_offset": offsets,
            }
        return choice


def _integer(body: Mapping[str, Any], key: str, default: int, low: int, high: int | None) -> int:
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f"'{key}' must be an integer")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise RequestError(400, f"'{key}' must be {bound}, got {value}")
    return value


def _number(body: Mapping[str, Any], key: str, default: float, low: float) -> float:
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
        raise RequestError(400, f"'{key}' must be a number ≥ {low}")
    return float(value)


class CompletionHandler(BaseHTTPRequestHandler):
    """HTTP front of :class:`Completions`. Subclasses may override
    :meth:`handle_completion` (the tests inject 503s, delays and malformed answers)."""

    server: CompletionHTTPServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if not self._authorized():
            return
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self.send_json(200, self.server.completions.models())
        elif self.path.rstrip("/") in ("/health", "/v1/health"):
            self.send_json(200, {"status": "ok"})
        else:
            self.send_json(404, error_body(f"no route {self.path}", "not_found_error"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self._authorized():
            return
        if self.path.rstrip("/") not in ("/v1/completions", "/completions"):
            self.send_json(404, error_body(f"no route {self.path}", "not_found_error"))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as error:
            self.send_json(400, error_body(f"the body is not JSON: {error}"))
            return
        if not isinstance(body, dict):
            self.send_json(400, error_body("the body must be a JSON object"))
            return
        self.handle_completion(body)

    def handle_completion(self, body: dict[str, Any]) -> None:
        try:
            payload = self.server.completions.complete(body)
        except RequestError as error:
            self.send_json(error.status, error_body(error.message, error.kind))
            return
        except Exception as error:  # a bug or an OOM: tell the client, keep serving
            log.exception("completion failed")
            self.send_json(500, error_body(f"{type(error).__name__}: {error}", "server_error"))
            return
        self.send_json(200, payload)

    def send_json(
        self, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        key = self.server.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self.send_json(401, error_body("missing or wrong API key", "authentication_error"))
        return False

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s - %s", self.address_string(), format % args)


class CompletionHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that carries the :class:`Completions` it serves."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        completions: Completions,
        api_key: str | None = None,
        handler: type[CompletionHandler] = CompletionHandler,
    ) -> None:
        super().__init__(address, handler)
        self.completions = completions
        self.api_key = api_key

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away before its answer (the search's deadline came: the
        ``openai`` client gives up on the request) is no error of the server: one debug
        line, not a traceback per request (audit 51)."""
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            log.debug("%s went away before its answer", client_address)
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The base URL clients use (``http://host:port/v1``)."""
        host, port = self.server_address[:2]
        if isinstance(host, bytes):
            host = host.decode()
        return f"http://{host}:{port}/v1"


def make_server(
    generator: HFTacticGenerator,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    model_name: str | None = None,
    api_key: str | None = None,
    max_input_tokens: int | None = None,
    handler: type[CompletionHandler] = CompletionHandler,
) -> CompletionHTTPServer:
    """A server for ``generator`` bound to ``host:port`` (port 0: a free one)."""
    completions = Completions(generator, model_name or generator.path.name, max_input_tokens)
    return CompletionHTTPServer((host, port), completions, api_key, handler)


@contextmanager
def running(server: CompletionHTTPServer) -> Iterator[CompletionHTTPServer]:
    """Serve in a daemon thread for the ``with`` block, then shut down and close."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="completions", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m proofsearch.generate.serve",
        description="Serve a local Hugging Face checkpoint as an OpenAI /v1/completions API.",
    )
    parser.add_argument("--model", required=True, help="checkpoint directory")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--served-model-name", help="the name clients send (default: dir name)")
    parser.add_argument("--strategy", choices=["beam", "sample"], default="beam")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--max-input-tokens", type=int, default=2300)
    parser.add_argument(
        "--max-new-tokens", type=int, default=None,
        help="most tokens a completion may have (default: 512, or half a causal model's "
        "position table when that is smaller)",
    )  # fmt: skip
    parser.add_argument(
        "--no-stop-at-newline",
        action="store_true",
        help="let causal models write past a newline (clients can still send 'stop')",
    )
    parser.add_argument(
        "--api-key-env",
        help="require 'Authorization: Bearer $VAR' with the key read from this variable",
    )
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(message)s")

    from proofsearch.generate.hf import HFTacticGenerator

    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            parser.error(f"--api-key-env: ${args.api_key_env} is not set")
    try:
        generator = HFTacticGenerator(
            args.model,
            strategy=args.strategy,
            template="{goals}",  # clients send whole prompts
            max_input_tokens=args.max_input_tokens,
            max_new_tokens=args.max_new_tokens,
            stop_at_newline=False if args.no_stop_at_newline else None,
            device=args.device,
            dtype=args.dtype,
        )
    except (OSError, ValueError) as exc:  # a bad checkpoint or setting: one line, not a trace
        why = " ".join(str(exc).replace("--gen-option max_new_tokens", "--max-new-tokens").split())
        print(f"{parser.prog}: {why}", file=sys.stderr)
        return 2
    server = make_server(
        generator,
        args.host,
        args.port,
        model_name=args.served_model_name,
        api_key=api_key,
        max_input_tokens=args.max_input_tokens,
    )
    log.info(
        "serving %s as %r on %s: prompts of at most %d tokens%s, answers of at most %d",
        generator, server.completions.model_name, server.url,
        server.completions.max_input_tokens,
        "" if server.completions.max_input_tokens == args.max_input_tokens
        else f" (--max-input-tokens {args.max_input_tokens} lowered to what the model's "
        "positions leave)",
        generator.max_new_tokens,
    )  # fmt: skip
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        generator.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
