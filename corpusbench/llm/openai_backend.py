"""Backend for any OpenAI-compatible chat server; the standard deployment is vLLM's own server.

Async httpx with a bounded pool of workers, a timeout per call (a deadline for the whole request, so
a server that trickles its answer is cut too) and retries with exponential backoff on connection
errors, 429 and 5xx; a call that times out is sent once more at most (a stuck server costs two
timeouts per call, not one per retry). A reply that is not a well-formed answer (a body that is not
a JSON object, no choices, empty text, no or empty top log-probs) is a failed call like an HTTP
error. A call that still fails is returned as an ``error`` result (the cache retries it next run);
if the server itself is gone (connection refused after all retries) the run stops with a
``BackendError`` naming the URL, after every result received so far has been delivered. An
exception raised by ``on_result`` (e.g. the caller's failure budget running out) stops the pool
the same way and is raised after the calls in flight have been delivered.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, ClassVar, TypeVar

import httpx

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm.api import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from corpusbench.llm.base import Backend, OnResult, TopTokens, chat_messages, first_text_token, sample_seed
from corpusbench.llm.records import (
    ChoiceRequest,
    GenRequest,
    GenResult,
    ScoreRequest,
    ScoreResult,
    as_failure,
)
from corpusbench.llm.server import served_name

log = logging.getLogger(__name__)
T = TypeVar("T")

API_KEY_ENV = "OPENAI_API_KEY"
START_HINT = "start one with `make llm-server` or `corpusbench llm serve --llm-model <folder or hub id>`"
RESTART_HINT = f"{START_HINT}, then rerun to resume"
_TOO_LONG = ("maximum context length", "context length", "too long", "max_model_len", "maximum model length")


def resolve_api_key(api_key: str | None) -> str | None:
    """``api_key``, else $OPENAI_API_KEY (None when neither is set)."""
    return api_key or os.environ.get(API_KEY_ENV) or None


class ServerDown(Exception):
    """The server stopped accepting connections."""


class OpenAIBackend(Backend):
    name: ClassVar[str] = "openai"

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8011/v1",
        model: str | None = None,
        *,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        backoff: float = 1.0,
        vllm_extensions: bool = True,
        restart_hint: str = RESTART_HINT,
    ):
        self.base_url = base_url.rstrip("/")
        self._api_key = resolve_api_key(api_key)  # never printed: results' errors are redacted
        self.headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.backoff = backoff
        self.vllm_extensions = vllm_extensions  # continue_final_message for answer prefixes
        self.restart_hint = restart_hint  # what to do when the server goes away mid-run
        if not timeout > 0:
            raise ConfigError(f"LLM timeout must be a positive number of seconds (got {timeout})")
        served = self._served_models()
        if model is None:
            model = served[0]
        elif model not in served and served_name(model) in served:
            model = served_name(model)  # a local folder, served under its name (as `llm serve` does)
        elif model not in served:
            raise ConfigError(
                f"unknown model {model!r}: the server at {self.base_url} serves "
                f"{', '.join(served) or 'no model'}"
            )
        self.model = model

    @property
    def guided_regex(self) -> bool:  # type: ignore[override]
        """A vLLM server constrains decoding (``structured_outputs``); a plain OpenAI one cannot."""
        return self.vllm_extensions

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "timeout_s": self.timeout,
            "max_retries": self.max_retries,
        }

    def _served_models(self) -> list[str]:
        limit = min(self.timeout, 10.0)

        async def get() -> httpx.Response:
            async with httpx.AsyncClient(timeout=limit, headers=self.headers) as client:
                return await asyncio.wait_for(client.get(f"{self.base_url}/models"), limit)

        try:
            r = _run_coro(get())
        except (httpx.TimeoutException, TimeoutError):
            raise BackendError(
                f"cannot reach the LLM server at {self.base_url} (no answer to /models within {limit:g}s)"
            ) from None
        except httpx.HTTPError as e:
            raise BackendError(
                f"cannot reach the LLM server at {self.base_url} ({_why(e)}); {START_HINT}"
            ) from None
        if r.status_code in (401, 403):
            raise ConfigError(f"the LLM server at {self.base_url} refused the API key (HTTP {r.status_code})")
        if r.status_code != 200:
            raise BackendError(f"the LLM server at {self.base_url} answered HTTP {r.status_code} to /models")
        try:
            return [m["id"] for m in r.json()["data"]]
        except (ValueError, KeyError, TypeError):
            raise BackendError(f"{self.base_url}/models did not return an OpenAI model list") from None

    # -- the two primitives -------------------------------------------------------------------
    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        def body(req: GenRequest) -> dict[str, Any]:
            p = req.params
            b: dict[str, Any] = {
                "model": self.model,
                "messages": chat_messages(req.prompt, req.system),
                "max_tokens": p.max_tokens,
                "temperature": p.temperature,
                "top_p": p.top_p,
            }
            if p.temperature > 0 and p.seed is not None:
                b["seed"] = sample_seed(p, req.sample)
            if p.stop:
                b["stop"] = list(p.stop)
            if req.regex is not None:  # vLLM's structured outputs (checked by guided_regex first)
                b["structured_outputs"] = {"regex": req.regex}
            return b

        def parse(req: GenRequest, data: dict[str, Any] | None, status: str, error: str | None) -> GenResult:
            if data is None:
                return GenResult(id=req.id, status=status, error=error)  # type: ignore[arg-type]
            try:
                choice = data["choices"][0]
                text = choice["message"]["content"] or ""
                if not isinstance(text, str):
                    raise TypeError(text)
                usage = data.get("usage") or {}
                return as_failure(  # an empty reply is a failed call
                    GenResult(
                        id=req.id,
                        status="ok",
                        text=text,
                        finish_reason=choice.get("finish_reason"),
                        tokens_in=int(usage.get("prompt_tokens", 0)),
                        tokens_out=int(usage.get("completion_tokens", 0)),
                    )
                )
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                return GenResult(id=req.id, status="error", error=f"malformed response: {str(data)[:200]}")

        return self._run_all(reqs, body, parse, on_result)

    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        def body(req: ChoiceRequest) -> dict[str, Any]:
            b: dict[str, Any] = {
                "model": self.model,
                "max_tokens": 1,
                "temperature": 0.0,
                "logprobs": True,
                "top_logprobs": k,
                "messages": chat_messages(req.prompt, req.system, req.answer_prefix),
            }
            if req.answer_prefix:
                if not self.vllm_extensions:
                    raise ConfigError("answer_prefix needs a vLLM server (continue_final_message)")
                b.update(continue_final_message=True, add_generation_prompt=False)
            return b

        def parse(
            req: ChoiceRequest, data: dict[str, Any] | None, status: str, error: str | None
        ) -> TopTokens:
            if data is None:
                return TopTokens(status=status, error=error)  # type: ignore[arg-type]
            try:
                first = data["choices"][0]["logprobs"]["content"][0]
                top = tuple((t["token"], float(t["logprob"])) for t in first["top_logprobs"])
                n_in = int((data.get("usage") or {}).get("prompt_tokens", 0))
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                return TopTokens(status="error", error=f"no logprobs in response: {str(data)[:200]}")
            if not top:  # asked for k of them: an empty list is a broken reply, not "no option"
                return TopTokens(status="error", error=f"empty top_logprobs in response (asked for {k})")
            return TopTokens(status="ok", top=top, tokens_in=n_in)

        return self._run_all(reqs, body, parse, on_item)

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        """Each text's log-probability from the server's prompt log-probs (vLLM's ``prompt_logprobs``
        on the completions endpoint; the one token it must generate is counted and ignored)."""
        if not self.vllm_extensions:
            raise ConfigError(
                "sentence scores need a vLLM server (prompt_logprobs); a plain OpenAI API has none"
            )

        def body(req: ScoreRequest) -> dict[str, Any]:
            return {
                "model": self.model,
                "prompt": req.prefix + req.text,
                "max_tokens": 1,
                "temperature": 0.0,
                "prompt_logprobs": 0,
            }

        def parse(
            req: ScoreRequest, data: dict[str, Any] | None, status: str, error: str | None
        ) -> ScoreResult:
            if data is None:
                return ScoreResult(id=req.id, status=status, error=error)  # type: ignore[arg-type]
            try:
                entries = data["choices"][0]["prompt_logprobs"]
                tokens = [next(iter(e.values())) for e in entries[1:]]  # the first token has none
                pieces = [str(t["decoded_token"]) for t in tokens]
                lps = [float(t["logprob"]) for t in tokens]
                usage = data.get("usage") or {}
            except (KeyError, IndexError, TypeError, ValueError, AttributeError, StopIteration):
                return ScoreResult(
                    id=req.id, status="error", error=f"no prompt_logprobs in response: {str(data)[:200]}"
                )
            logprob = text_logprob(req.prefix, req.prefix + req.text, pieces, lps)
            if logprob is None:
                return ScoreResult(
                    id=req.id, status="error", error="prompt log-probs do not spell the prompt"
                )
            return as_failure(
                ScoreResult(
                    id=req.id,
                    status="ok",
                    logprob=logprob,
                    tokens_in=int(usage.get("prompt_tokens", 0)),
                    tokens_out=int(usage.get("completion_tokens", 0)),
                )
            )

        return self._run_all(reqs, body, parse, on_result, path="completions")

    # -- transport ----------------------------------------------------------------------------
    def _run_all(
        self,
        reqs: Sequence[Any],
        body: Callable[[Any], dict[str, Any]],
        parse: Callable[..., Any],
        on_result: OnResult[Any] | None,
        path: str = "chat/completions",
    ) -> list[Any]:
        out: list[Any] = [None] * len(reqs)

        def deliver(i: int, res: Any) -> None:
            if self._api_key and res.error and self._api_key in res.error:  # a server echoing the key
                res = replace(res, error=res.error.replace(self._api_key, "***"))
            out[i] = res
            if on_result:
                on_result(i, res)

        _run_coro(self._pool(reqs, body, parse, deliver, path))
        return out

    async def _pool(
        self,
        reqs: Sequence[Any],
        body: Callable[[Any], dict[str, Any]],
        parse: Callable[..., Any],
        deliver: Callable[[int, Any], None],
        path: str,
    ) -> None:
        queue = iter(range(len(reqs)))
        stop: list[str | Exception] = []  # the server went away, or on_result raised: send no more
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        async with httpx.AsyncClient(timeout=self.timeout, limits=limits, headers=self.headers) as client:

            async def worker() -> None:
                for i in queue:
                    if stop:
                        return
                    try:
                        data, status, error = await self._post(client, body(reqs[i]), path)
                    except ServerDown as e:
                        stop.append(str(e))
                        return
                    try:
                        deliver(i, parse(reqs[i], data, status, error))
                    except Exception as e:  # the caller stops the run; calls in flight still deliver
                        stop.append(e)
                        return

            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(reqs)))))
        if stop and isinstance(stop[0], Exception):
            raise stop[0]
        if stop:
            raise BackendError(
                f"the LLM server at {self.base_url} stopped answering ({stop[0]}) after "
                f"{self.max_retries} retries; results so far are saved — {self.restart_hint}"
            )

    async def _post(
        self, client: httpx.AsyncClient, payload: dict[str, Any], path: str = "chat/completions"
    ) -> tuple[Any, str, str | None]:
        """POST with retries. Returns (json, "ok", None) or (None, "error"|"too_long", message)."""
        url = f"{self.base_url}/{path}"
        last = ""
        timeouts = 0
        for attempt in range(self.max_retries + 1):
            if attempt:
                await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
            try:  # the deadline bounds the whole call; httpx's timeout only each read or write
                r = await asyncio.wait_for(client.post(url, json=payload), self.timeout)
            except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
                last = _why(e)
                if attempt == self.max_retries:
                    raise ServerDown(last) from None
                continue
            except (httpx.TimeoutException, TimeoutError):
                timeouts += 1
                last = f"timed out after {self.timeout:g}s"
                if timeouts > 1 or attempt == self.max_retries:  # a stuck server: once more at most
                    return None, "error", f"{last} (tried {'once' if timeouts == 1 else 'twice'})"
                continue
            if r.status_code == 200:
                try:
                    data = r.json()
                except ValueError:
                    return None, "error", "response is not JSON"
                if not isinstance(data, dict):  # e.g. the body `null`
                    return None, "error", f"response is not a JSON object: {r.text[:100]}"
                return data, "ok", None
            msg = _error_message(r)
            if r.status_code == 400 and any(s in msg.lower() for s in _TOO_LONG):
                return None, "too_long", msg[:300]
            if r.status_code == 404 and "model" in msg.lower():
                raise ConfigError(f"unknown model {payload.get('model')!r} at {self.base_url}: {msg[:200]}")
            last = f"HTTP {r.status_code}: {msg[:300]}"
            if r.status_code != 429 and r.status_code < 500:
                return None, "error", last  # a client error does not get better by retrying
        return None, "error", f"{last} (after {self.max_retries} retries)"


def text_logprob(prefix: str, prompt: str, pieces: Sequence[str], logprobs: Sequence[float]) -> float | None:
    """The summed log-probs of the text's tokens (``first_text_token``), given every prompt token but the
    first (its text and log-prob); None when the pieces do not spell the end of ``prompt``."""
    ends = [len(prompt) - len("".join(pieces))]  # where the first (unscored) token ends
    if ends[0] < 0 or prompt[ends[0] :] != "".join(pieces):
        return None
    for piece in pieces:
        ends.append(ends[-1] + len(piece))
    return sum((logprobs[j - 1] for j in range(first_text_token(ends, prefix), len(ends))), 0.0)


def _error_message(r: httpx.Response) -> str:
    try:
        data = r.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        return str(err.get("message", err) if isinstance(err, dict) else err)
    except ValueError:
        return r.text[:300]


def _why(e: BaseException) -> str:
    if isinstance(e, httpx.ConnectError):
        return "connection refused" if "refused" in str(e).lower() or not str(e) else f"cannot connect: {e}"
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _run_coro(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end; from inside an event loop (e.g. a notebook) in a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: list[Any] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            box.append(asyncio.run(coro))
        except BaseException as e:
            err.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if err:
        raise err[0]
    return box[0]
