"""``corpusbench llm ...``: start the vLLM server and make quick generate/choose runs."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import typer
from rich.table import Table

from corpusbench.console import make_console
from corpusbench.llm.api import DEFAULT_BACKEND, DEFAULT_BASE_URL, DEFAULT_CACHE
from corpusbench.llm.options import (
    LLMApiKey,
    LLMBackend,
    LLMBaseUrl,
    LLMCache,
    LLMModel,
    TrustRemoteCode,
    llm_spec,
)
from corpusbench.llm.server import DEFAULT_MODEL_DIR, DEFAULT_PORT

llm_app = typer.Typer(
    help="LLM backends: serve a model with vLLM, quick generate/choose runs, the cache.", no_args_is_help=True
)
console = make_console()
err = make_console(stderr=True)

NO_CACHE = typer.Option(False, "--no-llm-cache", help="Do not read or write the LLM cache.")
PROMPTS = typer.Option(
    None, "--prompts", "-p", help=".jsonl ({id, prompt[, options]}) or .txt (one per line)."
)
OUT = typer.Option(None, "--out", "-o", help="Write results as JSON lines.")
REPORT = typer.Option(None, "--report", help="Write the run report as JSON.")
CONCURRENCY = typer.Option(16, "--concurrency", help="openai: requests in flight.")
MAX_LEN = typer.Option(2048, "--max-model-len", help="vllm/transformers: context length.")
VLLM_PY = typer.Option(None, "--vllm-python", help="Python of an environment with vllm (default .venv-vllm).")


def register(app: typer.Typer) -> None:
    app.add_typer(llm_app, name="llm")


@llm_app.command()
def serve(
    model: LLMModel = None,
    port: int = typer.Option(DEFAULT_PORT, "--port"),
    host: str = typer.Option("127.0.0.1", "--host"),
    served_model_name: str = typer.Option(None, "--served-model-name"),
    max_model_len: int = MAX_LEN,
    dtype: str = typer.Option(
        None,
        "--dtype",
        help="Default: bfloat16 on a GPU, float32 on a CPU (batch-invariant seeded samples; bfloat16 is "
        "faster on AMX/AVX512-BF16 CPUs but repeats only the same batches, docs/llm.md).",
    ),
    eager: bool = typer.Option(True, "--eager/--compile", help="CPU: eager (fast start); GPU: --compile."),
    vllm_python: str = VLLM_PY,
    extra: list[str] = typer.Argument(None, help="More vLLM server flags, after --."),
) -> None:
    """Run vLLM's OpenAI-compatible server in the foreground (Ctrl-C stops it)."""
    from corpusbench.llm.hardware import default_dtype
    from corpusbench.llm.server import ServerSpec, serve_forever

    spec = ServerSpec(
        model=model or str(DEFAULT_MODEL_DIR),
        served_model_name=served_model_name,
        host=host,
        port=port,
        dtype=dtype or default_dtype(),
        max_model_len=max_model_len,
        enforce_eager=eager,
        python=vllm_python,
        extra_args=tuple(extra or ()),
    )
    err.print(f"serving [bold]{spec.name}[/] at {spec.base_url} (first start takes ~30-60 s on CPU)")
    raise typer.Exit(serve_forever(spec))


@llm_app.command()
def ping(base_url: LLMBaseUrl = DEFAULT_BASE_URL, model: LLMModel = None, api_key: LLMApiKey = None) -> None:
    """Check a server: list its models and time one short greedy generation."""
    import time

    from corpusbench.llm.openai_backend import OpenAIBackend
    from corpusbench.llm.records import GenRequest, SamplingParams

    backend = OpenAIBackend(base_url, model, api_key=api_key, max_retries=0, timeout=60)
    t0 = time.perf_counter()
    [res] = backend.generate(
        [GenRequest(id="ping", prompt="Say hello.", params=SamplingParams(max_tokens=8))]
    )
    dt = time.perf_counter() - t0
    console.print(f"{base_url}: model [bold]{backend.model}[/], {res.status} in {dt:.2f}s: {res.text!r}")


def _run(op: str, spec, reqs: list, out: Path | None, report: Path | None) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from corpusbench.io import write_json, write_jsonl
    from corpusbench.llm.api import open_llm

    if not reqs:
        raise typer.BadParameter("give a prompt or --prompts FILE")
    with (
        open_llm(spec) as llm,
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
        ) as bar,
    ):
        task = bar.add_task(f"{op} ({llm.model})", total=len(reqs))
        try:
            results = getattr(llm, op)(reqs, progress=lambda done, total: bar.update(task, completed=done))
        finally:
            bar.stop()
            _print_report(llm.last.as_dict())
            if report:
                write_json(report, {"report": llm.last.as_dict(), "llm": llm.describe()})
    if out:
        write_jsonl(out, (asdict(r) for r in results))
    else:
        table = Table("id", "status", "answer", "path" if op == "choose" else "tokens out")
        for r in results[:50]:
            if op == "choose":
                table.add_row(r.id, r.status, str(r.choice or r.error or ""), r.path)
            else:
                table.add_row(r.id, r.status, r.text if r.ok else str(r.error), str(r.tokens_out))
        console.print(table)
    failed = [r for r in results if r.status == "error"]
    if failed:
        from corpusbench.errors import BackendError

        where = f" (written with status 'error' to {out})" if out else ""
        raise BackendError(
            f"{len(failed)} of {len(results)} LLM calls failed{where}; first: {failed[0].error}. "
            "rerun to send them again (answers already cached are not sent twice)"
        )


def _print_report(rep: dict) -> None:
    table = Table(
        "calls",
        "cache hits",
        "ok",
        "rejects",
        "too long",
        "failures",
        "tokens in",
        "tokens out",
        "wall s",
        title="LLM run",
    )
    table.add_row(
        *(
            str(rep[k])
            for k in (
                "calls",
                "cache_hits",
                "ok",
                "rejects",
                "too_long",
                "failures",
                "tokens_in",
                "tokens_out",
            )
        ),
        f"{rep['wall_s']:.1f}",
    )
    err.print(table)


@llm_app.command()
def generate(
    prompt: list[str] = typer.Argument(None, help="Prompt text(s)."),
    prompts: Path = PROMPTS,
    backend: LLMBackend = DEFAULT_BACKEND,
    model: LLMModel = None,
    base_url: LLMBaseUrl = DEFAULT_BASE_URL,
    api_key: LLMApiKey = None,
    cache: LLMCache = DEFAULT_CACHE,
    no_cache: bool = NO_CACHE,
    out: Path = OUT,
    report: Path = REPORT,
    max_tokens: int = typer.Option(256, "--max-tokens"),
    temperature: float = typer.Option(0.0, "--temperature", "-t"),
    seed: int = typer.Option(0, "--seed"),
    samples: int = typer.Option(1, "--samples", "-n"),
    concurrency: int = CONCURRENCY,
    max_model_len: int = MAX_LEN,
    vllm_python: str = VLLM_PY,
    trust_remote_code: TrustRemoteCode = False,
) -> None:
    """Generate text for prompts (greedy by default), through the cache."""
    from dataclasses import replace

    from corpusbench.llm.api import read_requests
    from corpusbench.llm.records import GenRequest, SamplingParams

    params = SamplingParams(temperature=temperature, max_tokens=max_tokens, seed=seed)
    base = [GenRequest(id=f"arg:{i}", prompt=p, params=params) for i, p in enumerate(prompt or [], 1)]
    if prompts:
        base += read_requests(prompts, "generate", defaults={"params": params})
    reqs = [
        replace(r, id=f"{r.id}#{s}" if samples > 1 else r.id, sample=s) for r in base for s in range(samples)
    ]
    _run(
        "generate",
        llm_spec(
            backend,
            model,
            base_url,
            api_key,
            None if no_cache else cache,
            concurrency=concurrency,
            max_model_len=max_model_len,
            vllm_python=vllm_python,
            trust_remote_code=trust_remote_code,
        ),
        reqs,
        out,
        report,
    )


@llm_app.command()
def choose(
    prompt: list[str] = typer.Argument(None, help="Prompt text(s)."),
    prompts: Path = PROMPTS,
    options: str = typer.Option("A,B", "--options", help="Comma-separated allowed answers."),
    method: str = typer.Option("logprobs", "--method", help="logprobs (fallback: generation) or generation."),
    answer_prefix: str = typer.Option("", "--answer-prefix", help='Opens the answer, e.g. "[".'),
    backend: LLMBackend = DEFAULT_BACKEND,
    model: LLMModel = None,
    base_url: LLMBaseUrl = DEFAULT_BASE_URL,
    api_key: LLMApiKey = None,
    cache: LLMCache = DEFAULT_CACHE,
    no_cache: bool = NO_CACHE,
    out: Path = OUT,
    report: Path = REPORT,
    concurrency: int = CONCURRENCY,
    max_model_len: int = MAX_LEN,
    vllm_python: str = VLLM_PY,
    trust_remote_code: TrustRemoteCode = False,
) -> None:
    """Answer prompts with one of the allowed options, read from the answer token's log-probs."""
    from corpusbench.errors import ConfigError
    from corpusbench.llm.api import read_requests
    from corpusbench.llm.records import ChoiceRequest

    if method not in ("logprobs", "generation"):
        raise ConfigError(f"--method must be logprobs or generation, not {method!r}")
    opts = tuple(o.strip() for o in options.split(","))
    extra = {"method": method, "answer_prefix": answer_prefix}
    reqs = [
        ChoiceRequest(id=f"arg:{i}", prompt=p, options=opts, **extra)  # type: ignore[arg-type]
        for i, p in enumerate(prompt or [], 1)
    ]
    if prompts:
        reqs += read_requests(prompts, "choose", options=opts, defaults=extra)
    _run(
        "choose",
        llm_spec(
            backend,
            model,
            base_url,
            api_key,
            None if no_cache else cache,
            concurrency=concurrency,
            max_model_len=max_model_len,
            vllm_python=vllm_python,
            trust_remote_code=trust_remote_code,
        ),
        reqs,
        out,
        report,
    )


@llm_app.command("cache")
def cache_stats(cache: LLMCache = DEFAULT_CACHE) -> None:
    """Rows in the result cache, by status (errors and too-long prompts are retried on the next run)."""
    from corpusbench.errors import InputError
    from corpusbench.llm.cache import ResultCache

    if not cache.is_file():
        raise InputError(f"{cache}: no such cache file")
    rc = ResultCache(cache)
    table = Table("status", "rows", title=str(cache))
    for status, n in sorted(rc.counts().items()):
        table.add_row(status, str(n))
    console.print(table)
    rc.close()
