"""Release tables: normalisation, deterministic parquet and content fingerprints.

The content fingerprint of a config is a sha256 over its column names, normalised column types and
rows (as canonical JSON, in order). It is computed the same way from the local parquet file and from
what ``datasets.load_dataset`` returns, so a round trip through the Hub can be checked exactly.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpusbench.errors import ConfigError
from corpusbench.io import atomic_path
from corpusbench.provenance import stable_json

ROW_GROUP_SIZE = 100_000
SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
)


def to_arrow(table: Any, where: str) -> pa.Table:
    """A pyarrow Table from a Table or DataFrame: no index, no schema metadata, plain string/list types."""
    if not isinstance(table, pa.Table):
        try:
            import pandas as pd

            if isinstance(table, pd.DataFrame):
                table = pa.Table.from_pandas(table, preserve_index=False)
        except (ImportError, pa.ArrowException) as e:
            raise ConfigError(f"{where}: cannot convert the table to Arrow ({e})") from None
    if not isinstance(table, pa.Table):
        raise ConfigError(
            f"{where}: table must be a pyarrow.Table or pandas.DataFrame, got {type(table).__name__}"
        )
    fields = [pa.field(f.name, _plain_type(f.type), nullable=True) for f in table.schema]
    return table.cast(pa.schema(fields)).replace_schema_metadata(None).combine_chunks()


def _plain_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_dictionary(t):
        return _plain_type(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return pa.list_(_plain_type(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _plain_type(f.type)) for f in t])
    return t


def type_name(t: pa.DataType) -> str:
    """A normalised type name that survives parquet and ``datasets`` (no large_*, no list field names)."""
    t = _plain_type(t)
    if pa.types.is_list(t):
        return f"list<{type_name(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{type_name(f.type)}" for f in t) + ">"
    return str(t)


def content_fingerprint(table: pa.Table) -> str:
    """sha256 over column names, normalised types and rows (canonical JSON), in row order."""
    h = hashlib.sha256()
    h.update(stable_json([[f.name, type_name(f.type)] for f in table.schema]).encode())
    for batch in table.to_batches(max_chunksize=10_000):
        for row in batch.to_pylist():
            h.update(b"\n")
            h.update(stable_json({k: _canon(v) for k, v in row.items()}).encode())
    return h.hexdigest()


def _canon(v: Any) -> Any:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return repr(v)
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, list):
        return [_canon(x) for x in v]
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    return v


def check_columns(table: pa.Table, required: tuple[str, ...], where: str) -> None:
    """Required columns exist, are strings and have no nulls or empty values."""
    for col in required:
        if col not in table.column_names:
            raise ConfigError(f"{where}: missing column {col!r} (has: {', '.join(table.column_names)})")
        if not pa.types.is_string(table.schema.field(col).type):
            raise ConfigError(
                f"{where}: column {col!r} must hold strings, not {table.schema.field(col).type}"
            )
        column = table.column(col)
        if column.null_count:
            raise ConfigError(f"{where}: column {col!r} has {column.null_count} null value(s)")
        if len(column) and pc.any(pc.equal(pc.utf8_trim_whitespace(column), "")).as_py():
            raise ConfigError(f"{where}: column {col!r} has empty strings")


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write parquet byte-for-byte reproducibly (fixed codec and row groups, no timestamps), atomically."""
    with atomic_path(path) as tmp:
        pq.write_table(
            table,
            tmp,
            compression="zstd",
            compression_level=3,
            row_group_size=ROW_GROUP_SIZE,
            use_dictionary=True,
            write_statistics=True,
            data_page_version="1.0",
        )


def read_parquet(path: Path) -> pa.Table:
    return pq.read_table(path)


def size_category(n_rows: int) -> str:
    for limit, label in SIZE_CATEGORIES:
        if n_rows < limit:
            return label
    return "n>100M"
