"""Loading minimal pairs from files, folders of configs and saved datasets; bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from corpusbench.errors import InputError
from corpusbench.eval.data import load_pairs

ROWS = [
    {
        "sentence_good": "The cat sits.",
        "sentence_bad": "The cat sit.",
        "paradigm": "agr",
        "bin": 1,
        "span_good": [8, 12],
        "span_bad": [8, 11],
        "freq_subj": 4,
    },
    {
        "sentence_good": "The dogs bark.",
        "sentence_bad": "The dogs barks.",
        "paradigm": "agr",
        "bin": 2,
        "span_good": None,
        "span_bad": None,
        "freq_subj": 9,
    },
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_csv_parquet_agree(tmp_path):
    df = pd.DataFrame(ROWS).drop(columns=["span_good", "span_bad"])
    a = load_pairs(str(write_jsonl(tmp_path / "p.jsonl", ROWS)))
    df.to_csv(tmp_path / "p.csv", index=False)
    df.to_parquet(tmp_path / "p.parquet")
    b, c = load_pairs(str(tmp_path / "p.csv")), load_pairs(str(tmp_path / "p.parquet"))
    assert a.group_column == "paradigm" and a.configs == ("default",)
    assert a.pairs[0].good_span == (8, 12) and a.pairs[1].good_span is None and a.pairs[0].bin == 1
    assert a.pairs[0].group == "agr" and dict(a.pairs[0].meta) == {"freq_subj": 4.0}
    assert [(p.good, p.bad, p.group, p.bin) for p in b.pairs] == [
        (p.good, p.bad, p.group, p.bin) for p in c.pairs
    ]
    assert [p.id for p in a.pairs] == ["default:0", "default:1"]
    assert a.fingerprint == load_pairs(str(tmp_path / "p.jsonl")).fingerprint != b.fingerprint


def test_folder_of_configs_and_selection(tmp_path):
    for cfg in ("cfg_a", "cfg_b"):
        (tmp_path / "rel" / cfg).mkdir(parents=True)
        pd.DataFrame(ROWS).drop(columns=["span_good", "span_bad"]).to_parquet(
            tmp_path / "rel" / cfg / "test-00000.parquet"
        )
    (tmp_path / "blimp").mkdir()
    write_jsonl(tmp_path / "blimp" / "anaphor.jsonl", ROWS)
    rel = load_pairs(str(tmp_path / "rel"))
    assert rel.configs == ("cfg_a", "cfg_b") and len(rel.pairs) == 4
    assert load_pairs(str(tmp_path / "rel"), configs=["cfg_b"]).configs == ("cfg_b",)
    blimp = load_pairs(str(tmp_path / "blimp"))
    assert blimp.configs == ("anaphor",) and blimp.pairs[0].id == "anaphor:0"
    with pytest.raises(InputError, match="unknown config"):
        load_pairs(str(tmp_path / "rel"), configs=["nope"])


def test_saved_hf_dataset(tmp_path):
    import datasets

    ds = datasets.Dataset.from_pandas(pd.DataFrame(ROWS).drop(columns=["span_good", "span_bad"]))
    datasets.DatasetDict({"test": ds}).save_to_disk(str(tmp_path / "saved"))
    got = load_pairs(str(tmp_path / "saved"))
    assert len(got.pairs) == 2 and got.pairs[1].good == "The dogs bark."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "no rows"),
        ('{"sentence_good": "A b.", "bad": "B a."}\n', "missing column.*sentence_bad"),
        ('{"sentence_good": "A b.", "sentence_bad": ""}\n', "row 1: sentence_bad is empty"),
        ('{"sentence_good": "A b.", "sentence_bad": "B a.", "span_good": [0, 99]}\n', "outside the sentence"),
        (
            '{"sentence_good": "A b.", "sentence_bad": "B a."}\n'
            '{"sentence_good": "A b.", "sentence_bad": "B a.", "id": 1}\n',
            "row 1: id is empty",
        ),
        (
            '{"sentence_good": "A b.", "sentence_bad": "B a.", "id": 1}\n'
            '{"sentence_good": "A c.", "sentence_bad": "C a.", "id": 1}\n',
            "duplicate pair id",
        ),
    ],
)
def test_bad_input_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_pairs(str(path))
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_missing_path_and_bad_hub_name(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_pairs(str(tmp_path / "nope.jsonl"))
    with pytest.raises(InputError, match="no such file"):
        load_pairs("not-a-hub-name")
    with pytest.raises(InputError, match="unsupported file type"):
        load_pairs(str(write_jsonl(tmp_path / "x.txt", ROWS)))


def test_limit_is_a_seeded_sample_stratified_over_bins():
    from corpusbench.eval.data import select_rows

    df = pd.DataFrame({"bin": [0] * 50 + [1] * 5 + [2] * 5, "group": ["g"] * 60, "i": range(60)})
    picked = select_rows(df, 9, ["group", "bin"], seed=3)
    assert picked["bin"].value_counts().to_dict() == {0: 3, 1: 3, 2: 3}  # first-N would be all bin 0
    assert list(picked["i"]) == sorted(picked["i"])  # table order kept
    assert picked.equals(select_rows(df, 9, ["group", "bin"], seed=3))
    assert not picked.equals(select_rows(df, 9, ["group", "bin"], seed=4))
    assert list(select_rows(df, 4, ["bin"], mode="first")["i"]) == [0, 1, 2, 3]
    assert select_rows(df, 100, ["bin"]) is df


def test_release_plan_names_skipped_configs():
    from corpusbench.errors import ConfigError
    from corpusbench.eval.release import ConfigEntry, Release
    from corpusbench.eval.runner import plan_release

    rel = Release(
        source="r",
        revision=None,
        root=None,
        configs=(
            ConfigEntry(name="fc", task="minimal_pairs", roles={"paradigm": "paradigm"}),
            ConfigEntry(name="frames-sclusters", task="other"),
            ConfigEntry(name="weird", task="ranking"),
        ),
    )
    todo, skipped = plan_release(rel, ())
    assert [c.name for c in todo] == ["fc"] and todo[0].kind == "fitclams"
    assert "eval clusters" in skipped["frames-sclusters"] and "not scored" in skipped["weird"]
    assert plan_release(rel, ("fc",))[1] == {}
    with pytest.raises(ConfigError, match="unknown config"):
        plan_release(rel, ("nope",))
