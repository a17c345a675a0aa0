"""A damaged stats folder is one InputError naming the file, not a pyarrow or JSON traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from corpusbench.corpus.store import FILES, CorpusStats
from corpusbench.errors import InputError

MANIFEST = {"language": "en", "corpus": {"fingerprint": {"sha256": "0"}}, "totals": {"tokens": 2}}


def _stats(folder: Path) -> Path:
    folder.mkdir()
    for name in FILES[:-1]:
        pd.DataFrame({"form": ["a"], "count": [2]}).to_parquet(folder / name)
    (folder / "manifest.json").write_text(json.dumps(MANIFEST))
    return folder


def test_a_sound_folder_loads(tmp_path: Path) -> None:
    st = CorpusStats.load(_stats(tmp_path / "stats"))
    assert st.n_tokens == 2 and st.vocabulary == {"a": 2}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda d: (d / "manifest.json").write_text('{"language": "en",'),
            r"manifest\.json:1: not valid JSON",
        ),
        (lambda d: (d / "manifest.json").write_bytes(b"\xff\xfe{}"), r"manifest\.json: not UTF-8 text"),
        (lambda d: (d / "manifest.json").write_text("[]"), r"manifest\.json: not a stats manifest"),
    ],
)
def test_a_damaged_manifest(tmp_path: Path, damage, message: str) -> None:
    folder = _stats(tmp_path / "stats")
    damage(folder)
    with pytest.raises(InputError, match=message) as info:
        CorpusStats.load(folder)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["counts.parquet", "forms.parquet", "contexts.parquet"])
def test_a_damaged_table(tmp_path: Path, name: str) -> None:
    folder = _stats(tmp_path / "stats")
    data = (folder / name).read_bytes()
    (folder / name).write_bytes(data[: len(data) // 2])  # truncated, as by a full disk
    st = CorpusStats.load(folder)
    with pytest.raises(InputError, match=rf"{name}: not a readable parquet file .*run `corpusbench stats"):
        getattr(st, name.removesuffix(".parquet"))
