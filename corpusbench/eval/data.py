"""Read minimal-pair datasets: files, folders of configs, saved HF datasets, Hub datasets.

Accepted (BLiMP style): columns ``sentence_good`` and ``sentence_bad``; optional ``id`` /
``pair_id``, a grouping column (``group``, ``subtask``, ``paradigm``, ``UID`` or the one named),
``bin``, and critical-region character spans ``span_good``/``span_bad`` (``[start, end]``),
``span_{good,bad}_{start,end}`` or ``{good,bad}_{start,end}``;
``prefix_good``/``prefix_bad``: context put before the sentence and not scored (a prefix variant).
The ``configs`` dimension: a folder holds one config per sub-folder (a release: parquet shards per
config) or per data file (a BLiMP jsonl folder); a Hub dataset has its named configs. Everything is
validated before any model is loaded.

A family's own output folder is a dataset too (:func:`run_folder`, the family's ``output`` hook): it is
read through the family's release adapter into the configs ``release build`` would make, and scored with
the family's metrics (a family that scores its own task takes its folder by its ``folder`` hook). A file
inside such a folder is refused with one line naming the folder to pass instead.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from corpusbench.errors import BackendError, InputError
from corpusbench.eval.records import MinimalPair, Span
from corpusbench.eval.release import ConfigEntry, Release
from corpusbench.family import OutputFolder, families, load
from corpusbench.io import read_json
from corpusbench.provenance import file_sha256, fingerprint

DATA_EXT = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
REQUIRED = ("sentence_good", "sentence_bad")
GROUP_COLUMNS = ("group", "subtask", "paradigm", "UID")
ID_COLUMNS = ("id", "pair_id", "item_id")
FREQ_PREFIX = "freq_"  # corpus counts used as ΔP regression predictors


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


def run_kind(folder: Path) -> OutputFolder | None:
    """Which family's output ``folder`` is (its ``Family.output``, by its ``manifest.json``), or None."""
    m = folder / "manifest.json"
    try:
        doc = read_json(m) if m.is_file() else None
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    outputs = [f.output for f in families.all() if f.output is not None]
    return next((o for o in outputs if load(o.recognises)(doc)), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRelease(Release):
    """A generator's output folder read as a release: its configs' tables, made by the family's adapter."""

    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    files: tuple[Path, ...] = ()  # the run's files the tables were read from (the dataset fingerprint)

    @property
    def verification(self) -> str:
        return f"{self.source}: read from the generator's output folder (not a release; nothing to verify)"


def run_folder(dataset: str) -> RunRelease | None:
    """``dataset`` as a family's output folder of pair configs (``Family.output``; None: not one), its
    configs made by the family's release adapter as ``release build`` makes them. A file inside a family's
    output folder is an ``InputError`` that names the folder to pass instead."""
    path = Path(dataset).expanduser()
    if path.is_file():
        for folder in list(path.parents)[:3]:
            if kind := run_kind(folder):
                raise InputError(
                    f"{path}: a file of the {kind.label} {folder}; pass the folder itself: --dataset {folder}"
                )
        return None
    kind = run_kind(path) if path.is_dir() else None
    if kind is None or kind.configs is None:
        return None
    configs, files = load(kind.configs)(path)
    from corpusbench.publish.build import _roles as release_roles  # the task's roles under the config's

    tables = {c.name: c.table if isinstance(c.table, pd.DataFrame) else c.table.to_pandas() for c in configs}
    entries = [
        ConfigEntry(name=c.name, task=c.task, roles=release_roles(c, list(t.columns), c.name), rows=len(t))
        for c, t in zip(configs, tables.values(), strict=True)
    ]
    return RunRelease(
        source=str(path),
        revision=None,
        root=None,
        configs=tuple(entries),
        verify=False,
        tables=tables,
        files=tuple(files),
    )


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


def guess_roles(columns: Sequence[str], group_col: str | None) -> dict[str, str]:
    """Column roles of plain pairs data (not a release, which declares its roles): BLiMP-style names."""
    cols = set(columns)
    roles = {"good": "sentence_good", "bad": "sentence_bad"}
    id_col = next((c for c in ID_COLUMNS if c in cols), None)
    roles |= {"id": id_col} if id_col else {}
    roles |= {"group": group_col} if group_col else {}
    roles |= {"bin": "bin"} if "bin" in cols else {}
    for w in ("good", "bad"):
        if f"span_{w}" in cols:
            roles[f"span_{w}"] = f"span_{w}"
        for pre in (f"span_{w}_", f"{w}_"):  # span_good_start/_end or good_start/good_end
            if f"{pre}start" in cols and f"{w}_start" not in roles:
                roles[f"{w}_start"], roles[f"{w}_end"] = f"{pre}start", f"{pre}end"
        roles |= {f"prefix_{w}": f"prefix_{w}"} if f"prefix_{w}" in cols else {}
    return roles


def _missing(val: Any) -> bool:
    return val is None or (isinstance(val, float) and math.isnan(val)) or (isinstance(val, str) and not val)


def _span(row: dict[str, Any], roles: dict[str, str], which: str, text: str, where: str) -> Span | None:
    if f"span_{which}" in roles:
        val = row.get(roles[f"span_{which}"])
    elif f"{which}_start" in roles:
        val = (row[roles[f"{which}_start"]], row[roles[f"{which}_end"]])
        val = None if any(_missing(v) for v in val) else val
    else:
        return None
    if val is None or _missing(val):
        return None
    try:
        s, e = (int(x) for x in val)
    except (TypeError, ValueError):
        raise InputError(f"{where}: span_{which} must be [start, end], got {val!r}") from None
    if not 0 <= s < e <= len(text):
        raise InputError(f"{where}: span_{which} {[s, e]} is outside the sentence ({len(text)} characters)")
    return (s, e)


def _prefix(row: dict[str, Any], col: str | None, where: str) -> str | None:
    val = row.get(col) if col else None
    if _missing(val):
        return None
    if not isinstance(val, str):
        raise InputError(f"{where}: {col} must be text, got {val!r}")
    return val


#: Roles the pair record holds itself; every other role's value goes into ``MinimalPair.meta``.
BASE_ROLES = frozenset(
    {"good", "bad", "id", "group", "bin", "prefix", "prefix_good", "prefix_bad", "span_good", "span_bad"}
    | {f"{w}_{e}" for w in ("good", "bad") for e in ("start", "end")}
)


def table_pairs(
    df: pd.DataFrame,
    config: str,
    where: str,
    group_col: str | None,
    roles: dict[str, str] | None = None,
) -> list[MinimalPair]:
    """Validate one config's table and turn its rows into pairs.

    ``roles`` (role -> column, a release's declaration) says which column is what; without it the
    BLiMP-style names are used (:func:`guess_roles`) and ``freq_*`` columns go into ``meta``.
    """
    if df.empty:
        raise InputError(f"{where}: no rows (empty config {config!r})")
    if roles is None:
        if group_col and group_col not in df.columns:
            raise InputError(
                f"{where}: grouping column {group_col!r} not found; found {', '.join(map(str, df.columns))}"
            )
        roles = guess_roles(list(df.columns), group_col)
        extra = [(k, k) for k in sorted(df.columns) if str(k).startswith(FREQ_PREFIX)]
    else:
        if group_col:
            roles = {**roles, "group": group_col}
        extra = sorted((k, c) for k, c in roles.items() if k not in BASE_ROLES)
    missing = sorted({c for c in (roles["good"], roles["bad"], *roles.values()) if c not in df.columns})
    if missing:
        raise InputError(
            f"{where}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, df.columns))}"
        )
    good_col, bad_col, id_col = roles["good"], roles["bad"], roles.get("id")
    group, bin_col = roles.get("group"), roles.get("bin")
    pre_good = roles.get("prefix_good", roles.get("prefix"))
    pre_bad = roles.get("prefix_bad", roles.get("prefix"))
    pairs = []
    for i, row in enumerate(df.to_dict("records")):
        at = f"{where}: row {i + 1}"
        good, bad = row[good_col], row[bad_col]
        for name, val in ((good_col, good), (bad_col, bad)):
            if not isinstance(val, str) or not val.strip():
                raise InputError(f"{at}: {name} is empty or not text")
        b = row.get(bin_col) if bin_col else None
        rid = row[id_col] if id_col else i
        if _missing(rid):
            raise InputError(f"{at}: {id_col} is empty")
        pairs.append(
            MinimalPair(
                id=f"{config}:{rid}",
                good=good,
                bad=bad,
                config=config,
                group=None if not group or row.get(group) is None else str(row[group]),
                bin=None if _missing(b) else int(_num(b, at, str(bin_col))),
                good_prefix=_prefix(row, pre_good, at),
                bad_prefix=_prefix(row, pre_bad, at),
                good_span=_span(row, roles, "good", good, at),
                bad_span=_span(row, roles, "bad", bad, at),
                meta=tuple((k, _meta_value(row[c], at, c)) for k, c in extra),
            )
        )
    return pairs


def _meta_value(val: Any, where: str, col: str) -> object:
    if isinstance(val, str):
        return val
    return None if _missing(val) else _num(val, where, col)


def select_rows(
    df: pd.DataFrame, limit: int | None, strata: Sequence[str], *, seed: int = 0, mode: str = "stratified"
) -> pd.DataFrame:
    """At most ``limit`` rows: ``first`` = the first rows; ``stratified`` = a seeded sample that takes
    rows from every stratum (distinct values of ``strata`` columns) in turn, so small strata are kept."""
    if not limit or len(df) <= limit:
        return df
    if mode == "first":
        return df.head(limit)
    if mode != "stratified":
        raise InputError(f"unknown limit mode {mode!r}: use stratified or first")
    cols = [c for c in strata if c in df.columns]
    shuffled = df.sample(frac=1.0, random_state=seed)
    if cols:
        rank = shuffled.groupby(cols, dropna=False, sort=True).cumcount()
        order = pd.DataFrame({"rank": rank.to_numpy(), "pos": range(len(shuffled))})
        shuffled = shuffled.iloc[order.sort_values(["rank", "pos"], kind="stable")["pos"].to_numpy()]
    return shuffled.head(limit).sort_index(kind="stable")


def load_pairs(
    dataset: str,
    *,
    configs: Sequence[str] | None = None,
    group_col: str | None = None,
    limit: int | None = None,
    limit_mode: str = "stratified",
    seed: int = 0,
    release: Release | None = None,
) -> PairSet:
    """Load and validate a minimal-pair dataset: a local path, or ``ORG/NAME[@revision]`` on the Hub.

    With ``release`` (see :mod:`corpusbench.eval.release`), only its pair configs are read, from
    ``data/<config>/`` (local) or the Hub, and their columns through the declared roles.
    """
    path = Path(dataset).expanduser()
    revision: str | None = None
    roles: dict[str, dict[str, str]] = {}
    if release is not None:
        roles = {c.name: c.roles for c in release.configs}
        names = list(configs) if configs else [c.name for c in release.configs]
        unknown = [c for c in names if c not in roles]
        if unknown:
            raise InputError(
                f"{dataset}: unknown config(s) {', '.join(unknown)}; available: {', '.join(roles)}"
            )
        if isinstance(release, RunRelease):
            tables = {c: release.tables[c] for c in names}
            fp = fingerprint(
                [(f.relative_to(release.source).as_posix(), file_sha256(f)) for f in release.files]
            )
            source = release.source
        elif release.root is not None:
            local = {c: release.data_files(c) for c in names}
            tables = {c: pd.concat([_read_file(f) for f in fs], ignore_index=True) for c, fs in local.items()}
            files = sorted({f for fs in local.values() for f in fs})
            fp = fingerprint([(str(f.relative_to(release.root)), file_sha256(f)) for f in files])
            source, revision = str(release.root), release.revision
        else:
            tables, revision = _hub_tables(release.source, release.revision, names)
            source = release.source
            fp = fingerprint(release.source, revision, sorted(tables))
        configs = names
    elif path.exists():
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
    if group_col is None and not roles:
        cols = set().union(*(set(t.columns) for t in tables.values()))
        group_col = next((c for c in GROUP_COLUMNS if c in cols), None)
    pairs: list[MinimalPair] = []
    for cfg in sorted(tables):
        df = tables[cfg]
        cfg_roles = roles.get(cfg)
        if not cfg_roles and group_col and group_col not in df.columns and not df.empty:
            df = df.assign(**{group_col: cfg})
        r = cfg_roles or guess_roles(list(df.columns), group_col)
        strata = [r[k] for k in ("group", "bin") if k in r]
        df = select_rows(df, limit, strata, seed=seed, mode=limit_mode)
        pairs.extend(
            table_pairs(df, cfg, f"{dataset} [{cfg}]", group_col if not cfg_roles else None, cfg_roles)
        )
    dups = [i for i, n in Counter(p.id for p in pairs).items() if n > 1]
    if dups:
        raise InputError(f"{dataset}: duplicate pair id {dups[0]!r} (ids must be unique within a config)")
    return PairSet(
        pairs=tuple(pairs),
        configs=tuple(sorted(tables)),
        source=source,
        revision=revision,
        fingerprint=fp,
        group_column=group_col or ("(release roles)" if roles else None),
    )
