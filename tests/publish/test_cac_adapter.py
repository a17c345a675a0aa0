"""The `cac` release adapter on the real Eve transcript: rows, stored context, human statistics, the
lm-eval task's prompts, and the same numbers from the release as from the CAC folder."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT, run_cli

from corpusbench.families.cac.io import load_sites
from corpusbench.families.cac.records import Alternation
from corpusbench.families.cac.score import determiner_sites, determiner_sites_from_lines, select_sites
from corpusbench.families.cac.table import table_sites
from corpusbench.io import read_json

SMOL = Path(__file__).resolve().parents[2] / "models" / "smollm2-135m-instruct"


def _config(release: Path) -> tuple[dict, pd.DataFrame]:
    manifest = read_json(release / "provenance.json")
    entry = next(c for c in manifest["configs"] if c["name"] == "cac-the-a")
    return entry, pd.read_parquet(release / entry["files"][0]["path"])


def _cac_folder(release: Path) -> Path:
    return release.parents[2] / "work" / "cac" / "cac"  # the adapter's cached `cac build` output


def test_rows_and_stored_context_rebuild_the_folder_prompts(doc_release: Path) -> None:
    entry, table = _config(doc_release)
    assert entry["task"] == "cac" and len(table) >= 100 and table["site_id"].is_unique
    assert set(table["alternation"]) == {"the,a|an"}
    assert entry["roles"]["id"] == "site_id" and entry["roles"]["group"] == "dyad"
    folder_sites, sessions = load_sites(_cac_folder(doc_release))
    sites, lines = table_sites(table)
    assert sites == sorted(folder_sites, key=lambda s: (s.file, s.position, s.token))
    alt = Alternation()
    for limit in (None, 5):
        assert determiner_sites_from_lines(sites, lines, alt, limit) == determiner_sites(
            sites, sessions, alt, limit
        )
    # each utterance is stored once per session, not once per later site
    n_lines = int(table["context_new"].map(len).sum())
    assert n_lines <= max(s.position for s in sites) + 1


def test_human_statistics_json_and_card(doc_release: Path) -> None:
    entry, _ = _config(doc_release)
    stats_file = doc_release / "data" / "cac-the-a" / "human_stats.json"
    assert any(f["path"] == "data/cac-the-a/human_stats.json" for f in entry["files"])
    human = json.loads(stats_file.read_text())  # strict JSON (no NaN)
    want = pd.read_parquet(_cac_folder(doc_release) / "human_stats.parquet")
    assert len(human["stats"]) == len(want) == 4  # 2 pseudo-dyads x child/caretaker
    assert {t["name"] for t in human["tests"]} >= {"dxn_overlap", "tpr_vs_adult_baseline"}
    card = (doc_release / "README.md").read_text()
    first = human["stats"][0]
    assert f"| {first['dyad']} | {first['role']} | {first['n_types']} | {first['n_tokens']} |" in card
    assert "2 pseudo-dyads" in card and "`context_new`" in card
    assert "CHILDES Brown corpus, Eve 010600a" in card  # attribution


def test_lm_eval_task_prompts_match_corpusbench(doc_release: Path) -> None:
    import datasets

    task_dir = doc_release / "lm_eval" / "my_corpus"
    text = (task_dir / "cac-the-a.yaml").read_text()
    assert "process_docs: !function cac_utils.process_docs" in text and "revision: v0.1.0" in text
    spec = importlib.util.spec_from_file_location("cac_utils_under_test", task_dir / "cac_utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, table = _config(doc_release)
    docs = module.process_docs(datasets.Dataset.from_pandas(table, preserve_index=False))
    sites, lines = table_sites(table)
    want = determiner_sites_from_lines(select_sites(sites, None), lines, Alternation(), None)
    assert len(docs) == len(want) > 0
    for doc, site in zip(docs, want, strict=True):
        assert doc["site_id"] == site.id and doc["cac_left"] == site.left
        assert doc["cac_choices"] == [c + site.right for c in site.candidates]
    the_a = [d for d in docs if d["cac_labels"] == ["the", "a", "a"]]
    assert len(the_a) == len(docs) and all(d["cac_target"] in ([0], [1, 2]) for d in docs)


@pytest.mark.slow
def test_release_scores_equal_the_folder_scores(doc_release: Path) -> None:
    """Same sites, same model: the release path and the CAC-folder path give identical numbers."""
    from corpusbench.eval.runner import EvalSpec, open_scorer
    from corpusbench.families.cac.io import read_stats
    from corpusbench.families.cac.score import alternation_of, score_cac, score_cac_release_config
    from corpusbench.families.cac.table import session_lines

    folder = _cac_folder(doc_release)
    spec = EvalSpec(
        dataset=str(folder), model=str(SMOL), out=Path("unused"), limit=1, options={"context_utterances": 4}
    )
    scorer, prov = open_scorer(spec)
    manifest = read_json(folder / "manifest.json")
    sites, sessions = load_sites(folder)
    local = score_cac(
        spec,
        sites,
        session_lines(sessions),
        alternation_of(manifest),
        read_stats(folder / "human_stats.parquet"),
        manifest["parameters"],
        {},
        scorer=scorer,
        model_provenance=prov,
    )
    entry, table = _config(doc_release)
    for how in (entry, {"name": "cac-the-a"}):  # full manifest entry, or only the table's columns
        got, _ = score_cac_release_config(spec, table, how, scorer=scorer, model_provenance=prov)
        assert got["score"] == local.results["accuracy"] and got["n_sites"] == local.results["n_sites"] == 4
        norm = json.loads(json.dumps(local.results["configs"]).replace("NaN", "null"))
        assert json.loads(json.dumps(got["configs"]).replace("NaN", "null")) == norm
        p_local = dict(zip(local.frame["site_id"], local.frame["p_the"], strict=True))
        assert {s["site_id"]: s["the"] for s in got["sites"]} == p_local
        for role in ("child", "caretaker"):
            m = got["configs"][role]
            assert {"mean_overlap", "mean_predicted_overlap", "mean_tpr", "degenerate", "dxn_pass"} <= set(m)


def test_hub_copy_at_its_tag_gives_the_same_rows(doc_release: Path, hub_env: dict[str, str]) -> None:
    """The eval runner reads a CAC config from the Hub at the release tag: the same rows as the folder,
    so the same numbers (release_config_table feeds score_cac_release_config in both cases)."""
    pushed = run_cli("release", "push", str(doc_release), "--repo-id", "tester/cac-doc", env=hub_env)
    assert pushed.returncode == 0, pushed.stderr
    code = (
        "import sys; from corpusbench.eval.release import find_release; "
        "from corpusbench.families.cac.score import release_config_table; "
        "r = find_release('tester/cac-doc@v0.1.0'); assert r is not None and r.root is None; "
        "release_config_table(r, 'cac-the-a').to_parquet(sys.argv[1])"
    )
    out = doc_release.parents[3] / "from-hub.parquet"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        cwd=ROOT,
        env=hub_env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    _, table = _config(doc_release)
    got = pd.read_parquet(out)
    assert got.drop(columns="context_new").equals(table.drop(columns="context_new"))
    assert [list(x) for x in got["context_new"]] == [list(x) for x in table["context_new"]]
    assert table_sites(got) == table_sites(table)


@pytest.mark.slow
def test_ngram_baseline_lists_cac_as_skipped(doc_release: Path, tmp_path: Path) -> None:
    """An n-gram baseline cannot take the speaker's place at a CAC site: the release's CAC config is
    listed under `skipped` with the reason, and the pairs it can score are scored (exit 0)."""
    text = tmp_path / "train.txt"
    text.write_text("the dog runs .\nthe dogs run .\na cat sleeps .\n" * 50, encoding="utf-8")
    assert (
        run_cli("baseline", "train", str(text), "--out", str(tmp_path / "lm"), "--order", "2").returncode == 0
    )
    out = tmp_path / "eval"
    res = run_cli("eval", "run", str(doc_release), "--model", f"ngram:{tmp_path / 'lm'}", "--out", str(out))
    assert res.returncode == 0, res.stderr
    results = json.loads((out / "results.json").read_text())
    assert "n-gram" in results["skipped"]["cac-the-a"] and "cac" not in results["benchmarks"]
    assert results["n_pairs"] > 0 and results["configs"]


@pytest.mark.slow
def test_release_eval_draws_the_cac_dyad_figure(doc_release: Path, tmp_path: Path) -> None:
    """`eval run` on a release draws the CAC paper's per-dyad figure (model vs humans), as on a CAC folder."""
    from corpusbench.eval.runner import EvalSpec, run_eval

    out = tmp_path / "ev"
    spec = EvalSpec(
        dataset=str(doc_release),
        model=str(SMOL),
        out=out,
        limit=1,
        options={"context_utterances": 4},
        configs=("cac-the-a",),
    )
    run_eval(spec)
    assert (out / "cac_dyads.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "results.json").read_text())["benchmarks"]["cac"]["score"] is not None
