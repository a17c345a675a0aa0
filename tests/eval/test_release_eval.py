"""Whole-release evaluation on a real built release (FIT-CLAMS from Shakespeare + BLiMP-style pairs):
the card's command verbatim, roles instead of guessed columns, FIT-CLAMS numbers by hand, compare."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from corpusbench.eval.data import load_pairs
from corpusbench.eval.records import PairScore
from corpusbench.eval.release import find_release
from corpusbench.families.fitclams.score import fitclams_benchmark
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "data" / "publish" / "pairs.jsonl"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2"}


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corpusbench", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built(default_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(release folder, plays corpus): FIT-CLAMS over 1500 lines of Shakespeare + the fixture pairs."""
    folder = tmp_path_factory.mktemp("release-eval")
    lines: list[str] = []
    for play in sorted((default_corpus / "shakespeare").glob("*.txt")):
        lines += [ln.strip() for ln in play.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(lines) >= 1500:
            break
    plays = folder / "plays.txt"
    plays.write_text("\n".join(lines[:1500]) + "\n", encoding="utf-8")
    spec = {
        "name": "evaltest",
        "version": "1.0.0",
        "repo_id": "tester/evaltest",
        "seed": 1,
        "corpora": {"plays": {"path": "plays.txt", "language": "en"}},
        "families": [
            {
                "name": "fitclams",
                "corpus": "plays",
                "params": {
                    "selection": {"n_nouns": 3, "n_verbs": 3, "n_bins": 3, "n_objects": 1, "fill_empty": True}
                },
            },
            {"name": "minimal-pairs", "id": "blimp", "params": {"path": str(PAIRS), "group_column": "UID"}},
        ],
    }
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    res = build_release(ReleaseSpec.load(folder / "spec.yaml"), folder / "build", work_root=folder / "work")
    return res.path, plays


@pytest.fixture(scope="module")
def ngram(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    out = {}
    for order in (2, 3):
        d = tmp_path_factory.mktemp(f"ngram{order}")
        res = cli("baseline", "train", str(built[1]), "--out", str(d), "--order", str(order))
        assert res.returncode == 0, res.stderr
        out[order] = f"ngram:{d}"
    return out


def test_fitclams_numbers_by_hand_on_real_columns(built: tuple[Path, Path]) -> None:
    """Deltas set from the table's own columns; expected values from pandas/numpy on the raw parquet
    (columns named as FIT-CLAMS writes them), the tested code reads them through the declared roles."""
    path, _ = built
    rel = find_release(str(path))
    fc = [c.name for c in rel.configs if c.kind == "fitclams"]
    assert len(fc) == 7 and {c.kind for c in rel.configs} == {"fitclams", "pairs"}
    data = load_pairs(str(path), configs=fc, release=rel)
    raw = pd.concat(
        [pd.read_parquet(rel.data_files(c)[0]).assign(config=c) for c in sorted(fc)], ignore_index=True
    )
    assert len(raw) == len(data.pairs)
    delta = (
        0.4 * np.log1p(raw["critical_count__plays"])
        - 0.3 * raw["noun_bin__plays"]
        + 0.1 * (raw.index % 3)
        - 0.5
    )
    delta[raw.index % 7 == 0] = 0.0  # ties: not wins
    raw["delta"] = delta
    scored: dict[str, list] = {}
    for p, (_, r) in zip(data.pairs, raw.iterrows(), strict=True):
        assert p.id == f"{r['config']}:{r['pair_id']}"
        s = PairScore(
            id=p.id,
            config=p.config,
            logprob_good=-5 + r["delta"],
            logprob_bad=-5.0,
            n_tokens_good=1,
            n_tokens_bad=1,
            group=p.group,
            bin=p.bin,
        )
        scored.setdefault(p.config, []).append((p, s))
    out = fitclams_benchmark(rel.configs, scored)
    acc = raw.groupby("paradigm")["delta"].apply(lambda d: float((d > 0).mean()))
    assert out["per_paradigm"].keys() == set(acc.index)
    assert out["score"] == pytest.approx(acc.mean())  # unweighted mean over paradigms
    assert out["n_ties"] == int((raw["delta"] == 0).sum())
    nb = raw.groupby("noun_bin__plays")["delta"].apply(lambda d: float((d > 0).mean()))
    assert {int(k): v["accuracy"] for k, v in out["per_noun_bin"].items()} == pytest.approx(nb.to_dict())
    vb = raw.groupby("verb_bin__plays")["delta"].apply(lambda d: float((d > 0).mean()))
    assert {int(k): v["accuracy"] for k, v in out["per_verb_bin"].items()} == pytest.approx(vb.to_dict())
    # §6 OLS on simple agreement: y = ΔP, X = z-scored smoothed ln counts (verb, good subject, bad subject)
    sa = raw[raw["paradigm"] == "simple_agrmt"]

    def sl(c: pd.Series) -> np.ndarray:
        return np.array([0.0 if v <= 0 else (math.log(1.5) if v < 2 else math.log(v)) for v in c])

    x = np.column_stack(
        [sl(sa[c]) for c in ("critical_count__plays", "noun_good_count__plays", "noun_bad_count__plays")]
    )
    keep = x.std(axis=0) > 0
    z = (x[:, keep] - x[:, keep].mean(axis=0)) / x[:, keep].std(axis=0)
    design = np.column_stack([np.ones(len(sa)), z])
    beta, *_ = np.linalg.lstsq(design, sa["delta"].to_numpy(), rcond=None)
    resid = sa["delta"].to_numpy() - design @ beta
    r2 = 1 - (resid**2).sum() / ((sa["delta"] - sa["delta"].mean()) ** 2).sum()
    o = out["delta_ols"]["full"]
    assert o["n"] == len(sa) and o["r2"] == pytest.approx(r2)
    names = [n for n, k in zip(("verb", "subject_good", "subject_bad"), keep, strict=True) if k]
    assert o["coef"] == pytest.approx(dict(zip(["const", *names], beta, strict=True)))
    n, k = len(sa), len(names)
    assert o["r2_adj"] == pytest.approx(1 - (1 - r2) * (n - 1) / (n - k - 1))


def test_card_command_verbatim_whole_release_and_compare(
    built: tuple[Path, Path], ngram: dict[int, str], tmp_path: Path
) -> None:
    path, _ = built
    card = (path / "README.md").read_text(encoding="utf-8")
    cmd = re.search(r"^\s*(corpusbench eval run \S+ --model MODEL)\s*$", card, re.M)
    assert cmd, "the card prints no corpusbench eval command"
    local = tmp_path / "evaltest"  # what `hf download ... --local-dir evaltest` leaves
    shutil.copytree(path, local)
    (local / "audit.json").write_text("{}")  # an audited release folder works too
    args = cmd.group(1).split()[1:]
    res = cli(*[ngram[3] if a == "MODEL" else a for a in args], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "eval-results" / Path(ngram[3][len("ngram:") :]).name
    results = json.loads((out / "results.json").read_text())
    fc = results["benchmarks"]["fitclams"]
    assert 0 <= fc["score"] <= 1 and len(fc["per_paradigm"]) == 7 and fc["per_noun_bin"]
    assert fc["delta_ols"]["full"]["r2"] is not None and "ltswap" not in results["benchmarks"]
    assert {"agreement", "anaphora", "determiners"} <= set(results["configs"]) and results["skipped"] == {}
    assert results["scoring_mode"]["per_config"]["fitclams-plays-simple_agrmt"] == "critical_region"
    assert results["scoring_mode"]["per_config"]["agreement"] == "full_sentence"
    assert "not a win" in results["tie_rule"] and "FIT-CLAMS score" in (out / "summary.md").read_text()
    # a first-N limit
    old = cli(
        "eval",
        "run",
        "--dataset",
        str(local),
        "--model",
        ngram[2],
        "--limit",
        "5",
        "--limit-mode",
        "first",
        "--out",
        str(tmp_path / "o2"),
    )
    assert old.returncode == 0, old.stderr
    r2 = json.loads((tmp_path / "o2" / "results.json").read_text())
    assert (
        r2["configs"]["fitclams-plays-prep_anim"]["n"] == 5
        and r2["provenance"]["spec"]["limit_mode"] == "first"
    )
    cmp = cli("compare", str(out), str(tmp_path / "o2"), "--out", str(tmp_path / "cmp"), "--boot", "200")
    assert cmp.returncode == 0, cmp.stderr
    files = {p.name for p in (tmp_path / "cmp").iterdir()}
    assert {"compare.md", "compare.csv", "fitclams_by_bin.png", "fitclams_delta_vs_logfreq.png"} <= files
    head = (tmp_path / "cmp" / "compare.csv").read_text().splitlines()[0]
    assert "FIT-CLAMS,FIT-CLAMS ci_low,FIT-CLAMS ci_high" in head and "simple_agrmt" in head
