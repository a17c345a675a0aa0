"""`eval run` verifies a local release before scoring it: a tampered parquet is one line and a non-zero
exit, not a score under the original release fingerprint; --no-verify scores it and says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import InputError
from corpusbench.eval.data import load_pairs
from corpusbench.eval.release import find_release
from corpusbench.provenance import file_sha256
from corpusbench.publish.build import build_release
from corpusbench.publish.spec import ReleaseSpec

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "data" / "publish" / "pairs.jsonl"
CORPUS = ROOT / "tests" / "data" / "genesis_40.txt"
DATA = "data/agreement/test-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("verify")
    spec = {
        "name": "verify",
        "version": "1.0.0",
        "repo_id": "tester/verify",
        "families": [{"name": "minimal-pairs", "params": {"path": str(PAIRS), "group_column": "UID"}}],
    }
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return build_release(ReleaseSpec.load(folder / "spec.yaml"), folder / "build").path


def _swapped(release: Path, tmp_path: Path) -> Path:
    """A copy of the release whose agreement parquet has good and bad swapped (valid parquet)."""
    copy = tmp_path / "tampered"
    shutil.copytree(release, copy)
    table = pq.read_table(copy / DATA)
    names = [
        {"sentence_good": "sentence_bad", "sentence_bad": "sentence_good"}.get(n, n)
        for n in table.column_names
    ]
    pq.write_table(table.rename_columns(names).select(table.column_names), copy / DATA)
    return copy


def test_the_built_release_verifies(release: Path) -> None:
    rel = find_release(str(release))
    assert rel is not None and rel.data_files("agreement")
    assert rel.verification == "sha256 and content fingerprint of every scored config match provenance.json"


def test_a_swapped_parquet_is_refused(release: Path, tmp_path: Path) -> None:
    copy = _swapped(release, tmp_path)
    with pytest.raises(
        InputError, match=r"agreement/test-00000-of-00001\.parquet: sha256 differs from provenance"
    ):
        load_pairs(str(copy), release=find_release(str(copy)))
    # the same rows under a manifest whose sha256 was updated too: the content fingerprint still differs
    prov = json.loads((copy / "provenance.json").read_text())
    for c in prov["configs"]:
        for f in c["files"]:
            f["sha256"] = file_sha256(copy / f["path"])
    (copy / "provenance.json").write_text(json.dumps(prov))
    with pytest.raises(InputError, match=r"data/agreement: rows differ from the content fingerprint"):
        load_pairs(str(copy), release=find_release(str(copy)))
    # without provenance.json, the eval YAML's fingerprints are checked
    (copy / "provenance.json").unlink()
    rel = find_release(str(copy))
    with pytest.raises(
        InputError, match=r"rows differ from the content fingerprint in eval/corpusbench\.yaml"
    ):
        load_pairs(str(copy), release=rel)
    assert find_release(str(copy), verify=False).data_files("agreement")


def test_an_added_file_or_edited_fingerprint_is_refused(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "added"
    shutil.copytree(release, copy)
    shutil.copy(copy / DATA, copy / "data/agreement/test-00001-of-00001.parquet")
    with pytest.raises(InputError, match=r"test-00001-of-00001\.parquet: not a file of the release"):
        find_release(str(copy)).data_files("agreement")
    copy2 = tmp_path / "edited"
    shutil.copytree(release, copy2)
    prov = json.loads((copy2 / "provenance.json").read_text())
    prov["release_fingerprint"] = "0" * 64
    (copy2 / "provenance.json").write_text(json.dumps(prov))
    with pytest.raises(InputError, match=r"provenance\.json: the release fingerprint does not match"):
        find_release(str(copy2)).data_files("agreement")


def test_eval_run_on_a_tampered_release(release: Path, tmp_path: Path) -> None:
    """CLI: one line, exit 2, no results; with --no-verify it scores and results.json says unverified."""
    from corpusbench.baselines.train import TrainParams, train_ngrams
    from corpusbench.corpus.readers import CorpusSpec

    copy = _swapped(release, tmp_path)
    runner = CliRunner()
    out = tmp_path / "res"
    res = runner.invoke(app, ["eval", "run", str(copy), "--model", "ngram:/nowhere", "--out", str(out)])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "sha256 differs from provenance.json" in lines[0] and "--no-verify" in lines[0]
    assert not out.exists()

    model = tmp_path / "ngram"
    train_ngrams(CorpusSpec(path=str(CORPUS)), {"word": model}, TrainParams(order=2))
    res = runner.invoke(
        app, ["eval", "run", str(copy), "--model", f"ngram:{model}", "--out", str(out), "--no-verify"]
    )
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    assert results["provenance"]["dataset"]["release_verification"] == "not verified (--no-verify)"
    assert results["provenance"]["spec"]["verify"] is False
    res = runner.invoke(
        app, ["eval", "run", str(release), "--model", f"ngram:{model}", "--out", str(tmp_path / "ok")]
    )
    assert res.exit_code == 0, res.output
    ok = json.loads((tmp_path / "ok" / "results.json").read_text())["provenance"]["dataset"]
    assert ok["release_verification"].startswith("sha256 and content fingerprint")
