"""Stage 4: the LLM filter. Four order-swapped ``choose`` prompts per quadruplet, all must be right.

- WordSwap: the nonce-word game (§2.2). Each word's corpus sentence, with the word replaced by the
  nonce (inflected like it: blick/blicks/blicked/blicking), is followed by both generated sentences
  with their targets replaced too; the judge must pick the sentence of the same word, in both
  orders, for both words.
- InflectionSwap / AgreementSwap: "which is grammatical?" on (S1, S1*) and (S2, S2*), both orders.

Answers are read from the log-probs of A/B after an opening bracket (``choose``'s logprobs path),
falling back to generation + parsing. A failed or unusable call drops the quadruplet for this run
only: errors are not cached as final, so the next run asks again (the reference kept the error
row and rejected every retried quadruplet).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from corpusbench.generators.ltswap import prompting
from corpusbench.generators.ltswap.checks import nonce_form, render, replace_token
from corpusbench.generators.ltswap.generation import Draft
from corpusbench.generators.ltswap.records import Quadruplet, Verdict, quadruplet_id
from corpusbench.llm.records import ChoiceRequest, ChoiceResult

EXPECTED = ("A", "B", "A", "B")
NONCE_FALLBACKS = ("blick", "dax", "wug", "fep", "zorp", "tupa", "gazzer")


def pick_nonce(preferred: str, vocab: dict[str, int] | set[str]) -> str:
    """The first nonce word whose forms never occur in the corpus."""
    for w in (preferred, *NONCE_FALLBACKS):
        if not any(f in vocab for f in (w, w + "s", w + "ed", w + "ing")):
            return w
    raise ValueError("every nonce word candidate occurs in the corpus")  # pragma: no cover


def good_bad(d: Draft) -> tuple[str, str, str, str]:
    """S1, S2, S1*, S2*."""
    return render(d.p1, d.w1), render(d.p2, d.w2), render(d.p1, d.w2), render(d.p2, d.w1)


def filter_requests(d: Draft, nonce: str, lang: str = "en") -> list[ChoiceRequest]:
    qid = f"{d.subtask}:{d.w1}~{d.w2}:{d.rule}"
    if d.subtask == "wordswap":
        n1, n2 = nonce_form(nonce, d.tag1), nonce_form(nonce, d.tag2)
        g1, g2 = render(d.p1, n1), render(d.p2, n2)
        c1, c2 = replace_token(d.context1, d.w1, n1), replace_token(d.context2, d.w2, n2)
        specs = [(c1, n1, g1, g2), (c1, n1, g2, g1), (c2, n2, g2, g1), (c2, n2, g1, g2)]
        extra = {} if lang == "en" else {"language": prompting.LANGUAGE_NAMES[lang]}
        template = prompting.FILTER_NONCE if lang == "en" else prompting.FILTER_NONCE_LANG
        prompts = [prompting.render(template, nonce=n, context=c, a=a, b=b, **extra) for c, n, a, b in specs]
    else:
        s1, s2, b1, b2 = good_bad(d)
        specs2 = [(s1, b1), (b1, s1), (s2, b2), (b2, s2)]
        prompts = [prompting.render(prompting.FILTER_GRAMMATICAL, a=a, b=b) for a, b in specs2]
    return [
        ChoiceRequest(id=f"filter:{qid}:{k}", prompt=p, options=("A", "B"), answer_prefix="[")
        for k, p in enumerate(prompts)
    ]


def judge(results: Sequence[ChoiceResult]) -> tuple[Verdict, float | None]:
    """Keep only if all four answers are the expected ones; margin = smallest log-prob lead."""
    margins: list[float] = []
    for res, want in zip(results, EXPECTED, strict=True):
        if not res.ok or res.choice is None:
            return Verdict.drop("filter_no_answer"), None
        if res.choice != want:
            return Verdict.drop("filter_rejected"), None
        if res.path == "logprobs" and len(res.logprobs) == 2:
            lw, lo = res.logprobs[0 if want == "A" else 1], res.logprobs[1 if want == "A" else 0]
            margins.append(math.inf if lo is None else (lw or 0.0) - lo)
    finite = [m for m in margins if math.isfinite(m)]
    margin = min(finite) if len(margins) == 4 and finite else None
    return Verdict.keep(), margin


def assemble(d: Draft, margin: float | None) -> Quadruplet:
    from corpusbench.generators.ltswap.checks import detokenise

    s1, s2, b1, b2 = good_bad(d)
    return Quadruplet(
        id=quadruplet_id(d.subtask, d.rule, d.w1, d.w2, s1, s2),
        subtask=d.subtask,  # type: ignore[arg-type]
        rule=d.rule,
        bin=d.bin,
        w1=d.w1,
        w2=d.w2,
        tag1=d.tag1,
        tag2=d.tag2,
        freq_w1=d.freq1,
        freq_w2=d.freq2,
        s1_good=s1,
        s2_good=s2,
        s1_bad=b1,
        s2_bad=b2,
        context1=detokenise(d.context1) if d.context1 else "",
        context2=detokenise(d.context2) if d.context2 else "",
        filter_margin=None if margin is None else round(margin, 4),
    )
