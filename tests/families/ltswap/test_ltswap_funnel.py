"""The funnel's account of an empty subtask: where its items ran out and why."""

from corpusbench.families.ltswap.funnel import Funnel, empty_reason


def test_empty_reason_names_the_stage_and_every_reason():
    f = Funnel()
    for _ in range(6):
        f.upto("wordswap", 3, "paired")
    f.drop("wordswap", 3, "filter_rejected", 6)
    f.drop("wordswap", 3, "oov_word", 9)
    why = empty_reason(f.totals("wordswap"), f.reason_totals("wordswap"))
    assert why == "6 paired, 0 kept; drops: oov_word 9, filter_rejected 6"


def test_empty_reason_without_candidates():
    assert empty_reason(Funnel().totals("agrswap"), {}) == (
        "no candidates (the corpus has no usable word for it); drops: none"
    )


def test_confirmed_stage_says_when_it_was_not_asked():
    from corpusbench.families.ltswap.funnel import NOT_ASKED, stage_label

    assert stage_label("confirmed", {"confirm_inflections": False}) == NOT_ASKED
    assert stage_label("confirmed", {"confirm_inflections": True}) == "confirmed"
    assert stage_label("confirmed", {}) == "confirmed"  # older manifests: the default was on
    assert stage_label("generated", {"confirm_inflections": False}) == "generated"
