"""Shortcut audit (#37): minimal pairs a model can tell apart without knowing the rare word are dropped."""

from __future__ import annotations

from corpusbench import heuristics
from corpusbench.families.ltswap.assembly import drop_shortcuts
from corpusbench.families.ltswap.checks import swap_shortcut
from corpusbench.families.ltswap.funnel import Funnel
from corpusbench.families.ltswap.generation import Draft
from corpusbench.families.ltswap.records import Parsed


def parsed(text: str, target: str) -> Parsed:
    i = text.index(target)
    return Parsed(text=text, start=i, end=i + len(target))


def test_article_leak_needs_a_different_initial_sound() -> None:
    p = parsed("They saw an otter in the river.", "otter")
    assert swap_shortcut(p, "otter", "beaver") == "article_leak"
    assert swap_shortcut(p, "otter", "eagle") == ""  # both take "an": the article tells nothing
    assert swap_shortcut(parsed("She met an honest clerk.", "honest"), "honest", "hour") == ""
    assert swap_shortcut(parsed("It was a unicorn.", "unicorn"), "unicorn", "beast") == ""
    assert swap_shortcut(parsed("The otter swam.", "otter"), "otter", "beaver") == ""


def test_identical_and_outside_changes() -> None:
    assert swap_shortcut(parsed("The sheep grazed.", "sheep"), "sheep", "Sheep") == "identical_sentences"
    # a replacement that the tokenizer splits changes more than the target token
    assert swap_shortcut(parsed("He did go home.", "go"), "go", "cannot") == "swap_changes_other_word"


def _draft(s1: str, w1: str, s2: str, w2: str) -> Draft:
    return Draft(
        subtask="wordswap",
        rule="NOUN",
        bin=3,
        w1=w1,
        w2=w2,
        tag1="NN",
        tag2="NN",
        freq1=5,
        freq2=5,
        p1=parsed(s1, w1),
        p2=parsed(s2, w2),
    )


def test_drop_shortcuts_counts_its_own_reason() -> None:
    funnel, rejects = Funnel(), []
    leak = _draft("They saw an otter swim.", "otter", "They fed the beaver well.", "beaver")
    fine = _draft("The otter swam in the river.", "otter", "The beaver built a dam.", "beaver")
    assert drop_shortcuts([leak, fine], "en", funnel, rejects) == [fine]
    assert funnel.reason_totals("wordswap") == {"article_leak": 1}
    assert rejects[0]["reason"] == "article_leak"


def test_target_blind_rules() -> None:
    score = heuristics.pair_score
    assert score(heuristics.prev_word_suffix, "They saw these heavens.", "They saw these heaven.") == 1.0
    assert score(heuristics.prev_word_suffix, "They will mend it.", "They will mended it.") == 1.0
    assert (
        score(heuristics.prev_word_suffix, "The old man slowly mended it.", "The old man slowly mend it.")
        == 0.5
    )
    assert score(heuristics.article_class, "They saw an otter.", "They saw an beaver.") == 1.0
    assert score(heuristics.article_class, "They saw the otter.", "They saw the beaver.") == 0.5
    assert heuristics.article_for("hour") == "an" and heuristics.article_for("unit") == "a"


def test_nearest_cue_looks_past_an_adjective_or_adverb_never_at_the_word() -> None:
    score = heuristics.pair_score
    rule = heuristics.nearest_cue_suffix
    # the word right before the target is an adjective/adverb: prev-word-suffix ties, nearest-cue decides
    assert (
        score(
            heuristics.prev_word_suffix,
            "Her uncle gave her two old coats.",
            "Her uncle gave her two old coat.",
        )
        == 0.5
    )
    assert score(rule, "Her uncle gave her two old coats.", "Her uncle gave her two old coat.") == 1.0
    assert score(rule, "On the table lay one small ground.", "On the table lay one small grounds.") == 1.0
    assert score(rule, "Nobody wanted to quietly mend it.", "Nobody wanted to quietly mended it.") == 1.0
    # a time phrase several words back decides a past against an -s form
    assert score(rule, "Yesterday the old man mended it.", "Yesterday the old man mends it.") == 1.0
    assert score(rule, "To this day the king mends it.", "To this day the king mended it.") == 1.0
    # a determiner three words back is out of its window; no cue at all: a tie
    assert heuristics.nearest_cue(heuristics.words("these very old grey coats"), 4) is None
    assert score(rule, "The otter swam home.", "The beaver swam home.") == 0.5
    # the rule sees the ending only: the same ending on both words is a tie
    assert score(rule, "They will mend it.", "They will bend it.") == 0.5
    assert "nearest-cue" in heuristics.RULES  # so the release audit and the card show it
