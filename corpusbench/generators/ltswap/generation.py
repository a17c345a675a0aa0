"""Stage 2-3: prompts for the three subtasks, and turning LLM replies into checked drafts.

A ``Draft`` is a quadruplet before the LLM filter: two checked sentences with their target spans.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from corpusbench.generators.ltswap import prompting
from corpusbench.generators.ltswap.agreement import check_agreement
from corpusbench.generators.ltswap.checks import check_sentence, render
from corpusbench.generators.ltswap.parsing import extract_pair, extract_sentence
from corpusbench.generators.ltswap.records import Candidate, InflectionPair, Parsed
from corpusbench.llm.records import ChoiceRequest, GenRequest, GenResult, SamplingParams

NOUN_TAGS_PTB = ("NN", "NNS", "NNP", "NNPS")


@dataclass(frozen=True, slots=True, kw_only=True)
class Draft:
    subtask: str
    rule: str
    bin: int
    w1: str
    w2: str
    tag1: str
    tag2: str
    freq1: int
    freq2: int
    p1: Parsed
    p2: Parsed
    context1: str = ""  # tokenised corpus sentences (WordSwap)
    context2: str = ""

    @classmethod
    def of_pair(cls, subtask: str, rule: str, p: InflectionPair, p1: Parsed, p2: Parsed) -> Draft:
        return cls(
            subtask=subtask,
            rule=rule,
            bin=p.bin,
            w1=p.form1,
            w2=p.form2,
            tag1=p.tag1,
            tag2=p.tag2,
            freq1=p.freq1,
            freq2=p.freq2,
            p1=p1,
            p2=p2,
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """How far one generated item got: ``stage`` in generated/parsed/checked, or ``none``."""

    stage: str
    reason: str = ""
    parsed: Parsed | None = None


# ---- requests ---------------------------------------------------------------------------------
def word_request(
    form: str, tag: str, max_tokens: int, lang: str = "en", writer: str = prompting.DEFAULT_WRITER
) -> GenRequest:
    system, prompt = prompting.writer_turns(
        writer, word=form, pos_desc=prompting.POS_DESCRIPTIONS[tag], lang=lang
    )
    return GenRequest(
        id=f"word:{form}/{tag}", prompt=prompt, system=system, params=SamplingParams(max_tokens=max_tokens)
    )


def same_lemma_requests(pair: InflectionPair) -> list[ChoiceRequest]:
    """Both orders of the "same lemma?" question; the pair is confirmed only if both say yes."""
    pos = pair.pos.lower()
    return [
        ChoiceRequest(
            id=f"lemma:{pair.id}:{k}",
            prompt=prompting.render(prompting.SAME_LEMMA, a=a, b=b, pos=pos),
            options=("yes", "no"),
            answer_prefix="[",
        )
        for k, (a, b) in enumerate(((pair.form1, pair.form2), (pair.form2, pair.form1)))
    ]


def agreement_request(
    pair: InflectionPair, rule: str, sample: int, temperature: float, seed: int, max_tokens: int
) -> GenRequest:
    prompt = prompting.render(prompting.AGREEMENT[rule], singular=pair.form1, plural=pair.form2)
    params = SamplingParams(temperature=temperature, seed=seed, max_tokens=max_tokens)
    return GenRequest(id=f"agr:{pair.id}:{rule}:{sample}", prompt=prompt, params=params, sample=sample)


# ---- checks -----------------------------------------------------------------------------------
class PosChecker:
    """Is the target used as the intended part of speech? (the corpus tagger, in context)."""

    def __init__(self, lang: str = "en"):
        from corpusbench.corpus.taggers import make_tagger

        self.lang = lang

        from corpusbench.corpus.taggers import DEFAULT_TAGGER

        self.tagger = make_tagger(DEFAULT_TAGGER[lang], lang)

    def check(self, items: Sequence[tuple[Parsed, str]]) -> list[bool]:
        """For each (sentence, NOUN|VERB): the target's tag in context has that coarse POS."""
        tagged = self.tagger.tag_texts([p.text for p, _ in items])
        out = []
        for (p, pos), sents in zip(items, tagged, strict=True):
            target = p.target.lower()
            toks = [tok for s in sents for tok in s if tok[0].lower() == target]
            if self.lang == "en":  # PTB tags: NN/NNS only (NNP is a proper noun), VB*
                ok = bool(toks) and (
                    toks[0][1] in NOUN_TAGS_PTB if pos == "NOUN" else toks[0][1].startswith("VB")
                )
            else:  # the tagger's coarse (universal) POS
                ok = bool(toks) and toks[0][2] == pos
            out.append(ok)
        return out


def word_outcome(
    result: GenResult | None, form: str, vocab: Mapping[str, int], lang: str, forbidden: tuple[str, ...] = ()
) -> Outcome:
    if result is None or not result.ok:
        return Outcome("none", "llm_" + (result.status if result else "missing"))
    text, reason = extract_sentence(result.text, form, lang)
    if text is None:
        return Outcome("generated", reason)
    verdict, parsed = check_sentence(text, form, vocab, lang, forbidden)
    if not verdict.ok:
        return Outcome("parsed", verdict.reason)
    return Outcome("checked", parsed=parsed)


def apply_pos_check(
    outcomes: dict[tuple[str, str], Outcome],
    pos_of: Mapping[tuple[str, str], str],
    checker: PosChecker | None,
) -> dict[tuple[str, str], Outcome]:
    """Demote checked sentences whose target is tagged with another part of speech."""
    if checker is None:
        return outcomes
    keys = [k for k, o in outcomes.items() if o.stage == "checked"]
    oks = checker.check([(outcomes[k].parsed, pos_of[k]) for k in keys])  # type: ignore[misc]
    out = dict(outcomes)
    for k, ok in zip(keys, oks, strict=True):
        if not ok:
            out[k] = Outcome("parsed", "wrong_pos")
    return out


def agreement_outcome(
    result: GenResult | None, pair: InflectionPair, rule: str, vocab: Mapping[str, int], lang: str
) -> tuple[Outcome, tuple[Parsed, Parsed] | None]:
    if result is None or not result.ok:
        return Outcome("none", "llm_" + (result.status if result else "missing")), None
    sents, reason = extract_pair(result.text, pair.form1, pair.form2, lang)
    if sents is None:
        return Outcome("generated", reason), None
    verdict, cut = check_agreement(rule, pair.form1, pair.form2, sents[0], sents[1], vocab, lang)
    if not verdict.ok:
        return Outcome("parsed", verdict.reason), None
    return Outcome("checked"), cut


# ---- WordSwap pairing -------------------------------------------------------------------------
def pair_words(
    words: Sequence[Candidate], parsed: Mapping[str, Parsed], rounds: int, seed: int, lang: str
) -> tuple[list[Draft], int]:
    """Seeded random matchings within one (bin, tag) group: each round pairs every word at most once.

    Returns the drafts, and the number of pairs rejected because a word occurs in the other sentence
    or both sentences are the same frame (then S1* would equal S2).
    """
    from corpusbench.generators.ltswap.checks import token_spans

    toks = {w.form: {t.lower() for t, _, _ in token_spans(parsed[w.form].text, lang)} for w in words}
    members = sorted(words, key=lambda w: w.form)
    seen: set[tuple[str, str]] = set()
    drafts: list[Draft] = []
    rejected = 0
    rng = random.Random(
        f"{seed}:pairs:{members[0].bin if members else 0}:{members[0].tag if members else ''}"
    )
    for _ in range(rounds):
        order = list(members)
        rng.shuffle(order)
        for a, b in zip(order[0::2], order[1::2], strict=False):
            key = tuple(sorted((a.form, b.form)))
            if key in seen or a.lemma == b.lemma:
                continue
            seen.add(key)  # type: ignore[arg-type]
            w1, w2 = sorted((a, b), key=lambda w: w.form)
            if (
                b.form in toks[a.form]
                or a.form in toks[b.form]
                or render(parsed[w1.form], "x").lower() == render(parsed[w2.form], "x").lower()
            ):
                rejected += 1  # a word in the other sentence, or the same sentence frame twice
                continue
            drafts.append(
                Draft(
                    subtask="wordswap",
                    rule=w1.pos,
                    bin=w1.bin,
                    w1=w1.form,
                    w2=w2.form,
                    tag1=w1.tag,
                    tag2=w2.tag,
                    freq1=w1.freq,
                    freq2=w2.freq,
                    p1=parsed[w1.form],
                    p2=parsed[w2.form],
                    context1=w1.contexts[0],
                    context2=w2.contexts[0],
                )
            )
    return drafts, rejected
