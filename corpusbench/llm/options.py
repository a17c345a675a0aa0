"""Command-line options every command that talks to an LLM shares (``llm``, ``ltswap``, ``fitclams``)."""

from __future__ import annotations

import typer

API_KEY = typer.Option(
    None,
    "--api-key",
    help="Bearer token for an OpenAI-compatible server (vllm-server, openai, ray); default: "
    "$OPENAI_API_KEY. Never printed or recorded.",
    show_default=False,
)
TRUST_REMOTE_CODE = typer.Option(
    False,
    "--trust-remote-code",
    help="transformers: run the Python code of a model folder whose config.json names its own classes "
    "(auto_map), with your permissions. Off: such a folder is refused, nothing runs, nothing is asked.",
)
