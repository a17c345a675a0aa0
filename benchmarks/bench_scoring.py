"""Scoring throughput: corpusbench's scorers vs the reference methods, same model, same items, same run.

``python -m benchmarks.bench_scoring [--pairs 1000] [--sites 24] [--pll-pairs 150] [--skip-{causal,cac,pll}]``

1. Causal (SmolLM2-135M, fp32): sentences/s of ``CausalScorer`` as ``corpusbench eval`` runs it
   (prefix-tree rows: every shared token prefix run once, head once per node), and with prefix
   sharing off (length-sorted token-budget batches, head only at scored positions) vs a
   minicons-style scorer at batch 64 and batch 1
   (pad to the longest in the user batch, full-vocabulary log-softmax per sentence in a Python
   loop; BOS prepended) and a naive per-sentence loop (HF ``labels`` loss per sentence), on the
   same pairs: seeded synthetic agreement pairs, or ``--items PATH`` (any minimal-pair file or
   folder ``corpusbench eval`` reads, e.g. a built release; ``--pairs`` of them sampled with a
   fixed seed). Scores must agree (max |diff| is reported).
2. CAC AR on the real Eve transcript (consecutive sites, whole left context): ``choose_causal``
   (one KV cache carried across the dialogue's sites, only new tokens run; candidates batched on
   top) vs the per-site shared context (context run once per site) and the reference method
   (three full strings, each its own forward with full logits). Then, with a short window
   (``--window 512``), exact per-site cuts vs ``--context-step 128``.
3. Masked PLL (tiny random RoBERTa, 4 layers, trained BPE tokenizer): flattened copies with the
   head at the masked position vs minicons-style (all copies of a user batch of sentences in one
   forward, full logits).

Absolute numbers on shared machines vary; compare ratios within one run. Writes
``benchmarks/results/bench_scoring.json``.
"""

from __future__ import annotations

import argparse
import itertools
import platform
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from benchmarks.measure import RESULTS, ROOT, save_result

SMOL = ROOT / "models" / "smollm2-135m-instruct"
OUT = RESULTS / "bench_scoring.json"

NOUNS = [
    ("dog", "dogs"),
    ("cat", "cats"),
    ("teacher", "teachers"),
    ("farmer", "farmers"),
    ("child", "children"),
    ("woman", "women"),
    ("king", "kings"),
    ("servant", "servants"),
    ("pilot", "pilots"),
    ("doctor", "doctors"),
    ("student", "students"),
    ("author", "authors"),
    ("soldier", "soldiers"),
    ("neighbour", "neighbours"),
]
VERBS = [
    ("laughs", "laugh"),
    ("is smiling", "are smiling"),
    ("sleeps", "sleep"),
    ("runs away", "run away"),
    ("was waiting outside", "were waiting outside"),
    ("likes the old song", "like the old song"),
    ("knows the answer", "know the answer"),
    ("has left the house", "have left the house"),
]
ADJ = ["old", "young", "tall", "quiet", "happy", "tired"]
PLACE = ["garden", "kitchen", "village", "market", "church", "forest"]


def agreement_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` seeded subject-verb agreement pairs (good, bad), 4-14 words, several templates."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        noun, verb = rng.choice(NOUNS), rng.choice(VERBS)
        num = rng.randrange(2)
        other = rng.choice(NOUNS)[1 - num]
        subj = f"{rng.choice(ADJ)} {noun[num]}" if rng.random() < 0.5 else noun[num]
        tmpl = rng.randrange(4)
        pre = {
            0: f"The {subj}",
            1: f"The {subj} near the {other}",
            2: f"The {subj} that the {other} saw",
            3: f"The {subj} in the {rng.choice(PLACE)}",
        }[tmpl]
        out.append((f"{pre} {verb[num]}.", f"{pre} {verb[1 - num]}."))
    return out


def timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    res = fn()
    return res, time.perf_counter() - t0


# -- causal baselines ---------------------------------------------------------------------------
@torch.no_grad()
def minicons_style(model: Any, tok: Any, texts: list[str], batch: int) -> list[float]:
    """minicons IncrementalLMScorer.sequence_score(bos_token=True, reduction=sum), reimplemented."""
    out = []
    bos = tok.bos_token_id
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    for s in range(0, len(texts), batch):
        encs = [[bos, *tok(t, add_special_tokens=False)["input_ids"]] for t in texts[s : s + batch]]
        width = max(map(len, encs))
        ids = torch.tensor([e + [pad] * (width - len(e)) for e in encs])
        mask = torch.tensor([[1] * len(e) + [0] * (width - len(e)) for e in encs])
        logits = model(input_ids=ids, attention_mask=mask).logits
        for r, e in enumerate(encs):  # per-sentence loop, full-vocabulary normalisation
            lg = logits[r, : len(e) - 1]
            lp = lg - lg.logsumexp(1, keepdim=True)
            out.append(float(lp.gather(1, torch.tensor(e[1:]).unsqueeze(1)).sum()))
    return out


@torch.no_grad()
def naive_loop(model: Any, tok: Any, texts: list[str]) -> list[float]:
    """One sentence at a time through HF's own ``labels`` loss."""
    out = []
    for t in texts:
        ids = torch.tensor([[tok.bos_token_id, *tok(t, add_special_tokens=False)["input_ids"]]])
        loss = model(input_ids=ids, labels=ids).loss
        out.append(-float(loss) * (ids.shape[1] - 1))
    return out


ROUNDS = 4  # methods alternate over item chunks, so load drift on a shared machine hits all alike


def interleaved(
    methods: dict[str, Any], items: list[Any], slow: set[str], slow_n: int | None
) -> dict[str, Any]:
    """Run every method on each of ROUNDS chunks in turn; returns name -> (scores, seconds)."""
    out: dict[str, Any] = {name: ([], 0.0) for name in methods}
    size = -(-len(items) // ROUNDS)
    for r in range(ROUNDS):
        chunk = items[r * size : (r + 1) * size]
        for name, fn in methods.items():
            part = chunk[: -(-slow_n // ROUNDS)] if name in slow and slow_n else chunk
            scores, secs = timed(lambda fn=fn, part=part: fn(part))
            out[name] = (out[name][0] + scores, out[name][1] + secs)
    return out


def item_pairs(
    items: str | None, n: int, configs: list[str] | None = None
) -> tuple[list[tuple[str, str]], str]:
    """``n`` (good, bad) pairs: synthetic agreement pairs, or a seeded sample of a minimal-pair dataset."""
    if items is None:
        return agreement_pairs(n), "synthetic agreement pairs (benchmarks.bench_scoring.agreement_pairs)"
    from corpusbench.eval.data import load_pairs

    data = load_pairs(items, configs=configs)
    every = [(p.good, p.bad) for p in data.pairs]
    picked = random.Random(0).sample(every, min(n, len(every)))
    return picked, f"{len(picked)} of {len(every)} pairs of {items} (configs {', '.join(data.configs)})"


def bench_causal(
    lm: Any,
    n_pairs: int,
    slow_subset: int | None = None,
    batch_tokens: int = 2048,
    items: str | None = None,
    configs: list[str] | None = None,
) -> dict[str, Any]:
    """``slow_subset``: time the batch-1 baselines on the first N pairs of each round only (iid items,
    so sentences/s stays comparable; recorded in the output)."""
    from corpusbench.eval.causal import CausalScorer

    pairs, source = item_pairs(items, n_pairs, configs)
    n_pairs = len(pairs)
    scorer = CausalScorer(lm.model, lm.tokenizer, bos="prepend", batch_tokens=batch_tokens)
    plain = CausalScorer(lm.model, lm.tokenizer, batch_tokens=batch_tokens, share_prefixes=False)
    flat = lambda ps: [s for p in ps for s in p]  # noqa: E731
    scorer.sequence_logprob(flat(pairs[:4]))  # warm-up
    methods = {
        "corpusbench_causal": lambda ps: scorer.sequence_logprob(flat(ps)),
        "corpusbench_causal_no_prefix_sharing": lambda ps: plain.sequence_logprob(flat(ps)),
        "minicons_style_batch64": lambda ps: minicons_style(lm.model, lm.tokenizer, flat(ps), 64),
        "minicons_style_batch1": lambda ps: minicons_style(lm.model, lm.tokenizer, flat(ps), 1),
        "naive_per_sentence_loop": lambda ps: naive_loop(lm.model, lm.tokenizer, flat(ps)),
    }
    runs = interleaved(methods, pairs, {"minicons_style_batch1", "naive_per_sentence_loop"}, slow_subset)
    ours = dict(zip(flat(pairs), runs["corpusbench_causal"][0], strict=True))
    res: dict[str, Any] = {
        "items": source,
        "prefix_sharing": scorer.conventions()["prefix_sharing"],
        "row_tokens": scorer.row_tokens,
        "n_pairs": n_pairs,
        "n_sentences": 2 * n_pairs,
        "rounds": ROUNDS,
        "batch_tokens": batch_tokens,
        "n_tokens": sum(len(lm.tokenizer(t)["input_ids"]) + 1 for t in flat(pairs)),
    }
    rate = {}
    for name, (scores, secs) in runs.items():
        n = len(scores)
        rate[name] = n / secs
        texts = flat(interleaved_items(pairs, n_pairs if n == 2 * n_pairs else slow_subset))
        res[name] = {
            "seconds": secs,
            "n_sentences": n,
            "sentences_per_s": n / secs,
            "max_abs_diff_vs_corpusbench": max(abs(a - ours[t]) for a, t in zip(scores, texts, strict=True)),
            "accuracy": sum(scores[2 * i] > scores[2 * i + 1] for i in range(n // 2)) / (n // 2),
        }
    for name in runs:
        if not name.startswith("corpusbench"):
            res[f"speedup_vs_{name}"] = rate["corpusbench_causal"] / rate[name]
            res[f"speedup_no_prefix_sharing_vs_{name}"] = (
                rate["corpusbench_causal_no_prefix_sharing"] / rate[name]
            )
    return res


def interleaved_items(items: list[Any], slow_n: int | None) -> list[Any]:
    """The items a (possibly subset) method saw, in the order ``interleaved`` ran them."""
    size = -(-len(items) // ROUNDS)
    per = -(-slow_n // ROUNDS) if slow_n and slow_n < len(items) else size
    return [x for r in range(ROUNDS) for x in items[r * size : (r + 1) * size][:per]]


# -- CAC AR ---------------------------------------------------------------------------------------
EVE = ROOT / "data" / "childes" / "eve.cha"


def cac_sites(n: int) -> list[Any]:
    """The first ``n`` child/caretaker sites of the real Eve transcript, each with its whole left
    context (as ``corpusbench eval`` on a ``corpusbench cac`` folder builds them)."""
    from corpusbench.families.cac.io import load_sites
    from corpusbench.families.cac.pipeline import CacConfig, run_cac
    from corpusbench.families.cac.score import determiner_sites, select_sites

    with tempfile.TemporaryDirectory() as tmp:
        cfg = CacConfig()
        run_cac([EVE], Path(tmp) / "cac", cfg)
        sites, sessions = load_sites(Path(tmp) / "cac")
    return determiner_sites(select_sites(sites, None)[:n], sessions, cfg.alternation, None)


@torch.no_grad()
def cac_reference(model: Any, tok: Any, sites: list[Any]) -> list[float]:
    """Three complete strings per site, each its own forward, full log-softmax over every position."""
    from corpusbench.families.cac.lm import merge_p_the

    out = []
    for s in sites:
        lp = {}
        for f in s.candidates:
            ids = torch.tensor(
                [[tok.bos_token_id, *tok(s.left + f + s.right, add_special_tokens=False)["input_ids"]]]
            )
            logits = model(input_ids=ids).logits[0, :-1]
            lp[f] = float(torch.log_softmax(logits.float(), -1).gather(1, ids[0, 1:].unsqueeze(1)).sum())
        out.append(merge_p_the(lp))
    return out


def bench_cac(lm: Any, n_sites: int) -> dict[str, Any]:
    """Consecutive sites of one dialogue: the carried KV cache (``corpusbench eval``), the per-site
    shared context (previous method) and the reference (three full strings), chunks interleaved."""
    from corpusbench.eval.causal import CausalScorer
    from corpusbench.families.cac.lm import choose_causal

    sites = cac_sites(n_sites)
    scorer = CausalScorer(lm.model, lm.tokenizer, batch_tokens=2048)
    choose_causal(scorer, sites[:2], window=8192)
    runs = interleaved(
        {
            "ours": lambda ss: choose_causal(scorer, ss, window=8192),
            "per_site": lambda ss: choose_causal(scorer, ss, window=8192, reuse=False),
            "ref": lambda ss: cac_reference(lm.model, lm.tokenizer, ss),
        },
        sites,
        set(),
        None,
    )
    (ours, t_ours), (per, t_per), (ref, t_ref) = runs["ours"], runs["per_site"], runs["ref"]
    ctx = [len(lm.tokenizer(s.left)["input_ids"]) for s in sites]
    return {
        "n_sites": n_sites,
        "sites": "eve.cha, first child/caretaker sites, whole left context",
        "rounds": ROUNDS,
        "mean_context_tokens": sum(ctx) / len(ctx),
        "max_context_tokens": max(ctx),
        "corpusbench_kv_reuse_across_sites": {"seconds": t_ours, "sites_per_s": n_sites / t_ours},
        "corpusbench_shared_context_per_site": {"seconds": t_per, "sites_per_s": n_sites / t_per},
        "reference_three_full_strings": {"seconds": t_ref, "sites_per_s": n_sites / t_ref},
        "speedup": t_ref / t_ours,
        "speedup_per_site_vs_reference": t_ref / t_per,
        "max_abs_diff_p_the": max(abs(c.p_the - r) for c, r in zip(ours, ref, strict=True)),
        "max_abs_diff_logprob_reuse_vs_per_site": max(
            abs(c.logprobs[f] - d.logprobs[f]) for c, d in zip(ours, per, strict=True) for f in c.logprobs
        ),
    }


def bench_cac_window(lm: Any, n_sites: int, window: int, step: int) -> dict[str, Any]:
    """Dialogues longer than the window (as for BabyLM models with 512-token windows): every site cut
    exactly to the window (the reference; the KV cache cannot carry over) vs ``--context-step``
    (cut ``step`` tokens deeper and keep the cut while it fits). The contexts differ, so the
    p(the) difference between the two is reported with the speed."""
    from corpusbench.eval.causal import CausalScorer
    from corpusbench.families.cac.lm import choose_causal

    sites = cac_sites(n_sites)
    scorer = CausalScorer(lm.model, lm.tokenizer, batch_tokens=2048)
    choose_causal(scorer, sites[:2], window=window)
    runs = interleaved(
        {
            "exact": lambda ss: choose_causal(scorer, ss, window=window),
            "stepped": lambda ss: choose_causal(scorer, ss, window=window, context_step=step),
        },
        sites,
        set(),
        None,
    )
    (exact, t_exact), (stepped, t_step) = runs["exact"], runs["stepped"]
    cut = [k for k, c in enumerate(exact) if c.truncated]
    mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
    return {
        "n_sites": n_sites,
        "window": window,
        "context_step": step,
        "n_truncated": len(cut),
        "exact_cut": {"seconds": t_exact, "sites_per_s": n_sites / t_exact},
        "context_step_cut": {"seconds": t_step, "sites_per_s": n_sites / t_step},
        "speedup": t_exact / t_step,
        "mean_context_tokens_truncated_sites": {
            "exact": mean([exact[k].n_context_tokens for k in cut]),
            "stepped": mean([stepped[k].n_context_tokens for k in cut]),
        },
        "mean_abs_diff_p_the": mean([abs(a.p_the - b.p_the) for a, b in zip(exact, stepped, strict=True)]),
        "max_abs_diff_p_the": max(abs(a.p_the - b.p_the) for a, b in zip(exact, stepped, strict=True)),
    }


# -- masked PLL -----------------------------------------------------------------------------------
@torch.no_grad()
def minicons_style_pll(model: Any, tok: Any, texts: list[str], batch: int) -> list[float]:
    """within_word_l2r PLL as minicons: all copies of a user batch in one forward, full logits."""
    out = []
    for s in range(0, len(texts), batch):
        rows: list[list[int]] = []
        owners: list[list[tuple[int, int, int]]] = []  # per sentence: (row, position, target id)
        for t in texts[s : s + batch]:
            enc = tok(t, return_special_tokens_mask=True)
            ids, sp, w = enc["input_ids"], enc["special_tokens_mask"], enc.word_ids()
            mine = []
            for j in [i for i, x in enumerate(sp) if not x]:
                rows.append(
                    [
                        tok.mask_token_id if (k == j or (k > j and w[k] == w[j] and not sp[k])) else v
                        for k, v in enumerate(ids)
                    ]
                )
                mine.append((len(rows) - 1, j, ids[j]))
            owners.append(mine)
        width = max(map(len, rows))
        ids_t = torch.tensor([r + [tok.pad_token_id] * (width - len(r)) for r in rows])
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
        logits = model(input_ids=ids_t, attention_mask=mask).logits
        lp = logits - logits.logsumexp(-1, keepdim=True)
        out += [sum(float(lp[r, j, i]) for r, j, i in mine) for mine in owners]
    return out


def bench_pll(n_pairs: int) -> dict[str, Any]:
    from corpusbench.eval.masked import MaskedPllScorer
    from corpusbench.eval.models import load_model
    from corpusbench.eval.tiny import build_tiny_model

    files = sorted((ROOT / "data" / "default" / "shakespeare").glob("*.txt"))[:2]
    lines: list[str] = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            lines += list(itertools.islice(fh, 1500))
    with tempfile.TemporaryDirectory() as tmp:
        path = build_tiny_model(
            "roberta", Path(tmp) / "roberta", lines, vocab_size=8192, hidden=256, layers=4
        )
        lm = load_model(str(path))
    texts = [s for p in agreement_pairs(n_pairs, seed=2) for s in p]
    scorer = MaskedPllScorer(lm.model, lm.tokenizer, pll="within_word_l2r", batch_tokens=2048)
    scorer.sequence_logprob(texts[:8])  # warm-up
    minicons_style_pll(lm.model, lm.tokenizer, texts[:8], 64)
    runs = interleaved(
        {
            "ours": scorer.sequence_logprob,
            "ref": lambda ts: minicons_style_pll(lm.model, lm.tokenizer, ts, 64),
        },
        texts,
        set(),
        None,
    )
    (ours, t_ours), (ref, t_ref) = runs["ours"], runs["ref"]
    return {
        "model": "tiny random RoBERTa (4x256, BPE vocab 8192)",
        "n_sentences": len(texts),
        "corpusbench_pll": {"seconds": t_ours, "sentences_per_s": len(texts) / t_ours},
        "minicons_style_batch64": {"seconds": t_ref, "sentences_per_s": len(texts) / t_ref},
        "speedup": t_ref / t_ours,
        "max_abs_diff": max(abs(a - b) for a, b in zip(ours, ref, strict=True)),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--sites", type=int, default=24)
    ap.add_argument("--pll-pairs", type=int, default=150)
    ap.add_argument("--window-sites", type=int, default=60, help="CAC sites for the short-window part")
    ap.add_argument("--window", type=int, default=512, help="CAC short-window part: model window")
    ap.add_argument("--context-step", type=int, default=128, help="CAC short-window part: --context-step")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-tokens", type=int, default=2048)
    ap.add_argument("--slow-subset", type=int, default=None, help="pairs for the batch-1 baselines")
    ap.add_argument("--items", default=None, help="minimal-pair file/folder for the causal part")
    ap.add_argument("--configs", nargs="+", default=None, help="configs of --items to sample from")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--skip-causal", action="store_true")
    ap.add_argument("--skip-cac", action="store_true")
    ap.add_argument("--skip-pll", action="store_true")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    from corpusbench.eval.models import load_model
    from corpusbench.provenance import code_version

    lm = load_model(str(SMOL))
    result: dict[str, Any] = {
        "benchmark": "bench_scoring",
        "model": "SmolLM2-135M-Instruct (fp32, cpu)",
        "threads": args.threads,
        "machine": platform.machine(),
        "code": code_version(),
        "torch": torch.__version__,
    }
    if not args.skip_causal:
        result["causal"] = bench_causal(
            lm, args.pairs, args.slow_subset, args.batch_tokens, args.items, args.configs
        )
        print({k: v for k, v in result["causal"].items() if k.startswith("speedup")}, flush=True)
    if not args.skip_cac:
        result["cac_ar"] = bench_cac(lm, args.sites)
        print({"cac_speedup": result["cac_ar"]["speedup"]}, flush=True)
        result["cac_short_window"] = bench_cac_window(lm, args.window_sites, args.window, args.context_step)
        print({"cac_context_step_speedup": result["cac_short_window"]["speedup"]}, flush=True)
    if not args.skip_pll:
        result["masked_pll"] = bench_pll(args.pll_pairs)
        print({"pll_speedup": result["masked_pll"]["speedup"]}, flush=True)
    save_result(args.out, result)
    return result


if __name__ == "__main__":
    main()
