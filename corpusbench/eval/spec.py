"""What an eval run is asked to do (:class:`EvalSpec`) and where it writes by default."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ProgressFactory = Callable[[str, int], Callable[[int], None]]  # (description, total) -> advance
NGRAM_SCHEME = "ngram:"  # --model ngram:DIR scores with a baseline trained by `corpusbench baseline train`


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalSpec:
    dataset: str
    model: str
    out: Path
    arch: str = "auto"
    device: str = "cpu"
    dtype: str = "auto"  # bfloat16 on a GPU that has it, else float32
    batch_tokens: int | None = None  # None: auto (the CPU value, or sized to the GPU's free memory)
    configs: tuple[str, ...] = ()
    group_col: str | None = None
    bos: str = "prepend"
    pll: str = "within_word_l2r"
    scoring: str = "auto"  # auto: critical-region spans where the data has them; full: whole sentences
    limit: int | None = None  # pairs per config; CAC: sites per dyad x role (and a quick context window)
    limit_mode: str = "stratified"  # stratified: seeded sample over group x bin strata | first: first rows
    seed: int = 0  # --limit sample
    train_corpus: str | None = None  # FIT-CLAMS: corpus whose counts/bins are the model's training data
    context_utterances: int | None = None  # CAC: at most this many earlier utterances (default: all)
    context_step: int | None = None  # CAC, causal: cut this many tokens deeper, keep the cut (KV reuse)
    context_tokens: int | None = None  # CAC: token window (None: cap with --limit, else the model's)
    trust_remote_code: bool = False
    share_prefixes: bool = True  # causal: shared token prefixes run once (prefix-tree rows)
    verify: bool = True  # a local release: check its data files against provenance.json before scoring


def default_out(model: str) -> Path:
    """``eval-results/<model name>`` (the last path part; ``ngram:DIR`` -> ``ngram-DIR``)."""
    name = model.rstrip("/").replace(NGRAM_SCHEME, "ngram-").split("/")[-1].split("@")[0] or "model"
    return Path("eval-results") / name


def spec_dict(spec: EvalSpec) -> dict[str, Any]:
    """The run's options as recorded in ``results.json`` (paths as strings, ``out`` left out)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(spec).items() if k != "out"}
