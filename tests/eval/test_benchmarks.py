"""The papers' numbers (``benchmarks``) against hand-computed values.

LT-Swap tables come from the real release adapter (``pair_rows`` over ``Quadruplet`` records) and are
read through the roles the adapter declares; the scores are set by hand so every cell is known.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from corpusbench.eval.benchmarks import TIE_RULE, fisher_mean
from corpusbench.eval.data import table_pairs
from corpusbench.eval.records import PairScore
from corpusbench.eval.release import ConfigEntry
from corpusbench.families.ltswap.records import Quadruplet
from corpusbench.families.ltswap.release import pair_rows
from corpusbench.families.ltswap.score import ltswap_benchmark, ltswap_category, ltswap_stat

# quad -> (subtask, rule, bin, correct pairs out of 2, ties)
PLAN = {
    "q1": ("wordswap", "NOUN", 1, 1, 0),
    "q2": ("wordswap", "VERB", 1, 2, 0),
    "q3": ("wordswap", "NOUN", 2, 2, 0),
    "q4": ("wordswap", "NOUN", 0, 0, 0),  # WordSwap has no bin 0: left out
    "q5": ("inflectionswap", "NOUN", 0, 1, 0),
    "q6": ("inflectionswap", "VERB", 1, 0, 1),  # a zero cell is 0.0 (not NaN); one tie, not a win
    "q7": ("inflectionswap", "NOUN", 2, 2, 0),
    "q8": ("agreementswap", "SVSHORT", 0, 2, 0),
    "q9": ("agreementswap", "DET", 0, 0, 0),  # SHORT with SVSHORT: 2/4
    "q10": ("agreementswap", "SVLONG", 0, 2, 0),
    "q11": ("agreementswap", "ANAPHORALONG", 2, 1, 0),
}
# what the adapter declares (families/ltswap/release.py `roles=`)
ROLES = {"id": "pair_id", "group": "group", "bin": "bin", "quadruplet": "quadruplet_id"}


def _quad(qid: str) -> dict:
    sub, rule, b, *_ = PLAN[qid]
    return Quadruplet(
        id=qid,
        subtask=sub,  # type: ignore[arg-type]
        rule=rule,
        bin=b,
        w1=f"{qid}a",
        w2=f"{qid}b",
        tag1="NN",
        tag2="NN",
        freq_w1=2**b,
        freq_w2=2**b,
        s1_good=f"The {qid}a shone.",
        s2_good=f"The {qid}b fell.",
        s1_bad=f"The {qid}b shone.",
        s2_bad=f"The {qid}a fell.",
        context1=f"A {qid}a here.",
        context2=f"A {qid}b there.",
    ).as_dict()


def _configs(prefix_correct: bool = True) -> tuple[list[ConfigEntry], dict]:
    entries, scored = [], {}
    for sub in ("wordswap", "inflectionswap", "agreementswap"):
        quads = pd.DataFrame([_quad(q) for q, p in PLAN.items() if p[0] == sub])
        for prefix in (False, True) if sub == "wordswap" else (False,):
            name = f"ltswap-{sub}" + ("-prefix" if prefix else "")
            roles = {**ROLES, f"ltswap_rule:{sub}": "group"}
            if prefix:
                roles |= {"prefix_good": "prefix_good", "prefix_bad": "prefix_bad"}
            entry = ConfigEntry(
                name=name,
                task="minimal_pairs",
                roles={"good": "sentence_good", "bad": "sentence_bad", **roles},
            )
            pairs = table_pairs(pair_rows(quads, prefix), name, name, None, entry.roles)
            rows = []
            for p in pairs:
                q = dict(p.meta)["quadruplet"]
                k = int(p.id.rsplit("-", 1)[1])
                _, _, _, n_ok, ties = PLAN[q]
                good = -1.0 if (prefix and prefix_correct) or k <= n_ok else (-2.0 if k <= ties else -3.0)
                rows.append(
                    (
                        p,
                        PairScore(
                            id=p.id,
                            config=name,
                            logprob_good=good,
                            logprob_bad=-2.0,
                            n_tokens_good=1,
                            n_tokens_bad=1,
                            group=p.group,
                            bin=p.bin,
                        ),
                    )
                )
            entries.append(entry)
            scored[name] = rows
    return entries, scored


def test_ltswap_categories():
    assert ltswap_category("agreementswap", "DET") == "AG-SHORT"
    assert ltswap_category("agreementswap", "ANAPHORALONG") == "AG-LONG"
    assert ltswap_category("wordswap", "VERB") == "WS-VERB"


def test_ltswap_score_cells_drop_and_spearman_by_hand():
    entries, scored = _configs()
    assert entries[0].kind == "ltswap" and entries[1].is_prefix_variant
    lt = ltswap_benchmark(entries, scored)
    # cells: WS1 .75, WS2 1, IS0 .5, IS1 0, IS2 1, AG0 .75 (SHORT 2/4, LONG 2/2), AG2 .5 -> 4.5 / 7
    assert lt["score"] == pytest.approx(4.5 / 7)
    assert lt["cells"]["inflectionswap|1"] == 0.0 and "wordswap|0" not in lt["cells"]
    assert lt["per_bin"] == pytest.approx({"0": 0.625, "1": 0.375, "2": 2.5 / 3})
    assert lt["per_subtask"] == pytest.approx(
        {"wordswap": 0.875, "inflectionswap": 0.5, "agreementswap": 0.625}
    )
    assert lt["per_category"] == pytest.approx(
        {"WS-NOUN": 0.75, "WS-VERB": 1.0, "IS-NOUN": 0.75, "IS-VERB": 0.0, "AG-SHORT": 0.5, "AG-LONG": 0.75}
    )
    # Table 2: each series' own lowest bin minus its highest (bin 0 for the score, IS, AG; bin 1 for WS)
    assert lt["accuracy_drop"] == pytest.approx(0.625 - 2.5 / 3)
    assert lt["accuracy_drop_subtask"] == pytest.approx(
        {"wordswap": 0.75 - 1.0, "inflectionswap": 0.5 - 1.0, "agreementswap": 0.75 - 0.5}
    )
    ends = {"score": [0, 2], "wordswap": [1, 2], "inflectionswap": [0, 2], "agreementswap": [0, 2]}
    assert lt["drop_bins"] == ends
    assert lt["spearman_bin"]["rho"] == pytest.approx(0.5)  # ranks (2, 1, 3) vs (1, 2, 3)
    assert lt["n"] == 20 and lt["n_ties"] == 1 and lt["tie_share"] == 1 / 20  # 22 pairs minus WordSwap bin 0
    # the tie (IS-VERB bin 1: 0 wins, 1 tie of 2) counted as half: that cell .25 instead of 0
    assert lt["ties_half"]["score"] == pytest.approx(4.75 / 7)
    assert lt["ties_half"]["per_bin"]["1"] == pytest.approx((0.75 + 0.25) / 2)
    # 95% intervals: Wilson for one cell (0 of 2 is not [0, 0]), MOVER for averages, around the value
    assert lt["ci95"]["cells"]["inflectionswap|1"] == pytest.approx([0.0, 3.8415 / 5.8415], abs=1e-4)
    assert lt["ci95"]["score"][0] < lt["score"] < lt["ci95"]["score"][1]
    # the prefix variant is reported apart: all correct -> 1.0; gain over bins 1, 2 = mean(.25, 0)
    assert lt["prefix"]["score"] == 1.0 and lt["prefix"]["gain_lowest_3_bins"] == pytest.approx(0.125)
    assert lt["configs"] == ["ltswap-agreementswap", "ltswap-inflectionswap", "ltswap-wordswap"]
    # compare recomputes the same score from the category cells (what its bootstrap redraws)
    acc = {k: v["accuracy"] for k, v in lt["category_cells"].items()}
    assert ltswap_stat(acc) == pytest.approx(lt["score"])
    assert ltswap_stat(acc, bin_=0) == pytest.approx(0.625)
    assert ltswap_stat(acc, subtask="inflectionswap") == pytest.approx(0.5)


def test_fisher_mean_and_tie_rule():
    assert fisher_mean([0.5, None]) == pytest.approx(0.5)
    assert fisher_mean([0.2, 0.6]) == pytest.approx(math.tanh((math.atanh(0.2) + math.atanh(0.6)) / 2))
    assert fisher_mean([None]) is None
    assert "not a win" in TIE_RULE


def test_fitclams_train_corpus_picks_that_corpus_bins_and_counts():
    """A two-corpus FIT-CLAMS config (as `fitclams --corpus a=… --corpus b=…` writes it): per-bin accuracy
    and the OLS use the named training corpus's columns; an unknown corpus is an error naming the config."""
    from corpusbench.errors import ConfigError
    from corpusbench.eval.records import MinimalPair
    from corpusbench.families.fitclams.score import fitclams_benchmark

    roles = {"good": "sentence_good", "bad": "sentence_bad", "paradigm": "paradigm", "bin": "noun_bin__a"}
    for c in ("a", "b"):
        roles |= {f"noun_bin:{c}": f"noun_bin__{c}", f"verb_bin:{c}": f"verb_bin__{c}"}
    entry = ConfigEntry(name="fc-simple_agrmt", task="minimal_pairs", roles=roles)
    rows = []
    for i in range(8):  # corpus a puts pairs 0-3 in noun bin 0, 4-7 in bin 1; corpus b the other way round
        meta = {"paradigm": "simple_agrmt", "noun_bin:a": i // 4, "noun_bin:b": 1 - i // 4}
        meta |= {"verb_bin:a": 0, "verb_bin:b": 2}
        for c, k in (("a", 1), ("b", 2)):
            meta |= {f"verb_count:{c}": i + k, f"subject_good_count:{c}": (i * 3) % 5 + k}
            meta |= {f"subject_bad_count:{c}": (i * 7) % 4 + k}
        p = MinimalPair(id=f"p{i}", good="g", bad="b", config=entry.name, meta=tuple(meta.items()))
        good = -1.0 if i < 3 else -3.0  # pairs 0, 1, 2 correct
        s = PairScore(id=p.id, config=entry.name, logprob_good=good, logprob_bad=-2.0, n_tokens_good=1,
                      n_tokens_bad=1)  # fmt: skip
        rows.append((p, s))
    scored = {entry.name: rows}
    own = fitclams_benchmark([entry], scored)  # default: the config's own corpus (its `bin` column: a)
    assert own["counts_corpus"] == {entry.name: "a"}
    assert {k: v["accuracy"] for k, v in own["per_noun_bin"].items()} == {"0": 0.75, "1": 0.0}
    b = fitclams_benchmark([entry], scored, train_corpus="b")
    assert b["train_corpus"] == "b" and b["counts_corpus"] == {entry.name: "b"}
    assert {k: v["accuracy"] for k, v in b["per_noun_bin"].items()} == {"0": 0.0, "1": 0.75}
    assert set(b["per_verb_bin"]) == {"2"} and b["delta_ols"]["full"]["n"] == 8
    assert b["score"] == own["score"] == 3 / 8  # the paradigm accuracy does not depend on the corpus
    with pytest.raises(ConfigError, match=r"fc-simple_agrmt.*a, b"):
        fitclams_benchmark([entry], scored, train_corpus="c")


def _fc_pairs(lex: str, paradigm: str, deltas: list[float], counts: list[int]) -> tuple[ConfigEntry, list]:
    """A FIT-CLAMS config of lexicon ``lex`` as the release adapter declares it, with set ΔP per pair."""
    from corpusbench.eval.records import MinimalPair

    roles = {"good": "sentence_good", "bad": "sentence_bad", "paradigm": "paradigm"}
    roles["bin"] = f"noun_bin__{lex}"
    for role, col in (("noun_bin", "noun_bin"), ("verb_bin", "verb_bin"), ("verb_count", "critical_count")):
        roles[f"{role}:{lex}"] = f"{col}__{lex}"
    roles |= {f"subject_good_count:{lex}": f"g__{lex}", f"subject_bad_count:{lex}": f"b__{lex}"}
    entry = ConfigEntry(name=f"fitclams-{lex}-{paradigm}", task="minimal_pairs", roles=roles)
    rows = []
    for i, (d, c) in enumerate(zip(deltas, counts, strict=True)):
        meta = {"paradigm": paradigm, f"noun_bin:{lex}": i % 2, f"verb_bin:{lex}": i, f"verb_count:{lex}": c}
        meta |= {f"subject_good_count:{lex}": 5, f"subject_bad_count:{lex}": 3}
        pid = f"{lex}{paradigm}{i}"
        p = MinimalPair(id=pid, good="g", bad="b", config=entry.name, meta=tuple(meta.items()))
        s = PairScore(id=p.id, config=entry.name, logprob_good=-10 + d, logprob_bad=-10.0, n_tokens_good=1,
                      n_tokens_bad=1)  # fmt: skip
        rows.append((p, s))
    return entry, rows


def test_fitclams_reports_each_evaluation_lexicon_apart():
    """Two pair sets (lexicons A and B, as a release with two FIT-CLAMS corpora): accuracy and OLS per
    lexicon (Table 4, §6), never pooled. Verb counts 2, 4, 8 are equally spaced in ln, so each fit is the
    hand-computed y = (1, 2, 4) on x = (1, 2, 3): R² = 27/28 (tests/eval/test_metrics.py); pooled, A's
    rising and B's falling ΔP cancel (slope 0, R² 0)."""
    from corpusbench.eval.metrics import ols, smoothed_log_count
    from corpusbench.families.fitclams.score import fitclams_benchmark, fitclams_lexicon

    parts = [
        _fc_pairs("A", "simple_agrmt", [1.0, 2.0, 4.0], [2, 4, 8]),
        _fc_pairs("A", "vp_coord", [1.0, 0.0], [2, 2]),  # one win, one tie
        _fc_pairs("B", "simple_agrmt", [4.0, 2.0, 1.0], [2, 4, 8]),
    ]
    entries, scored = [e for e, _ in parts], {e.name: rows for e, rows in parts}
    assert fitclams_lexicon(entries[0], scored[entries[0].name]) == "A"
    fc = fitclams_benchmark(entries, scored)
    assert set(fc["lexicons"]) == {"A", "B"} and "score" not in fc  # no pooled score
    a, b = fc["lexicons"]["A"], fc["lexicons"]["B"]
    assert a["score"] == pytest.approx((1.0 + 0.5) / 2) and b["score"] == 1.0
    assert a["score_ties_half"] == pytest.approx((1.0 + 0.75) / 2) and a["n_ties"] == 1 and fc["n_ties"] == 1
    assert a["configs"] == ["fitclams-A-simple_agrmt", "fitclams-A-vp_coord"]
    for one, corpus in ((a, "A"), (b, "B")):
        o = one["delta_ols"]
        assert o["counts_corpus"] == corpus and o["full"]["n"] == 3
        assert o["full"]["r2"] == pytest.approx(27 / 28) and set(o["full"]["coef"]) == {"const", "verb"}
    x = [smoothed_log_count(c) for c in (2, 4, 8)] * 2
    assert ols([1.0, 2.0, 4.0, 4.0, 2.0, 1.0], {"verb": x})["r2"] == pytest.approx(0.0, abs=1e-12)
    # compare: one set of columns per lexicon, each with its interval
    from corpusbench.eval.compare import Run, comparison_table

    table = comparison_table([Run(label="m", path=None, results={"benchmarks": {"fitclams": fc}})])
    row = table.rows[0]
    assert {"FIT-CLAMS A", "FIT-CLAMS B", "A simple_agrmt", "B simple_agrmt", "A ΔP OLS R²"} <= set(row)
    assert row["FIT-CLAMS A (ties ½)"][0] == pytest.approx(0.875) and "FIT-CLAMS" not in row
    assert row["A ΔP OLS R²"][0] == pytest.approx(27 / 28)
    assert row["B simple_agrmt"][1] == pytest.approx([3 / 6.8415, 1.0], abs=1e-4)  # Wilson 3/3: n/(n+z²)
    assert any("Wilson" in n for n in table.notes)


def test_compare_names_each_runs_cac_window(tmp_path):
    from corpusbench.eval.runs import Run
    from corpusbench.families.cac.compare import _cac_window

    def run(cfgs: dict) -> Run:
        return Run(label="m", path=tmp_path, results={"benchmarks": {"cac": {"configs": cfgs}}})

    assert _cac_window(run({"cac-the-a": {"window": 1024, "context_step": 500}})) == "1024 tokens, step 500"
    assert _cac_window(run({"x": {"window": 8192, "context_step": 0}, "y": {"window": 8192}})) == (
        "8192 tokens, step 0"
    )
    assert _cac_window(Run(label="n", path=tmp_path, results={"benchmarks": {}})) is None


def test_compare_columns_in_bin_order():
    from corpusbench.eval.compare import Run, comparison_table

    lt = {"score": 0.5, "per_subtask": {}, "per_category": {}, "category_cells": {}, "accuracy_drop": None}
    lt |= {"spearman_bin": {"rho": None}, "spearman_bin_subtask": {}}
    lt["per_bin"] = {"0": 0.5, "1": 0.5, "10": 0.5, "2": 0.5}  # as JSON sorts the keys
    table = comparison_table([Run(label="m", path=None, results={"benchmarks": {"ltswap": lt}})])
    assert [c for c in table.columns if c.startswith("LT bin")] == [
        "LT bin 0",
        "LT bin 1",
        "LT bin 2",
        "LT bin 10",
    ]
