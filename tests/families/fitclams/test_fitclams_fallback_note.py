"""The long-VP filler fallback is said, not only recorded per verb (#32 item 7): a note with the count
that the console prints and the manifest keeps."""

from __future__ import annotations

from pathlib import Path

from corpusbench.corpus.store import CorpusStats
from corpusbench.families.fitclams.lexicon import build_selections
from corpusbench.families.fitclams.select import SelectionConfig


def test_fallback_fillers_are_counted_in_a_note(default_slice_stats: Path) -> None:
    stats = CorpusStats.load(default_slice_stats)
    seen = 0
    for seed in (0, 1, 2):
        sel = build_selections({"d": stats}, "en", SelectionConfig(seed=seed, fill_empty=True))[0]
        n = sel.funnel["complement"]["fallback"]
        notes = [x for x in sel.notes if "complement fallback" in x]
        if n:
            seen += 1
            assert notes == [
                f"corpus d: {n} of {len(sel.lexicon.verbs)} verbs take a hand-written long-VP filler "
                "(complement fallback: no complete phrase follows them in their corpus contexts)"
            ]
        else:
            assert notes == []
    assert seen, "the slice should need the fallback for some seed"


def test_few_contexts_per_form_add_the_stats_hint(default_slice_stats: Path) -> None:
    stats = CorpusStats.load(default_slice_stats)
    stats.manifest["parameters"]["max_contexts"] = 2  # as `corpusbench stats` without the option
    notes = [
        x
        for seed in (0, 1, 2)
        for x in build_selections({"d": stats}, "en", SelectionConfig(seed=seed, fill_empty=True))[0].notes
        if "complement fallback" in x
    ]
    hint = "; these stats keep 2 per form, `corpusbench stats --contexts-per-form 20` more)"
    assert notes and all(x.endswith(hint) for x in notes)
