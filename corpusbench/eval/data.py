"""Read minimal-pair datasets: files, folders of configs, saved HF datasets, Hub datasets.

Accepted (BLiMP style): columns ``sentence_good`` and ``sentence_bad``; optional ``id`` /
``pair_id``, a grouping column (``group``, ``subtask``, ``paradigm``, ``UID`` or the one named),
``bin``, and critical-region character spans ``span_good``/``span_bad`` (``[start, end]``),
``span_{good,bad}_{start,end}`` or ``{good,bad}_{start,end}`` (FIT-CLAMS rows);
``prefix_good``/``prefix_bad``: context put before the sentence and not scored (LT-Swap's prefix
variant, §4.4). The ``configs`` dimension: a folder holds one config per sub-folder (a release:
parquet shards per config) or per data file (a BLiMP jsonl folder); a Hub dataset has its named
configs. Everything is validated before any model is loaded.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from corpusbench.errors import BackendError, InputError
from corpusbench.eval.records import MinimalPair, Span
from corpusbench.provenance import file_sha256, fingerprint

DATA_EXT = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
REQUIRED = ("sentence_good", "sentence_bad")
GROUP_COLUMNS = ("group", "subtask", "paradigm", "UID")
ID_COLUMNS = ("id", "pair_id", "item_id")
FREQ_PREFIX = "freq_"  # corpus counts used as ΔP regression predictors (FIT-CLAMS §6)


def _num(val: Any, where: str, col: str) -> float:
    try:
        return float(val)
    except (TypeError, ValueError):
        raise InputError(f"{where}: {col} must be a number, got {val!r}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class PairSet:
    """Pairs of all selected configs plus what identifies the data."""

    pairs: tuple[MinimalPair, ...]
    configs: tuple[str, ...]
    source: str
    revision: str | None
    fingerprint: str
    group_column: str | None

    def provenance(self) -> dict[str, Any]:
        return {
            "dataset": self.source,
            "dataset_revision": self.revision,
            "dataset_fingerprint": self.fingerprint,
            "configs": list(self.configs),
            "n_pairs": len(self.pairs),
            "group_column": self.group_column,
        }


def _read_file(path: Path) -> pd.DataFrame:
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        if path.suffix in (".csv", ".tsv"):
            return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",", keep_default_na=False)
        if path.stat().st_size == 0:
            return pd.DataFrame()
        return pd.read_json(path, lines=path.suffix == ".jsonl", dtype=False)
    except (ValueError, OSError) as e:
        if isinstance(e, pd.errors.EmptyDataError):
            return pd.DataFrame()
        raise InputError(f"{path}: cannot read ({str(e).splitlines()[0]})") from None


def _data_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix in DATA_EXT and not p.name.startswith(".")
    )


def _local_tables(path: Path) -> dict[str, tuple[pd.DataFrame, list[Path]]]:
    """config name -> (table, files read)."""
    if path.is_file():
        if path.suffix not in DATA_EXT:
            raise InputError(f"{path}: unsupported file type (use {', '.join(DATA_EXT)})")
        return {"default": (_read_file(path), [path])}
    if (path / "dataset_dict.json").exists() or (path / "state.json").exists():
        return _saved_dataset(path)
    subdirs = sorted(
        d for d in path.iterdir() if d.is_dir() and not d.name.startswith(".") and _data_files(d)
    )
    files = _data_files(path)
    tables: dict[str, tuple[pd.DataFrame, list[Path]]] = {}
    for d in subdirs:  # release layout: <config>/<split>-*.parquet (prefer a test split)
        fs = _data_files(d)
        test = [f for f in fs if f.name.startswith("test")]
        fs = test or fs
        tables[d.name] = (pd.concat([_read_file(f) for f in fs], ignore_index=True), fs)
    for f in files:  # BLiMP/BabyLM layout: one file per paradigm
        tables.setdefault(f.stem, (_read_file(f), [f]))
    if not tables:
        raise InputError(f"{path}: no data files ({', '.join(DATA_EXT)}) found")
    return tables


def _saved_dataset(path: Path) -> dict[str, tuple[pd.DataFrame, list[Path]]]:
    import datasets

    ds = datasets.load_from_disk(str(path))
    if isinstance(ds, datasets.DatasetDict):
        split = "test" if "test" in ds else next(iter(ds))
        ds = ds[split]
    return {"default": (ds.to_pandas(), sorted(p for p in path.rglob("*.arrow")))}


def _hub_tables(
    name: str, revision: str | None, configs: Sequence[str] | None
) -> tuple[dict[str, pd.DataFrame], str | None]:
    import datasets

    try:
        names = list(configs) if configs else datasets.get_dataset_config_names(name, revision=revision)
        tables = {}
        for cfg in names:
            dd = datasets.load_dataset(name, cfg, revision=revision)
            split = "test" if "test" in dd else next(iter(dd))
            tables[cfg] = dd[split].to_pandas()
    except (FileNotFoundError, ConnectionError, ValueError) as e:
        raise InputError(f"{name}: cannot load dataset ({str(e).splitlines()[0]})") from None
    except Exception as e:  # hub client errors have no common base we can import cheaply
        raise BackendError(
            f"{name}: dataset hub error ({type(e).__name__}: {str(e).splitlines()[0]})"
        ) from None
    sha = revision
    try:
        from huggingface_hub import HfApi

        sha = HfApi().dataset_info(name, revision=revision).sha or revision
    except Exception:  # offline or no such endpoint: keep the requested revision
        pass
    return tables, sha


def _span(row: dict[str, Any], which: str, text: str, where: str) -> Span | None:
    val = row.get(f"span_{which}")
    if val is None and f"span_{which}_start" in row:
        val = (row[f"span_{which}_start"], row[f"span_{which}_end"])
    if val is None and f"{which}_start" in row:  # FIT-CLAMS pair rows: good_start/good_end, bad_start/bad_end
        val = (row[f"{which}_start"], row[f"{which}_end"])
    if val is None or (isinstance(val, float) and math.isnan(val)) or (isinstance(val, str) and not val):
        return None
    try:
        s, e = (int(x) for x in val)
    except (TypeError, ValueError):
        raise InputError(f"{where}: span_{which} must be [start, end], got {val!r}") from None
    if not 0 <= s < e <= len(text):
        raise InputError(f"{where}: span_{which} {[s, e]} is outside the sentence ({len(text)} characters)")
    return (s, e)


def _prefix(row: dict[str, Any], which: str, where: str) -> str | None:
    val = row.get(f"prefix_{which}")
    if val is None or (isinstance(val, float) and math.isnan(val)) or val == "":
        return None
    if not isinstance(val, str):
        raise InputError(f"{where}: prefix_{which} must be text, got {val!r}")
    return val


def table_pairs(df: pd.DataFrame, config: str, where: str, group_col: str | None) -> list[MinimalPair]:
    """Validate one config's table and turn its rows into pairs."""
    if df.empty:
        raise InputError(f"{where}: no rows (empty config {config!r})")
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            f"{where}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, df.columns))}"
        )
    if group_col and group_col not in df.columns:
        raise InputError(
            f"{where}: grouping column {group_col!r} not found; found {', '.join(map(str, df.columns))}"
        )
    id_col = next((c for c in ID_COLUMNS if c in df.columns), None)
    pairs = []
    for i, row in enumerate(df.to_dict("records")):
        at = f"{where}: row {i + 1}"
        good, bad = row["sentence_good"], row["sentence_bad"]
        for name, val in (("sentence_good", good), ("sentence_bad", bad)):
            if not isinstance(val, str) or not val.strip():
                raise InputError(f"{at}: {name} is empty or not text")
        b = row.get("bin")
        rid = row[id_col] if id_col else i
        if rid is None or (isinstance(rid, float) and math.isnan(rid)) or rid == "":
            raise InputError(f"{at}: {id_col} is empty")
        pairs.append(
            MinimalPair(
                id=f"{config}:{rid}",
                good=good,
                bad=bad,
                config=config,
                group=None if not group_col or row.get(group_col) is None else str(row[group_col]),
                bin=None if b is None or (isinstance(b, float) and math.isnan(b)) else int(b),
                good_prefix=_prefix(row, "good", at),
                bad_prefix=_prefix(row, "bad", at),
                good_span=_span(row, "good", good, at),
                bad_span=_span(row, "bad", bad, at),
                meta=tuple((k, _num(row[k], at, k)) for k in sorted(row) if k.startswith(FREQ_PREFIX)),
            )
        )
    return pairs


def load_pairs(
    dataset: str,
    *,
    configs: Sequence[str] | None = None,
    group_col: str | None = None,
    limit: int | None = None,
) -> PairSet:
    """Load and validate a minimal-pair dataset: a local path, or ``ORG/NAME[@revision]`` on the Hub."""
    path = Path(dataset).expanduser()
    revision: str | None = None
    if path.exists():
        local = _local_tables(path)
        tables = {k: v[0] for k, v in local.items()}
        files = sorted({f for _, fs in local.values() for f in fs})
        fp = fingerprint(
            [(str(f.relative_to(path)) if path.is_dir() else f.name, file_sha256(f)) for f in files]
        )
        source = str(path)
    elif dataset.startswith((".", "/", "~")) or dataset.partition("@")[0].count("/") != 1:
        raise InputError(f"{dataset}: no such file or folder (a Hub dataset is ORG/NAME[@revision])")
    else:
        name, _, rev = dataset.partition("@")
        tables, revision = _hub_tables(name, rev or None, configs)
        source = name
        fp = fingerprint(name, revision, sorted(tables))
    if configs:
        unknown = [c for c in configs if c not in tables]
        if unknown:
            raise InputError(
                f"{dataset}: unknown config(s) {', '.join(unknown)}; available: {', '.join(sorted(tables))}"
            )
        tables = {c: tables[c] for c in configs}
    if group_col is None:
        cols = set().union(*(set(t.columns) for t in tables.values()))
        group_col = next((c for c in GROUP_COLUMNS if c in cols), None)
    pairs: list[MinimalPair] = []
    for cfg in sorted(tables):
        df = tables[cfg]
        if group_col and group_col not in df.columns and not df.empty:
            df = df.assign(**{group_col: cfg})
        rows = table_pairs(df.head(limit) if limit else df, cfg, f"{dataset} [{cfg}]", group_col)
        pairs.extend(rows)
    dups = [i for i, n in Counter(p.id for p in pairs).items() if n > 1]
    if dups:
        raise InputError(f"{dataset}: duplicate pair id {dups[0]!r} (ids must be unique within a config)")
    return PairSet(
        pairs=tuple(pairs),
        configs=tuple(sorted(tables)),
        source=source,
        revision=revision,
        fingerprint=fp,
        group_column=group_col,
    )
