"""Corpus readers: one interface that streams ``Document`` records from any supported source.

Sources: a text file or a directory of them (recursively; ``.gz``/``.zst`` compressed too), ``.jsonl``
with a configurable text field, parquet, a local HF dataset (``save_to_disk`` folder), a Hub dataset
id (streamed through ``datasets.load_dataset``), and CHAT ``.cha`` transcripts (one document per
utterance, via :mod:`corpusbench.corpus.chat`). Files are visited in sorted order, so the stream —
and everything computed from it — is deterministic.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpusbench.corpus.docunit import DocUnitChoice, detect_doc_unit
from corpusbench.corpus.lines import MAX_LINE_BYTES, file_format, iter_lines
from corpusbench.corpus.records import CorpusFingerprint, Document
from corpusbench.errors import ConfigError, InputError

log = logging.getLogger(__name__)

DOC_UNITS = ("auto", "line", "paragraph")
READERS = ("auto", "text", "jsonl", "parquet", "hf-disk", "hub", "chat")
TEXT_SUFFIXES = {".txt", ".text", ".tok", ".train", ".dev", ".test"}


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusSpec:
    """Where a corpus is and how to read it."""

    path: str
    reader: str = "auto"
    text_field: str = "text"
    split: str = "train"
    config: str | None = None
    revision: str | None = None
    encoding: str = "utf-8"
    doc_unit: str = (
        "auto"  # "line" | "paragraph" | "auto" (``corpus.docunit``: paragraph for hard-wrapped text)
    )
    max_line_bytes: int = MAX_LINE_BYTES
    paragraph_max_chars: int = 65_536
    limit: int | None = None  # stop after this many documents (quick looks)
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.reader not in READERS:
            raise ConfigError(f"unknown reader {self.reader!r}; choose one of {', '.join(READERS)}")
        if self.doc_unit not in DOC_UNITS:
            raise ConfigError(
                f"unknown document unit {self.doc_unit!r}; choose one of {', '.join(DOC_UNITS)}"
            )

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "reader": self.reader,
            "text_field": self.text_field,
            "split": self.split,
            "config": self.config,
            "revision": self.revision,
            "encoding": self.encoding,
            "doc_unit": self.doc_unit,
            "limit": self.limit,
        }


def file_kind(path: Path) -> str | None:
    """Reader for one file, from its name; None for files a directory walk skips."""
    fmt, _ = file_format(path)
    if fmt == ".jsonl" or fmt == ".json":
        return "jsonl"
    if fmt == ".parquet":
        return "parquet"
    if fmt == ".cha":
        return "chat"
    if fmt in TEXT_SUFFIXES or fmt == "":
        return "text"
    return None


def resolve_reader(spec: CorpusSpec) -> str:
    """The reader ``auto`` stands for, or a clear error for a missing path."""
    if spec.reader != "auto":
        return spec.reader
    p = Path(spec.path)
    if p.is_dir():
        if (
            (p / "dataset_info.json").exists()
            or (p / "dataset_dict.json").exists()
            or (p / "state.json").exists()
        ):
            return "hf-disk"
        return "files"
    if p.is_file():
        return file_kind(p) or "text"
    if (
        not p.exists()
        and "/" in spec.path
        and not spec.path.startswith((".", "/", "~"))
        and spec.path.count("/") == 1
    ):
        return "hub"
    raise InputError(f"{spec.path}: no such file or directory")


def iter_files(root: Path) -> list[Path]:
    """Corpus files under ``root`` in sorted order (hidden files and unknown extensions skipped)."""
    if root.is_file():
        return [root]
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if name.startswith(".") or file_kind(p) is None:
                continue
            if not p.is_file():  # a dangling link or a symlink loop
                raise InputError(f"{p}: cannot read ({_why_unreadable(p)})")
            files.append(p)
    return sorted(files, key=lambda f: f.relative_to(root).as_posix())


def _why_unreadable(path: Path) -> str:
    try:
        path.stat()
    except OSError as e:
        return e.strerror or str(e)
    return "not a regular file"


def _text_documents(path: Path, rel: str, spec: CorpusSpec) -> Iterator[Document]:
    lines = iter_lines(path, encoding=spec.encoding, max_line_bytes=spec.max_line_bytes, display=str(path))
    if spec.doc_unit == "line":
        for lineno, line in lines:
            if line.strip():
                yield Document(id=f"{rel}:{lineno}", text=line.strip(), source=rel)
        return
    buf: list[str] = []
    start = 0
    size = 0
    for lineno, line in lines:
        if not line.strip() or size > spec.paragraph_max_chars:
            if buf:
                yield Document(id=f"{rel}:{start}", text=" ".join(buf), source=rel)
            buf, size = [], 0
            if not line.strip():
                continue
        if not buf:
            start = lineno
        buf.append(line.strip())
        size += len(line)
    if buf:
        yield Document(id=f"{rel}:{start}", text=" ".join(buf), source=rel)


def jsonl_row_text(line: str, where: str, text_field: str) -> str | None:
    """The stripped text of one JSON-lines row (None when null or blank); a bad row raises ``InputError``."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not valid JSON ({e.msg})") from None
    if not isinstance(row, dict) or text_field not in row:
        raise InputError(f"{where}: no field {text_field!r} (use --text-field to name it)")
    text = row[text_field]
    if text is None:
        return None
    if not isinstance(text, str):
        raise InputError(f"{where}: field {text_field!r} is {type(text).__name__}, not text")
    return text.strip() or None


def _jsonl_documents(path: Path, rel: str, spec: CorpusSpec) -> Iterator[Document]:
    for lineno, line in iter_lines(
        path, encoding=spec.encoding, max_line_bytes=spec.max_line_bytes, display=str(path)
    ):
        if not line.strip():
            continue
        text = jsonl_row_text(line, f"{path}:{lineno}", spec.text_field)
        if text:
            yield Document(id=f"{rel}:{lineno}", text=text, source=rel)


def _parquet_documents(path: Path, rel: str, spec: CorpusSpec) -> Iterator[Document]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as e:  # pyarrow raises several types for corrupt files
        raise InputError(f"{path}: not a readable parquet file ({e})") from None
    if spec.text_field not in pf.schema_arrow.names:
        raise InputError(
            f"{path}: no column {spec.text_field!r} (columns: {', '.join(pf.schema_arrow.names)})"
        )
    row = 0
    for batch in pf.iter_batches(columns=[spec.text_field], batch_size=4096):
        for text in batch.column(0).to_pylist():
            if isinstance(text, str) and text.strip():
                yield Document(id=f"{rel}:{row}", text=text.strip(), source=rel)
            row += 1


def _chat_documents(path: Path, rel: str, spec: CorpusSpec) -> Iterator[Document]:
    from corpusbench.corpus.chat import read_chat_file  # pylangacq is imported only for CHAT input

    for utt in read_chat_file(path, name=rel, max_line_bytes=spec.max_line_bytes):
        if utt.text.strip():
            yield Document(id=utt.id, text=utt.text, source=rel)


def _dataset_documents(ds: object, source: str, spec: CorpusSpec) -> Iterator[Document]:
    for i, row in enumerate(ds):  # type: ignore[attr-defined]
        if spec.text_field not in row:
            raise InputError(
                f"{source}: no column {spec.text_field!r} (use --text-field; columns: {', '.join(row)})"
            )
        text = row[spec.text_field]
        if isinstance(text, str) and text.strip():
            yield Document(id=f"{source}:{i}", text=text.strip(), source=source)


def load_saved_dataset(spec: CorpusSpec) -> Any:
    """The ``datasets.Dataset`` saved at ``spec.path`` (``spec.split`` of a saved DatasetDict)."""
    import datasets

    try:
        ds = datasets.load_from_disk(spec.path)
    except Exception as e:
        raise InputError(f"{spec.path}: not a readable saved HF dataset ({e})") from None
    if isinstance(ds, datasets.DatasetDict):
        if spec.split not in ds:
            raise InputError(f"{spec.path}: no split {spec.split!r} (splits: {', '.join(ds)})")
        ds = ds[spec.split]
    return ds


def _hf_disk_documents(spec: CorpusSpec) -> Iterator[Document]:
    yield from _dataset_documents(load_saved_dataset(spec), Path(spec.path).name, spec)


def _hub_documents(spec: CorpusSpec) -> Iterator[Document]:
    import datasets

    try:
        ds = datasets.load_dataset(
            spec.path, spec.config, split=spec.split, streaming=True, revision=spec.revision
        )
    except Exception as e:
        raise InputError(f"{spec.path}: cannot load Hub dataset ({type(e).__name__}: {e})") from None
    yield from _dataset_documents(ds, spec.path, spec)


_FILE_READERS: dict[str, Callable[[Path, str, CorpusSpec], Iterator[Document]]] = {
    "text": _text_documents,
    "jsonl": _jsonl_documents,
    "parquet": _parquet_documents,
    "chat": _chat_documents,
}


def choose_doc_unit(spec: CorpusSpec) -> DocUnitChoice:
    """The document unit of the corpus's text files: the user's, or detected for ``auto``."""
    if spec.doc_unit != "auto":
        return DocUnitChoice(unit=spec.doc_unit, chosen_by="user", reason="--doc-unit")
    try:
        stamp = os.stat(spec.path).st_mtime_ns
    except OSError:
        stamp = 0
    return _detect_doc_unit(spec.path, spec.reader, spec.encoding, spec.max_line_bytes, stamp)


@functools.lru_cache(maxsize=16)
def _detect_doc_unit(
    path: str, reader: str, encoding: str, max_line_bytes: int, _stamp: int
) -> DocUnitChoice:
    kind = resolve_reader(CorpusSpec(path=path, reader=reader))
    if kind not in ("text", "files"):
        return DocUnitChoice(unit="line", chosen_by="auto", reason=f"{kind} input (no text files)")
    files = [f for f in iter_files(Path(path)) if kind == "text" or file_kind(f) == "text"]
    return detect_doc_unit(files, encoding, max_line_bytes)


def with_doc_unit(spec: CorpusSpec) -> CorpusSpec:
    """``spec`` with ``auto`` replaced by the detected unit (every shard then reads the same way)."""
    return spec if spec.doc_unit != "auto" else replace(spec, doc_unit=choose_doc_unit(spec).unit)


def read_corpus(spec: CorpusSpec) -> Iterator[Document]:
    """Stream the documents of a corpus in a deterministic order."""
    kind = resolve_reader(spec)
    spec = with_doc_unit(spec)
    if kind == "hf-disk":
        stream = _hf_disk_documents(spec)
    elif kind == "hub":
        stream = _hub_documents(spec)
    else:
        root = Path(spec.path)
        if not root.exists():
            raise InputError(f"{spec.path}: no such file or directory")
        files = iter_files(root)
        if not files:
            raise InputError(
                f"{spec.path}: no corpus files found (looked for .txt, .jsonl, .parquet, .cha, .gz, .zst)"
            )
        stream = _files_documents(root, files, kind, spec)
    for n, doc in enumerate(stream):
        if spec.limit is not None and n >= spec.limit:
            return
        yield doc


def _files_documents(root: Path, files: list[Path], kind: str, spec: CorpusSpec) -> Iterator[Document]:
    for f in files:
        rel = f.name if root.is_file() else f.relative_to(root).as_posix()
        file_reader = kind if kind != "files" else (file_kind(f) or "text")
        yield from _FILE_READERS[file_reader](f, rel, spec)


class Fingerprinter:
    """Running content hash of a document stream: ids and texts, in order."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.n_bytes = 0
        self.n_documents = 0

    def update(self, doc: Document) -> None:
        data = f"{doc.id}\t{doc.text}\n".encode()
        self._h.update(data)
        self.n_bytes += len(doc.text.encode())
        self.n_documents += 1

    def result(self) -> CorpusFingerprint:
        return CorpusFingerprint(
            sha256=self._h.hexdigest(), n_bytes=self.n_bytes, n_documents=self.n_documents
        )


def corpus_fingerprint(spec: CorpusSpec) -> CorpusFingerprint:
    """Fingerprint of a corpus (streams it once)."""
    fp = Fingerprinter()
    for doc in read_corpus(spec):
        fp.update(doc)
    return fp.result()
