"""The LLM-free item audit (#37): openings, length, target-blind decisions, article leaks."""

from __future__ import annotations

from corpusbench.families.ltswap.item_audit import audit_items


def quad(sub: str, rule: str, s1: str, b1: str, s2: str, b2: str, w1: str = "x", bin_: int = 3) -> dict:
    return {"subtask": sub, "rule": rule, "bin": bin_, "w1": w1, "w2": "y",
            "s1_good": s1, "s1_bad": b1, "s2_good": s2, "s2_bad": b2}  # fmt: skip


def test_audit_counts_what_a_linguist_would_count() -> None:
    rows = [
        quad("inflectionswap", "NOUN", "They saw these heavens.", "They saw these heaven.",
             "They saw this heaven.", "They saw this heavens.", "heaven"),
        quad("inflswap", "VERB", "Yesterday the old man mended it.", "Yesterday the old man mends it.",
             "Nowadays the farmer mends it.", "Nowadays the farmer mended it.", "mend", 4),
        quad("wordswap", "NOUN", "They saw an otter.", "They saw an beaver.",
             "The beaver swam home.", "The otter swam home."),
    ]  # fmt: skip
    got = audit_items(rows)
    inf = got["inflswap"]
    assert inf["quadruplets"] == 2 and inf["pairs"] == 4
    assert inf["prev_word_suffix_decides"] == 2 and inf["prev_word_suffix_right"] == 2  # the noun pairs only
    assert inf["noun_pairs"] == 2 and inf["noun_pairs_number_det_before"] == 2
    assert inf["nearest_cue_decides"] == 4 and inf["nearest_cue_right"] == 4  # the time phrases too
    assert inf["nearest_cues"] == {
        "past-time": 1,
        "plural-number": 1,
        "present-time": 1,
        "singular-number": 1,
    }
    assert inf["top3_opening_share"] == 1.0 and inf["lemmas_per_cell"] == {"3": 1, "4": 1}
    assert got["wordswap"]["article_leaks"] == 1 and got["wordswap"]["pos"] == {"NOUN": 1}
    assert got["wordswap"]["mean_words"] == 4.0
