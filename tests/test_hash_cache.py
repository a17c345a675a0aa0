"""``provenance.file_sha256_cached``: a large file's digest is remembered by stat and recomputed when the
file changes (model folders are fingerprinted at every ``eval run``)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from corpusbench import provenance
from corpusbench.provenance import file_sha256_cached


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("CORPUSBENCH_HASH_CACHE", str(where))
    monkeypatch.setattr(provenance, "HASH_CACHE_MIN_BYTES", 1024)
    return where


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    reads: list[Path] = []
    real = provenance.file_sha256

    def counting(path: str | Path, chunk: int = 1 << 20) -> str:
        reads.append(Path(path))
        return real(path, chunk)

    monkeypatch.setattr(provenance, "file_sha256", counting)
    return reads


def test_a_large_file_is_hashed_once_then_read_from_the_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"w" * 4096)
    reads = _count_reads(monkeypatch)
    want = hashlib.sha256(b"w" * 4096).hexdigest()
    assert file_sha256_cached(f) == want and file_sha256_cached(f) == want
    assert len(reads) == 1 and len(list(cache.rglob("*"))) == 2  # one folder, one entry


def test_a_changed_file_of_the_same_size_is_hashed_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"a" * 4096)
    first = file_sha256_cached(f)
    st = f.stat()
    f.write_bytes(b"b" * 4096)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert file_sha256_cached(f) == hashlib.sha256(b"b" * 4096).hexdigest() != first


def test_small_files_and_a_disabled_cache_are_not_remembered(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small, big = tmp_path / "config.json", tmp_path / "weights.bin"
    small.write_text("{}")
    big.write_bytes(b"x" * 4096)
    file_sha256_cached(small)
    assert not cache.exists()
    monkeypatch.setenv("CORPUSBENCH_HASH_CACHE", "0")
    reads = _count_reads(monkeypatch)
    file_sha256_cached(big), file_sha256_cached(big)
    assert len(reads) == 2 and not cache.exists()


def test_an_unwritable_cache_still_gives_the_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("CORPUSBENCH_HASH_CACHE", str(blocker / "sha256"))
    monkeypatch.setattr(provenance, "HASH_CACHE_MIN_BYTES", 1)
    f = tmp_path / "w.bin"
    f.write_bytes(b"z" * 10)
    assert file_sha256_cached(f) == hashlib.sha256(b"z" * 10).hexdigest()


def test_a_garbled_entry_is_recomputed(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "w.bin"
    f.write_bytes(b"q" * 4096)
    want = file_sha256_cached(f)
    entry = next(p for p in cache.rglob("*") if p.is_file())
    entry.write_text("not a digest")
    assert file_sha256_cached(f) == want and entry.read_text().strip() == want


def test_the_cache_lives_in_the_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``$CORPUSBENCH_HASH_CACHE`` the digests go where corpusbench's other caches go (fasttag's)."""
    from corpusbench.corpus.fasttag import _cache_dir

    monkeypatch.delenv("CORPUSBENCH_HASH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CORPUSBENCH_CACHE", raising=False)
    assert provenance.hash_cache_dir() == tmp_path / "xdg" / "corpusbench" / "sha256"
    monkeypatch.setenv("CORPUSBENCH_CACHE", str(tmp_path / "cb"))
    assert provenance.hash_cache_dir() == tmp_path / "cb" / "sha256"
    assert _cache_dir() == tmp_path / "cb" / "fasttag"
