"""The dataset card and the attached evaluations, checked with the real parsers (huggingface_hub,
datasets, lm-eval-harness) on the local build folder."""

from __future__ import annotations

import fnmatch
import json
import shutil
from pathlib import Path

import yaml

from corpusbench.io import read_jsonl
from corpusbench.publish import tables

CONFIGS = ["agreement", "anaphora", "determiners"]


def manifest(built: Path) -> dict:
    return json.loads((built / "provenance.json").read_text())


def test_card_header_parses_and_lists_every_config(built: Path) -> None:
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(built / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-4.0" and data["language"] == ["en"]
    assert data["pretty_name"] == "Test pairs" and data["size_categories"] == ["n<1K"]
    assert data["task_categories"] == ["text-classification"]
    assert {"corpusbench", "minimal-pairs"} <= set(data["tags"])
    assert [c["config_name"] for c in data["configs"]] == CONFIGS
    files = [p.relative_to(built).as_posix() for p in built.rglob("*.parquet")]
    for c in data["configs"]:
        (entry,) = c["data_files"]
        assert entry["split"] == "test"
        assert fnmatch.filter(files, entry["path"]) == [
            f"data/{c['config_name']}/test-00000-of-00001.parquet"
        ]


def test_card_sections(built: Path) -> None:
    text = (built / "README.md").read_text()
    body = text.split("---", 2)[2]
    for heading in (
        "## Dataset description",
        "## How it was built",
        "### Funnels",
        "## How to load it",
        "## How to evaluate",
        "## Citation",
        "## Limitations",
    ):
        assert heading in body
    assert 'load_dataset("tester/test-pairs", "agreement", revision="v0.1.0", split="test")' in body
    assert "--include_path tasks/lm_eval --tasks test_pairs" in body
    assert "@article{warstadt2020blimp" in body
    for c in manifest(built)["configs"]:
        assert c["content_fingerprint"] in body


def test_local_load_dataset_uses_the_card_configs(built: Path) -> None:
    import datasets

    for c in manifest(built)["configs"]:
        ds = datasets.load_dataset(str(built), c["name"], split="test")
        assert ds.num_rows == c["rows"]
        assert tables.content_fingerprint(ds.data.table) == c["content_fingerprint"]


def test_corpusbench_eval_config_is_pinned(built: Path) -> None:
    m = manifest(built)
    cfg = yaml.safe_load((built / "eval" / "corpusbench.yaml").read_text())
    assert cfg["dataset"] == {
        "repo_id": "tester/test-pairs",
        "revision": "v0.1.0",
        "split": "test",
        "release_fingerprint": m["release_fingerprint"],
    }
    assert [(c["name"], c["content_fingerprint"]) for c in cfg["configs"]] == [
        (c["name"], c["content_fingerprint"]) for c in m["configs"]
    ]
    assert cfg["configs"][0]["roles"] == {
        "bad": "sentence_bad",
        "good": "sentence_good",
        "group": "UID",
        "id": "pair_id",
    }


def test_babylm_jsonl_is_blimp_shaped(built: Path) -> None:
    for c in manifest(built)["configs"]:
        rows = list(read_jsonl(built / "babylm" / f"{c['name']}.jsonl"))
        assert len(rows) == c["rows"]
        for row in rows:
            assert {"sentence_good", "sentence_bad", "field", "UID", "linguistics_term"} <= set(row)
            assert row["UID"] == c["name"] and row["field"] == "fixture"


def test_lm_eval_yaml_structure(built: Path) -> None:
    folder = built / "lm_eval" / "test_pairs"
    template = yaml.safe_load((folder / "_template_yaml").read_text())
    assert template["dataset_path"] == "tester/test-pairs"
    assert template["dataset_kwargs"] == {"revision": "v0.1.0"}
    assert template["test_split"] == "test" and template["output_type"] == "multiple_choice"
    assert template["doc_to_choice"] == "{{[sentence_good, sentence_bad]}}" and template["doc_to_target"] == 0
    group = yaml.safe_load((folder / "_test_pairs.yaml").read_text())
    assert group["group"] == "test_pairs"
    assert group["task"] == [f"test_pairs_{c}" for c in CONFIGS]
    assert group["aggregate_metric_list"][0]["weight_by_size"] is False
    for c in CONFIGS:
        task = yaml.safe_load((folder / f"{c}.yaml").read_text())
        assert task == {"include": "_template_yaml", "dataset_name": c, "task": f"test_pairs_{c}"}


def test_lm_eval_task_manager_loads_a_local_copy(built: Path, tmp_path: Path) -> None:
    """lm-eval's own TaskManager builds the group and tasks; data points at the local parquet files."""
    from lm_eval.tasks import TaskManager

    copy = tmp_path / "lm_eval"
    shutil.copytree(built / "lm_eval", copy)
    for path in (copy / "test_pairs").glob("*.yaml"):
        task = yaml.safe_load(path.read_text())
        if "dataset_name" in task:  # same YAML, but read the parquet file instead of the Hub repo
            config = task.pop("dataset_name")
            task["dataset_path"] = "parquet"
            task["dataset_kwargs"] = {
                "data_files": {"test": str(built / f"data/{config}/test-00000-of-00001.parquet")}
            }
            path.write_text(yaml.safe_dump(task))
    manager = TaskManager(include_path=str(copy), include_defaults=False)
    assert {"test_pairs", *(f"test_pairs_{c}" for c in CONFIGS)} <= set(manager.all_tasks)
    loaded = manager.load(["test_pairs"])
    assert sorted(loaded["group_map"]["test_pairs"]) == [f"test_pairs_{c}" for c in CONFIGS]
    tasks = loaded["tasks"]
    assert sorted(tasks) == [f"test_pairs_{c}" for c in CONFIGS]
    rows = {c["name"]: c["rows"] for c in manifest(built)["configs"]}
    for name, task in tasks.items():
        docs = list(task.test_docs())
        assert len(docs) == rows[name.removeprefix("test_pairs_")]
        assert task.doc_to_choice(docs[0]) == [docs[0]["sentence_good"], docs[0]["sentence_bad"]]
        assert task.doc_to_target(docs[0]) == 0 and task.doc_to_text(docs[0]) == ""
