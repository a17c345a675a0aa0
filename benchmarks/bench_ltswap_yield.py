"""LT-Swap yield levers on the same words in one run: requests, generated tokens, sentences passing the
checks and kept quadruplets per request, for the current writer and for each lever.

``python -m benchmarks.bench_ltswap_yield [--stats out/demo/stats] [--model DIR] [--groups 5]
[--pairs 5] [--base-url URL]`` (``--base-url``: a running vLLM server instead of starting one)

Words: the first ``--groups`` WordSwap (bin, tag) groups of the seeded draw with 2 words each (so that
each group can pair), and ``--pairs`` InflectionSwap pairs (both forms). One vLLM CPU server answers.

Variants (each counted as a run of its own would be: requests, generated tokens, judge requests), all with
writer prompt v4 (5 corpus sentences in the system turn), ``--variants`` picks some:
- ``unguided``: a free sentence.
- ``fixed``: guided decoding, the form after a short fixed frame per tag (the demo's writer until #37).
- ``anywhere``: guided decoding that only forces the exact form to appear somewhere in one sentence.
- ``varied``: guided decoding, the form after one of many seeded openings its tag fits (the default now).
- ``varied+samples``: ``varied``, then 2 more sampled candidates for each form whose sentence failed,
  the first that passes kept (what vLLM's ``n`` would give in one request, counted as separate requests).

Every variant's kept items are audited (``item_audit``: top-3 openings, words per sentence, pairs the
previous-word + suffix rule decides).

Each variant's drafts (WordSwap pairs and InflectionSwap pairs of checked sentences, shortcut drafts
dropped) are judged by the default filter rule with early rejection; a draft with the same sentences in
two variants is judged once but counted in each. Writes
``benchmarks/results/bench_ltswap_yield.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.measure import RESULTS, ROOT, save_result

OUT = RESULTS / "bench_ltswap_yield.json"
DEFAULT_MODEL = ROOT / "models" / "qwen2.5-coder-1.5b-instruct"
DEFAULT_STATS = ROOT / "out" / "demo" / "stats"
HINTS = {  # what the retry tells the writer, by drop reason
    "target_missing": "the sentence must contain the exact form '{w}' (not another form of it)",
    "target_repeated": "the sentence must contain '{w}' exactly once",
    "oov_word": "use only common, everyday words besides '{w}'",
    "too_short": "the sentence must have at least 20 words",
    "too_long": "the sentence must be shorter",
    "wrong_pos": "'{w}' must be used as a {pos}",
    "other_word_present": "do not use other forms of '{w}'",
}


VARIANTS = ("unguided", "fixed", "anywhere", "varied", "varied+samples")


def anywhere_regex(form: str) -> str:
    """One sentence with ``form`` as a whole word anywhere after its first word (guidance forces nothing
    else)."""
    import re

    return rf"[A-Z][^\n.!?]* {re.escape(form)}([ ,;:'][^\n.!?]*)?[.!?]"


def draw(stats_dir: Path, groups: int, pairs: int, seed: int):  # type: ignore[no-untyped-def]
    from corpusbench.corpus.store import CorpusStats
    from corpusbench.families.ltswap.candidates import build_candidates
    from corpusbench.families.ltswap.lexicon import EnglishLexicon
    from corpusbench.families.ltswap.pipeline import LtswapParams, sample_items

    stats = CorpusStats.load(stats_dir)
    cands, _ = build_candidates(stats, EnglishLexicon())
    params = LtswapParams(
        max_per_bin={"wordswap": 2, "inflswap": 1}, subtasks=("wordswap", "inflswap"), seed=seed
    )
    words, infl, _ = sample_items(params, cands)
    by_group: dict[tuple[int, str], list[Any]] = {}
    for w in words:
        by_group.setdefault((w.bin, w.tag), []).append(w)
    full = [g for g in by_group.values() if len(g) == 2][:groups]
    return [w for g in full for w in g], infl[:pairs], stats


def retry_request(req, reply: str, reason: str, form: str, pos: str):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    hint = HINTS.get(reason, "write one plain sentence that uses '{w}' exactly as given").format(
        w=form, pos=pos
    )
    prompt = (
        f"{req.prompt}\n\nYour previous answer was: {reply.strip()[:300]!r}. It was rejected: {hint}. "
        "Write a new sentence."
    )
    return replace(req, id=f"retry:{req.id}", prompt=prompt)


def outcomes_of(keys, results, pos_of, stats, checker, guided=False):  # type: ignore[no-untyped-def]
    from corpusbench.families.ltswap.generation import apply_pos_check, word_outcome

    return apply_pos_check(
        {k: word_outcome(results[k], k[0], stats.vocabulary, "en", guided=guided) for k in keys},
        pos_of,
        checker,
    )


def drafts_of(words, infl, outcomes, raw):  # type: ignore[no-untyped-def]
    from corpusbench.families.ltswap.assembly import inflswap_drafts, wordswap_drafts
    from corpusbench.families.ltswap.funnel import Funnel

    funnel, rejects = Funnel(), []
    ws = wordswap_drafts(words, outcomes, raw, 1, 0, "en", funnel, rejects)
    return ws + inflswap_drafts(infl, outcomes, raw, "en", funnel, rejects)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stats", type=Path, default=DEFAULT_STATS)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--groups", type=int, default=5)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--base-url", default=None, help="a running vLLM server (default: start one)")
    ap.add_argument("--cache", type=Path, default=None, help="LLM cache (a rerun after a crash resends less)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per LLM call (a shared server)")
    ap.add_argument(
        "--variants", default=",".join(VARIANTS), help="comma-separated, of " + ", ".join(VARIANTS)
    )
    args = ap.parse_args(argv)
    from dataclasses import replace

    from benchmarks.bench_llm_backends import open_backend
    from corpusbench.families.ltswap.assembly import drop_shortcuts
    from corpusbench.families.ltswap.filtering import draft_item, draft_key, pick_nonce
    from corpusbench.families.ltswap.funnel import Funnel
    from corpusbench.families.ltswap.generation import PosChecker, word_request
    from corpusbench.families.ltswap.item_audit import audit_items
    from corpusbench.families.ltswap.judging import FilterRule, judge_items
    from corpusbench.families.ltswap.pipeline import word_slots
    from corpusbench.llm.cache import CachedLLM
    from corpusbench.llm.hardware import default_dtype

    words, infl, stats = draw(args.stats, args.groups, args.pairs, args.seed)
    pos_of = word_slots(words, infl)
    keys = sorted(pos_of)
    checker = PosChecker("en")
    log_dir = RESULTS / "bench_ltswap_yield-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.base_url:
        from corpusbench.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend(args.base_url, concurrency=args.concurrency, timeout=args.timeout)
        stop = lambda: None  # noqa: E731
    else:
        backend, stop = open_backend("vllm-server", args.model, args.concurrency, 8, log_dir)
    startup = time.perf_counter() - t0
    try:
        llm = CachedLLM(backend, args.cache)
        from corpusbench.families.ltswap.candidates import build_candidates
        from corpusbench.families.ltswap.generation import rewrite_request, writer_examples

        examples = writer_examples(build_candidates(stats)[0], args.seed)
        is_keys = {k for p in infl for k in ((p.form1, p.tag1), (p.form2, p.tag2))}

        def write(name: str, reqs: list[Any], guided: bool) -> None:
            t0 = time.perf_counter()
            got = dict(zip(keys, llm.generate(reqs), strict=True))
            outs = outcomes_of(keys, got, pos_of, stats, checker, guided=guided)
            tokens = sum(r.tokens_out for r in got.values())  # the replies' own counts (cached ones too)
            variants[name] = (outs, got, len(keys), tokens, time.perf_counter() - t0)

        def v4(k: tuple[str, str], guided: bool, frames: str = "varied") -> Any:
            return word_request(
                k[0],
                k[1],
                96,
                "en",
                "v4",
                guided,
                examples,
                frames=frames,
                seed=args.seed,
                marked=k in is_keys,
            )

        variants: dict[str, tuple[Any, ...]] = {}
        wanted = args.variants.split(",")
        if "unguided" in wanted:  # writer v4, free sentence
            write("unguided", [v4(k, False) for k in keys], False)
        if "fixed" in wanted:  # the 2026-11-26 demo's writer: a short fixed frame per tag
            write("fixed", [v4(k, True, "fixed") for k in keys], True)
        if "anywhere" in wanted:  # the form forced to appear somewhere in a free sentence
            write("anywhere", [replace(v4(k, True), regex=anywhere_regex(k[0])) for k in keys], True)
        if "varied" in wanted or "varied+samples" in wanted:  # seeded varied openings (the default now)
            write("varied", [v4(k, True) for k in keys], True)
        if "varied+samples" in wanted:  # 2 more sampled candidates for a failed form; the first checked kept
            outs, got, n_req, tok, sec = variants["varied"]
            outs, got = dict(outs), dict(got)
            for attempt in (1, 2):
                failed = [k for k in keys if outs[k].stage != "checked"]
                t0 = time.perf_counter()
                res = llm.generate([rewrite_request(v4(k, True), attempt, args.seed) for k in failed])
                new = outcomes_of(failed, dict(zip(failed, res, strict=True)), pos_of, stats, checker, True)
                for k, r in zip(failed, res, strict=True):
                    if new[k].stage == "checked":
                        outs[k], got[k] = new[k], r
                n_req, tok = n_req + len(failed), tok + sum(r.tokens_out for r in res)
                sec += time.perf_counter() - t0
            variants["varied+samples"] = (outs, got, n_req, tok, sec)
            if "varied" not in wanted:
                del variants["varied"]
        rule, nonce = FilterRule(), pick_nonce("blick", stats.vocabulary)
        judged: dict[str, Any] = {}
        runs = []
        for name, (outs, raw, writer_reqs, tokens, seconds) in variants.items():
            drafts = drop_shortcuts(drafts_of(words, infl, outs, raw), "en", Funnel(), [])
            items = [draft_item(d) for d in drafts]
            todo = [it for it in items if draft_key(it) not in judged]
            t0 = time.perf_counter()
            if todo:
                verdicts = judge_items(llm, todo, rule, nonce, early_reject=True)
                judged |= {draft_key(it): v for it, v in zip(todo, verdicts, strict=True)}
            seconds += time.perf_counter() - t0
            verdict = [judged[draft_key(it)] for it in items]
            kept = Counter(d.subtask for d, v in zip(drafts, verdict, strict=True) if v.keep)
            kept_rows = [
                {"subtask": d.subtask, "rule": d.rule, "bin": d.bin, "w1": d.w1, "w2": d.w2}
                | {k: getattr(it, k) for k in ("s1_good", "s2_good", "s1_bad", "s2_bad")}
                for d, it, v in zip(drafts, items, verdict, strict=True)
                if v.keep
            ]
            checked = Counter(
                "wordswap" if any(w.form == k[0] and w.tag == k[1] for w in words) else "inflswap"
                for k in keys
                if outs[k].stage == "checked"
            )
            per_sub = Counter(
                "wordswap" if any(w.form == k[0] and w.tag == k[1] for w in words) else "inflswap"
                for k in keys
            )
            judge_reqs = sum(2 * len(v.margins or (0, 0)) for v in verdict)  # early rejection: 2 or 4
            requests = writer_reqs + judge_reqs
            runs.append(
                {
                    "variant": name,
                    "writer_requests": writer_reqs,
                    "judge_requests": judge_reqs,
                    "requests": requests,
                    "generated_tokens": tokens,
                    "checked": dict(checked),
                    "sentences": dict(per_sub),
                    "drafts": len(drafts),
                    "kept": dict(kept),
                    "kept_per_request": round(sum(kept.values()) / requests, 4),
                    "kept_per_1k_tokens": round(1000 * sum(kept.values()) / max(tokens, 1), 2),
                    "kept_per_llm_min": round(60 * sum(kept.values()) / max(seconds, 1e-9), 2),
                    "llm_s": round(seconds, 1),
                    "drops": dict(Counter(o.reason for o in outs.values() if o.stage != "checked")),
                    "kept_audit": audit_items(kept_rows),
                    "kept_items": kept_rows,
                    "sentences_written": {
                        f"{k[0]}/{k[1]}": (raw[k].text if raw.get(k) is not None else "") for k in keys
                    },
                }
            )
    finally:
        backend.close()
        stop()
    result = {
        "what": "LT-Swap yield levers on the same words (one vLLM server, one run)",
        "model": args.model,
        "dtype": default_dtype(),
        "words": {"wordswap": len(words), "inflswap_pairs": len(infl), "forms": len(keys)},
        "server_startup_s": round(startup, 1),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load": os.getloadavg()},
        "runs": runs,
    }
    save_result(OUT, result)
    table = Table(title=f"{len(keys)} word forms, {Path(args.model).name}, {result['dtype']}")
    for c in (
        "variant",
        "requests",
        "gen tok",
        "checked ws",
        "checked is",
        "drafts",
        "kept",
        "kept/req",
        "kept/1k tok",
        "kept/LLM-min",
        "top-3 open ws/is",
        "words ws/is",
        "IS rule decides",
        "drops",
    ):
        table.add_column(c, justify="left" if c in ("variant", "drops") else "right")
    for r in runs:
        ck, n, a = r["checked"], r["sentences"], r["kept_audit"]
        table.add_row(
            r["variant"],
            f"{r['requests']} ({r['writer_requests']}+{r['judge_requests']})",
            str(r["generated_tokens"]),
            f"{ck.get('wordswap', 0)}/{n.get('wordswap', 0)}",
            f"{ck.get('inflswap', 0)}/{n.get('inflswap', 0)}",
            str(r["drafts"]),
            str(sum(r["kept"].values())),
            str(r["kept_per_request"]),
            str(r["kept_per_1k_tokens"]),
            str(r["kept_per_llm_min"]),
            "/".join(str(a.get(x, {}).get("top3_opening_share")) for x in ("wordswap", "inflswap")),
            "/".join(str(a.get(x, {}).get("mean_words")) for x in ("wordswap", "inflswap")),
            "{}/{}".format(
                a.get("inflswap", {}).get("prev_word_suffix_decides"), a.get("inflswap", {}).get("pairs")
            ),
            ", ".join(f"{k} {v}" for k, v in list(r["drops"].items())[:3]),
        )
    Console(width=200).print(table)
    return result


if __name__ == "__main__":
    main()
