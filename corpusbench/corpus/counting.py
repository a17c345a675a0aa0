"""Counting tagged sentences into mergeable partial statistics.

``PartialStats`` is what one chunk of documents produces; partials merge associatively and the
context choice is order-independent, so any number of workers gives byte-identical output.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from corpusbench.corpus.taggers import Sentence

CONTEXT_POS = frozenset({"NOUN", "VERB"})
MAX_CONTEXT_TOKENS = 128
MIN_CONTEXT_TOKENS = 5
MAX_CONTEXT_TOKEN_CHARS = 40
_URLISH = re.compile(r"https?:|www\.|\.html?\b|javascript", re.IGNORECASE)
# The vocabulary (docs/corpus.md): spaces around every symbol and digit ("59th" -> "5 9 th"); letters and
# apostrophes stay.
_PIECES = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|['’]|\S", re.UNICODE)

Key = tuple[str, str, str, str, str]  # form, tag, pos, lemma, morph
Context = tuple[int, str, int]  # n_tokens, sentence, token_index


def vocab_pieces(token: str) -> list[str]:
    """Lowercased vocabulary pieces of one token, symbols and digits split off."""
    return _PIECES.findall(token.lower())


def _better(a: Context, b: Context) -> bool:
    """Longer sentences first, then lexicographic order: a total, order-independent preference."""
    return (-a[0], a[1], a[2]) < (-b[0], b[1], b[2])


@dataclass
class PartialStats:
    counts: Counter[Key] = field(default_factory=Counter)
    vocab: Counter[str] = field(default_factory=Counter)
    contexts: dict[tuple[str, str], list[Context]] = field(default_factory=dict)
    documents: int = 0
    sentences: int = 0
    tokens: int = 0
    max_contexts: int = 2

    def offer_context(self, key: tuple[str, str], ctx: Context) -> None:
        kept = self.contexts.get(key)
        if kept is None:
            self.contexts[key] = [ctx]
            return
        if len(kept) >= self.max_contexts and not _better(ctx, kept[-1]):
            return  # cheap early exit: most offers lose to what is kept
        if ctx in kept:
            return
        if len(kept) >= self.max_contexts:
            kept.pop()
        kept.append(ctx)
        kept.sort(key=lambda c: (-c[0], c[1], c[2]))

    def add_sentence(self, sent: Sentence) -> None:
        self.sentences += 1
        self.tokens += len(sent)
        texts, tags, poss, lemmas, morphs = zip(*sent, strict=True)
        forms = [t.lower() for t in texts]
        self.counts.update(zip(forms, tags, poss, lemmas, morphs, strict=True))  # counted in C
        alpha = [f for f in forms if f.isalpha()]
        self.vocab.update(alpha)
        if len(alpha) != len(forms):
            for f in forms:
                if not f.isalpha():
                    self.vocab.update(vocab_pieces(f))
        n = len(sent)
        if n >= MIN_CONTEXT_TOKENS and any(p in CONTEXT_POS for p in poss):
            self._add_contexts(sent, forms)

    def _add_contexts(self, sent: Sentence, forms: list[str]) -> None:
        n = len(sent)
        candidates = [i for i, tok in enumerate(sent) if tok[2] in CONTEXT_POS and forms[i].isalpha()]
        if not candidates:
            return
        if any(len(tok[0]) > MAX_CONTEXT_TOKEN_CHARS or _URLISH.search(tok[0]) for tok in sent):
            return
        once = Counter(forms)
        words = [tok[0] for tok in sent]
        joined = " ".join(words) if n <= MAX_CONTEXT_TOKENS else ""
        for i in candidates:
            if once[forms[i]] != 1:
                continue
            if n > MAX_CONTEXT_TOKENS:  # a window of 128 tokens centred on the word
                lo = min(max(0, i - MAX_CONTEXT_TOKENS // 2), n - MAX_CONTEXT_TOKENS)
                ctx = (MAX_CONTEXT_TOKENS, " ".join(words[lo : lo + MAX_CONTEXT_TOKENS]), i - lo)
            else:
                ctx = (n, joined, i)
            self.offer_context((forms[i], sent[i][1]), ctx)

    def merge(self, other: PartialStats) -> PartialStats:
        self.counts.update(other.counts)
        self.vocab.update(other.vocab)
        for key, ctxs in other.contexts.items():
            for ctx in ctxs:
                self.offer_context(key, ctx)
        self.documents += other.documents
        self.sentences += other.sentences
        self.tokens += other.tokens
        return self
