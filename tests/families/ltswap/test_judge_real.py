"""A real judge run: `corpusbench ltswap judge` with the default judge (Qwen2.5-Coder-1.5B-Instruct,
transformers backend, CPU) on a small item file, under the default (pointwise) rule."""

import json

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app

ITEMS = [
    {  # valid: each swap makes its sentence senseless
        "id": "valid-ws",
        "subtask": "wordswap",
        "w1": "boat",
        "w2": "road",
        "s1_good": "We rowed the small boat across the lake before the storm came in.",
        "s2_good": "The muddy road to the village was closed after the heavy rain last week.",
        "s1_bad": "We rowed the small road across the lake before the storm came in.",
        "s2_bad": "The muddy boat to the village was closed after the heavy rain last week.",
    },
    {  # valid: each swap breaks subject-verb agreement
        "id": "valid-agr",
        "subtask": "agrswap",
        "w1": "dog",
        "w2": "dogs",
        "s1_good": "The dog is hungry.",
        "s2_good": "The dogs are hungry.",
        "s1_bad": "The dogs is hungry.",
        "s2_bad": "The dog are hungry.",
    },
    {  # invalid: no agreement marker, both swaps stay grammatical
        "id": "invalid-agr",
        "subtask": "agrswap",
        "w1": "dog",
        "w2": "dogs",
        "s1_good": "The dog looked hungry in the morning.",
        "s2_good": "The dogs looked hungry in the morning.",
        "s1_bad": "The dogs looked hungry in the morning.",
        "s2_bad": "The dog looked hungry in the morning.",
    },
]


@pytest.mark.slow
def test_default_judge_keeps_valid_quadruplets_and_ranks_them_above_invalid_ones(tmp_path, judge_model_dir):
    import torch

    torch.set_num_threads(2)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(x) + "\n" for x in ITEMS), encoding="utf-8")
    out = tmp_path / "verdicts.jsonl"
    args = ["ltswap", "judge", str(items), "--out", str(out), "--llm-backend", "transformers"]
    r = CliRunner().invoke(
        app, [*args, "--llm-cache", str(tmp_path / "c.sqlite")]
    )  # default model: the judge
    assert r.exit_code == 0, r.output
    rows = {x["id"]: x for x in map(json.loads, out.read_text().splitlines())}
    assert rows["valid-ws"]["keep"] and rows["valid-agr"]["keep"], rows
    assert all(x["filter_rule"] == "pointwise" and len(x["margins"]) == 2 for x in rows.values())
    assert min(rows["valid-agr"]["margins"]) > max(rows["invalid-agr"]["margins"]), rows
