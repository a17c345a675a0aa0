"""A loopback stand-in for an OpenAI-compatible chat server that fails on demand (tests only).

A real vLLM server cannot be made to answer 500, hang or send broken JSON on demand. ``FakeOpenAI``
answers every ``POST /chat/completions`` according to ``mode`` (the whole server) or ``script``
(per prompt: a list of modes used one per request, the last one repeating). ``POST /completions``
(a raw prompt, for sentence scores) answers ``ok`` with vLLM's ``prompt_logprobs``: one token per word
(with the blanks before it), each -1.0; ``no_logprobs`` leaves them out, ``nan`` makes them NaN, the
error modes are the same:

- ``ok``: a completion whose text echoes the prompt, with top log-probs for yes/no and A/B;
- ``500``, ``503``: that HTTP status with an OpenAI error body;
- ``garbage``: HTTP 200 with a body that is not JSON;
- ``no_choices``: HTTP 200 with ``"choices": []``;
- ``no_logprobs``: HTTP 200, a completion without log-probs;
- ``empty``: HTTP 200, an empty completion (no option among the top tokens either);
- ``no_option``: HTTP 200, a completion that names no option (a reject, not a failure);
- ``null``: HTTP 200 with the body ``null``;
- ``nan``: HTTP 200, a completion whose top log-probs are all NaN;
- ``empty_top``: HTTP 200, a completion with an empty ``top_logprobs`` list;
- ``trickle``: HTTP 200, the ``ok`` answer sent one byte every ``delay`` seconds (it stops when the
  client hangs up or the server closes);
- ``slow``: waits ``delay`` seconds, then answers ``ok``;
- ``too_long``, ``bad_request``, ``wrong_model``: the 400/404 errors a vLLM server sends;
- ``echo_auth``: HTTP 400 whose error message repeats the request's Authorization header;
- ``drop``: closes the connection without an answer (a server that died mid-run).

``hits`` counts requests per prompt; ``requests`` counts them all. With ``api_key``, a request
without ``Authorization: Bearer <api_key>`` gets HTTP 401. Use it as a context manager.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from corpusbench.llm.server import free_port

MODES = (
    "ok",
    "500",
    "503",
    "garbage",
    "no_choices",
    "no_logprobs",
    "empty",
    "no_option",
    "null",
    "nan",
    "empty_top",
    "trickle",
    "slow",
    "too_long",
    "bad_request",
    "wrong_model",
    "echo_auth",
    "drop",
)
TOP = [("yes", -0.1), ("A", -0.2), ("no", -2.5), ("B", -2.6)]


def completion(content: str, top: list[tuple[str, float]] | None = TOP) -> dict[str, Any]:
    """A chat completion; ``top``: the first token's top log-probs (None: no log-probs at all)."""
    choice: dict[str, Any] = {"message": {"content": content}, "finish_reason": "stop"}
    if top is not None:
        tops = [{"token": t, "logprob": lp} for t, lp in top]
        choice["logprobs"] = {"content": [{"token": top[0][0], "logprob": top[0][1], "top_logprobs": tops}]}
    return {"choices": [choice], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}


def prompt_completion(prompt: str, logprob: float | None = -1.0) -> dict[str, Any]:
    """A completion of a raw prompt with vLLM's ``prompt_logprobs`` (None: without them): one token per
    word, the first without a log-prob, as vLLM sends it."""
    choice: dict[str, Any] = {"text": " echo", "finish_reason": "length"}
    pieces = re.findall(r"\s*\S+|\s+", prompt)
    if logprob is not None:
        entries = [
            {str(100 + i): {"logprob": logprob, "rank": 1, "decoded_token": p}} for i, p in enumerate(pieces)
        ]
        choice["prompt_logprobs"] = [None, *entries[1:]]
    return {"choices": [choice], "usage": {"prompt_tokens": len(pieces), "completion_tokens": 1}}


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 reset connections of 16 concurrent clients under load

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that gave up (timeout) breaks the pipe: not a test failure, and no traceback


class FakeOpenAI:
    def __init__(
        self,
        model: str = "fake",
        mode: str = "ok",
        delay: float = 1.0,
        port: int | None = None,
        api_key: str | None = None,
    ):
        assert mode in MODES, mode
        self.model, self.mode, self.delay, self.api_key = model, mode, delay, api_key
        self.script: dict[str, list[str]] = {}
        self.hits: Counter[str] = Counter()
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []  # every POST body, in arrival order
        self.in_flight = 0  # POSTs being answered now, and the most at once since the last reset
        self.most_in_flight = 0
        self._lock = threading.Lock()
        self.closed = threading.Event()  # set on exit: a trickling answer stops
        self._server = _QuietServer(("127.0.0.1", port or free_port()), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def reset(self, mode: str = "ok") -> None:
        """Answer every request with ``mode`` from now on; forget the script and the counts."""
        assert mode in MODES, mode
        with self._lock:
            self.mode, self.script, self.requests = mode, {}, 0
            self.most_in_flight = self.in_flight
            self.hits.clear()
            self.bodies.clear()

    def _mode_for(self, prompt: str) -> str:
        with self._lock:
            self.hits[prompt] += 1
            self.requests += 1
            steps = self.script.get(prompt)
            if not steps:
                return self.mode
            return steps.pop(0) if len(steps) > 1 else steps[0]

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed.set()
        self._server.shutdown()
        self._server.server_close()


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def _send(self, code: int, body: object) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _trickle(self, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                if fake.closed.wait(fake.delay):
                    return
                try:
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                except OSError:  # the client gave up
                    return

        def _refused(self) -> bool:
            if fake.api_key is None or self.headers.get("Authorization") == f"Bearer {fake.api_key}":
                return False
            self._send(401, {"error": {"message": "invalid API key"}})
            return True

        def do_GET(self) -> None:
            if not self._refused():
                self._send(200, {"object": "list", "data": [{"id": fake.model}]})

        def do_POST(self) -> None:
            with fake._lock:
                fake.in_flight += 1
                fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
            try:
                self._post()
            finally:
                with fake._lock:
                    fake.in_flight -= 1

        def _post(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self._refused():
                return
            fake.bodies.append(body)
            raw = not self.path.endswith("/chat/completions")  # /completions: a raw prompt
            if raw:
                prompt = body["prompt"]
            else:
                prompt = body["messages"][-1]["content"]
                if body["messages"][-1]["role"] == "assistant":  # an answer prefix: the question is before it
                    prompt = body["messages"][-2]["content"]
            mode = fake._mode_for(prompt)
            if mode == "slow":
                time.sleep(fake.delay)
            if mode == "drop":
                self.close_connection = True
                return None
            errors = {
                "500": (500, "engine exploded"),
                "503": (503, "overloaded"),
                "too_long": (400, "This model's maximum context length is 2048 tokens."),
                "bad_request": (400, "temperature must be >= 0"),
                "wrong_model": (404, f"The model `{body.get('model')}` does not exist."),
                "echo_auth": (400, f"bad request with Authorization: {self.headers.get('Authorization')}"),
            }
            if mode in errors:
                code, message = errors[mode]
                return self._send(code, {"error": {"message": message}})
            if mode == "garbage":
                return self._send(200, b"{not json")
            if raw:
                lp = {"no_logprobs": None, "nan": float("nan")}.get(mode, -1.0)
                return self._send(200, prompt_completion(prompt, lp))
            if mode == "no_choices":
                return self._send(200, {"choices": []})
            if mode == "empty":  # no option among the top tokens, and an empty generation
                return self._send(200, completion("", top=[("\n", -0.1)]))
            if mode == "no_option":
                return self._send(200, completion("I cannot tell.", top=[("\n", -0.1)]))
            if mode == "null":
                return self._send(200, b"null")
            if mode == "nan":
                return self._send(200, completion("echo", top=[(t, float("nan")) for t, _ in TOP]))
            if mode == "empty_top":
                body = completion(f"echo {prompt}")
                body["choices"][0]["logprobs"]["content"][0]["top_logprobs"] = []
                return self._send(200, body)
            if mode == "trickle":
                return self._trickle(completion(f"echo {prompt}"))
            return self._send(200, completion(f"echo {prompt}", top=None if mode == "no_logprobs" else TOP))

    return Handler
