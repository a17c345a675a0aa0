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
"""

from __future__ import annotations

import functools
import math
from typing import Any

EMPTY, START, END, UNKNOWN = 0, 1, 2, 3  # HanTa's reserved tag ids
LOWERBOUND = -1e6


class FastHanta:
    """``HanoverTagger.tag_sent(tokens, taglevel=1)``, memoised: ``[(word, lemma, tag), ...]``."""

    def __init__(self, tagger: Any, cache_size: int = 1 << 18) -> None:
        self.t = tagger
        # HanTa calls these through ``self``, so the memoised versions serve its own searches too
        tagger._tag_word = functools.lru_cache(maxsize=cache_size)(tagger._tag_word)
        analyze = functools.lru_cache(maxsize=cache_size)(tagger._analyze)
        tagger._analyze = lambda word, pos, taglevel=1: analyze(word.lower(), pos, taglevel)
        self._analyze = analyze
        self._order: dict[Any, dict[int, int]] = {}  # state -> position of each following tag

    def _followers(self, state: Any) -> dict[int, int]:
        order = self._order.get(state)
        if order is None:
            order = self._order[state] = {c: k for k, c in enumerate(self.t.LP_trans_word[state])}
        return order

    def viterbi(self, sent: list[str], casesensitive: bool = True) -> list[int]:
        """``HanoverTagger.tag_sent_viterbi``: same scores, same order of states, same result."""
        t = self.t
        trans = t.LP_trans_word
        table: list[dict[Any, float]] = []
        backpointer: list[dict[Any, Any]] = []
        for i, w in enumerate(sent):
            cs = casesensitive and i > 0
            wprobs = dict(t._tag_word(w, cutoff=5, casesensitive=cs, conditional=True))
            if len(wprobs) == 1 and UNKNOWN in wprobs:
                wprobs = {}
            row: dict[Any, float] = {}
            bp: dict[Any, Any] = {}
            backpointer.append(bp)
            prevrow = {(EMPTY, START): 0.0} if i == 0 else table[i - 1]
            rowbound = sorted(prevrow.values(), reverse=True)[5] - 1 if len(prevrow) > 5 else LOWERBOUND
            for state, lp0 in prevrow.items():
                if lp0 < rowbound:
                    continue
                lp_t = trans[state]
                if wprobs:  # HanTa's order over the following tags, restricted to the word's tags
                    tags = [c for c in wprobs if c in lp_t and c != END]
                    if len(tags) > 1:
                        tags.sort(key=self._followers(state).__getitem__)
                    steps = [(c, lp_t[c], wprobs[c]) for c in tags]
                else:  # an unknown word: any tag, at no cost
                    steps = [(c, lp_tc, 0) for c, lp_tc in lp_t.items() if c != END]
                s1 = state[1]
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

    def tag_sent(self, sent: list[str]) -> list[tuple[str, str, str]]:
        if not sent:
            return []
        tags = self.viterbi(sent)
        int2tag = self.t.int2tag
        return [
            (w, self._analyze(w.lower(), tag, 1)[0], int2tag[tag]) for w, tag in zip(sent, tags, strict=True)
        ]
