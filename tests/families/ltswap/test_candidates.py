"""Candidates, inflection pairs, bins, the lemma-cluster filter and seeded sampling on real corpus stats."""

from collections import Counter

from corpusbench.families.ltswap.bins import LTSWAP_N_BINS, ltswap_bin
from corpusbench.families.ltswap.candidates import coarse_pos, inflection_pairs, seeded_sample
from corpusbench.families.ltswap.lexicon import dictionary
from corpusbench.families.ltswap.records import TAGS


def test_candidates_are_dictionary_nouns_and_verbs(slice_stats, slice_candidates):
    cands, report = slice_candidates
    assert len(cands) > 300
    vocab = slice_stats.vocabulary
    words = dictionary()
    for c in cands:
        assert c.tag in TAGS and c.pos == ("NOUN" if c.tag.startswith("NN") else "VERB")
        assert c.lemma in words and c.freq == vocab[c.form] and c.bin == ltswap_bin(c.freq)
        assert c.form in {i.form for i in c.inflections}
    forms = {c.form for c in cands}
    assert not forms & {"macbeth", "banquo", "naomi", "boaz", "moab"}  # proper nouns out
    assert report.dropped["proper_noun"] > 0 and report.dropped["not_noun_or_verb"] > 0
    assert report.considered == len(cands) + sum(report.dropped.values())
    assert sum(report.kept.values()) == len(cands)


def test_lemma_cluster_filter(slice_candidates):
    cands, report = slice_candidates
    assert report.dropped["lemma_cluster"] > 0
    for c in cands:
        assert c.cluster_freq == sum(i.freq for i in c.inflections) >= c.freq
        assert ltswap_bin(c.cluster_freq) == c.bin  # rare as a lemma, not only as a surface form


def test_frequent_bins_and_contexts(slice_stats, slice_candidates):
    cands, _ = slice_candidates
    by_bin = Counter(c.bin for c in cands)
    assert by_bin[1] > by_bin[4] > 0 and 0 not in by_bin  # candidates are seen words
    with_ctx = [c for c in cands if c.contexts]
    assert len(with_ctx) > 0.8 * len(cands)
    for c in with_ctx[:50]:
        assert all(sum(t.lower() == c.form for t in s.split(" ")) == 1 for s in c.contexts)


def test_inflection_pairs(slice_candidates):
    cands, _ = slice_candidates
    pairs = inflection_pairs(cands)
    assert pairs and len({p.id for p in pairs}) == len(pairs)
    assert {p.bin for p in pairs} >= {0, 1, 2}  # bin 0: an unseen inflection of a seen word
    for p in pairs:
        assert p.form1 != p.form2 and p.bin == ltswap_bin(min(p.freq1, p.freq2)) and p.bin < LTSWAP_N_BINS
        if p.pos == "NOUN":
            assert (p.tag1, p.tag2) == ("NN", "NNS")
    nouns = inflection_pairs(cands, nouns_only=True)
    assert nouns and {p.pos for p in nouns} == {"NOUN"}


def test_seeded_sampling_is_deterministic_and_nested(slice_candidates):
    cands, _ = slice_candidates

    def draw(cap, seed):
        return seeded_sample(cands, lambda c: (c.bin, c.tag), cap, seed, key=lambda c: c.id)

    a, b = draw(3, 0), draw(3, 0)
    assert [c.id for c in a] == [c.id for c in b]
    assert max(Counter((c.bin, c.tag) for c in a).values()) == 3
    assert [c.id for c in draw(3, 1)] != [c.id for c in a]
    big = draw(6, 0)
    for g in {(c.bin, c.tag) for c in a}:  # a larger cap extends, never reshuffles, a group's draw
        assert [c.id for c in a if (c.bin, c.tag) == g] == [c.id for c in big if (c.bin, c.tag) == g][:3]
    shuffled = seeded_sample(list(reversed(cands)), lambda c: (c.bin, c.tag), 3, 0, key=lambda c: c.id)
    assert [c.id for c in shuffled] == [c.id for c in a]  # input order does not matter


def test_coarse_pos():
    assert coarse_pos({"NN": 3, "VB": 2}) == "NOUN"
    assert coarse_pos({"NNP": 5, "NN": 2}) == "PROPN"
    assert coarse_pos({"VBD": 2, "VBN": 2, "NN": 3}) == "VERB"
    assert coarse_pos({"JJ": 4, "NN": 1}) == "OTHER"
