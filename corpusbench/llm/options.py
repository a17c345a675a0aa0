"""The command-line options of the LLM that writes or judges, declared once.

Every command that talks to such an LLM (``llm generate/choose/ping/serve``, a family's commands that
write or judge items) takes these typer ``Annotated`` types, as huggingface_hub's ``_cli_utils.py`` shares
its options, so each option has one spelling, one help text and one type everywhere: the ``--llm-`` prefix
says "the LLM that writes or judges"; ``--model`` (``eval run``, ``eval clusters``, ``audit``) is the model
under test only. A command gives the default in its signature (``model: LLMModel = None``); one whose LLM
defaults differently says so with :func:`llm_model` and :func:`with_help`. :func:`llm_spec` turns the
options into an ``LLMSpec``.
"""

from __future__ import annotations

import copy
import typing
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusbench.llm.api import BACKEND_HELP, LLMSpec, canonical_backend

LLMBackend = Annotated[str, typer.Option("--llm-backend", help="The LLM's backend: " + BACKEND_HELP)]


def llm_model(default: str) -> Any:
    """The ``--llm-model`` option type of a command whose LLM, without the option, is ``default``."""
    return Annotated[
        str | None,
        typer.Option(
            "--llm-model",
            help="The LLM that writes or judges: a model folder or hub id (vllm-engine, transformers; the "
            "folder a vllm-server started for the run serves), or a served model name "
            f"(vllm-server/openai/ray at --llm-base-url). Default: {default}",
            show_default=False,
        ),
    ]


def with_help(option: Any, more: str) -> Any:
    """``option`` (an option type of this module) with ``more`` after its help: what one command does."""
    kind, info = typing.get_args(option)
    info = copy.copy(info)
    info.help = f"{info.help} {more}"
    return Annotated[kind, info]


LLMModel = llm_model("llm serve and in process: SmolLM2-135M-Instruct; at a server: its first model.")
LLMBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        envvar="CORPUSBENCH_LLM_URL",
        help="The LLM's OpenAI-compatible server (vllm-server, openai; ray: comma-separated endpoints).",
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
        help="SQLite cache of the LLM's answers: a rerun sends only the calls it has no answer for.",
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
LLMConcurrency = Annotated[
    int,
    typer.Option(
        "--llm-concurrency",
        help="Requests in flight to the LLM server (vllm-server/openai). A seeded float32 run on the vLLM "
        "CPU server writes the same answers at any concurrency; more keeps its batches fuller.",
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
