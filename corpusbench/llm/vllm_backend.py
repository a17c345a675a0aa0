"""Backend for vLLM's in-process engine (``vllm.LLM``): batched, prefix caching on.

vLLM lives in its own venv, so the engine runs in a worker process of that venv
(``vllm_worker.py``) and we talk to it over JSON lines. Requests go in chunks of ``chunk_size``
prompts; each chunk is one batched ``LLM.generate`` call whose results are delivered (and cached)
before the next chunk starts.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm.base import Backend, OnResult, TopTokens, chat_messages, sample_seed
from corpusbench.llm.hardware import default_dtype, vllm_block_size, vllm_cpu_env
from corpusbench.llm.records import (
    ChoiceRequest,
    GenRequest,
    GenResult,
    ScoreRequest,
    ScoreResult,
    as_failure,
)
from corpusbench.llm.server import check_model, served_name, vllm_python
from corpusbench.procs import GuardedProcess

WORKER = Path(__file__).with_name("vllm_worker.py")
_UNKNOWN_MODEL = (  # what a failed model lookup looks like in the worker's error
    "does not appear to have",
    "not a valid model",
    "RepositoryNotFound",
    "Repository Not Found",
    "LocalEntryNotFound",
    "is not a local folder",
    "HFValidationError",
    "outgoing traffic has been disabled",
)


class VLLMBackend(Backend):
    name: ClassVar[str] = "vllm"

    def __init__(
        self,
        model: str,
        *,
        python: str | Path | None = None,
        dtype: str | None = None,
        max_model_len: int | None = 2048,
        enforce_eager: bool = True,
        chunk_size: int = 256,
        startup_timeout: float = 900.0,
        engine_args: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ):
        check_model(model)
        self.model = served_name(model)
        self.path = model
        self.chunk_size = max(1, chunk_size)
        self.settings = {
            "dtype": dtype or default_dtype(),
            "max_model_len": max_model_len,
            "enforce_eager": enforce_eager,
            "engine": {"block_size": vllm_block_size(), **(engine_args or {})},
        }
        child_env = vllm_cpu_env()
        child_env.update(env or {})
        child_env["PYTHONSAFEPATH"] = "1"
        child_env.pop("PYTHONPATH", None)  # the main venv's paths must not leak into vLLM's
        fd, log_name = tempfile.mkstemp(prefix="corpusbench-vllm-", suffix=".log")
        self.log_path = Path(log_name)
        self._failed = False  # keep the worker log only when something went wrong
        self._busy = False  # a request is in the worker
        try:  # under a guard: the worker's tree (the engine core) dies with this process
            self.worker = GuardedProcess(
                [str(vllm_python(python)), str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=fd,
                env=child_env,
                text=True,
            )
        finally:
            os.close(fd)
        self.proc = self.worker.proc
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            reply = self._call({"op": "init", "model": model, **self.settings}, timeout=startup_timeout)
        except BackendError:
            self._failed = True
            self.close()
            raise
        if not reply.get("ok"):
            err = reply.get("error", "")
            unknown = any(s in err for s in _UNKNOWN_MODEL)
            self._failed = not unknown
            self.close()
            if unknown:
                raise ConfigError(f"unknown model {model!r}: vLLM could not load it ({err[:240]})")
            raise BackendError(f"vLLM engine failed to start: {err[:300]}; log {self.log_path}")
        self.max_len = reply["max_model_len"]
        self.vllm_version = reply.get("vllm")

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "path": self.path,
            "vllm": self.vllm_version,
            "max_model_len": self.max_len,
            **{k: v for k, v in self.settings.items() if k != "engine"},
        }

    def _fail(self, message: str) -> BackendError:
        self._failed = True
        return BackendError(message)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _call(self, msg: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if self.proc.poll() is not None:
            raise self._fail(f"the vLLM worker has exited (code {self.proc.returncode}); log {self.log_path}")
        try:
            assert self.proc.stdin is not None
            self._busy = True  # until the answer: a call interrupted here (SIGTERM) leaves it set
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
            line = self._lines.get(timeout=timeout)
            self._busy = False
        except (BrokenPipeError, OSError):
            line = None
        except queue.Empty:
            raise self._fail(
                f"the vLLM worker did not answer {msg['op']!r} within {timeout:.0f}s; log {self.log_path}"
            ) from None
        if line is None:
            self.proc.wait()
            raise self._fail(
                f"the vLLM worker died (exit code {self.proc.returncode}) during {msg['op']!r}; "
                f"log {self.log_path}:\n{_tail(self.log_path)}"
            )
        return json.loads(line)

    def _chunks(self, op: str, items: list[dict[str, Any]], extra: dict[str, Any], deliver: Any) -> None:
        for start in range(0, len(items), self.chunk_size):
            reply = self._call({"op": op, "items": items[start : start + self.chunk_size], **extra})
            if not reply.get("ok"):
                raise self._fail(f"vLLM engine error during {op}: {reply.get('error', '')[:300]}")
            for j, res in enumerate(reply["results"]):
                deliver(start + j, res)

    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        out: list[GenResult | None] = [None] * len(reqs)
        items = [
            {
                "messages": chat_messages(r.prompt, r.system),
                "max_tokens": r.params.max_tokens,
                "temperature": r.params.temperature,
                "top_p": r.params.top_p,
                "seed": sample_seed(r.params, r.sample) if r.params.temperature > 0 else None,
                "stop": list(r.params.stop),
            }
            for r in reqs
        ]

        def deliver(i: int, res: dict[str, Any]) -> None:
            out[i] = GenResult(id=reqs[i].id, **res)
            if on_result:
                on_result(i, out[i])

        self._chunks("generate", items, {}, deliver)
        return out  # type: ignore[return-value]

    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        out: list[TopTokens | None] = [None] * len(reqs)
        items = [{"messages": chat_messages(r.prompt, r.system, r.answer_prefix)} for r in reqs]

        def deliver(i: int, res: dict[str, Any]) -> None:
            res = dict(res)
            res["top"] = tuple((t, float(lp)) for t, lp in res.get("top", ()))
            out[i] = TopTokens(**res)
            if on_item:
                on_item(i, out[i])

        self._chunks("top", items, {"k": k}, deliver)
        return out  # type: ignore[return-value]

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        """Each text's log-probability after its prefix (the engine's prompt log-probs on the raw text)."""
        out: list[ScoreResult | None] = [None] * len(reqs)

        def deliver(i: int, res: dict[str, Any]) -> None:
            out[i] = as_failure(ScoreResult(id=reqs[i].id, **res))
            if on_result:
                on_result(i, out[i])

        self._chunks("score", [{"prefix": r.prefix, "text": r.text} for r in reqs], {}, deliver)
        return out  # type: ignore[return-value]

    def close(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is None:
            return
        if proc.poll() is None and not self._busy:  # a busy worker is stopped, not waited for
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps({"op": "shutdown"}) + "\n")
                proc.stdin.flush()
                proc.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.worker.stop()  # SIGTERM, then SIGKILL to what is left of its tree: leave nothing behind
        if not self._failed:
            self.log_path.unlink(missing_ok=True)
        self.proc = None  # type: ignore[assignment]


def _tail(path: Path, n: int = 12) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""
