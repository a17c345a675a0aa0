"""One-off numerical cross-check of our scorers against minicons 0.3.39 (not part of CI).

minicons' masked path needs transformers < 5, so it runs in its own venv (``make crosscheck-minicons``
builds ``.venv-minicons`` with transformers 4.57 on top of the main venv's torch):

    .venv/bin/python -m benchmarks.crosscheck_minicons dump  out/xcheck/ours.json --tiny out/xcheck
    .venv-minicons/bin/python benchmarks/crosscheck_minicons.py compare out/xcheck/ours.json --tiny out/xcheck

``dump`` scores a few sentences with SmolLM2 (causal, BOS prepended and not) and with tiny random
BERT / RoBERTa (PLL original and within_word_l2r); ``compare`` scores them with minicons (fp32 model
passed in: minicons alone would keep SmolLM2's bf16 weights) and prints max |ours - minicons|.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
SMOL = ROOT / "models" / "smollm2-135m-instruct"
TEXTS = [
    "The cat sat on the mat.",
    "Mat the on sat cat the.",
    "The children are playing in the park.",
    "Park the in playing are children the.",
    "She is reading a book about an apple.",
    "I want a dog.",
]
MLM_KINDS = ("bert", "roberta")


def saved_special_tokens(folder: Path) -> dict[str, str]:
    """The ``*_token`` entries the tiny model's tokenizer was saved with (tokenizer_config.json and,
    where present, special_tokens_map.json), so transformers 4 can rebuild it from tokenizer.json."""
    out: dict[str, str] = {}
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        path = folder / name
        if path.is_file():
            for key, val in json.loads(path.read_text()).items():
                val = val.get("content") if isinstance(val, dict) else val
                if key.endswith("_token") and isinstance(val, str):
                    out[key] = val
    return out


def dump(out: Path, tiny: Path) -> None:
    from corpusbench.eval.causal import CausalScorer
    from corpusbench.eval.masked import MaskedPllScorer
    from corpusbench.eval.models import load_model
    from corpusbench.eval.tiny import build_tiny_model

    lines = (
        (ROOT / "data" / "default" / "shakespeare" / "a-midsummer-night-s-dream.txt").read_text().splitlines()
    )
    res: dict[str, list[float]] = {}
    lm = load_model(str(SMOL))
    res["causal_bos"] = CausalScorer(lm.model, lm.tokenizer, bos="prepend").sequence_logprob(TEXTS)
    res["causal_nobos"] = CausalScorer(lm.model, lm.tokenizer, bos="none").sequence_logprob(TEXTS)
    for kind in MLM_KINDS:
        m = load_model(str(build_tiny_model(kind, tiny / kind, lines[:1500] + TEXTS)))  # type: ignore[arg-type]
        for pll in ("original", "within_word_l2r"):
            res[f"{kind}_{pll}"] = MaskedPllScorer(m.model, m.tokenizer, pll=pll).sequence_logprob(TEXTS)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))


def compare(ours_path: Path, tiny: Path) -> float:
    from minicons import scorer
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, LlamaConfig, PreTrainedTokenizerFast

    ours = json.loads(ours_path.read_text())
    red = lambda x: x.sum(0).item()  # noqa: E731 - minicons takes a reduction callable
    raw = json.loads((SMOL / "config.json").read_text())
    raw.pop("quantization_config", None)  # null in the folder; transformers 4 cannot print it
    raw["rope_theta"] = raw.pop("rope_parameters", {}).get("rope_theta", 10000.0)  # transformers 5 key
    cfg = LlamaConfig(**{k: v for k, v in raw.items() if k not in ("architectures", "model_type")})
    tok = PreTrainedTokenizerFast(
        tokenizer_file=str(SMOL / "tokenizer.json"),
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|im_end|>",
    )
    model = AutoModelForCausalLM.from_pretrained(SMOL, config=cfg, torch_dtype=torch.float32)
    inc = scorer.IncrementalLMScorer(model, "cpu", tokenizer=tok)
    theirs = {
        "causal_bos": inc.sequence_score(TEXTS, bos_token=True, reduction=red),
        "causal_nobos": inc.sequence_score(TEXTS, bos_token=False, reduction=red),
    }
    for kind in MLM_KINDS:
        sp = saved_special_tokens(tiny / kind)
        mtok = PreTrainedTokenizerFast(tokenizer_file=str(tiny / kind / "tokenizer.json"), **sp)
        mlm = scorer.MaskedLMScorer(AutoModelForMaskedLM.from_pretrained(tiny / kind), "cpu", tokenizer=mtok)
        for pll in ("original", "within_word_l2r"):
            theirs[f"{kind}_{pll}"] = mlm.sequence_score(TEXTS, reduction=red, PLL_metric=pll)
    worst = 0.0
    for key, vals in theirs.items():
        diff = max(abs(a - b) for a, b in zip(vals, ours[key], strict=True))
        worst = max(worst, diff)
        print(f"{key:24s} max |ours - minicons| = {diff:.2e}")
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="cross-check against minicons")
    ap.add_argument("mode", choices=["dump", "compare"])
    ap.add_argument("path", type=Path)
    ap.add_argument("--tiny", type=Path, required=True, help="folder for the tiny random models")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    if args.mode == "dump":
        dump(args.path, args.tiny)
        return 0
    return 0 if compare(args.path, args.tiny) <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
