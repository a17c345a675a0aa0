"""The three filter rules, the item format, the calibration scores and the judge / judge-check commands."""

import json

import pytest
from typer.testing import CliRunner

from corpusbench.cli import app
from corpusbench.errors import ConfigError, InputError
from corpusbench.families.ltswap.calibration import CALIBRATION_SET, read_items, score
from corpusbench.families.ltswap.judging import FilterRule, JudgeItem, judge_items
from corpusbench.llm.records import ChoiceResult
from corpusbench.llm.scripted import ScriptedBackend

ITEM = {
    "id": "q1",
    "subtask": "wordswap",
    "w1": "boat",
    "w2": "road",
    "s1_good": "We rowed the small boat across the lake.",
    "s2_good": "The muddy road to the village was closed.",
    "s1_bad": "We rowed the small road across the lake.",
    "s2_bad": "The muddy boat to the village was closed.",
    "context1": "The fisherman painted his boat blue.",
    "context2": "A long dusty road led to the river.",
}


def ab(choice, lp_a, lp_b):
    return ChoiceResult(id="x", status="ok", choice=choice, path="logprobs", logprobs=(lp_a, lp_b))


def test_always_a_judge_is_kept_by_nobody_but_looks_right_half_the_time():
    always_a = [ab("A", -0.1, -3.0)] * 4  # position bias: "A" whatever the order
    strict = FilterRule("strict").judge(always_a)
    debiased = FilterRule("debiased").judge(always_a)
    assert not strict.keep and strict.reason == "filter_rejected" and strict.first_option == 4
    assert not debiased.keep and debiased.margins == (0.0, 0.0)  # the bias cancels over both orders
    right = [ab("A", -0.1, -3.0), ab("B", -2.0, -0.2), ab("A", -0.5, -1.0), ab("B", -1.5, -0.3)]
    j = FilterRule("debiased").judge(right)
    assert j.keep and j.margins == (pytest.approx(4.7), pytest.approx(1.7)) and j.first_option == 2
    assert FilterRule("debiased", threshold=2.0).judge(right).reason == "filter_below_threshold"
    assert FilterRule("strict").judge(right).keep


def test_a_weakly_biased_judge_passes_debiased_but_not_strict():
    # prefers the right answer in each order except one, where the bias wins by a little
    answers = [ab("A", -0.1, -4.0), ab("A", -0.6, -0.8), ab("A", -0.1, -4.0), ab("B", -3.0, -0.1)]
    assert not FilterRule("strict").judge(answers).keep
    assert FilterRule("debiased").judge(answers).keep


def test_pointwise_compares_good_and_bad_sentences():
    def yn(lp_yes, lp_no):
        return ChoiceResult(
            id="x",
            status="ok",
            choice="yes" if lp_yes > lp_no else "no",
            path="logprobs",
            logprobs=(lp_yes, lp_no),
        )

    # says "yes" to everything, but more confidently to the good sentences: kept
    answers = [yn(-0.1, -3.0), yn(-0.4, -1.2), yn(-0.2, -2.0), yn(-0.3, -1.5)]
    j = FilterRule("pointwise").judge(answers)
    assert j.keep and j.first_option is None and j.margins == (pytest.approx(2.1), pytest.approx(0.6))
    assert not FilterRule("pointwise", threshold=1.0).judge(answers).keep
    missing = [
        yn(-0.1, -3.0),
        ChoiceResult(id="x", status="ok", choice="no", path="logprobs", logprobs=(None, -0.1)),
    ]
    assert FilterRule("pointwise").judge(missing * 2).margins[0] > 15  # absent "yes" counts as the floor
    failed = [*answers[:3], ChoiceResult(id="x", status="error", error="boom")]
    assert FilterRule("pointwise").judge(failed).reason == "filter_llm_error"  # a failed call
    rejected = [*answers[:3], ChoiceResult(id="x", status="reject", error="no option in answer")]
    assert FilterRule("pointwise").judge(rejected).reason == "filter_no_answer"  # an answer, but no option


def test_requests_follow_the_rule_and_play_the_nonce_game():
    item = JudgeItem.from_dict(ITEM, "t:1")
    pair = FilterRule("debiased").requests(item, "blick")
    assert len(pair) == 4 and all(r.answer_prefix == "" and r.options == ("A", "B") for r in pair)
    assert "The fisherman painted his blick blue." in pair[0].prompt and "boat" not in pair[0].prompt
    assert "A: We rowed the small blick across the lake." in pair[0].prompt
    assert "B: We rowed the small blick" in pair[1].prompt  # order swapped
    point = FilterRule("pointwise").requests(item)
    assert [r.options for r in point] == [("yes", "no")] * 4
    assert ITEM["s1_bad"] in point[1].prompt and ITEM["s2_good"] in point[2].prompt
    infl = JudgeItem.from_dict({**ITEM, "subtask": "agrswap", "lang": "de"}, "t:2")
    assert "German" in FilterRule("pointwise").requests(infl)[0].prompt
    with pytest.raises(ConfigError, match="unknown filter rule"):
        FilterRule("lenient")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({k: v for k, v in ITEM.items() if k != "s2_bad"}, "missing field"),
        ({**ITEM, "subtask": "blimp"}, "subtask 'blimp'"),
        ({**ITEM, "rule": "lenient"}, "rule 'lenient'"),
        ({**ITEM, "w1": 3}, "must be a string"),
        ({**ITEM, "s1_good": "No target word here."}, "does not contain w1"),
    ],
)
def test_bad_items_name_their_line(row, message):
    with pytest.raises(InputError, match=f"items.jsonl:7: .*{message}"):
        JudgeItem.from_dict(row, "items.jsonl:7")


def test_calibration_set_is_labelled_and_balanced():
    items, labels = read_items(CALIBRATION_SET, labelled=True)
    assert len(items) >= 150
    for sub in ("wordswap", "inflswap", "agrswap"):
        labs = [lab for it, lab in zip(items, labels, strict=True) if it.subtask == sub]
        assert len(labs) >= 40 and 0 < sum(labs) < len(labs), sub  # valid and invalid quadruplets
    assert {it.lang for it in items} == {"en", "fr", "de"}


def test_scores():
    items, labels = read_items(CALIBRATION_SET, labelled=True)
    from corpusbench.families.ltswap.judging import Judgement

    keep_all = [
        Judgement(keep=True, reason="", rule="strict", threshold=0, margins=(1, 1), first_option=4)
    ] * len(items)
    rows = {r.subtask: r for r in score(items, labels, keep_all)}
    assert rows["all"].keep_recall == 1.0 and rows["all"].first_option_rate == 1.0
    assert rows["all"].keep_precision == pytest.approx(sum(labels) / len(labels), abs=1e-4)
    assert rows["all"].accuracy == rows["all"].keep_precision


def test_release_spellings_and_the_two_rules_are_read_apart():
    """An LT-Swap row's ``rule`` (agreement rule or POS) is not a filter rule; the release's subtask
    names work; ``judge_rule`` names the filter rule, and old files' ``rule: strict`` still means it."""
    row = {**ITEM, "subtask": "agreementswap", "rule": "SVSHORT"}
    item = JudgeItem.from_dict(row, "t")
    assert item.subtask == "agrswap" and item.judge_rule is None
    assert (
        JudgeItem.from_dict({**ITEM, "subtask": "inflectionswap", "rule": "NOUN"}, "t").subtask == "inflswap"
    )
    assert (
        JudgeItem.from_dict({**ITEM, "judge_rule": "debiased", "rule": "VERB"}, "t").judge_rule == "debiased"
    )
    assert JudgeItem.from_dict({**ITEM, "rule": "strict"}, "t").judge_rule == "strict"  # an older file
    with pytest.raises(InputError, match="judge_rule 'lenient'"):
        JudgeItem.from_dict({**ITEM, "judge_rule": "lenient"}, "t")


def test_judge_items_uses_each_items_rule():
    backend = ScriptedBackend()
    item = JudgeItem.from_dict(ITEM, "t")
    strict = JudgeItem.from_dict({**ITEM, "id": "q2", "judge_rule": "strict"}, "t")
    for r in FilterRule("pointwise").requests(item):
        backend.top[r.prompt] = (
            [("yes", -0.1), ("no", -3.0)]
            if "boat across" in r.prompt or "road to" in r.prompt
            else [("no", -0.1), ("yes", -3.0)]
        )
    for r, want in zip(FilterRule("strict").requests(strict), "ABAB", strict=True):
        backend.top[r.prompt] = [(want, -0.1)]
    v = judge_items(backend, [item, strict], FilterRule("pointwise"))
    assert [x.rule for x in v] == ["pointwise", "strict"] and all(x.keep for x in v)


def test_judge_command_writes_verdicts_and_names_a_bad_line(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(ITEM) + "\n" + json.dumps({**ITEM, "id": "q2"}) + "\n")
    out = tmp_path / "v" / "out.jsonl"
    r = CliRunner().invoke(
        app,
        [
            "ltswap",
            "judge",
            str(items),
            "--out",
            str(out),
            "--llm-backend",
            "scripted",
            "--llm-cache",
            str(tmp_path / "c.sqlite"),
            "--filter-rule",
            "debiased",
        ],
    )
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in rows] == ["q1", "q2"]
    assert all(
        x["keep"] is False and x["filter_rule"] == "debiased" and x["reason"] == "filter_no_answer"
        for x in rows
    )
    items.write_text(json.dumps(ITEM) + "\n{not json\n")
    r = CliRunner().invoke(
        app, ["ltswap", "judge", str(items), "--out", str(tmp_path / "o2.jsonl"), "--llm-backend", "scripted"]
    )
    assert r.exit_code != 0 and "items.jsonl:2: not valid JSON" in r.output
    assert not (tmp_path / "o2.jsonl").exists()
    items.write_text(json.dumps({**ITEM, "subtask": "nope"}) + "\n")
    r = CliRunner().invoke(
        app, ["ltswap", "judge", str(items), "--out", str(tmp_path / "o3.jsonl"), "--llm-backend", "scripted"]
    )
    assert r.exit_code != 0 and "items.jsonl:1: subtask 'nope'" in r.output


def test_judge_check_command_reports_every_rule(tmp_path):
    out = tmp_path / "check.json"
    r = CliRunner().invoke(
        app,
        [
            "ltswap",
            "judge-check",
            "--llm-backend",
            "scripted",
            "--out",
            str(out),
            "--llm-cache",
            str(tmp_path / "c.sqlite"),
        ],
    )
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    assert set(report["rules"]) == {"strict", "debiased", "pointwise", "nonce"} and report["n"] >= 150
    point = report["rules"]["pointwise"]
    assert len(point["items"]) == report["n"] and point["threshold_sweep"][0]["threshold"] == 0.0
    assert all(
        t["keep_recall"] in (0.0, None) for t in point["threshold_sweep"]
    )  # nothing answered, nothing kept
    assert "keep-recall" in r.output


def test_shipped_figures_belong_to_the_default_judge_and_rule():
    """The card shows the shipped figures only for the exact rule, threshold and prompts measured."""
    from corpusbench.families.ltswap.calibration import figures_markdown, judge_figures

    rule = FilterRule()
    fig = judge_figures("qwen2.5-coder-1.5b-instruct", rule.describe())
    assert fig is not None and fig["items"] == len(read_items(CALIBRATION_SET)[0])  # the whole set
    assert {s["subtask"] for s in fig["scores"]} == {"wordswap", "inflswap", "agrswap", "all"}
    assert f"threshold {rule.threshold}" in figures_markdown(fig, rule.name)
    # a subtask's card section shows the rule on that subtask's labelled items only
    ws = next(s for s in fig["scores"] if s["subtask"] == "wordswap")
    section = figures_markdown(fig, rule.name, "wordswap")
    rows = [line for line in section.splitlines() if line.startswith("| ") and "items" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| wordswap"]
    assert f"on the {ws['n']} labelled wordswap quadruplets" in section
    other = {**rule.describe(), "threshold": rule.threshold + 1}
    assert judge_figures("qwen2.5-coder-1.5b-instruct", other) is None  # not measured at that threshold
    assert "not measured" in figures_markdown(None, rule.name)


def test_nonce_rule_plays_the_feasibility_game_one_sentence_at_a_time():
    from corpusbench.families.ltswap.judging import FilterRule, JudgeItem

    it = JudgeItem(
        id="ws", subtask="wordswap", w1="otter", w2="anvil",
        s1_good="The otter swam in the river.", s2_good="The smith struck the anvil.",
        s1_bad="The anvil swam in the river.", s2_bad="The smith struck the otter.",
        context1="An otter caught a fish.", context2="He beat iron on an anvil.", tag1="NN", tag2="NN",
    )  # fmt: skip
    rule = FilterRule("nonce")
    reqs = rule.requests(it, "blick")
    assert len(reqs) == 4 and all(r.options == ("yes", "no") for r in reqs)
    assert "A blick caught a fish." in reqs[0].prompt and "The blick swam in the river." in reqs[0].prompt
    assert "The smith struck the blick." in reqs[1].prompt  # w1's meaning in w2's sentence: expected no
    assert "He beat iron on a blick." in reqs[2].prompt or "on an blick" in reqs[2].prompt
    assert "otter" not in reqs[0].prompt and "anvil" not in reqs[3].prompt
    assert rule.describe()["wordswap_corpus_sentence"] is True
    assert FilterRule("pointwise").describe()["wordswap_corpus_sentence"] is False
    inf = JudgeItem(id="is", subtask="inflswap", w1="mend", w2="mended", s1_good="a", s2_good="b",
                    s1_bad="c", s2_bad="d")  # fmt: skip
    assert [r.prompt for r in rule.requests(inf)] == [r.prompt for r in FilterRule("pointwise").requests(inf)]
