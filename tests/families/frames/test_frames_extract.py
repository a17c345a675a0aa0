"""S-cluster generation on a tiny real corpus (shared reader + tokenizer, real stats folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.corpus.readers import CorpusSpec
from corpusbench.errors import InputError
from corpusbench.families.frames.clusterings import frequent_frames, load_clustering
from corpusbench.families.frames.extract import generate_frames, load_sclusters
from corpusbench.families.frames.records import FramesParams
from corpusbench.families.frames.scoring import evaluate
from corpusbench.families.frames.split import split_files


@pytest.fixture(scope="module")
def frames_dir(tiny: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frames") / "out"
    generate_frames(CorpusSpec(path=str(tiny["test"])), tiny["stats"], out)
    return out


def test_sclusters_and_funnel(frames_dir: Path) -> None:
    clusters = {c.id: c for c in load_sclusters(frames_dir)}
    # frames (with <s>/</s> markers): <s>_cat {the x2}, the_sat {cat, dog}; the rest occur once or hold "ran"
    assert set(clusters) == {"<s>|cat", "the|sat"}
    assert clusters["the|sat"].words == ("cat", "dog") and clusters["the|sat"].word_counts == (1, 1)
    assert clusters["<s>|cat"].words == ("the",) and clusters["<s>|cat"].frame_count == 2
    manifest = json.loads((frames_dir / "manifest.json").read_text())
    funnel = manifest["funnel"]
    assert funnel["sentences"] == 3 and funnel["frames seen"] == 9
    assert funnel["dropped:frame_word_not_in_train_vocab"] == 1  # the _ ran
    assert funnel["dropped:middle_not_in_train_vocab"] == 1  # cat _ </s> with "ran"
    assert funnel["frame types"] == 5 and funnel["frame types kept"] == 2
    assert funnel["S-clusters"] == 2 and funnel["words"] == 3
    assert manifest["corpus"]["fingerprint"]["n_documents"] == 3
    assert manifest["train_vocab"]["counts_sha256"] and manifest["parameters"]["min_frame_count"] == 2
    assert manifest["code"]["corpusbench"] and len(manifest["fingerprint"]) == 64


def test_same_input_same_fingerprint_and_min_count(
    tiny: dict[str, Path], frames_dir: Path, tmp_path: Path
) -> None:
    again = generate_frames(CorpusSpec(path=str(tiny["test"])), tiny["stats"], tmp_path / "again")
    assert again.fingerprint == json.loads((frames_dir / "manifest.json").read_text())["fingerprint"]
    assert (tmp_path / "again" / "sclusters.parquet").read_bytes() == (
        frames_dir / "sclusters.parquet"
    ).read_bytes()
    loose = generate_frames(
        CorpusSpec(path=str(tiny["test"])), tiny["stats"], tmp_path / "loose", FramesParams(min_frame_count=1)
    )
    assert loose.n_sclusters == 5 and loose.fingerprint != again.fingerprint


def test_bad_inputs_raise_and_write_nothing(tiny: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a corpusbench stats folder"):
        generate_frames(CorpusSpec(path=str(tiny["test"])), tmp_path, tmp_path / "x")
    empty = tmp_path / "empty.txt"
    empty.write_text("...\n", encoding="utf-8")
    with pytest.raises(InputError, match="no sentences"):
        generate_frames(CorpusSpec(path=str(empty)), tiny["stats"], tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_type_clustering_file(frames_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tsv"
    good.write_text("the\tD\ncat\tN\ndog\tN\nsat\tV\n", encoding="utf-8")
    r = evaluate(load_clustering(good), frames_dir)
    # tokens: <s>_cat holds the x2 (D), the_sat holds cat, dog (N): every same-frame pair shares a cluster
    assert (r.substitutable.precision, r.substitutable.recall) == (1.0, 1.0)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"the": "N", "cat": "N", "dog": "V"}), encoding="utf-8")
    r = evaluate(load_clustering(bad), frames_dir)
    # cells (<s>_cat, N) 2, (the_sat, N) 1, (the_sat, V) 1: shared 2, cluster pairs N 3*2, frame pairs 2 + 2
    assert r.substitutable.precision == pytest.approx(2 / 6) and r.substitutable.recall == pytest.approx(
        2 / 4
    )
    typed = evaluate(load_clustering(bad), frames_dir, unit="type")  # sets {the}, {cat, dog}
    assert typed.substitutable.shared_pairs == 0 and typed.substitutable.cluster_pairs == 2


def test_token_clustering_annotates_frames(frames_dir: Path, tmp_path: Path) -> None:
    occ = pq.read_table(frames_dir / "occurrences.parquet").to_pylist()
    middles = {(r["word"], r["frame_id"]): f"{r['doc_id']}#{r['sent']}:{r['index']}" for r in occ}
    cat, dog = middles["cat", "the|sat"], middles["dog", "the|sat"]
    assert cat == "test.txt:1#0:1" and dog == "test.txt:2#0:1"
    before_dog = dog.rsplit(":", 1)[0] + ":0"  # the "the" token before "dog"
    rows = [(cat, "cat", "N"), (dog, "dog", "N"), ("test.txt:1#0:0", "the", "D")]

    def score(the_before_dog: str) -> tuple[float, float]:
        path = tmp_path / f"tokens-{the_before_dog}.tsv"
        lines = [*rows, (before_dog, "the", the_before_dog)]
        path.write_text("".join(f"{t}\t{w}\t{c}\n" for t, w, c in lines), encoding="utf-8")
        r = evaluate(load_clustering(path), frames_dir)
        return r.substitutable.precision, r.substitutable.recall

    # both "the" tokens in D: one annotated frame D_the|sat_? holds (cat, N), (dog, N) -> SP = SR = 1
    assert score("D") == (1.0, 1.0)
    # the "the" before dog in another cluster: the frame splits in two, the pair is lost
    assert score("E") == (0.0, 0.0)


def test_clustering_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "c.tsv"
    bad.write_text("a\tb\tc\td\n", encoding="utf-8")
    with pytest.raises(InputError, match="tab-separated"):
        load_clustering(bad)
    with pytest.raises(InputError, match="no such clustering"):
        load_clustering(tmp_path / "missing.tsv")


def test_cli_generate_and_eval(tiny: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    res = runner.invoke(
        app, ["frames", "build", str(tiny["test"]), "--stats", str(tiny["stats"]), "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "S-clusters" in res.output and (out / "sclusters.parquet").is_file()
    clus = tmp_path / "c.tsv"
    clus.write_text("cat\tN\ndog\tN\n", encoding="utf-8")
    res = runner.invoke(
        app,
        [
            "eval",
            "clusters",
            "--frames",
            str(out),
            "--clustering",
            str(clus),
            "--gold",
            str(tiny["stats"]),
            "--out",
            str(tmp_path / "ev"),
        ],
    )
    assert res.exit_code == 0, res.output
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert [r["unclustered"] for r in results["rows"]] == ["merge", "split"]
    assert results["rows"][1]["sp"] == 1.0 and results["rows"][1]["gold_matched_accuracy"] == 1.0
    assert (tmp_path / "ev" / "sp_vs_pp.png").is_file()
    res = runner.invoke(app, ["eval", "clusters", "--frames", str(out)])
    assert res.exit_code == 2 and "nothing to evaluate" in res.output


def test_frequent_frames_baseline(tiny: dict[str, Path]) -> None:
    # within sentences, no markers: the_sat {cat, dog} twice, the_ran {cat} once
    ff = frequent_frames(CorpusSpec(path=str(tiny["test"])), n_frames=1)
    assert ff.clusters == {"the_sat": frozenset({"cat", "dog"})}
    assert ff.meta["frames"] == [{"frame": "the _ sat", "count": 2}]
    two = frequent_frames(CorpusSpec(path=str(tiny["test"])), n_frames=2)
    assert two.clusters["the_ran"] == frozenset({"cat"}) and two.n_clusters == 2  # cat is in both


def test_split_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(5):
        (src / f"{i}.txt").write_text(f"line {i}\n", encoding="utf-8")
    parts = split_files(src, tmp_path / "split", train_every=2)
    assert parts == {"train": ["0.txt", "2.txt", "4.txt"], "test": ["1.txt", "3.txt"]}
    assert (tmp_path / "split" / "test" / "3.txt").read_text() == "line 3\n"
    with pytest.raises(InputError, match="at least 2"):
        split_files(src, tmp_path / "bad", train_every=1)
