"""HanTa (HanoverTagger) sentence tagging with exact memoisation and a leaner Viterbi loop.

HanTa tags a sentence in three steps, all pure functions of their arguments and the model:
``_tag_word(word, cutoff, casesensitive, conditional)`` (candidate tags of a word, by a Viterbi
search over its morphemes), ``tag_sent_viterbi`` (the best tag sequence of the sentence), and
``_analyze(word, tag)`` (the lemma, by a second morpheme search; it lowercases the word first).
``FastHanta`` memoises the two per-word steps, and runs the sentence Viterbi with the same
additions in the same order, but visits only the tags the word can have instead of every tag
that may follow a state (HanTa skips the others). New states enter each row in HanTa's order,
so ties break the same way: the output is HanTa's (``tests/corpus/test_taggers.py`` checks it
against plain HanTa on German Bible text).

The two morpheme searches (``analyze_forward``: tag scores of a new word, memoised per lowercased
word; ``analyze_viterbi``: its morphemes given the tag, for the lemma) are replaced by ``forward``
and ``morphemes``: the same tables, filled with the same sums in the same order. HanTa calls
``lp_m_t(word[i:j], tag)`` for every state of row ``i``, end ``j`` and following tag; here the
scores of all segments starting at ``i`` are found once per row: the known morphemes by one look-up
per segment in an index morpheme -> (tag, score) (``_known``), the guesses of the open classes
from length and suffix once per tag (``_guessed``). Both are functions of the rest of the word
``word[i:]`` (and, for a guess, of ``len(word) < 4`` and ``i == 0``), so they are memoised across
words, which share their endings. Only finite scores are visited (``-inf`` can never pass HanTa's
lower bound). For one state HanTa's loops run over the end ``j`` and then the following tag; here
over the tag and then ``j``: each row still receives this state's new states in the order of the
tags, so rows keep HanTa's order and ties break the same way. In the sentence Viterbi every state
of the German model has the same following tags in the same order, so each word's candidate tags
are put in that order once (``_word_tags``) instead of once per state.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

EMPTY, START, END, UNKNOWN, END_UNKNOWN = 0, 1, 2, 3, -3  # HanTa's reserved tag ids
LOWERBOUND = -1e6
REST_CACHE = 1 << 15  # entries of each per-ending cache (``_known``, ``_guessed``): ~50 MiB at most


class FastHanta:
    """``HanoverTagger.tag_sent(tokens, taglevel=1)``, memoised: ``[(word, lemma, tag), ...]``."""

    def __init__(self, tagger: Any, cache_size: int = 1 << 18) -> None:
        self.t = tagger
        # HanTa calls these through ``self``, so the memoised versions serve its own searches too
        tagger._tag_word = functools.lru_cache(maxsize=cache_size)(tagger._tag_word)
        analyze = functools.lru_cache(maxsize=cache_size)(tagger._analyze)
        tagger._analyze = lambda word, pos, taglevel=1: analyze(word.lower(), pos, taglevel)
        self._analyze = analyze
        # the morpheme searches behind both (``_tag_word`` asks again for each case of a word)
        tagger.analyze_forward = functools.lru_cache(maxsize=cache_size)(self.forward)
        tagger.analyze_viterbi = self.morphemes
        self._order: dict[Any, dict[int, int]] = {}  # state -> position of each following tag
        # morpheme -> its (tag, log p) pairs; the tags that guess unknown morphemes (open classes)
        index: dict[str, list[tuple[int, float]]] = {}
        for tag, lp_m in tagger.LP_m_t.items():
            for m, lp in lp_m.items():
                if lp != -math.inf:
                    index.setdefault(m, []).append((tag, lp))
        self._index = index
        self._open = frozenset(c for c in tagger.LP_hapax_t if c in tagger.LP_s_t)
        # every state of the German model is followed by the same tags in the same order: then a
        # word's tags are put in that order once (``_word_tags``), not once per state
        orders = {tuple(d) for d in tagger.LP_trans_word.values()}
        first = next(iter(orders), ())
        self._rank = {c: k for k, c in enumerate(first) if c != END} if len(orders) == 1 else None
        self._word_tags = functools.lru_cache(maxsize=cache_size)(self._word_tags)  # type: ignore[method-assign]
        self._known = functools.lru_cache(maxsize=REST_CACHE)(self._known)  # type: ignore[method-assign]
        self._guessed = functools.lru_cache(maxsize=REST_CACHE)(self._guessed)  # type: ignore[method-assign]
        self._triples: dict[tuple[str, int], tuple[str, str, str]] = {}  # (word, tag) -> tag_sent's triple
        self._triples_max = cache_size

    def _known(self, rest: str) -> dict[int, tuple[tuple[int, float], ...]]:
        """Tag -> ``(k, LP_m_t[tag][rest[:k]])`` for the known morphemes ``rest[:k]``, ``k``
        ascending: one look-up per segment instead of one per segment and tag. A function of the
        rest of the word only, so memoised across words (German words share their endings)."""
        out: dict[int, list[tuple[int, float]]] = {}
        index = self._index
        for k in range(1, len(rest) + 1):
            tags = index.get(rest[:k])
            if tags:
                for tag, lp in tags:
                    seg = out.get(tag)
                    if seg is None:
                        out[tag] = [(k, lp)]
                    else:
                        seg.append((k, lp))
        return {tag: tuple(seg) for tag, seg in out.items()}

    def _guessed(self, rest: str, tag: int, short: bool, whole: bool) -> tuple[tuple[int, float], ...]:
        """``(k, lp_m_t(rest[:k], tag, wlen, strict=False))`` for an open-class ``tag``, ``k``
        ascending, the finite ones only (HanTa's ``lp_m_t``, inlined). ``wlen`` matters only as
        ``short`` (``wlen < 4``) and ``whole`` (``rest`` is the whole word), so this is memoised
        across words too."""
        t = self.t
        lp_m = t.LP_m_t[tag]
        lp_s = t.LP_s_t[tag]
        head = t.Int_t + t.LP_hapax_t[tag]
        lp_len = t.LP_len_t[tag]
        n = len(rest)
        out = []
        for mlen in range(1, n + 1):
            m = rest[:mlen]
            if m in lp_m:
                lp = lp_m[m]
            elif short or mlen > 2:
                if mlen > 4 and m[-4:] in lp_s:
                    lp_suf = lp_s[m[-4:]]
                elif mlen > 3 and m[-3:] in lp_s:
                    lp_suf = lp_s[m[-3:]]
                elif mlen > 2 and m[-2:] in lp_s:
                    lp_suf = lp_s[m[-2:]]
                elif mlen > 1 and m[-1:] in lp_s:
                    lp_suf = lp_s[m[-1:]]
                else:
                    lp_suf = lp_s[""]
                lp = head + lp_len[min(mlen, 24)] + lp_suf
                if whole and mlen == n:
                    lp -= 4.6
            else:
                continue
            if lp != -math.inf:
                out.append((mlen, lp))
        return tuple(out)

    def _fill(
        self,
        word: str,
        table: list[dict[Any, float]],
        strict: bool,
        backpointer: list[dict[Any, Any]] | None = None,
        allowed: frozenset[int] | None = None,
    ) -> None:
        """HanTa's morpheme table (rows ``0..len(word)``), with ``backpointer`` if given and only the
        following tags in ``allowed`` if given. A tag scores the segments it knows, and an open-class
        tag (not ``strict``) guesses the others from their length and suffix."""
        nonfinal = self.t.LP_trans_nonfinal
        guessing = frozenset() if strict else self._open
        short = len(word) < 4
        for i in range(len(word) + 1):
            row = table[i]
            if not row:
                continue
            rowbound = sorted(row.values(), reverse=True)[3] - 1 if len(row) > 3 else LOWERBOUND
            rest = word[i:]
            known = self._known(rest)
            guessed: dict[int, tuple[tuple[int, float], ...]] = {}
            for state, lp in row.items():
                if lp < rowbound:
                    continue
                s1 = state[1]
                for tag1, lpt in nonfinal.get(state, ()):
                    if tag1 in guessing:
                        seg = guessed.get(tag1)
                        if seg is None:
                            seg = guessed[tag1] = self._guessed(rest, tag1, short, i == 0)
                    else:
                        seg = known.get(tag1)
                        if seg is None:
                            continue
                    if allowed is not None and tag1 not in allowed:
                        continue
                    base = lp + lpt
                    new = (s1, tag1)
                    for k, lpm in seg:
                        lp1 = base + lpm
                        if lp1 > LOWERBOUND:
                            j = i + k
                            tj = table[j]
                            if new not in tj or lp1 > tj[new]:
                                tj[new] = lp1
                                if backpointer is not None:
                                    backpointer[j][new] = (state, i)

    def forward(self, word: str) -> list[tuple[int, float]]:
        """``HanoverTagger.analyze_forward``: the same tags and scores in the same order."""
        from numpy import logaddexp

        t = self.t
        wlen = len(word)
        table: list[dict[Any, float]] = [{(EMPTY, START): 0}] + [{} for _ in range(wlen + 1)]
        self._fill(word, table, t.strict)
        last = table[-1]
        for state, lp in table[-2].items():
            for tag1, lpt in t.LP_trans_final.get(state, []):
                lp1 = lp + lpt
                if lp1 > LOWERBOUND:
                    new = (state[1], tag1)
                    if new not in last or lp1 > last[new]:
                        last[new] = lp1
        results: dict[int, Any] = {}
        for state, lp in last.items():
            if lp == -math.inf:
                continue
            pos = -state[1]
            results[pos] = logaddexp(results[pos], lp) if pos in results else lp
        result_list = list(results.items())
        result_list.sort(key=itemgetter(1), reverse=True)
        return result_list or [(UNKNOWN, 0)]

    def morphemes(self, word: str, targetpos: int) -> list[tuple[int, int]]:
        """``HanoverTagger.analyze_viterbi``: the same morphemes (tag, end) of ``word``."""
        t = self.t
        wlen = len(word)
        reachable_t = t.reachability.get(targetpos, frozenset())
        for localstrict in (True, False):
            table: list[dict[Any, float]] = [{(EMPTY, START): 0}] + [{} for _ in range(wlen + 1)]
            backpointer: list[dict[Any, Any]] = [{} for _ in range(wlen + 2)]
            self._fill(word, table, localstrict, backpointer, reachable_t)
            last = table[-1]
            for state, lp in table[-2].items():
                for tag1, lpt in t.LP_trans_final.get(state, []):
                    if tag1 == targetpos:
                        lp1 = lp + lpt
                        if lp1 > LOWERBOUND:
                            new = (state[1], tag1)
                            if new not in last or lp1 > last[new]:
                                last[new] = lp1
                                backpointer[-1][new] = (state, wlen)
                        break
            if last:
                break
        pmax = -math.inf
        beststate = (EMPTY, EMPTY)
        for state, lp in table[-1].items():
            if lp > pmax:
                pmax = lp
                beststate = state
        i = len(backpointer) - 1
        if beststate == (EMPTY, EMPTY):
            states = [((UNKNOWN, END_UNKNOWN), i), ((START, UNKNOWN), i - 1)]
        else:
            states = [(beststate, i)]
            state = beststate
            while i > 0:
                state, i = backpointer[i][state]
                states.append((state, i))
            states = states[:-1]
        return [(state[1], i) for (state, i) in states[::-1]]

    def _followers(self, state: Any) -> dict[int, int]:
        order = self._order.get(state)
        if order is None:
            order = self._order[state] = {c: k for k, c in enumerate(self.t.LP_trans_word[state])}
        return order

    def _word_tags(self, w: str, cs: bool) -> tuple[tuple[int, float], ...] | None:
        """The word's candidate tags and scores (``_tag_word``, as the sentence Viterbi asks for
        them); None for an unknown word (any tag, at no cost). With one order of following tags
        for every state (``_rank``), in that order and without ``END``."""
        wprobs = dict(self.t._tag_word(w, cutoff=5, casesensitive=cs, conditional=True))
        if not wprobs or (len(wprobs) == 1 and UNKNOWN in wprobs):
            return None
        rank = self._rank
        if rank is None:
            return tuple(wprobs.items())
        return tuple((c, wprobs[c]) for c in sorted((c for c in wprobs if c in rank), key=rank.__getitem__))

    def viterbi(self, sent: list[str], casesensitive: bool = True) -> list[int]:
        """``HanoverTagger.tag_sent_viterbi``: same scores, same order of states, same result."""
        t = self.t
        trans = t.LP_trans_word
        uniform = self._rank is not None
        neg = -math.inf
        table: list[dict[Any, float]] = []
        backpointer: list[dict[Any, Any]] = []
        for i, w in enumerate(sent):
            cs = casesensitive and i > 0
            wtags = self._word_tags(w, cs)
            row: dict[Any, float] = {}
            get = row.get
            bp: dict[Any, Any] = {}
            backpointer.append(bp)
            prevrow = {(EMPTY, START): 0.0} if i == 0 else table[i - 1]
            rowbound = sorted(prevrow.values(), reverse=True)[5] - 1 if len(prevrow) > 5 else LOWERBOUND
            for state, lp0 in prevrow.items():
                if lp0 < rowbound:
                    continue
                lp_t = trans[state]
                s1 = state[1]
                if uniform and wtags is not None:  # the word's tags, in HanTa's order, follow every state
                    for c, lpwc in wtags:  # the loop below, without building the steps
                        lp = lp0 + lp_t[c] + lpwc
                        if lp > LOWERBOUND:
                            new = (s1, c)
                            if lp > get(new, neg):
                                row[new] = lp
                                bp[new] = state
                    continue
                if wtags is None:  # an unknown word: any tag, at no cost
                    steps = [(c, lp_tc, 0) for c, lp_tc in lp_t.items() if c != END]
                else:  # HanTa's order over this state's following tags, restricted to the word's tags
                    wprobs = dict(wtags)
                    tags = [c for c in wprobs if c in lp_t and c != END]
                    if len(tags) > 1:
                        tags.sort(key=self._followers(state).__getitem__)
                    steps = [(c, lp_t[c], wprobs[c]) for c in tags]
                for c, lp_tc, lpwc in steps:
                    lp = lp0 + lp_tc + lpwc
                    if lp > LOWERBOUND:
                        new = (s1, c)
                        if new not in row or lp > row[new]:
                            row[new] = lp
                            bp[new] = state
            table.append(row)
        final = (END, EMPTY)
        row = {}
        bp = {}
        backpointer.append(bp)
        for state, lp0 in table[-1].items():
            lp = lp0 + trans[state].get(END, -math.inf)
            if lp > row.get(final, -math.inf):
                row[final] = lp
                bp[final] = state
        tags = []
        state = final
        for i in range(len(backpointer) - 1, 0, -1):
            state = backpointer[i][state]
            tags.append(state[1])
        return tags[::-1]

    def tag_sent(self, sent: Sequence[str]) -> list[tuple[str, str, str]]:
        """``HanoverTagger.tag_sent(sent, taglevel=1)``; each (word, tag)'s triple is made once (its
        lemma look-up lowercases the word; per token that was ~7% of the time)."""
        triples = self._triples
        if len(triples) > self._triples_max:
            triples.clear()
        int2tag = self.t.int2tag
        out = []
        for w, tag in zip(sent, self.viterbi(list(sent)) if sent else [], strict=True):
            r = triples.get((w, tag))
            if r is None:
                r = triples[(w, tag)] = (w, self._analyze(w.lower(), tag, 1)[0], int2tag[tag])
            out.append(r)
        return out
