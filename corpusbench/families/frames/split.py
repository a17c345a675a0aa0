"""A deterministic file-level train/test split of a corpus folder (for the held-out S-cluster check)."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpusbench.corpus.readers import iter_files
from corpusbench.errors import InputError
from corpusbench.io import atomic_dir, write_json


def split_files(corpus: str | Path, out: str | Path, train_every: int = 7) -> dict[str, list[str]]:
    """Copy every ``train_every``-th corpus file (sorted order, starting with the first) to ``out/train``
    and the rest to ``out/test`` (the paper's test corpus is six times its training corpus)."""
    root = Path(corpus)
    if not root.is_dir():
        raise InputError(f"{corpus}: expected a folder of corpus files to split")
    if train_every < 2:
        raise InputError(f"--train-every must be at least 2 (got {train_every})")
    files = iter_files(root)
    if len(files) < 2:
        raise InputError(f"{corpus}: need at least two corpus files to split")
    parts: dict[str, list[str]] = {"train": [], "test": []}
    with atomic_dir(out) as tmp:
        for i, f in enumerate(files):
            part = "train" if i % train_every == 0 else "test"
            rel = f.relative_to(root)
            (tmp / part / rel).parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(f, tmp / part / rel)
            except OSError as e:
                raise InputError(f"{f}: cannot copy ({e.strerror or e})") from None
            parts[part].append(rel.as_posix())
        write_json(tmp / "split.json", {"source": str(corpus), "train_every": train_every, **parts})
    return parts
