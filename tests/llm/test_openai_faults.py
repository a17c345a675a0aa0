"""The openai backend's handling of HTTP faults, against a loopback stand-in server.

A real vLLM server cannot be made to answer 503, hang or send broken JSON on demand, so these
cases use a small scripted HTTP server; the real server is used in test_server.py.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm import CachedLLM, ChoiceRequest, GenRequest
from corpusbench.llm.openai_backend import OpenAIBackend
from corpusbench.llm.server import free_port


def _completion(content: str) -> dict:
    return {
        "choices": [
            {
                "message": {"content": content},
                "finish_reason": "stop",
                "logprobs": {"content": [{"token": content[:1] or "x", "logprob": -0.1, "top_logprobs": []}]},
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2},
    }


class Handler(BaseHTTPRequestHandler):
    hits: ClassVar[Counter] = Counter()

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def _send(self, code: int, body: object) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "flaky"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        Handler.hits[prompt] += 1
        n = Handler.hits[prompt]
        if prompt == "503 twice" and n <= 2:
            return self._send(503, {"error": {"message": "overloaded"}})
        if prompt == "always 500":
            return self._send(500, {"error": {"message": "engine exploded"}})
        if prompt == "slow":
            time.sleep(1.0)
        if prompt == "bad json":
            return self._send(200, b"{not json")
        if prompt == "no choices":
            return self._send(200, {"choices": []})
        if prompt == "too long":
            return self._send(
                400, {"error": {"message": "This model's maximum context length is 2048 tokens."}}
            )
        if prompt == "bad request":
            return self._send(400, {"error": {"message": "temperature must be >= 0"}})
        if prompt == "wrong model":
            return self._send(404, {"error": {"message": "The model `x` does not exist."}})
        if prompt == "empty":
            return self._send(200, _completion(""))
        return self._send(200, _completion(f"echo {prompt}"))


@pytest.fixture(scope="module")
def flaky_url():
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def backend(flaky_url):
    Handler.hits.clear()
    return OpenAIBackend(flaky_url, concurrency=4, timeout=0.3, max_retries=2, backoff=0.01)


def statuses(backend, prompts):
    return [r.status for r in backend.generate([GenRequest(id=p, prompt=p) for p in prompts])]


def test_retries_5xx_then_succeeds(backend) -> None:
    [r] = backend.generate([GenRequest(id="x", prompt="503 twice")])
    assert r.status == "ok" and r.text == "echo 503 twice" and Handler.hits["503 twice"] == 3


def test_persistent_errors_become_error_results(backend) -> None:
    out = backend.generate(
        [GenRequest(id=p, prompt=p) for p in ("always 500", "slow", "fine", "bad request")]
    )
    assert [r.status for r in out] == ["error", "error", "ok", "error"]
    assert "HTTP 500" in out[0].error and "engine exploded" in out[0].error
    assert "timed out" in out[1].error
    assert Handler.hits["always 500"] == 3 and Handler.hits["slow"] == 3
    assert Handler.hits["bad request"] == 1  # client errors are not retried


def test_malformed_responses(backend) -> None:
    assert statuses(backend, ["bad json", "no choices", "too long"]) == ["error", "error", "too_long"]


def test_empty_answer_is_a_reject_through_choose(backend) -> None:
    llm = CachedLLM(backend, None)
    [r] = llm.choose([ChoiceRequest(id="e", prompt="empty")])
    assert r.status == "reject" and llm.last.rejects == 1


def test_unknown_model(flaky_url, backend) -> None:
    with pytest.raises(ConfigError, match=r"unknown model 'llama'.*serves flaky"):
        OpenAIBackend(flaky_url, "llama")
    with pytest.raises(ConfigError, match="unknown model"):
        backend.generate([GenRequest(id="w", prompt="wrong model")])


def test_unreachable_url_names_url_and_fix() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(BackendError) as e:
        OpenAIBackend(url)
    assert (
        url in str(e.value) and "make llm-server" in str(e.value) and "corpusbench llm serve" in str(e.value)
    )
