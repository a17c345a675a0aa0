"""Fixtures for the review tests: a small LT-Swap run and the release built from it.

The run folder holds what ``ltswap build`` writes (``manifest.json``, one parquet per subtask of
``Quadruplet`` records) with sentences of the default demo run, and ``rejected_drafts.jsonl`` rows of
drafts its judge dropped; the release folder holds the release's pair configs made by the LT-Swap
adapter's own ``pair_rows`` and a ``provenance.json`` naming them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from corpusbench.families.ltswap.records import Quadruplet, quadruplet_id
from corpusbench.families.ltswap.release import pair_rows
from corpusbench.io import write_json, write_jsonl

ROOT = Path(__file__).resolve().parents[2]

# (subtask, rule, bin, w1, w2, s1_good, s2_good): S1* / S2* swap w1 and w2
QUADS = [
    (
        "wordswap",
        "NOUN",
        3,
        "coffin",
        "harp",
        "They had a coffin for their loved one.",
        "They played a harp at the feast.",
    ),
    (
        "wordswap",
        "NOUN",
        3,
        "garment",
        "altar",
        "She mended the torn garment by the fire.",
        "The priest stood before the altar.",
    ),
    (
        "wordswap",
        "NOUN",
        5,
        "sickle",
        "lantern",
        "He cut the wheat with a sickle.",
        "She lit the lantern at dusk.",
    ),
    (
        "wordswap",
        "NOUN",
        5,
        "cellar",
        "meadow",
        "They kept the wine in the cellar.",
        "The sheep grazed in the meadow.",
    ),
    (
        "inflswap",
        "VERB",
        2,
        "rebound",
        "rebounded",
        "They will rebound from their fall.",
        "The child rebounded from the wall.",
    ),
    (
        "inflswap",
        "NOUN",
        2,
        "beast",
        "beasts",
        "They saw a beast in the field.",
        "They had many beasts in the stable.",
    ),
    ("inflswap", "VERB", 4, "mend", "mended", "They will mend the nets.", "The man mended the nets."),
    ("inflswap", "NOUN", 4, "coat", "coats", "She saw a coat on the chair.", "They sold many coats."),
    ("agrswap", "SVSHORT", 1, "noise", "noises", "The noise is", "The noises are"),
    ("agrswap", "DET", 1, "kinsman", "kinsmen", "This kinsman", "These kinsmen"),
    ("agrswap", "SVSHORT", 6, "casement", "casements", "The casement is", "The casements are"),
    (
        "agrswap",
        "SVLONG",
        6,
        "spirit",
        "spirits",
        "The spirit that walks the night is",
        "The spirits that walk the night are",
    ),
]
REJECTED = [
    (
        "wordswap",
        "NOUN",
        3,
        "spring",
        "purse",
        "They saw a spring in the garden.",
        "They saw a purse in the road.",
        [-0.4, None],
    ),
    (
        "wordswap",
        "NOUN",
        5,
        "basket",
        "bucket",
        "She carried the basket home.",
        "She carried the bucket home.",
        [0.9, -0.2],
    ),
    (
        "inflswap",
        "NOUN",
        2,
        "heaven",
        "heavens",
        "They saw the heaven open.",
        "They saw the heavens open.",
        [0.05, None],
    ),
    ("agrswap", "SVSHORT", 1, "sheep", "sheep", "The sheep is", "The sheep are", [-1.0, None]),
]


def _swap(text: str, old: str, new: str) -> str:
    return text.replace(old, new, 1)


def quad_dict(sub: str, rule: str, b: int, w1: str, w2: str, s1: str, s2: str) -> dict:
    return Quadruplet(
        id=quadruplet_id(sub, rule, w1, w2, s1, s2),
        subtask=sub,  # type: ignore[arg-type]
        rule=rule,
        bin=b,
        w1=w1,
        w2=w2,
        tag1="NN",
        tag2="NN",
        freq_w1=b,
        freq_w2=b,
        s1_good=s1,
        s2_good=s2,
        s1_bad=_swap(s1, w1, w2),
        s2_bad=_swap(s2, w2, w1),
        filter_rule="pointwise",
        filter_margin=0.5,
        filter_margins=(0.5, 0.7),
    ).as_dict()


def make_run(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_json(
        folder / "manifest.json", {"kind": "corpusbench.ltswap", "corpus": {"fingerprint": "f00d" * 8}}
    )
    for sub in ("wordswap", "inflswap", "agrswap"):
        rows = [quad_dict(*q) for q in QUADS if q[0] == sub]
        pd.DataFrame(rows).to_parquet(folder / f"{sub}.parquet", index=False)
    rej = []
    for sub, rule, b, w1, w2, s1, s2, margins in REJECTED:
        q = quad_dict(sub, rule, b, w1, w2, s1, s2)
        rej.append({**q, "reason": "filter_rejected", "margins": margins, "threshold": 0.1})
    write_jsonl(folder / "rejected_drafts.jsonl", rej)
    return folder


def make_release(folder: Path, run: Path, name: str = "lt-test", version: str = "0.1.0") -> Path:
    from corpusbench.families.ltswap.release import NAMES

    configs = []
    for sub, spelled in NAMES.items():
        for prefix in (False, True):
            if prefix and sub != "wordswap":
                continue
            cname = f"ltswap-{spelled}" + ("-prefix" if prefix else "")
            table = pair_rows(pd.read_parquet(run / f"{sub}.parquet"), prefix)
            rel = f"data/{cname}/test-00000-of-00001.parquet"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            table.to_parquet(folder / rel, index=False)
            roles = {"good": "sentence_good", "bad": "sentence_bad", "id": "pair_id", "bin": "bin"}
            if prefix:
                roles |= {"prefix_good": "prefix_good", "prefix_bad": "prefix_bad"}
            configs.append(
                {
                    "name": cname,
                    "generator": "ltswap",
                    "task": "minimal_pairs",
                    "files": [{"path": rel}],
                    "roles": roles,
                }
            )
    write_json(
        folder / "provenance.json",
        {
            "release": {"name": name, "version": version},
            "generators": [{"id": "ltswap", "name": "ltswap"}],
            "configs": configs,
        },
    )
    return folder


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return make_run(tmp_path / "out" / "ltswap")


@pytest.fixture
def release_dir(tmp_path: Path, run_dir: Path) -> Path:
    return make_release(tmp_path / "build" / "lt-test" / "0.1.0", run_dir)


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m corpusbench ARGS`` in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "corpusbench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
