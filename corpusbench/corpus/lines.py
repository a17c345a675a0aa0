"""Lines of a text file: decompression, binary and long-line checks, decoding with line numbers.

The lowest layer of the corpus readers: :mod:`corpusbench.corpus.readers`, the CHAT reader and the
doc-unit detector all read lines through here.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from corpusbench.errors import InputError

COMPRESSED = {".gz", ".zst"}
BINARY_PROBE = 8192
MAX_LINE_BYTES = 1_000_000  # longest accepted line (``--max-line-bytes``); CHAT utterances too


def file_format(path: Path) -> tuple[str, str]:
    """(format suffix, compression suffix): ``a.jsonl.gz`` -> ('.jsonl', '.gz')."""
    sfx = [s.lower() for s in path.suffixes]
    comp = sfx[-1] if sfx and sfx[-1] in COMPRESSED else ""
    rest = sfx[:-1] if comp else sfx
    return (rest[-1] if rest else ""), comp


def open_binary(path: Path) -> BinaryIO:
    """A binary reader of ``path``, decompressing ``.gz``/``.zst``."""
    _, comp = file_format(path)
    if comp == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if comp == ".zst":
        import zstandard

        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True))
    return open(path, "rb")


def iter_lines(
    path: Path, *, encoding: str = "utf-8", max_line_bytes: int = MAX_LINE_BYTES, display: str | None = None
) -> Iterator[tuple[int, str]]:
    """(1-based line number, decoded line without newline); binary and bad input raise ``InputError``."""
    where = display or str(path)
    try:
        fh = open_binary(path)
    except OSError as e:
        raise InputError(f"{where}: cannot open ({e.strerror or e})") from None
    with fh:
        try:
            head = fh.peek(BINARY_PROBE)[:BINARY_PROBE] if hasattr(fh, "peek") else b""
        except (OSError, EOFError) as e:
            raise InputError(f"{where}: cannot read ({e})") from None
        if b"\x00" in head:
            raise InputError(f"{where}: looks like a binary file (NUL bytes), not text")
        lineno = 0
        while True:
            try:
                raw = fh.readline(max_line_bytes + 1)
            except (OSError, EOFError) as e:
                raise InputError(f"{where}: cannot read ({e})") from None
            if not raw:
                break
            lineno += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                raise InputError(
                    f"{where}:{lineno}: line longer than {max_line_bytes:,} bytes; "
                    "is this a text corpus? (split it into lines or raise --max-line-bytes)"
                )
            if b"\x00" in raw:
                raise InputError(f"{where}:{lineno}: NUL byte in text; looks like a binary file")
            try:
                text = raw.decode(encoding)
            except UnicodeDecodeError as e:
                raise InputError(
                    f"{where}:{lineno}: bytes not valid {encoding} at column {e.start + 1} "
                    f"(use --encoding to name the right one)"
                ) from None
            yield lineno, text.rstrip("\r\n")
