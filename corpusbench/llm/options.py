"""The command-line options of the LLM that writes or judges, declared once.

Every command that talks to such an LLM (``llm generate/choose/ping/serve``, ``ltswap build/judge/
judge-check``, ``fitclams build --llm-check``) takes these typer ``Annotated`` types, as
huggingface_hub's ``_cli_utils.py`` shares its options, so each option has one spelling, one help text and
one type everywhere: the ``--llm-`` prefix says "the LLM that writes or judges"; ``--model`` (``eval run``,
``eval clusters``, ``audit``) is the model under test only. A command gives the default in its
signature (``model: LLMModel = None``); :func:`llm_spec` turns the options into an ``LLMSpec``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from corpusbench.llm.api import BACKEND_HELP, LLMSpec, canonical_backend

LLMBackend = Annotated[str, typer.Option("--llm-backend", help="The LLM's backend: " + BACKEND_HELP)]
LLMModel = Annotated[
    str | None,
    typer.Option(
        "--llm-model",
        help="The LLM that writes or judges: a model folder or hub id (vllm-engine, transformers; the "
        "folder ltswap's vllm-server serves), or a served model name (vllm-server/openai/ray at "
        "--llm-base-url). Default: ltswap: Qwen2.5-Coder-1.5B-Instruct from `make judge-model` (on a GPU "
        "the paper's meta-llama/Llama-3.1-8B-Instruct); llm serve and in process: SmolLM2-135M-Instruct; "
        "at a server: its first model.",
        show_default=False,
    ),
]
LLMBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        envvar="CORPUSBENCH_LLM_URL",
        help="The LLM's OpenAI-compatible server (vllm-server, openai; ray: comma-separated endpoints). "
        "ltswap without it starts a vllm-server for the run.",
    ),
]
LLMApiKey = Annotated[
    str | None,
    typer.Option(
        "--llm-api-key",
        help="Bearer token for the LLM's OpenAI-compatible server (vllm-server, openai, ray); default: "
        "$OPENAI_API_KEY. Never printed or recorded.",
        show_default=False,
    ),
]
LLMCache = Annotated[
    Path | None,
    typer.Option(
        "--llm-cache",
        help="SQLite cache of the LLM's answers: a rerun sends only the calls it has no answer for "
        "(ltswap build: default OUT/llm-cache.sqlite).",
    ),
]
LLMTimeout = Annotated[
    float,
    typer.Option(
        "--llm-timeout",
        help="Seconds one call to the LLM server may take (vllm-server/openai/ray); a call that times out is "
        "sent once more at most.",
    ),
]
LLMRetries = Annotated[
    int, typer.Option("--llm-retries", help="Retries of a call that fails (connection error, HTTP 429/5xx).")
]
MaxLLMFailures = Annotated[
    str,
    typer.Option(
        "--max-llm-failures",
        help="Failed LLM calls the run may absorb: a count (3) or a share of its calls (2%). Default 0: a "
        "failure stops the run with exit 3; the answers so far are kept for the rerun.",
    ),
]
TrustRemoteCode = Annotated[
    bool,
    typer.Option(
        "--trust-remote-code",
        help="transformers: run the Python code of a model folder whose config.json names its own classes "
        "(auto_map), with your permissions. Off: such a folder is refused, nothing runs, nothing is asked.",
    ),
]


def llm_spec(
    backend: str, model: str | None, base_url: str, api_key: str | None, cache: Path | None, **engine: Any
) -> LLMSpec:
    """The :class:`LLMSpec` of a command's LLM options (``engine``: concurrency, max_model_len, ...)."""
    return LLMSpec(
        backend=canonical_backend(backend),
        model=model,
        base_url=base_url,
        api_key=api_key,
        cache=cache,
        **engine,
    )
