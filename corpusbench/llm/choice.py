"""Answer read-out for ``choose``: option log-probs from the top tokens, or bracket parsing of text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

TOP_K = 20  # top log-probs asked for at the answer token (the OpenAI API's maximum)

_EDGE = " \t\n\r\"'`([{<*_:.,;!?)]}>"


def _norm(text: str) -> str:
    return text.strip(_EDGE).casefold()


def bad_top(top: Sequence[tuple[str, float]]) -> str | None:
    """Why top tokens are not a log-prob read-out (NaN, infinite or positive log-probs), else None.

    An empty list is no read-out either, but a backend may say so on purpose (no option among its
    top tokens); the server backend refuses an empty ``top_logprobs`` itself.
    """
    for token, lp in top:
        if not isinstance(token, str) or not isinstance(lp, int | float) or math.isnan(lp) or lp > 1e-4:
            return f"top token {token!r} has log-prob {lp!r}"
    return None


def option_logprobs(top: Sequence[tuple[str, float]], options: Sequence[str]) -> tuple[float | None, ...]:
    """Log-prob of each option at one token position, from that position's top tokens.

    A token counts for an option when it equals the option once case, surrounding white space,
    quotes and brackets are ignored (``"A"``, ``" A"``, ``"a"``, ``"(A"``); the probabilities of all
    matching tokens are summed. Options absent from ``top`` get ``None``.
    """
    keys = [_norm(o) for o in options]
    mass: list[float] = [0.0] * len(options)
    found = [False] * len(options)
    for token, logprob in top:
        t = _norm(token)
        if not t:
            continue
        for i, k in enumerate(keys):
            if t == k:
                mass[i] += math.exp(logprob)
                found[i] = True
    return tuple(
        math.log(m) if f and m > 0 else (-math.inf if f else None) for m, f in zip(mass, found, strict=True)
    )


def decide(logprobs: Sequence[float | None]) -> int | None:
    """Index of the most likely option, or ``None`` if no option was among the top tokens.

    An option missing from the top-k is less likely than every option present, so one present
    option is enough to decide; one with log-prob -inf (probability 0) counts as missing. Ties go
    to the first option.
    """
    best: int | None = None
    for i, lp in enumerate(logprobs):
        if lp is not None and lp > -math.inf and (best is None or lp > logprobs[best]):  # type: ignore[operator]
            best = i
    return best


_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


def parse_answer(text: str, options: Sequence[str]) -> str | None:
    """The option a free-text answer names, or ``None`` when it names none or several.

    Like the reference, the last bracketed span wins (``"... so the answer is [B]"``); without
    brackets, only a reply that is just an option (``"B"``, ``"B."``) or says ``"the answer is B"``
    counts. Anything else (empty, several options, a restated sentence) is a reject, never a
    silent "wrong".
    """
    by_norm = {_norm(o): o for o in options}
    spans = _BRACKETED.findall(text)
    if spans:
        return by_norm.get(_norm(spans[-1]))
    stripped = _norm(text)
    if stripped in by_norm:
        return by_norm[stripped]
    m = _ANSWER_IS.search(text)
    return by_norm.get(_norm(m.group(1))) if m else None


_ANSWER_IS = re.compile(r"\banswer\s+is\s*:?\s*(\S+?)[.,;!]?(?:\s|$)", flags=re.IGNORECASE)
