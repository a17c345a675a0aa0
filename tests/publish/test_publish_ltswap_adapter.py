"""The ``ltswap`` release adapter: quadruplets -> minimal-pair rows (plain and prefix), spec errors.

The end-to-end build with a real LLM and the eval of the prefix config are in
tests/families/ltswap/test_ltswap_release.py (they share the LT-Swap vLLM server fixture).
"""

from __future__ import annotations

import pandas as pd
import pytest

from corpusbench.errors import ConfigError
from corpusbench.eval.data import table_pairs
from corpusbench.families.ltswap.records import Quadruplet
from corpusbench.families.ltswap.release import build_configs, pair_rows
from corpusbench.publish.plugins import GeneratorContext, ResolvedCorpus
from corpusbench.publish.spec import ReleaseSpec


def _quad(n: int, contexts: bool) -> dict:
    return Quadruplet(
        id=f"wordswap-q{n}",
        subtask="wordswap",
        rule="NOUN",
        bin=3,
        w1="lantern",
        w2="harvest",
        tag1="NN",
        tag2="NN",
        freq_w1=5,
        freq_w2=6,
        s1_good="The lantern shone in the dark.",
        s2_good="The harvest was gathered in.",
        s1_bad="The harvest shone in the dark.",
        s2_bad="The lantern was gathered in.",
        context1="He took a lantern to the gate." if contexts else "",
        context2="The harvest is past." if contexts else "",
        filter_margin=None,
    ).as_dict()


@pytest.fixture
def quads() -> pd.DataFrame:
    return pd.DataFrame([_quad(1, True), _quad(2, False)])


def test_two_pairs_per_quadruplet(quads):
    rows = pair_rows(quads, prefix=False)
    assert len(rows) == 4 and "prefix_good" not in rows
    first, second = rows.iloc[0], rows.iloc[1]
    assert (first.sentence_good, first.sentence_bad) == (
        "The lantern shone in the dark.",
        "The harvest shone in the dark.",
    )
    assert (first.word_good, first.word_bad, first.pair_id) == ("lantern", "harvest", "wordswap-q1-1")
    assert (second.sentence_good, second.sentence_bad) == (
        "The harvest was gathered in.",
        "The lantern was gathered in.",
    )
    assert (second.word_good, second.word_bad, second.pair_id) == ("harvest", "lantern", "wordswap-q1-2")
    assert set(rows["bin_label"]) == {"[4,8)"} and set(rows["group"]) == {"NOUN"}


def test_prefix_rows_carry_the_context_of_the_word_each_sentence_holds(quads):
    rows = pair_rows(quads, prefix=True)
    assert list(rows["pair_id"]) == ["wordswap-q1-1", "wordswap-q1-2"]  # q2 has no contexts: left out
    first, second = rows.iloc[0], rows.iloc[1]
    assert (first.prefix_good, first.prefix_bad) == ("He took a lantern to the gate.", "The harvest is past.")
    assert (second.prefix_good, second.prefix_bad) == (
        "The harvest is past.",
        "He took a lantern to the gate.",
    )
    # the eval runner's reader sees the prefixes (scored as unscored context) and the bin
    pairs = table_pairs(rows, "ltswap-wordswap-prefix", "test", "group")
    assert pairs[0].good_prefix == first.prefix_good and pairs[0].bad_prefix == first.prefix_bad
    assert pairs[0].bin == 3 and pairs[0].group == "NOUN"
    assert dict(pairs[0].meta) == {"freq_w1": 5.0, "freq_w2": 6.0}


def _ctx(tmp_path, llm: dict | None, params: dict, corpus: bool = True) -> GeneratorContext:
    (tmp_path / "c").mkdir(exist_ok=True)
    raw = {
        "name": "lt",
        "version": "0.1.0",
        "repo_id": "t/lt",
        "corpora": {"c": {"path": str(tmp_path / "c"), "language": "en"}},
        "families": [{"name": "ltswap", **({"corpus": "c"} if corpus else {}), "params": params}],
        **({"llm": llm} if llm else {}),
    }
    spec = ReleaseSpec.from_dict(raw)
    resolved = ResolvedCorpus(key="c", path=tmp_path / "c", stats=None, language="en", fingerprint={})
    return GeneratorContext(
        spec=spec,
        generator=spec.families[0],
        corpora={"c": resolved},
        corpus=resolved if corpus else None,
        work_dir=tmp_path / "work",
        seed=0,
        llm=spec.llm,
        base_dir=tmp_path,
    )


@pytest.mark.parametrize(
    ("llm", "params", "corpus", "message"),
    [
        (None, {}, True, "add an `llm:` block"),
        ({"model": "m", "sampling": {"temperature": 1}}, {}, True, "llm.sampling"),
        ({"model": "m"}, {"max_per_bin": 2, "bogus": 1}, True, "unknown key.*bogus"),
        ({"model": "m"}, {"subtasks": ["wordswap", "nope"]}, True, "unknown subtask"),
        ({"model": "m"}, {}, False, "ltswap needs a corpus"),
        ({"model": "m"}, {"per_cell": 0}, True, "params.per_cell must be a whole number of at least 1"),
    ],
)
def test_spec_errors_are_one_clear_line(tmp_path, llm, params, corpus, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        build_configs(_ctx(tmp_path, llm, params, corpus))
    assert "\n" not in str(e.value)
    assert not (tmp_path / "work" / "run").exists()


def test_card_lists_the_cells_of_a_per_cell_run():
    from corpusbench.families.ltswap.release import cells_markdown

    cell = {"subtask": "agrswap", "target": 3, "kept": 1, "drawn": 4, "left": 0}
    meta = {
        "rounds": [{}, {}],
        "cells": [
            {
                **cell,
                "bin": 2,
                "bin_label": "2-3",
                "length": "LONG",
                "reason": "candidates ran out (4 drawn)",
            },
            {**cell, "bin": 2, "bin_label": "2-3", "length": "SHORT", "kept": 3, "reason": ""},
            {**cell, "subtask": "wordswap", "bin": 1, "bin_label": "1", "length": "", "reason": ""},
        ],
    }
    md = cells_markdown(meta, "agrswap")
    assert "`per_cell` 3, 2 round(s)" in md
    assert "| 2-3 LONG | 3 | 1 | 4 | 0 | candidates ran out (4 drawn) |" in md
    assert "| 2-3 SHORT | 3 | 3 | 4 | 0 | — |" in md and "wordswap" not in md
    assert "Bins without candidates:" in md and "2-3," not in md.split("Bins without")[1]
    assert "not judged" not in md and "Sentences the writer wrote" not in md  # a run that recorded neither
    meta["drop_reasons"] = [
        {"subtask": "agrswap", "bin": 2, "reason": "cell_full", "count": 2},
        {"subtask": "wordswap", "bin": 1, "reason": "cell_full", "count": 5},
    ]
    meta["sentences"] = {"agrswap": {"written": 8, "passed": 6, "share": 0.75}}
    md = cells_markdown(meta, "agrswap")
    assert "2 drafts beyond it were not judged (`cell_full`)" in md
    assert "Sentences the writer wrote for this subtask: 8, of which 6 (75%) passed the checks." in md
    assert cells_markdown({"cells": None}, "agrswap") == ""
