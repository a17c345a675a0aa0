"""Cutting a corpus into shards that any executor can count independently.

A ``Shard`` is a unit of work with a stable id: either *pieces* that the worker reads itself (whole
small files grouped up to ``shard_bytes``, large uncompressed line-per-document text or JSON-lines
files cut into byte ranges, row ranges of a saved HF dataset), or *inline* texts read by the driver
(Hub streams, ``--limit``: sources that cannot be cut without reading them). A byte range holds the
lines that *start* inside it, so the ranges of a file partition its lines exactly and every
document is read once, whatever the cut points.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from corpusbench.corpus.readers import (
    CorpusSpec,
    Fingerprinter,
    file_format,
    file_kind,
    iter_files,
    jsonl_row_text,
    load_saved_dataset,
    read_corpus,
    resolve_reader,
    with_doc_unit,
)
from corpusbench.errors import InputError

RANGE_READERS = ("text", "jsonl")  # line-per-document formats a byte range can be cut from


@dataclass(frozen=True, slots=True, kw_only=True)
class Piece:
    """A file, or the lines starting in bytes ``[start, end)`` of it (``end=None``: the whole file),
    or rows ``[start, end)`` of a saved HF dataset (``reader="hf-disk"``)."""

    path: str
    reader: str  # text | jsonl | parquet | chat | hf-disk
    start: int = 0
    end: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Shard:
    id: int
    nbytes: int
    pieces: tuple[Piece, ...] = ()
    texts: tuple[str, ...] | None = None  # inline documents (read by the driver)

    def describe(self) -> str:
        if self.texts is not None:
            return f"shard {self.id} ({len(self.texts)} inline documents)"
        first = self.pieces[0]
        more = f" and {len(self.pieces) - 1} more" if len(self.pieces) > 1 else ""
        rng = f" bytes {first.start}-{first.end}" if first.end is not None else ""
        return f"shard {self.id} ({first.path}{rng}{more})"


def splittable(spec: CorpusSpec) -> bool:
    """Whether the workers can read their shards themselves (local files, no document limit)."""
    return spec.limit is None and resolve_reader(spec) != "hub"


def _dataset_pieces(spec: CorpusSpec, shard_bytes: int) -> Iterator[tuple[Piece, int]]:
    """Row ranges of about ``shard_bytes`` (estimated from the dataset's size on disk)."""
    ds = load_saved_dataset(spec)
    n = len(ds)
    size = max(1, sum(f.stat().st_size for f in Path(spec.path).rglob("*.arrow")))
    rows = max(1, int(n * shard_bytes / size))
    for start in range(0, n, rows):
        end = min(start + rows, n)
        yield Piece(path=spec.path, reader="hf-disk", start=start, end=end), size * (end - start) // n


def _file_pieces(spec: CorpusSpec, shard_bytes: int) -> Iterator[tuple[Piece, int]]:
    kind = resolve_reader(spec)
    if kind == "hf-disk":
        yield from _dataset_pieces(spec, shard_bytes)
        return
    for f in iter_files(Path(spec.path)):
        reader = kind if kind != "files" else (file_kind(f) or "text")
        size = f.stat().st_size
        cuttable = reader in RANGE_READERS and not file_format(f)[1] and spec.doc_unit == "line"
        if not cuttable or size <= shard_bytes:
            yield Piece(path=str(f), reader=reader), size
            continue
        for start in range(0, size, shard_bytes):
            end = min(start + shard_bytes, size)
            yield Piece(path=str(f), reader=reader, start=start, end=end), end - start


def plan_shards(spec: CorpusSpec, shard_bytes: int, fp: Fingerprinter | None = None) -> Iterator[Shard]:
    """Shards in a fixed order with ids 0, 1, 2, ... Inline shards update ``fp`` as they are read;
    file shards do not (fingerprint the stream separately, see ``corpus_fingerprint``)."""
    spec = with_doc_unit(spec)
    if not splittable(spec):
        yield from _inline_shards(spec, shard_bytes, fp)
        return
    if resolve_reader(spec) != "hf-disk" and not any(True for _ in iter_files(Path(spec.path))):
        list(read_corpus(spec))  # raises the reader's clear "no corpus files" error
    group: list[Piece] = []
    size = 0
    n = 0
    for piece, nbytes in _file_pieces(spec, shard_bytes):
        if group and size + nbytes > shard_bytes:
            yield Shard(id=n, nbytes=size, pieces=tuple(group))
            n, group, size = n + 1, [], 0
        group.append(piece)
        size += nbytes
    if group:
        yield Shard(id=n, nbytes=size, pieces=tuple(group))


def _inline_shards(spec: CorpusSpec, shard_bytes: int, fp: Fingerprinter | None) -> Iterator[Shard]:
    buf: list[str] = []
    size = 0
    n = 0
    for doc in read_corpus(spec):
        if fp is not None:
            fp.update(doc)
        buf.append(doc.text)
        size += len(doc.text)
        if size >= shard_bytes:
            yield Shard(id=n, nbytes=size, texts=tuple(buf))
            n, buf, size = n + 1, [], 0
    if buf:
        yield Shard(id=n, nbytes=size, texts=tuple(buf))


def shard_texts(spec: CorpusSpec, shard: Shard) -> Iterator[str]:
    """The document texts of a shard, exactly as ``read_corpus`` yields them, in order."""
    spec = with_doc_unit(spec)  # one unit for the whole corpus, not one per file
    if shard.texts is not None:
        yield from shard.texts
        return
    for piece in shard.pieces:
        if piece.reader == "hf-disk":
            yield from _row_texts(spec, piece)
        elif piece.end is None:
            sub = replace(spec, path=piece.path, reader=piece.reader, limit=None)
            yield from (doc.text for doc in read_corpus(sub))
        else:
            yield from _range_texts(spec, piece)


def _row_texts(spec: CorpusSpec, piece: Piece) -> Iterator[str]:
    """Texts of rows ``[start, end)``; same rules as the hf-disk reader."""
    ds = load_saved_dataset(spec)
    if spec.text_field not in ds.column_names:
        cols = ", ".join(ds.column_names)
        raise InputError(f"{spec.path}: no column {spec.text_field!r} (use --text-field; columns: {cols})")
    for text in ds.select(range(piece.start, piece.end or len(ds)))[spec.text_field]:
        if isinstance(text, str) and text.strip():
            yield text.strip()


def _range_texts(spec: CorpusSpec, piece: Piece) -> Iterator[str]:
    """Documents of the lines starting in ``[start, end)``; same rules as the text/jsonl readers."""
    assert piece.end is not None
    with open(piece.path, "rb") as fh:
        pos = piece.start
        if pos > 0:
            fh.seek(pos - 1)
            pos = pos - 1 + len(fh.readline())  # skip the line that began before the range
        while pos < piece.end:
            raw = fh.readline()
            if not raw:
                return
            where = f"{piece.path} (line at byte {pos})"
            pos += len(raw)
            if len(raw) > spec.max_line_bytes + 1:
                raise InputError(f"{where}: line longer than {spec.max_line_bytes:,} bytes")
            try:
                line = raw.decode(spec.encoding).rstrip("\r\n")
            except UnicodeDecodeError as e:
                bad = f"bytes not valid {spec.encoding} at column {e.start + 1}"
                raise InputError(f"{where}: {bad}") from None
            if not line.strip():
                continue
            if piece.reader == "text":
                yield line.strip()
                continue
            text = jsonl_row_text(line, where, spec.text_field)
            if text:
                yield text
