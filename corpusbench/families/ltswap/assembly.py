"""Stage 3-4: from checked sentences to drafts (quadruplets before the LLM filter), per subtask.

Each builder counts its items into the funnel (generated -> parsed -> checked -> paired) and
records every reject with its reason and the raw reply.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from corpusbench.families.ltswap.checks import render, swap_shortcut, token_spans
from corpusbench.families.ltswap.filtering import good_bad
from corpusbench.families.ltswap.funnel import Funnel
from corpusbench.families.ltswap.generation import Draft, Outcome, agreement_outcome, pair_words
from corpusbench.families.ltswap.records import Candidate, InflectionPair, Tagged
from corpusbench.llm.records import GenResult

LEVELS = ("none", "generated", "parsed", "checked")
Rejects = list[dict[str, Any]]
WordKey = tuple[str, str]  # form, tag


def count(
    funnel: Funnel, rejects: Rejects, sub: str, b: int, o: Outcome, item: str, res: GenResult | None
) -> None:
    """Count one item at every stage it reached; record why it stopped."""
    for stage in LEVELS[1 : LEVELS.index(o.stage) + 1]:
        funnel.add(sub, b, stage)
    if o.stage != "checked":
        funnel.drop(sub, b, o.reason)
        rejects.append({"subtask": sub, "item": item, "reason": o.reason, "reply": res.text if res else ""})
        if o.words:  # oov_word: the words the corpus lacks
            rejects[-1]["words"] = list(o.words)


def wordswap_drafts(
    words: Sequence[Candidate],
    outcomes: Mapping[WordKey, Outcome],
    raw: Mapping[WordKey, GenResult | None],
    rounds: int,
    seed: int,
    lang: str,
    funnel: Funnel,
    rejects: Rejects,
    first: Sequence[tuple[Tagged, Tagged]] = (),
) -> list[Draft]:
    """Checked words, paired by seeded matchings within (bin, tag), the ``first`` ((word 1, tag 1), (word
    2, tag 2)) pairs before them (``--labelled-first``)."""
    groups: dict[tuple[int, str], list[Candidate]] = {}
    parsed = {}
    for w in words:
        o = outcomes[(w.form, w.tag)]
        count(funnel, rejects, "wordswap", w.bin, o, w.id, raw[(w.form, w.tag)])
        if o.stage == "checked":
            groups.setdefault((w.bin, w.tag), []).append(w)
            parsed[w.form] = o.parsed
    drafts: list[Draft] = []
    for (b, _), members in sorted(groups.items()):
        pairs, rejected = pair_words(members, parsed, rounds, seed, lang, first)  # type: ignore[arg-type]
        if rejected:
            funnel.drop("wordswap", b, "pair_overlap", rejected)
        funnel.add("wordswap", b, "paired", len(pairs))
        drafts += pairs
    return drafts


ContrastKey = tuple[str, str, str]  # form, tag, the partner word its sentence was written against


def contrast_drafts(
    pairs: Sequence[tuple[Candidate, Candidate]],
    outcomes: Mapping[ContrastKey, Outcome],
    raw: Mapping[ContrastKey, GenResult | None],
    funnel: Funnel,
    rejects: Rejects,
) -> list[Draft]:
    """The contrastive writer's (v6) WordSwap drafts: each planned pair whose two sentences (each written
    against the other word, which it must not contain: ``check_sentence``'s ``forbidden``) passed the checks.
    Counted per pair at its worse sentence's stage; the same sentence frame twice is ``pair_overlap``."""
    drafts = []
    for a, b in pairs:
        ka, kb = (a.form, a.tag, b.form), (b.form, b.tag, a.form)
        oa, ob = outcomes[ka], outcomes[kb]
        worst = min((oa, ob), key=lambda o: LEVELS.index(o.stage))
        count(funnel, rejects, "wordswap", a.bin, worst, f"{a.id}~{b.form}", raw[ka if worst is oa else kb])
        if worst.stage != "checked" or oa.parsed is None or ob.parsed is None:
            continue
        if render(oa.parsed, "x").lower() == render(ob.parsed, "x").lower():
            funnel.drop("wordswap", a.bin, "pair_overlap")
            continue
        funnel.add("wordswap", a.bin, "paired")
        drafts.append(Draft.of_words(a, b, oa.parsed, ob.parsed))
    return drafts


def _forbid(o: Outcome, other: str, lang: str) -> Outcome:
    """A sentence that also contains the other form would hold both forms after the swap."""
    if (
        o.stage == "checked"
        and o.parsed is not None
        and any(t.lower() == other for t, _, _ in token_spans(o.parsed.text, lang))
    ):
        return Outcome("parsed", "other_word_present")
    return o


def rewrite_keys(
    pairs: Sequence[InflectionPair], outcomes: Mapping[WordKey, Outcome], lang: str
) -> dict[WordKey, tuple[int, tuple[str, ...]]]:
    """``--rewrites``: the forms whose answered sentence failed the checks while the pair's other form
    passed -> (the pair's bin, the partner forms a rewrite must not contain). LLM errors are not rewritten."""
    need: dict[WordKey, tuple[int, tuple[str, ...]]] = {}
    for p in pairs:
        k1, k2 = (p.form1, p.tag1), (p.form2, p.tag2)
        o1, o2 = _forbid(outcomes[k1], p.form2, lang), _forbid(outcomes[k2], p.form1, lang)
        for key, other, other_form in ((k1, o2, p.form2), (k2, o1, p.form1)):
            if other.stage == "checked" and outcomes[key].stage in ("generated", "parsed"):
                b, forbidden = need.get(key, (p.bin, ()))
                need[key] = (b, (*forbidden, other_form))
    return need


def inflswap_drafts(
    pairs: Sequence[InflectionPair],
    outcomes: Mapping[WordKey, Outcome],
    raw: Mapping[WordKey, GenResult | None],
    lang: str,
    funnel: Funnel,
    rejects: Rejects,
) -> list[Draft]:
    """Both forms' sentences checked, neither containing the other form."""
    drafts = []
    for p in pairs:
        o1 = _forbid(outcomes[(p.form1, p.tag1)], p.form2, lang)
        o2 = _forbid(outcomes[(p.form2, p.tag2)], p.form1, lang)
        worst = min((o1, o2), key=lambda o: LEVELS.index(o.stage))
        count(
            funnel,
            rejects,
            "inflswap",
            p.bin,
            worst,
            p.id,
            raw[(p.form1, p.tag1) if worst is o1 else (p.form2, p.tag2)],
        )
        if worst.stage == "checked" and o1.parsed is not None and o2.parsed is not None:
            funnel.add("inflswap", p.bin, "paired")
            drafts.append(Draft.of_pair("inflswap", p.pos, p, o1.parsed, o2.parsed))
    return drafts


def agrswap_drafts(
    items: Sequence[tuple[InflectionPair, str, int]],
    results: Mapping[str, GenResult],
    vocab: Mapping[str, int],
    lang: str,
    funnel: Funnel,
    rejects: Rejects,
    guided: bool = False,
) -> list[Draft]:
    """Per (pair, rule) the best stage over its samples is counted; distinct checked samples are all kept.
    ``guided``: the replies came under guided decoding (one cut at max_tokens is no whole pair)."""
    best: dict[tuple[str, str], tuple[int, str]] = {}  # (pair, rule) -> (level, ..)
    bins: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    drafts = []
    for p, rule, s in items:
        res = results.get(f"agr:{p.id}:{rule}:{s}")
        o, cut = agreement_outcome(res, p, rule, vocab, lang, guided)
        bins[p.id] = p.bin
        level = LEVELS.index(o.stage)
        best[(p.id, rule)] = max(best.get((p.id, rule), (0, "")), (level, o.stage))
        funnel.sentence("agrswap", o.stage == "checked" and cut is not None)
        if o.stage != "checked" or cut is None:
            funnel.drop("agrswap", p.bin, o.reason)
            rejects.append(
                {
                    "subtask": "agrswap",
                    "item": f"{p.id}:{rule}:{s}",
                    "reason": o.reason,
                    "reply": res.text if res else "",
                    **({"words": list(o.words)} if o.words else {}),
                }
            )
        elif (cut[0].text, cut[1].text) not in seen:
            seen.add((cut[0].text, cut[1].text))
            funnel.add("agrswap", p.bin, "paired")
            drafts.append(Draft.of_pair("agrswap", rule, p, cut[0], cut[1]))
    for (pid, _), (level, _) in best.items():
        for stage in LEVELS[1 : level + 1]:
            funnel.add("agrswap", bins[pid], stage)
    return drafts


def drop_shortcuts(drafts: Sequence[Draft], lang: str, funnel: Funnel, rejects: Rejects) -> list[Draft]:
    """The drafts whose two minimal pairs need knowledge of the words: a draft where either pair can be
    told apart without it (``checks.swap_shortcut``: an a/an leak, a second changed token, identical
    sentences) is dropped before the judge, counted under that reason."""

    def why(d: Draft) -> str:
        return swap_shortcut(d.p1, d.w1, d.w2, lang) or swap_shortcut(d.p2, d.w2, d.w1, lang)

    return _drop_where(drafts, why, funnel, rejects)


def drop_labelled(
    drafts: Sequence[Draft], not_valid: Collection[tuple[str, str]], funnel: Funnel, rejects: Rejects
) -> list[Draft]:
    """The drafts neither of whose minimal pairs (good, bad sentence) is in ``not_valid``, the pairs a
    labeller marked marginal or invalid (``--drop-labelled``); the others are dropped before the judge,
    counted as ``labelled_not_valid``, so their cell draws a replacement."""
    if not not_valid:
        return list(drafts)

    def why(d: Draft) -> str:
        s1, s2, b1, b2 = good_bad(d)
        return "labelled_not_valid" if (s1, b1) in not_valid or (s2, b2) in not_valid else ""

    return _drop_where(drafts, why, funnel, rejects)


def _drop_where(
    drafts: Sequence[Draft], why: Callable[[Draft], str], funnel: Funnel, rejects: Rejects
) -> list[Draft]:
    """The drafts ``why`` finds nothing against; each other one is counted under its reason and recorded."""
    kept = []
    for d in drafts:
        reason = why(d)
        if reason:
            funnel.drop(d.subtask, d.bin, reason)
            item = f"{d.w1}~{d.w2}:{d.rule}"
            rejects.append({"subtask": d.subtask, "item": item, "reason": reason, "reply": d.p1.text})
        else:
            kept.append(d)
    return kept
