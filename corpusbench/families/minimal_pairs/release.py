"""``minimal-pairs``: package existing BLiMP-style minimal pairs (jsonl / csv / tsv) as release configs.

Sources: one file, or a folder of files (one config per file). Rows are split into configs by
``group_column`` when the source has it. ``format: alternating`` reads one sentence per line, grammatical
and ungrammatical alternating (one pair per two lines). Pairs with an empty side, identical sides or
a repeated (good, bad) are dropped and counted; ``max_pairs`` keeps a seeded sample per config.
"""

from __future__ import annotations

import csv
import hashlib
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.io import read_jsonl
from corpusbench.provenance import file_sha256
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, parse_params

if TYPE_CHECKING:
    import pyarrow as pa

FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv", ".txt": "alternating"}
BLIMP_CITATION = """@article{warstadt2020blimp,
  title = {{BLiMP}: The Benchmark of Linguistic Minimal Pairs for {English}},
  author = {Warstadt, Alex and Parrish, Alicia and Liu, Haokun and Mohananey, Anhad and Peng, Wei and
            Wang, Sheng-Fu and Bowman, Samuel R.},
  journal = {Transactions of the Association for Computational Linguistics},
  volume = {8},
  pages = {377--392},
  year = {2020}
}"""


@dataclass(frozen=True, slots=True, kw_only=True)
class MinimalPairsParams:
    path: str
    format: str = "auto"  # auto | jsonl | csv | tsv | alternating
    good_column: str = "sentence_good"
    bad_column: str = "sentence_bad"
    group_column: str | None = "UID"
    config_prefix: str = ""
    max_pairs: int | None = None
    description: str = "Minimal pairs ({group}): the grammatical sentence should score higher."


def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]:
    where = f"families.{ctx.generator.id}.params"
    params = parse_params(MinimalPairsParams, ctx.generator.params, where)
    if params.format not in ("auto", *FORMATS.values()):
        raise ConfigError(
            f"{where}.format: {params.format!r} is not one of auto, jsonl, csv, tsv, alternating"
        )
    if params.max_pairs is not None and params.max_pairs < 1:
        raise ConfigError(f"{where}.max_pairs: must be >= 1")
    root = ctx.resolve_path(params.path)
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix in FORMATS and not p.name.startswith("."))
        if not files:
            raise InputError(f"{root}: no .jsonl/.csv/.tsv/.txt files ({where}.path)")
    elif root.is_file():
        files = [root]
    else:
        raise ConfigError(f"{where}.path: {params.path!r} does not exist")

    groups: dict[str, list[dict[str, Any]]] = {}
    sources: dict[str, list[dict[str, str]]] = {}
    labels: dict[str, set[str]] = {}  # config name -> the group labels (or file stems) it comes from
    for f in files:
        rows = _read(f, params.format if params.format != "auto" else FORMATS[f.suffix], params)
        source = {"file": f.name, "sha256": file_sha256(f)}
        for row in rows:
            group = row.get(params.group_column) if params.group_column else None
            label = str(group if group not in (None, "") else f.stem)
            name = _slug(params.config_prefix + label)
            labels.setdefault(name, set()).add(label)
            groups.setdefault(name, []).append(row)
            if source not in sources.setdefault(name, []):
                sources[name].append(source)
    _refuse_merged_groups(labels, where)
    ctx.log(
        f"minimal-pairs: {sum(map(len, groups.values()))} rows, {len(groups)} group(s), {len(files)} file(s)"
    )
    return [_config(name, rows, sources[name], params, ctx.seed) for name, rows in sorted(groups.items())]


def _refuse_merged_groups(labels: dict[str, set[str]], where: str) -> None:
    """Different group labels that would become one config name (``a/b``, ``a b``, ``A_B``) are refused
    rather than silently merged: their pairs may test different things."""
    merged = {name: sorted(found) for name, found in sorted(labels.items()) if len(found) > 1}
    if merged:
        name, found = next(iter(merged.items()))
        raise ConfigError(
            f"{where}: groups {', '.join(map(repr, found))} would all become config {name!r} (config names "
            "are lowercase letters, digits, '_' and '-'); give them distinct names in the data"
            + (f" ({len(merged) - 1} more such config(s))" if len(merged) > 1 else "")
        )


def _config(
    name: str,
    rows: list[dict[str, Any]],
    sources: list[dict[str, str]],
    params: MinimalPairsParams,
    seed: int,
) -> ReleaseConfig:
    funnel: Counter[str] = Counter(read=len(rows))
    seen: set[tuple[str, str]] = set()
    kept: list[dict[str, Any]] = []
    for row in rows:
        good, bad = (
            str(row.get(params.good_column) or "").strip(),
            str(row.get(params.bad_column) or "").strip(),
        )
        if not good or not bad:
            funnel["dropped:empty"] += 1
        elif good == bad:
            funnel["dropped:identical"] += 1
        elif (good, bad) in seen:
            funnel["dropped:duplicate"] += 1
        else:
            seen.add((good, bad))
            kept.append({**row, params.good_column: good, params.bad_column: bad})
    if params.max_pairs is not None and len(kept) > params.max_pairs:
        order = sorted(
            range(len(kept)), key=lambda i: (kept[i][params.good_column], kept[i][params.bad_column])
        )
        chosen = set(random.Random(f"{seed}:{name}").sample(order, params.max_pairs))
        funnel["dropped:sampled_out"] = len(kept) - params.max_pairs
        kept = [r for i, r in enumerate(kept) if i in chosen]
    funnel["kept"] = len(kept)
    if not kept:
        raise InputError(f"minimal-pairs config {name!r}: no usable pairs ({dict(funnel)})")
    return ReleaseConfig(
        name=name,
        table=_table(name, kept, params),
        description=params.description.format(group=name, config=name),
        task="minimal_pairs",
        funnel={
            k: funnel[k]
            for k in (
                "read",
                "dropped:empty",
                "dropped:identical",
                "dropped:duplicate",
                "dropped:sampled_out",
                "kept",
            )
            if k in funnel
        },
        parameters={"sources": sources, "max_pairs": params.max_pairs, "format": params.format},
        citations=(BLIMP_CITATION,),
    )


def _table(name: str, rows: list[dict[str, Any]], params: MinimalPairsParams) -> pa.Table:
    """sentence_good, sentence_bad, UID, pair_id first, then the source's other columns as strings."""
    import pyarrow as pa

    extra = [
        c
        for c in rows[0]
        if c not in (params.good_column, params.bad_column, "UID", "pair_id") and all(c in r for r in rows)
    ]
    cols: dict[str, list[Any]] = {
        "sentence_good": [r[params.good_column] for r in rows],
        "sentence_bad": [r[params.bad_column] for r in rows],
        "UID": [str(r.get("UID") or name) for r in rows],
    }
    cols["pair_id"] = [
        f"{name}-{_pair_hash(g, b)}" for g, b in zip(cols["sentence_good"], cols["sentence_bad"], strict=True)
    ]
    for c in extra:
        cols[c] = [None if r[c] is None else str(r[c]) for r in rows]
    return pa.table({k: pa.array(v, type=pa.string()) for k, v in cols.items()})


def _pair_hash(good: str, bad: str) -> str:
    return hashlib.sha256(f"{good}\t{bad}".encode()).hexdigest()[:12]


def _read(path: Path, fmt: str, params: MinimalPairsParams) -> list[dict[str, Any]]:
    try:
        if fmt == "jsonl":
            rows = list(read_jsonl(path))
        elif fmt == "alternating":
            lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
            if len(lines) % 2:
                raise InputError(f"{path}: {len(lines)} lines; alternating good/bad lines need an even count")
            rows = [
                {params.good_column: lines[i], params.bad_column: lines[i + 1]}
                for i in range(0, len(lines), 2)
            ]
        else:
            with open(path, encoding="utf-8", newline="") as fh:
                rows = list(csv.DictReader(fh, delimiter="\t" if fmt == "tsv" else ","))
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise InputError(f"{path}:{i}: expected an object with {params.good_column}/{params.bad_column}")
    if rows and (params.good_column not in rows[0] or params.bad_column not in rows[0]):
        raise InputError(
            f"{path}: needs columns {params.good_column!r} and {params.bad_column!r} "
            f"(has: {', '.join(map(str, rows[0]))})"
        )
    return rows


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9_-]+", "_", text.lower()).strip("_-")
    return slug[:96] or "default"
