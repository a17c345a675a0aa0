"""The LT-Swap judge: three filter rules over one quadruplet (S1, S2 good; S1*, S2* swapped).

Each rule asks 4 questions-prompts and turns the answers into two *question margins* (one per
minimal pair, in log-prob units; > 0 means the judge prefers the good side):

- ``strict`` (the paper): 4 pairwise prompts (each pair in both orders); keep only if all 4 answers
  are the expected letter. Margins as for ``debiased`` (recorded, not used to decide).
- ``debiased``: the same 4 prompts; per pair, the expected letter's log-prob lead summed over both
  orders, so a judge that always says "A" scores ~0. Keep if both margins exceed the threshold.
- ``pointwise``: one yes/no prompt per sentence (no option position at all); per pair,
  (log P(yes) - log P(no)) of the good sentence minus that of the swapped one. Keep if both exceed
  the threshold.
- ``nonce`` (#37): ``pointwise`` with the paper's feasibility game for WordSwap: each yes/no prompt
  shows the corpus sentence of one word with that word replaced by a nonce word, then a generated
  sentence with the same nonce word (its own sentence: yes; the other word's: no). So a kept item is one
  the corpus sentence makes learnable, not only one whose swap is odd. Other subtasks: as ``pointwise``.
- ``lm`` (#37): no prompt at all; the judge model read as a language model: per pair, log P(good) -
  log P(swapped) of the two sentences (``Backend.score``; a vLLM server's prompt log-probs). Keep if both
  exceed the threshold. On the labelled WordSwap items it separates valid from invalid pairs better than
  the pointwise margin (docs/ltswap.md); the build also judges a cell's drafts best-first by it.

WordSwap's pairwise prompts play the nonce-word game (§2.2): the corpus sentence of each word,
with the word replaced by a nonce word, then both generated sentences with their targets replaced.
Options are read from the first answer token (no forced "[": tokenizers differ).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from corpusbench.errors import ConfigError, InputError
from corpusbench.families.ltswap import prompting
from corpusbench.families.ltswap.checks import match_case, nonce_form
from corpusbench.families.ltswap.records import AGREEMENT_RULES, SUBTASK_ALIASES
from corpusbench.llm.records import ChoiceRequest, ChoiceResult, ScoreRequest, ScoreResult

RULES = ("strict", "debiased", "pointwise", "nonce", "lm")
DEFAULT_RULE = "pointwise"  # chosen on the calibration set (docs/ltswap.md, `ltswap judge-check`)
# judge-check sweep; lm: the labelled WordSwap items (docs/ltswap.md, "The lm rule")
DEFAULT_THRESHOLDS = {"strict": 0.0, "debiased": 0.0, "pointwise": 0.1, "nonce": 0.1, "lm": 8.0}
USES_CORPUS_SENTENCE = {"strict": True, "debiased": True, "pointwise": False, "nonce": True, "lm": False}
EXPECTED = ("A", "B", "A", "B")  # pairwise prompts: (good, bad), (bad, good) for pair 1, then pair 2
LP_FLOOR = -20.0  # log-prob of an option absent from the top tokens
GEN_MARGIN = 5.0  # |margin| of an answer read from generated text (no log-probs)
SUBTASK_NAMES = ("wordswap", "inflswap", "agrswap")
FIELDS = ("w1", "w2", "s1_good", "s2_good", "s1_bad", "s2_bad")
# what ``rule`` means in an LT-Swap row (records.Quadruplet): the agreement rule or the part of speech
ROW_RULES = ("NOUN", "VERB", *AGREEMENT_RULES)


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeItem:
    """One quadruplet to judge. ``context1/2``: corpus sentences of w1/w2 (WordSwap's nonce game);
    ``tag1/2``: PTB tags of w1/w2 (the nonce word is inflected like them; guessed when empty)."""

    id: str
    subtask: str
    w1: str
    w2: str
    s1_good: str
    s2_good: str
    s1_bad: str
    s2_bad: str
    context1: str = ""
    context2: str = ""
    tag1: str = ""
    tag2: str = ""
    lang: str = "en"
    judge_rule: str | None = None  # the filter rule for this item (judge command); None: the run's rule

    @classmethod
    def from_dict(cls, row: Mapping[str, Any], where: str) -> JudgeItem:
        """Validated item; a bad field is an ``InputError`` naming ``where`` (e.g. ``items.jsonl:7``).

        ``subtask`` takes the release's spellings too (``inflectionswap``, ``agreementswap``). ``rule``
        is what an LT-Swap row means by it (agreement rule or part of speech: not used to judge); in
        older judge files it named the filter rule, and such a value is still read as ``judge_rule``."""
        if not isinstance(row, Mapping):
            raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
        missing = [f for f in ("id", "subtask", *FIELDS) if f not in row]
        if missing:
            raise InputError(f"{where}: missing field(s) {', '.join(missing)}")
        row = dict(row)
        row["subtask"] = SUBTASK_ALIASES.get(row["subtask"], row["subtask"])
        if row["subtask"] not in SUBTASK_NAMES:
            names = ", ".join((*SUBTASK_NAMES, *SUBTASK_ALIASES))
            raise InputError(f"{where}: subtask {row['subtask']!r} is not one of {names}")
        legacy = row.pop("rule", None)
        if legacy is not None and legacy not in (*RULES, *ROW_RULES):
            raise InputError(
                f"{where}: rule {legacy!r} is neither an LT-Swap rule ({', '.join(ROW_RULES)}) nor a "
                f"filter rule ({', '.join(RULES)}; name it judge_rule)"
            )
        if legacy in RULES and row.get("judge_rule") is None:
            row["judge_rule"] = legacy  # an older judge file
        if row.get("judge_rule") is not None and row["judge_rule"] not in RULES:
            raise InputError(f"{where}: judge_rule {row['judge_rule']!r} is not one of {', '.join(RULES)}")
        for f in (*FIELDS, "context1", "context2", "tag1", "tag2", "lang"):
            if f in row and not isinstance(row[f], str):
                raise InputError(f"{where}: field {f!r} must be a string")
        for f in FIELDS:
            if not row[f].strip():
                raise InputError(f"{where}: field {f!r} is empty")
        if row["subtask"] == "wordswap":
            for f, w in (("context1", "w1"), ("context2", "w2"), ("s1_good", "w1"), ("s2_good", "w2")):
                if row.get(f) and not _find(row[f], row[w]):
                    raise InputError(f"{where}: {f} does not contain {w} {row[w]!r}")
        known = {f.name for f in cls.__dataclass_fields__.values()}  # type: ignore[attr-defined]
        return cls(**{k: (str(v) if k == "id" else v) for k, v in row.items() if k in known})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    keep: bool
    # "" when kept; filter_rejected | filter_below_threshold | filter_no_answer (an answer naming no
    # option, or a prompt over the context) | filter_llm_error (a failed call; only under a failure budget)
    reason: str
    rule: str
    threshold: float
    # per minimal pair, log-prob units; one value when the first pair already failed (early rejection)
    margins: tuple[float, ...] | None
    first_option: int | None  # pairwise rules: how many of the 4 answers were "A"

    @property
    def margin(self) -> float | None:
        return None if self.margins is None else round(min(self.margins), 4)


@dataclass(frozen=True, slots=True)
class FilterRule:
    name: str = DEFAULT_RULE
    threshold: float | None = None
    # a threshold of its own for some subtasks ((subtask, threshold), ..): #37 measured WordSwap's pairs
    # valid 57% at 0.1 and 78% at 0.5 on the labelled kept items (docs/ltswap.md)
    by_subtask: tuple[tuple[str, float], ...] = ()
    # a rule of its own for some subtasks ((subtask, rule name), ..; #37: WordSwap by ``lm``)
    rule_by_subtask: tuple[tuple[str, str], ...] = ()

    def for_subtask(self, subtask: str) -> FilterRule:
        """The rule an item of ``subtask`` is judged by: its own rule and threshold where it has them."""
        name = dict(self.rule_by_subtask).get(subtask, self.name)
        own = dict(self.by_subtask).get(subtask)
        if name == self.name and own is None:
            return self
        return FilterRule(name, own)  # own None: the subtask's own rule at that rule's default threshold

    def __post_init__(self) -> None:
        if self.name not in RULES:
            raise ConfigError(f"unknown filter rule {self.name!r}; choose from {', '.join(RULES)}")
        for _, name in self.rule_by_subtask:
            if name not in RULES:
                raise ConfigError(f"unknown filter rule {name!r}; choose from {', '.join(RULES)}")
        if self.threshold is None:
            object.__setattr__(self, "threshold", DEFAULT_THRESHOLDS[self.name])

    @property
    def pointwise(self) -> bool:
        """Yes/no prompts, one sentence each (``pointwise``, ``nonce``)."""
        return self.name in ("pointwise", "nonce")

    @property
    def scored(self) -> bool:
        """Sentence log-probs instead of prompts (``lm``)."""
        return self.name == "lm"

    @property
    def templates(self) -> tuple[str, ...]:
        if self.scored:
            return ()
        if self.name == "nonce":
            return (prompting.JUDGE_YES_NO_NONCE, prompting.JUDGE_YES_NO_GRAMMATICAL)
        if self.name == "pointwise":
            return (prompting.JUDGE_YES_NO_SENSE, prompting.JUDGE_YES_NO_GRAMMATICAL)
        return (prompting.JUDGE_CHOOSE_NONCE, prompting.JUDGE_CHOOSE_GRAMMATICAL)

    def describe(self) -> dict[str, Any]:
        """Provenance: rule, threshold and the hashes of the templates it renders."""
        return {
            "rule": self.name,
            "threshold": self.threshold,
            **({"thresholds_by_subtask": own} if (own := self._own_thresholds()) else {}),
            **({"rules_by_subtask": dict(self.rule_by_subtask)} if self.rule_by_subtask else {}),
            "prompts": {
                t: prompting.template_hash(t)
                for name in dict.fromkeys((self.name, *(n for _, n in self.rule_by_subtask)))
                for t in FilterRule(name).templates
            },
            "wordswap_corpus_sentence": USES_CORPUS_SENTENCE[self.for_subtask("wordswap").name],
        }

    def _own_thresholds(self) -> dict[str, float]:
        """The subtasks judged at a threshold of their own (their own, or their own rule's default)."""
        subs = dict.fromkeys(s for s, _ in (*self.by_subtask, *self.rule_by_subtask))
        return {s: float(self.for_subtask(s).threshold or 0.0) for s in subs}

    def score_requests(self, item: JudgeItem) -> list[ScoreRequest]:
        """The ``lm`` rule's 4 sentences of ``item``: S1, S1*, S2, S2* (each pair good first)."""
        sents = (item.s1_good, item.s1_bad, item.s2_good, item.s2_bad)
        return [ScoreRequest(id=f"judge:lm:{item.id}:{k}", text=s) for k, s in enumerate(sents)]

    def judge_scores(self, results: Sequence[ScoreResult]) -> Judgement:
        """The ``lm`` verdict on the scores of ``score_requests`` (all 4, or the first pair's 2)."""
        base = {"rule": self.name, "threshold": float(self.threshold or 0.0)}
        if len(results) not in (2, 4) or not all(r.ok and r.logprob is not None for r in results):
            why = "filter_llm_error" if any(r.status == "error" for r in results) else "filter_no_answer"
            return Judgement(keep=False, reason=why, margins=None, first_option=None, **base)
        lp = [float(r.logprob) for r in results]  # type: ignore[arg-type]
        margins = tuple(round(lp[k] - lp[k + 1], 2) for k in range(0, len(lp), 2))  # 0.01 nat: stable
        ok = min(margins) > base["threshold"]
        return Judgement(
            keep=ok, reason="" if ok else "filter_below_threshold", margins=margins, first_option=None, **base
        )

    def requests(self, item: JudgeItem, nonce: str = "blick") -> list[ChoiceRequest]:
        """The 4 prompts of ``item`` under this rule (none under ``lm``: it scores sentences)."""
        if self.scored:
            return []
        lang = prompting.LANGUAGE_NAMES.get(item.lang, item.lang)
        tag = f"judge:{self.name if self.pointwise else 'pairwise'}:{item.id}"
        if self.name == "nonce" and item.subtask == "wordswap":
            return [
                ChoiceRequest(
                    id=f"{tag}:{k}",
                    prompt=prompting.render(self.templates[0], language=lang, nonce=n, context=c, sentence=s),
                    options=("yes", "no"),
                )
                for k, (c, n, s) in enumerate(_nonce_game(item, nonce))
            ]
        if self.pointwise:
            tpl = self.templates[0 if item.subtask == "wordswap" else 1]
            sents = (item.s1_good, item.s1_bad, item.s2_good, item.s2_bad)
            return [
                ChoiceRequest(
                    id=f"{tag}:{k}",
                    prompt=prompting.render(tpl, language=lang, sentence=s),
                    options=("yes", "no"),
                )
                for k, s in enumerate(sents)
            ]
        if item.subtask == "wordswap":
            n1, n2 = _nonce(nonce, item.w1, item.tag1), _nonce(nonce, item.w2, item.tag2)
            g1, g2 = _replace(item.s1_good, item.w1, n1), _replace(item.s2_good, item.w2, n2)
            c1 = _replace(item.context1 or item.s1_good, item.w1, n1)
            c2 = _replace(item.context2 or item.s2_good, item.w2, n2)
            specs = [(c1, n1, g1, g2), (c1, n1, g2, g1), (c2, n2, g2, g1), (c2, n2, g1, g2)]
            prompts = [
                prompting.render(self.templates[0], nonce=n, context=c, a=a, b=b, language=lang)
                for c, n, a, b in specs
            ]
        else:
            s1, s2, b1, b2 = item.s1_good, item.s2_good, item.s1_bad, item.s2_bad
            pairs = [(s1, b1), (b1, s1), (s2, b2), (b2, s2)]
            prompts = [prompting.render(self.templates[1], a=a, b=b, language=lang) for a, b in pairs]
        return [ChoiceRequest(id=f"{tag}:{k}", prompt=p, options=("A", "B")) for k, p in enumerate(prompts)]

    def judge(self, results: Sequence[ChoiceResult]) -> Judgement:
        """The verdict on the answers to ``requests``: all 4, or the first minimal pair's 2 (early
        rejection: a quadruplet is kept only when both pairs pass, so a failed first pair already drops
        it, with its one margin, and a passing one is judged again with the second pair's answers)."""
        base = {"rule": self.name, "threshold": float(self.threshold or 0.0)}
        if len(results) not in (2, 4) or not all(r.ok and r.choice is not None for r in results):
            why = "filter_llm_error" if any(r.status == "error" for r in results) else "filter_no_answer"
            return Judgement(keep=False, reason=why, margins=None, first_option=None, **base)
        wants = EXPECTED[: len(results)]
        if self.pointwise:
            m = [option_margin(r, "yes", "no") for r in results]
            pair = [m[k] - m[k + 1] for k in range(0, len(m), 2)]
            first = None
        else:
            m = [option_margin(r, w, "B" if w == "A" else "A") for r, w in zip(results, wants, strict=True)]
            pair = [m[k] + m[k + 1] for k in range(0, len(m), 2)]
            first = sum(r.choice == "A" for r in results)
        margins = tuple(round(x, 4) for x in pair)
        if self.name == "strict":
            ok = all(r.choice == w for r, w in zip(results, wants, strict=True))
            reason = "" if ok else "filter_rejected"
        else:
            ok = min(margins) > base["threshold"]
            reason = "" if ok else "filter_below_threshold"
        return Judgement(keep=ok, reason=reason, margins=margins, first_option=first, **base)


def option_margin(res: ChoiceResult, want: str, other: str) -> float:
    """log P(want) - log P(other) at the answer token; ±GEN_MARGIN when read from generated text."""
    if res.path != "logprobs" or len(res.logprobs) != 2:
        return GEN_MARGIN if res.choice == want else -GEN_MARGIN
    i = 0 if want in ("A", "yes") else 1
    lw, lo = res.logprobs[i], res.logprobs[1 - i]

    def fin(x: float | None) -> float:
        return LP_FLOOR if x is None or not math.isfinite(x) else max(x, LP_FLOOR)

    return fin(lw) - fin(lo)


def _nonce_game(item: JudgeItem, nonce: str) -> list[tuple[str, str, str]]:
    """(corpus sentence, nonce form, sentence) of the ``nonce`` rule's 4 WordSwap prompts, in the order
    good, bad, good, bad: w1's corpus sentence with S1 (its own use) then with S2* (w1 in w2's sentence);
    w2's corpus sentence with S2, then with S1*. The rare word is the nonce word in all of them."""
    n1, n2 = _nonce(nonce, item.w1, item.tag1), _nonce(nonce, item.w2, item.tag2)
    c1 = _replace(item.context1 or item.s1_good, item.w1, n1)
    c2 = _replace(item.context2 or item.s2_good, item.w2, n2)
    return [
        (c1, n1, _replace(item.s1_good, item.w1, n1)),
        (c1, n1, _replace(item.s2_bad, item.w1, n1)),
        (c2, n2, _replace(item.s2_good, item.w2, n2)),
        (c2, n2, _replace(item.s1_bad, item.w2, n2)),
    ]


_SUFFIX_TAGS = (("ing", "VBG"), ("ed", "VBD"), ("s", "NNS"))


def _nonce(nonce: str, word: str, tag: str) -> str:
    if not tag:
        low = word.lower()
        tag = next((t for suf, t in _SUFFIX_TAGS if low.endswith(suf) and len(low) > len(suf) + 2), "")
    return nonce_form(nonce, tag)


def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", flags=re.IGNORECASE)


def _find(text: str, word: str) -> bool:
    return _pattern(word).search(text) is not None


def _replace(text: str, word: str, by: str) -> str:
    """``text`` with every whole-word occurrence of ``word`` replaced by ``by`` (case kept), and an "a"/"an"
    right before it made to fit ``by`` ("an otter" -> "a blick")."""
    from corpusbench.heuristics import article_for

    out = _pattern(word).sub(lambda m: match_case(by, m.group(0)), text)
    art = re.compile(rf"(?<!\w)(an?)(\s+)(?={re.escape(by)}(?!\w))", flags=re.IGNORECASE)
    return art.sub(lambda m: match_case(article_for(by), m.group(1)) + m.group(2), out)


def judge_items(
    llm: Any,
    items: Sequence[JudgeItem],
    rule: FilterRule,
    nonce: str = "blick",
    progress: Any = None,
    *,
    early_reject: bool = False,
) -> list[Judgement]:
    """Judge every item (its own ``judge_rule`` if set, else ``rule``) in one batch of LLM calls.

    ``early_reject``: ask the first minimal pair's 2 prompts of every item first, and the second pair's
    only for the items whose first pair passed: the same verdicts for fewer requests (a dropped item
    records only its first margin). ``judge-check`` asks all 4 (its threshold sweep needs both margins)."""
    rules = [
        FilterRule(it.judge_rule, None)
        if it.judge_rule and it.judge_rule != rule.name
        else rule.for_subtask(it.subtask)
        for it in items
    ]
    out: list[Judgement | None] = [None] * len(items)
    for pick, judge in ((True, score_items), (False, _ask_items)):  # lm's sentence scores, then prompts
        idx = [n for n, fr in enumerate(rules) if fr.scored is pick]
        if idx:
            verdicts = judge(
                llm, [items[n] for n in idx], [rules[n] for n in idx], nonce, progress, early_reject
            )
            for n, v in zip(idx, verdicts, strict=True):
                out[n] = v
    return out  # type: ignore[return-value]


def _ask_items(
    llm: Any,
    items: Sequence[JudgeItem],
    rules: Sequence[FilterRule],
    nonce: str,
    progress: Any,
    early_reject: bool,
) -> list[Judgement]:
    """The prompted rules' verdicts (``judge_items``)."""
    reqs = [fr.requests(it, nonce) for it, fr in zip(items, rules, strict=True)]
    if not early_reject:
        flat = [r for four in reqs for r in four]
        answers = llm.choose(flat, progress) if flat else []
        return [fr.judge(answers[4 * n : 4 * n + 4]) for n, fr in enumerate(rules)]
    first = [r for four in reqs for r in four[:2]]
    answers = llm.choose(first, progress) if first else []
    out = [fr.judge(answers[2 * n : 2 * n + 2]) for n, fr in enumerate(rules)]
    rest = [n for n, v in enumerate(out) if v.keep]  # the first pair passed: ask the second
    second = llm.choose([r for n in rest for r in reqs[n][2:]], progress) if rest else []
    for k, n in enumerate(rest):
        out[n] = rules[n].judge([*answers[2 * n : 2 * n + 2], *second[2 * k : 2 * k + 2]])
    return out


def score_items(
    llm: Any,
    items: Sequence[JudgeItem],
    rules: Sequence[FilterRule],
    nonce: str = "",
    progress: Any = None,
    early_reject: bool = False,
) -> list[Judgement]:
    """The ``lm`` rule's verdicts: the first pair's two sentences scored, then (``early_reject``) the second
    pair's only where the first passed. Sentences repeat across drafts; the LLM cache scores each once."""
    reqs = [fr.score_requests(it) for it, fr in zip(items, rules, strict=True)]
    if not early_reject:
        flat = llm.score([r for four in reqs for r in four], progress) if reqs else []
        return [fr.judge_scores(flat[4 * n : 4 * n + 4]) for n, fr in enumerate(rules)]
    first = llm.score([r for four in reqs for r in four[:2]], progress) if reqs else []
    out = [fr.judge_scores(first[2 * n : 2 * n + 2]) for n, fr in enumerate(rules)]
    rest = [n for n, v in enumerate(out) if v.keep]
    second = llm.score([r for n in rest for r in reqs[n][2:]], progress) if rest else []
    for k, n in enumerate(rest):
        out[n] = rules[n].judge_scores([*first[2 * n : 2 * n + 2], *second[2 * k : 2 * k + 2]])
    return out


def pair_scores(llm: Any, items: Sequence[JudgeItem], progress: Any = None) -> list[float | None]:
    """Each item's smaller log P(good) - log P(swapped) over its two pairs (None: a sentence unscored):
    the ``lm`` rule's margin, for judging a cell's drafts best-first."""
    verdicts = score_items(llm, items, [FilterRule("lm")] * len(items), progress=progress)
    return [None if v.margins is None else min(v.margins) for v in verdicts]


def fluency_scores(llm: Any, items: Sequence[JudgeItem], progress: Any = None) -> list[float | None]:
    """Each item's smaller per-word log-prob of its two good sentences under the judge model (None: one
    unscored): how natural its least natural good sentence reads, for judging a cell's drafts most fluent
    first (``--fluent-first``; #37 round five: AUC 0.71 for InflectionSwap validity, 456 labelled pairs).
    The same requests as the ``lm`` rule's good sentences, so the LLM cache scores each sentence once."""
    reqs = [r for it in items for r in FilterRule("lm").score_requests(it)[0::2]]
    results = llm.score(reqs, progress) if reqs else []
    out: list[float | None] = []
    for n, it in enumerate(items):
        pair = results[2 * n : 2 * n + 2]
        if not all(r.ok and r.logprob is not None for r in pair):
            out.append(None)
            continue
        out.append(
            min(
                round(float(r.logprob) / max(1, len(s.split())), 2)  # 0.01 nat: stable across sessions
                for r, s in zip(pair, (it.s1_good, it.s2_good), strict=True)
            )
        )
    return out
