"""T5-style span-corruption scorer with sentinel tokens (the seq2seq interface of the papers).

A span ``text[s:e]`` is scored as ``log P(<extra_id_0> span <extra_id_1></s> | text with the span
replaced by <extra_id_0>)`` under teacher forcing, summed over all target tokens (sentinels and
EOS included, as the determiner-choice reference does). A sentence (or a character region of it) is
scored as a sentinel PLL: every whitespace-delimited word (clipped to the region) is blanked in turn and
the word scores are summed; a one-word region is one blank. Encoder passes are shared by all targets
of the same input (e.g. three candidates, one encoder pass).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from corpusbench.errors import ConfigError
from corpusbench.eval.batching import (
    Progress,
    SummedScores,
    budget_batches,
    gather_logprobs,
    pad_right,
    split_flat,
)
from corpusbench.eval.models import max_positions
from corpusbench.eval.records import Span
from corpusbench.eval.timing import StageClock, count_tokens

WORD = re.compile(r"\S+")


class Seq2SeqScorer(SummedScores):
    name = "seq2seq-sentinel.v1"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        batch_tokens: int = 2048,
        sentinel: str = "<extra_id_0>",
        closing: str = "<extra_id_1>",
    ) -> None:
        for s in (sentinel, closing):
            tid = tokenizer.convert_tokens_to_ids(s)
            if tid is None or tid == tokenizer.unk_token_id:
                raise ConfigError(
                    f"tokenizer has no sentinel token {s}: not a T5-style span-corruption model"
                )
        self.model, self.tokenizer, self.batch_tokens = model, tokenizer, batch_tokens
        self.sentinel, self.closing = sentinel, closing
        self.device = next(model.parameters()).device
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        start = getattr(model.config, "decoder_start_token_id", None)
        self.start_id = start if start is not None else self.pad_id
        self.sentinel_id = tokenizer.convert_tokens_to_ids(sentinel)
        self.max_len = max_positions(model, tokenizer)
        self.n_cut = 0  # encoder inputs longer than the window, cut to fit around the blank
        self.clock = StageClock()
        count_tokens(model, self.clock)

    def conventions(self) -> dict[str, Any]:
        return {
            "scorer": self.name,
            "encoder_input": f"span replaced by {self.sentinel}",
            "target": f"{self.sentinel} span {self.closing} + EOS, all target tokens scored",
            "sentence": "sentinel PLL over whitespace words",
            "reduction": "sum",
            "log_base": "e",
            "logprob": "logit - logsumexp (fp32)",
            "batch_tokens": self.batch_tokens,
            "longer_than_window": f"encoder input cut to the model's {self.max_len} tokens, from the left "
            "(from the right only where the left would reach the blank; flagged)",
        }

    def fit(self, ids: list[int]) -> list[int]:
        """Encoder ids cut to the model's window (``max_len``) when longer, counted in ``n_cut``: the oldest
        tokens go first; if the blank (the sentinel) would go, the tokens before it go and then the last
        ones before the closing special tokens. Before, such an input was run past the trained positions
        (or failed in learned position embeddings)."""
        extra = len(ids) - self.max_len
        if extra <= 0:
            return ids
        self.n_cut += 1
        at = ids.index(self.sentinel_id) if self.sentinel_id in ids else len(ids)
        left = min(extra, at)
        tail = 1 if ids and ids[-1] == self.tokenizer.eos_token_id else 0
        right = extra - left
        body = ids[left : len(ids) - tail - right] if right else ids[left : len(ids) - tail]
        return body + ids[len(ids) - tail :]

    # -- public verbs ---------------------------------------------------------------------------
    def blank(self, text: str, span: Span, fill: str | None = None) -> tuple[str, str]:
        """(encoder input, target text) for scoring ``fill`` (default: the span's text) in the slot."""
        s, e = span
        fill = text[s:e] if fill is None else fill
        return text[:s] + self.sentinel + text[e:], f"{self.sentinel} {fill} {self.closing}"

    def score(
        self,
        texts: Sequence[str],
        spans: Sequence[Span | None] | None = None,
        progress: Progress | None = None,
    ) -> list[tuple[float, int]]:
        spans = spans if spans is not None else [None] * len(texts)
        plans = []
        for text, span in zip(texts, spans, strict=True):
            words = [m.span() for m in WORD.finditer(text)]
            if span is not None:  # the words of the region (clipped to it), each blanked in turn
                words = [(max(a, span[0]), min(b, span[1])) for a, b in words if a < span[1] and b > span[0]]
            plans.append([self.blank(text, w) for w in words])
        flat = [p for plan in plans for p in plan]
        values = self.score_targets([a for a, _ in flat], [b for _, b in flat], progress)
        out, pos = [], 0
        for plan in plans:
            out.append(
                (
                    float(sum(v.sum() for v in values[pos : pos + len(plan)])),
                    int(sum(len(v) for v in values[pos : pos + len(plan)])),
                )
            )
            pos += len(plan)
        return out

    # -- engine ---------------------------------------------------------------------------------
    @torch.no_grad()
    def score_targets(
        self, sources: Sequence[str], targets: Sequence[str], progress: Progress | None = None
    ) -> list[np.ndarray]:
        """Per-token target log-probs for each (encoder input, target text); shared inputs encoded once."""
        tok = self.tokenizer
        enc_of: dict[str, int] = {}
        for s in sources:
            enc_of.setdefault(s, len(enc_of))
        enc_texts = list(enc_of)
        enc_ids = [self.fit(tok(s)["input_ids"]) for s in enc_texts]
        dec_ids = [tok(t)["input_ids"] for t in targets]
        rows_of: list[list[int]] = [[] for _ in enc_texts]
        for i, s in enumerate(sources):
            rows_of[enc_of[s]].append(i)
        out: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(targets)
        cost = [len(enc_ids[u]) + sum(len(dec_ids[i]) for i in rows_of[u]) for u in range(len(enc_texts))]
        for batch in budget_batches(cost, self.batch_tokens):
            ids, mask = pad_right([enc_ids[u] for u in batch], self.pad_id)
            ids, mask = ids.to(self.device), mask.to(self.device)
            hidden = self.model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
            rows = [i for u in batch for i in rows_of[u]]
            which = torch.tensor([r for r, u in enumerate(batch) for _ in rows_of[u]], device=self.device)
            labels, lmask = pad_right([dec_ids[i] for i in rows], self.pad_id)
            dec_in = torch.cat([torch.full((len(rows), 1), self.start_id), labels[:, :-1]], dim=1)
            logits = self.model(
                encoder_outputs=(hidden[which],),
                attention_mask=mask[which],
                decoder_input_ids=dec_in.to(self.device),
                decoder_attention_mask=lmask.to(self.device),
                use_cache=False,
            ).logits
            sel = lmask.bool().to(self.device)
            lp = gather_logprobs(logits[sel], labels.to(self.device)[sel]).cpu().numpy()
            split_flat(lp, rows, [len(dec_ids[i]) for i in rows], out)
            if progress:
                progress(len(rows))
        return out
