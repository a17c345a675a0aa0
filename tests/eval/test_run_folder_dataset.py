"""A generator's output folder as ``eval run --dataset``: an LT-Swap run, a FIT-CLAMS output and a CAC output
are scored with their family's metrics (configs made by the family's release adapter); a file inside such
a folder is refused with one line naming the folder to pass instead."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.corpus.stats import StatsParams, compute_stats
from corpusbench.corpus.store import CorpusStats
from corpusbench.eval.data import run_folder
from corpusbench.eval.runner import EvalSpec, run_eval

from .conftest import CORPUS, ROOT

SLICE = ("shakespeare/macbeth.txt", "kjv/08-ruth.txt")


@pytest.fixture(scope="module")
def stats(tmp_path_factory) -> CorpusStats:
    d = tmp_path_factory.mktemp("runfolder-corpus")
    for rel in SLICE:
        shutil.copy(CORPUS / rel, d / rel.replace("/", "_"))
    out = tmp_path_factory.mktemp("runfolder-stats") / "stats"
    compute_stats(CorpusSpec(path=str(d)), out, StatsParams())
    return CorpusStats.load(out)


@pytest.fixture(scope="module")
def ltswap_run(stats, tmp_path_factory):
    from corpusbench.families.ltswap.pipeline import LtswapParams, run_ltswap
    from corpusbench.llm.cache import CachedLLM
    from tests.families.ltswap.test_pipeline import RuleLLM

    out = tmp_path_factory.mktemp("runfolder") / "lt"
    params = LtswapParams(max_per_bin=2, rules=("SVSHORT",), agreement_samples=1, seed=0)
    res = run_ltswap(stats, CachedLLM(RuleLLM(), out.parent / "c.sqlite"), params, out)
    assert any(res.quadruplets.values())
    return out


@pytest.fixture(scope="module")
def fitclams_out(stats, tmp_path_factory):
    from corpusbench.families.fitclams.generator import FitClamsSpec, generate
    from corpusbench.families.fitclams.select import SelectionConfig

    out = tmp_path_factory.mktemp("runfolder") / "fc"
    spec = FitClamsSpec(
        corpora=(("mine", str(stats.path)),),
        language="en",
        selection=SelectionConfig(seed=0, fill_empty=True),
        paradigms=("simple_agrmt",),
    )
    generate(spec, out)
    return out


def _eval(dataset, model, out, **kw):
    run_eval(EvalSpec(dataset=str(dataset), model=str(model), out=out, **kw))
    return json.loads((out / "results.json").read_text())


def test_ltswap_run_folder_is_scored_as_ltswap(ltswap_run, tiny_dir, tmp_path):
    rel = run_folder(str(ltswap_run))
    assert rel is not None and {c.kind for c in rel.configs} == {"ltswap"}
    assert all(c.name.startswith("ltswap-") for c in rel.configs)
    res = _eval(ltswap_run, tiny_dir["gpt2"], tmp_path / "e")
    assert "ltswap" in res["benchmarks"] and res["n_pairs"] > 0
    assert res["provenance"]["dataset"]["dataset"] == str(ltswap_run)
    assert "not a release" in res["provenance"]["dataset"]["release_verification"]


def test_fitclams_output_folder_is_scored_as_fitclams(fitclams_out, tiny_dir, tmp_path):
    res = _eval(fitclams_out, tiny_dir["gpt2"], tmp_path / "e", limit=10)
    assert "fitclams" in res["benchmarks"] and list(res["configs"]) == ["fitclams-mine-simple_agrmt"]
    assert (fitclams_out / "pairs").is_dir()  # read, never rewritten


def test_cac_output_folder_is_scored_as_cac(tiny_dir, tmp_path):
    from corpusbench.families.cac.pipeline import CacConfig, run_cac

    out = tmp_path / "cac"
    run_cac([ROOT / "data" / "childes" / "eve.cha"], out, CacConfig(split_sessions=2))
    res = _eval(out, tiny_dir["gpt2"], tmp_path / "e", limit=2, options={"context_utterances": 2})
    assert res["kind"] == "cac" and res["n_sites"] == 8  # CAC's own results: 2 sites x 2 dyads x 2 roles
    assert set(res["configs"]) == {"child", "caretaker"}


@pytest.mark.parametrize("name", ["funnel.json", "wordswap.parquet", "rejects.jsonl"])
def test_a_file_of_a_run_is_refused_with_the_folder_to_pass(ltswap_run, tmp_path, name):
    args = ["eval", "run", "--dataset", ltswap_run / name, "--model", "x", "--out", tmp_path / "e"]
    r = CliRunner().invoke(app, [str(a) for a in args])
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and len(lines) <= 2, r.output  # the error (and the debug hint)
    want = f"a file of the LT-Swap run {ltswap_run}; pass the folder itself: --dataset {ltswap_run}"
    assert want in lines[0]
    assert not (tmp_path / "e").exists()


def test_fitclams_output_with_its_stats_gone_is_refused(fitclams_out, stats, tmp_path):
    moved = tmp_path / "fc"
    shutil.copytree(fitclams_out, moved)
    m = json.loads((moved / "manifest.json").read_text())
    m["spec"]["corpora"] = [["mine", str(tmp_path / "gone")]]
    (moved / "manifest.json").write_text(json.dumps(m))
    from corpusbench.errors import InputError

    with pytest.raises(InputError, match=r"stats folder .*gone is gone; rebuild it with `fitclams build`"):
        run_folder(str(moved))
