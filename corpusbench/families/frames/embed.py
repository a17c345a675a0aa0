"""LM-derived clusterings: k-means over a model's word embeddings.

- ``input``: the model's input (token) embedding matrix; a word's vector is the mean over the
  sub-tokens of `` word`` (leading space, as inside a sentence).
- ``contextual``: a hidden layer's states averaged over the word's sub-tokens and over its
  occurrences in corpus sentences (the shared tokenizer's words, joined by spaces); words that do
  not occur in the sentences read are left unclustered.

Vectors are L2-normalised and clustered with scikit-learn's ``KMeans`` (seeded), so the same model,
words, K and seed give the same clusters.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from corpusbench.errors import ConfigError, InputError
from corpusbench.families.frames.clusterings import Clustering
from corpusbench.families.frames.records import TokSentence

log = logging.getLogger(__name__)
Mode = Literal["input", "contextual"]
Progress = Callable[[int, int], None]  # (done, total)


@functools.lru_cache(maxsize=2)
def _load(model_dir: str | Path) -> tuple[Any, Any]:
    """Tokenizer and model of a folder (cached: a sweep over K loads the model once)."""
    from transformers import AutoModel, AutoTokenizer

    path = Path(model_dir)
    if not (path / "config.json").is_file():
        raise InputError(
            f"{model_dir}: not a Hugging Face model folder (no config.json); `make model` builds one"
        )
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path)
    model.eval()
    return tok, model


def input_embeddings(model_dir: str | Path, words: Sequence[str]) -> np.ndarray:
    """One row per word: the mean input embedding of its sub-tokens."""
    import torch

    tok, model = _load(model_dir)
    table = model.get_input_embeddings().weight.detach().float()
    rows = []
    with torch.no_grad():
        for w in words:
            ids = (
                tok(" " + w, add_special_tokens=False)["input_ids"]
                or tok(w, add_special_tokens=False)["input_ids"]
            )
            rows.append(table[ids].mean(0).numpy())
    return np.stack(rows) if rows else np.zeros((0, table.shape[1]), dtype=np.float32)


def contextual_embeddings(
    model_dir: str | Path,
    sents: Iterable[TokSentence],
    words: Sequence[str],
    *,
    layer: int = -1,
    batch_size: int = 16,
    max_tokens: int = 256,
    progress: Progress | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Per-word mean of layer ``layer``'s states over its occurrences; returns (vectors, words seen)."""
    import torch

    tok, model = _load(model_dir)
    if not getattr(tok, "is_fast", False):
        raise ConfigError(f"{model_dir}: contextual embeddings need a fast tokenizer (offset mapping)")
    wanted = {w: i for i, w in enumerate(words)}
    dim = model.config.hidden_size
    sums = np.zeros((len(words), dim), dtype=np.float64)
    counts = np.zeros(len(words), dtype=np.int64)
    batch: list[TokSentence] = []
    done = 0

    def flush() -> None:
        texts, spans = [], []
        for s in batch:
            pos, sp = 0, []
            for w in s.tokens:
                sp.append((pos, pos + len(w)))
                pos += len(w) + 1
            texts.append(" ".join(s.tokens))
            spans.append(sp)
        enc = tok(
            texts,
            return_offsets_mapping=True,
            padding=True,
            truncation=True,
            max_length=max_tokens,
            return_tensors="pt",
        )
        offsets = enc.pop("offset_mapping").tolist()
        with torch.no_grad():
            out = model(**enc, output_hidden_states=True)
        states = out.hidden_states[layer].float().numpy()
        for b, s in enumerate(batch):
            for w, (lo, hi) in zip(s.tokens, spans[b], strict=True):
                j = wanted.get(w)
                if j is None:
                    continue
                idx = [k for k, (a, z) in enumerate(offsets[b]) if z > a and a < hi and z > lo]
                if idx:
                    sums[j] += states[b, idx].mean(0)
                    counts[j] += 1
        batch.clear()

    for s in sents:
        batch.append(s)
        if len(batch) >= batch_size:
            done += len(batch)
            flush()
            if progress:
                progress(done, 0)
    if batch:
        flush()
    seen = [w for w in words if counts[wanted[w]] > 0]
    vecs = np.stack([sums[wanted[w]] / counts[wanted[w]] for w in seen]) if seen else np.zeros((0, dim))
    return vecs.astype(np.float32), seen


def kmeans_clustering(
    name: str,
    words: Sequence[str],
    vectors: np.ndarray,
    k: int,
    seed: int = 0,
    meta: dict[str, Any] | None = None,
) -> Clustering:
    """K-means (scikit-learn, seeded) over L2-normalised vectors; cluster ids ``k0``..``k{K-1}``."""
    from sklearn.cluster import KMeans

    if k < 2 or k > len(words):
        raise ConfigError(f"--clusters must be between 2 and the number of words ({len(words)}); got {k}")
    x = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    labels = KMeans(n_clusters=k, random_state=seed, n_init=4).fit_predict(x.astype(np.float64))
    clusters: dict[str, set[str]] = {}
    for w, lab in zip(words, labels, strict=True):
        clusters.setdefault(f"k{int(lab)}", set()).add(w)
    return Clustering(
        name=name,
        level="type",
        clusters={c: frozenset(ws) for c, ws in sorted(clusters.items())},
        meta={"k": k, "seed": seed, **(meta or {})},
    )
