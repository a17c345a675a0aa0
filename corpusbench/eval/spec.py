"""What an eval run is asked to do (:class:`EvalSpec`) and where it writes by default.

A family's own options of a run (``EvalKind.run_options``: a dataclass of ``corpusbench.params.param``
fields) travel in ``EvalSpec.options`` by field name; :func:`family_options` gives a family its own, typed.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from corpusbench.errors import ConfigError
from corpusbench.family import families, load

T = TypeVar("T")

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
    limit: int | None = None  # pairs per config (a family may read it otherwise: its ``help.limit``)
    limit_mode: str = "stratified"  # stratified: seeded sample over group x bin strata | first: first rows
    seed: int = 0  # --limit sample
    #: the families' options (``EvalKind.run_options`` fields) by name; one not given has its default
    options: Mapping[str, Any] = field(default_factory=dict)
    trust_remote_code: bool = False
    share_prefixes: bool = True  # causal: shared token prefixes run once (prefix-tree rows)
    verify: bool = True  # a local release: check its data files against provenance.json before scoring

    def __post_init__(self) -> None:
        """An option no registered family declares is refused; each family checks its own values."""
        if not self.options:
            return
        types = run_option_types()
        known = [f.name for cls in types for f in dataclasses.fields(cls)]
        for name in self.options:
            if name not in known:
                near = difflib.get_close_matches(name, known, n=1)
                hint = f"; did you mean {near[0]}?" if near else f"; known: {', '.join(known) or 'none'}"
                raise ConfigError(f"unknown eval option {name!r}{hint}")
        for cls in types:
            family_options(self, cls)


def run_option_types() -> list[type]:
    """The registered families' ``eval run`` option dataclasses (``EvalKind.run_options``), by rank."""
    return [load(f.eval.run_options) for f in families.with_eval() if f.eval and f.eval.run_options]


def family_options(spec: EvalSpec, cls: type[T]) -> T:
    """A family's run options (``cls``: its ``EvalKind.run_options``) as ``spec`` gives them, the
    declared defaults for the rest; ``cls`` checks the values when it is made."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in spec.options.items() if k in names})


def option_values(spec: EvalSpec) -> dict[str, Any]:
    """Every registered family's run option: its value in ``spec``, else its default."""
    out: dict[str, Any] = {}
    for cls in run_option_types():
        out |= asdict(family_options(spec, cls))
    return out


def default_out(model: str) -> Path:
    """``eval-results/<model name>`` (the last path part; ``ngram:DIR`` -> ``ngram-DIR``)."""
    name = model.rstrip("/").replace(NGRAM_SCHEME, "ngram-").split("/")[-1].split("@")[0] or "model"
    return Path("eval-results") / name


def spec_dict(spec: EvalSpec) -> dict[str, Any]:
    """The run's options as recorded in ``results.json`` (paths as strings, ``out`` left out; the
    families' options beside the others, each one of theirs with its value)."""
    given = {k: v for k, v in asdict(spec).items() if k not in ("out", "options")} | option_values(spec)
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in given.items()}
