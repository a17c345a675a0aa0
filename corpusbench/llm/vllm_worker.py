"""The in-process vLLM engine, run as a worker inside the vLLM venv (stdlib + vllm only).

Started by ``corpusbench.llm.vllm_backend`` as ``<vllm python> vllm_worker.py`` with
``PYTHONSAFEPATH=1`` (so this folder's modules cannot shadow vLLM's imports). It reads one JSON
request per line on stdin and writes one JSON reply per line on the original stdout; everything
else the engine prints goes to stderr. Requests:

  {"op": "init", "model": ..., "dtype": ..., "max_model_len": ..., "enforce_eager": ..., "engine": {...}}
  {"op": "generate", "items": [{"messages": [...], "max_tokens", "temperature", "top_p", "seed", "stop"}]}
  {"op": "top", "k": 20, "items": [{"messages": [...]}]}
  {"op": "score", "items": [{"prefix": ..., "text": ...}]}  (raw text, no chat template)
  {"op": "shutdown"}
"""

import json
import os
import sys
import traceback


def _chat_ids(tok, messages):
    prefix = messages[-1]["role"] == "assistant"
    out = tok.apply_chat_template(
        messages, tokenize=True, add_generation_prompt=not prefix, continue_final_message=prefix
    )
    if isinstance(out, dict) or hasattr(out, "keys"):
        out = out["input_ids"]
    return list(out)


class Engine:
    def __init__(self, req):
        from vllm import LLM

        kwargs = dict(
            model=req["model"],
            dtype=req.get("dtype", "auto"),
            max_model_len=req.get("max_model_len"),
            enforce_eager=req.get("enforce_eager", False),
            enable_prefix_caching=True,
            seed=req.get("seed", 0),
        )
        kwargs.update({k: v for k, v in (req.get("engine") or {}).items() if v is not None})
        self.llm = LLM(**{k: v for k, v in kwargs.items() if v is not None})
        self.tok = self.llm.get_tokenizer()
        self.max_len = self.llm.llm_engine.model_config.max_model_len

    def _prepare(self, items):
        from vllm.inputs import TokensPrompt

        prompts, index, skipped = [], [], {}
        for i, item in enumerate(items):
            ids = _chat_ids(self.tok, item["messages"])
            if len(ids) >= self.max_len:
                skipped[i] = {
                    "status": "too_long",
                    "tokens_in": len(ids),
                    "error": f"prompt has {len(ids)} tokens; the context is {self.max_len}",
                }
            else:
                prompts.append(TokensPrompt(prompt_token_ids=ids))
                index.append(i)
        return prompts, index, skipped

    def generate(self, items):
        from vllm import SamplingParams

        prompts, index, results = self._prepare(items)
        params = []
        for i, prompt in zip(index, prompts, strict=True):
            it = items[i]
            room = self.max_len - len(prompt["prompt_token_ids"])
            params.append(
                SamplingParams(
                    max_tokens=min(it["max_tokens"], room),
                    temperature=it["temperature"],
                    top_p=it.get("top_p", 1.0),
                    seed=it.get("seed"),
                    stop=it.get("stop") or None,
                )
            )
        outs = self.llm.generate(prompts, params, use_tqdm=False) if prompts else []
        for i, prompt, out in zip(index, prompts, outs, strict=True):
            c = out.outputs[0]
            results[i] = {
                "status": "ok",
                "text": c.text,
                "finish_reason": c.finish_reason,
                "tokens_in": len(prompt["prompt_token_ids"]),
                "tokens_out": len(c.token_ids),
            }
        return [results[i] for i in range(len(items))]

    def top(self, items, k):
        from vllm import SamplingParams

        prompts, index, results = self._prepare(items)
        params = SamplingParams(max_tokens=1, temperature=0.0, logprobs=k)
        outs = self.llm.generate(prompts, params, use_tqdm=False) if prompts else []
        for i, prompt, out in zip(index, prompts, outs, strict=True):
            lps = out.outputs[0].logprobs[0]
            top = sorted(
                (
                    (lp.decoded_token if lp.decoded_token is not None else self.tok.decode([t]), lp.logprob)
                    for t, lp in lps.items()
                ),
                key=lambda x: -x[1],
            )[:k]
            results[i] = {"status": "ok", "top": top, "tokens_in": len(prompt["prompt_token_ids"])}
        return [results[i] for i in range(len(items))]

    def score(self, items):
        """Each text's summed prompt log-probs: the tokens of prefix + text that end past the prefix
        (the tokenizer's offsets), the first token excepted (it has none); the rule of
        ``corpusbench.llm.base.first_text_token``, written here again because this worker runs in the vLLM
        venv without corpusbench."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        prompts, index, results = [], [], {}
        for i, it in enumerate(items):
            enc = self.tok(it["prefix"] + it["text"], return_offsets_mapping=True)
            ids = list(enc["input_ids"])
            if not ids:  # nothing to score (and nothing the engine would take)
                results[i] = {"status": "ok", "logprob": 0.0}
                continue
            if len(ids) >= self.max_len:  # room for the one token vLLM must generate
                error = f"prompt has {len(ids)} tokens; the context is {self.max_len}"
                results[i] = {"status": "too_long", "tokens_in": len(ids), "error": error}
                continue
            ends = [e for _, e in enc["offset_mapping"]]
            n = len(it["prefix"])
            first = next(
                (j for j in range(1, len(ids)) if ends[j] > n or ends[j] == ends[j - 1] == n), len(ids)
            )
            prompts.append(TokensPrompt(prompt_token_ids=ids))
            index.append((i, first))
        params = SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
        outs = self.llm.generate(prompts, params, use_tqdm=False) if prompts else []
        for (i, first), prompt, out in zip(index, prompts, outs, strict=True):
            ids = prompt["prompt_token_ids"]
            lps = out.prompt_logprobs
            results[i] = {
                "status": "ok",
                "logprob": sum((float(lps[j][ids[j]].logprob) for j in range(first, len(ids))), 0.0),
                "tokens_in": len(ids),
                "tokens_out": len(out.outputs[0].token_ids),
            }
        return [results[i] for i in range(len(items))]


def main():
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # stray prints of the engine must not corrupt the protocol
    sys.stdout = sys.stderr
    engine = None
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        op = req.get("op")
        try:
            if op == "init":
                engine = Engine(req)
                import vllm

                reply = {"ok": True, "max_model_len": engine.max_len, "vllm": vllm.__version__}
            elif op == "generate":
                reply = {"ok": True, "results": engine.generate(req["items"])}
            elif op == "top":
                reply = {"ok": True, "results": engine.top(req["items"], int(req.get("k", 20)))}
            elif op == "score":
                reply = {"ok": True, "results": engine.score(req["items"])}
            elif op == "shutdown":
                proto.write(json.dumps({"ok": True}) + "\n")
                break
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
        except Exception as e:  # reported to the parent, which raises a BackendError
            traceback.print_exc()
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}", "op": op}
        proto.write(json.dumps(reply) + "\n")
    proto.flush()


if __name__ == "__main__":
    main()
