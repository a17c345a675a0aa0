"""End to end: one corpus, two corpora (FIT-CLAMS-C/-W style), determinism, CLI, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError, InputError
from corpusbench.families.fitclams.generator import FitClamsSpec, generate
from corpusbench.families.fitclams.records import PARADIGMS
from corpusbench.families.fitclams.select import SelectionConfig
from corpusbench.families.fitclams.templates import expected_pair_counts

HERE = Path(__file__).resolve().parent


def _read(out: Path, corpus: str, paradigm: str) -> pd.DataFrame:
    return pd.read_parquet(out / "pairs" / corpus / f"{paradigm}.parquet")


def test_two_corpora_share_vocabulary_and_get_one_set_each(
    en_stats_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = en_stats_pair
    spec = FitClamsSpec(
        corpora=(("a", str(a)), ("b", str(b))),
        language="en",
        selection=SelectionConfig(seed=7, fill_empty=True),
    )
    report = generate(spec, tmp_path / "out")
    out = report.out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["pair_counts"] == report.pair_counts and set(report.pair_counts) == {"a", "b"}
    vocab_a = set(pd.read_parquet(a / "forms.parquet")["form"])
    vocab_b = set(pd.read_parquet(b / "forms.parquet")["form"])
    for name in ("a", "b"):
        words = json.loads((out / "words" / f"{name}.json").read_text())
        sizes = manifest["lexicon_sizes"][name]
        assert report.pair_counts[name] == expected_pair_counts(
            sizes["nouns"], sizes["verbs"], sizes["objects"], sizes["rc_verbs"], sizes["preps"]
        )
        assert len(words["edges"]["noun"]) == 11
        chosen = [w for k in ("nouns", "verbs", "objects") for w in words[k]]
        for w in chosen:  # intersection: every form seen in both corpora; counts/bins reported for both
            assert {w["sg"], w["pl"]} <= vocab_a & vocab_b
            assert set(w["freq"]) == {"a", "b"} and w["freq"][name] > 0 and 0 <= w["bins"][name] <= 9
        df = _read(out, name, "prep_anim")
        assert (df["corpus"] == name).all()
        assert {"noun_freq__a", "noun_freq__b", "verb_bin__a", "verb_bin__b", "critical_count__b"} <= set(
            df.columns
        )
        plural_of = {v["sg"]: v["pl"] for v in words["verbs"]}
        for r in df.itertuples():
            target = r.verb if r.critical_number == "sg" else plural_of[r.verb]
            assert r.sentence_good[r.good_start : r.good_end] == r.critical_word == target
            assert r.sentence_bad[r.bad_start : r.bad_end] == target
    # each set is chosen from its own bins, so the two sets differ
    a_nouns = [w["sg"] for w in json.loads((out / "words" / "a.json").read_text())["nouns"]]
    b_nouns = [w["sg"] for w in json.loads((out / "words" / "b.json").read_text())["nouns"]]
    assert a_nouns != b_nouns


def test_same_seed_same_output(en_stats: Path, tmp_path: Path) -> None:
    spec = FitClamsSpec(
        corpora=(("a", str(en_stats)),),
        language="en",
        selection=SelectionConfig(seed=3),
        paradigms=("simple_agrmt", "long_vp_coord", "obj_rel_within_anim"),
    )
    r1 = generate(spec, tmp_path / "one")
    r2 = generate(spec, tmp_path / "two")
    for p in spec.paradigms:
        pd.testing.assert_frame_equal(_read(r1.out, "a", p), _read(r2.out, "a", p))
    m1, m2 = (json.loads((r.out / "manifest.json").read_text()) for r in (r1, r2))
    assert m1["fingerprint"] == m2["fingerprint"]
    assert not list(tmp_path.glob(".*.tmp"))  # nothing half-written left behind


def test_french_and_german_runs(fr_stats: Path, de_stats: Path, tmp_path: Path) -> None:
    small = SelectionConfig(n_nouns=4, n_verbs=3, n_bins=4, fill_empty=True)
    fr = generate(
        FitClamsSpec(corpora=(("fr", str(fr_stats)),), language="fr", selection=small), tmp_path / "fr"
    )
    de = generate(
        FitClamsSpec(corpora=(("de", str(de_stats)),), language="de", selection=small), tmp_path / "de"
    )
    for rep, name in ((fr, "fr"), (de, "de")):
        assert rep.pair_counts[name]["simple_agrmt"] == 4 * 3 * 2
        for p in PARADIGMS:
            df = _read(rep.out, name, p)
            assert len(df) == rep.pair_counts[name][p] > 0
            assert (
                df.apply(lambda r: r.sentence_good[r.good_start : r.good_end], axis=1) == df["critical_word"]
            ).all()
    words = json.loads((de.out / "words" / "de.json").read_text())
    assert all(n["gender"] in ("Masc", "Fem", "Neut") for n in words["nouns"] + words["objects"])
    de_sr = _read(de.out, "de", "subj_rel")
    assert de_sr["sentence_good"].str.contains(r" , (?:der|die|das) (?:den|die|das) ", regex=True).all()


def test_bad_input_is_reported_clearly(en_stats: Path, fr_stats: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="supported: en, fr, de"):
        FitClamsSpec(corpora=(("a", str(en_stats)),), language="nl")
    with pytest.raises(ConfigError, match="stats are for language 'fr'"):
        generate(FitClamsSpec(corpora=(("a", str(fr_stats)),), language="en"), tmp_path / "x")
    with pytest.raises(InputError, match="not a corpusbench stats folder"):
        generate(FitClamsSpec(corpora=(("a", str(tmp_path)),), language="en"), tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_cli_end_to_end_and_errors(en_stats: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    res = runner.invoke(
        app,
        [
            "fitclams",
            "build",
            "--corpus",
            f"plays={en_stats}",
            "--lang",
            "en",
            "--out",
            str(out),
            "--nouns",
            "5",
            "--verbs",
            "4",
            "--seed",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    assert sorted(p.stem for p in (out / "pairs" / "plays").glob("*.parquet")) == sorted(PARADIGMS)
    assert "simple_agrmt" in res.output and len(_read(out, "plays", "simple_agrmt")) == 5 * 4 * 2
    import subprocess
    import sys

    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "corpusbench",
            "fitclams",
            "build",
            "--corpus",
            f"plays={en_stats}",
            "--lang",
            "xx",
            "--out",
            str(tmp_path / "bad"),
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "supported: en, fr, de" in bad.stderr  # one line, ConfigError exit code
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "corpusbench",
            "fitclams",
            "build",
            "--corpus",
            f"x={tmp_path / 'nope'}",
            "--lang",
            "en",
            "--out",
            str(tmp_path / "bad"),
        ],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    assert not (tmp_path / "bad").exists()


def test_raw_corpus_goes_through_corpusbench_stats(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(HERE / "data" / "fr.txt", raw / "fr.txt")
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            "fitclams",
            "build",
            "--corpus",
            f"frc={raw}",
            "--lang",
            "fr",
            "--out",
            str(tmp_path / "o"),
            "--nouns",
            "3",
            "--verbs",
            "2",
            "--bins",
            "3",
            "--fill-empty",
        ],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o-stats" / "frc" / "counts.parquet").exists()
    assert len(_read(tmp_path / "o", "frc", "simple_agrmt")) == 3 * 2 * 2
