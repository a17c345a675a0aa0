"""Backend for a local Hugging Face causal LM (CPU or GPU), for small runs without vLLM.

Greedy requests are batched (left padding); sampled requests run one by one with their own seed
so that each sample is reproducible on its own. ``answer_top_tokens`` is one forward pass; ``score``
one forward pass per batch of raw texts (right padding: every row starts at position 0).
A model folder's own code (``auto_map`` in its config) runs only with ``trust_remote_code=True``
(``--trust-remote-code``); otherwise such a folder is refused in one line and transformers never asks.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import groupby
from typing import Any, ClassVar

from corpusbench.errors import BackendError, ConfigError
from corpusbench.llm.base import Backend, OnResult, TopTokens, chat_messages, first_text_token, sample_seed
from corpusbench.llm.hardware import default_dtype, numerics
from corpusbench.llm.records import ChoiceRequest, GenRequest, GenResult, ScoreRequest, ScoreResult
from corpusbench.llm.server import check_model, served_name

log = logging.getLogger(__name__)


class TransformersBackend(Backend):
    name: ClassVar[str] = "transformers"

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        dtype: str = "auto",
        batch_size: int = 8,
        max_model_len: int | None = None,
        threads: int | None = None,
        trust_remote_code: bool = False,
    ):
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

        check_model(model)
        if threads:
            torch.set_num_threads(threads)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = {
            "auto": getattr(torch, default_dtype(self.device)),
            "float32": torch.float32,
            "bfloat16": torch.bfloat16,
            "float16": torch.float16,
        }.get(dtype)
        if torch_dtype is None:
            raise ConfigError(f"unknown dtype {dtype!r}: use auto, float32, bfloat16 or float16")
        trust = {"trust_remote_code": bool(trust_remote_code)}  # never None: transformers would ask
        try:  # the config first: a folder with its own code is refused before anything else is read
            config = AutoConfig.from_pretrained(model, **trust)
            self.tok = AutoTokenizer.from_pretrained(model, **trust)
            self.lm = AutoModelForCausalLM.from_pretrained(model, config=config, dtype=torch_dtype, **trust)
        except OSError as e:
            raise ConfigError(
                f"unknown model {model!r}: not a model folder and not in the local Hugging Face "
                f"cache ({str(e).splitlines()[0][:200]})"
            ) from None
        except ValueError as e:
            if "trust_remote_code" in str(e):
                raise ConfigError(
                    f"model {model!r} ships its own Python code (auto_map in its config), which is not "
                    "run unless you pass --trust-remote-code (it runs that code with your permissions)"
                ) from None
            raise ConfigError(
                f"cannot load model {model!r}: {str(e).strip().splitlines()[0][:200]}"
            ) from None
        self.lm = self.lm.to(self.device).eval()
        if self.tok.chat_template is None:
            raise ConfigError(f"model {model!r} has no chat template; use an instruction-tuned model")
        self.tok.padding_side = "left"
        if self.tok.pad_token_id is None:
            self.tok.pad_token = self.tok.eos_token
        self.model = served_name(model)
        self.path = model
        self.batch_size = max(1, batch_size)
        self.max_len = max_model_len or int(getattr(self.lm.config, "max_position_embeddings", 2048))
        self._torch = torch

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "path": self.path,
            "device": self.device,
            **numerics(str(self.lm.dtype).removeprefix("torch.")),
            "max_model_len": self.max_len,
        }

    def _ids(self, prompt: str, system: str | None, prefix: str = "") -> list[int]:
        msgs = chat_messages(prompt, system, prefix)
        out = self.tok.apply_chat_template(
            msgs,
            tokenize=True,
            add_generation_prompt=not prefix,
            continue_final_message=bool(prefix),
            return_dict=True,
        )
        return list(out["input_ids"])

    def _batch(self, seqs: list[list[int]]) -> tuple[Any, Any]:
        torch = self._torch
        width = max(len(s) for s in seqs)
        pad = self.tok.pad_token_id
        ids = torch.tensor([[pad] * (width - len(s)) + s for s in seqs], device=self.device)
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs], device=self.device)
        return ids, mask

    def generate(
        self, reqs: Sequence[GenRequest], on_result: OnResult[GenResult] | None = None
    ) -> list[GenResult]:
        out: list[GenResult | None] = [None] * len(reqs)

        def deliver(i: int, res: GenResult) -> None:
            out[i] = res
            if on_result:
                on_result(i, res)

        ready: list[tuple[int, list[int], int]] = []
        for i, req in enumerate(reqs):
            ids = self._ids(req.prompt, req.system)
            room = self.max_len - len(ids)
            if room < 1:
                deliver(
                    i,
                    GenResult(
                        id=req.id,
                        status="too_long",
                        tokens_in=len(ids),
                        error=f"prompt has {len(ids)} tokens; the context is {self.max_len}",
                    ),
                )
                continue
            ready.append((i, ids, min(req.params.max_tokens, room)))

        def key(item: tuple[int, list[int], int]) -> tuple[bool, int]:
            return reqs[item[0]].params.temperature > 0, item[2]

        for (sampled, max_new), group in groupby(sorted(ready, key=key), key=key):
            items = list(group)
            step = 1 if sampled else self.batch_size
            for start in range(0, len(items), step):
                chunk = items[start : start + step]
                try:
                    texts = self._generate([ids for _, ids, _ in chunk], max_new, reqs[chunk[0][0]])
                except RuntimeError as e:  # OOM and device errors
                    raise BackendError(f"transformers generation failed on {self.device}: {e}") from None
                for (i, ids, _), (text, n_out, finish) in zip(chunk, texts, strict=True):
                    text, finish = _apply_stop(text, finish, reqs[i].params.stop)
                    deliver(
                        i,
                        GenResult(
                            id=reqs[i].id,
                            status="ok",
                            text=text,
                            finish_reason=finish,
                            tokens_in=len(ids),
                            tokens_out=n_out,
                        ),
                    )
        return out  # type: ignore[return-value]

    def _generate(self, seqs: list[list[int]], max_new: int, req: GenRequest) -> list[tuple[str, int, str]]:
        torch = self._torch
        ids, mask = self._batch(seqs)
        p = req.params
        kwargs: dict[str, Any] = {"max_new_tokens": max_new, "pad_token_id": self.tok.pad_token_id}
        if p.temperature > 0:
            seed = sample_seed(p, req.sample)
            if seed is not None:
                torch.manual_seed(seed)
            kwargs.update(do_sample=True, temperature=p.temperature, top_p=p.top_p, top_k=0)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with torch.inference_mode():
            gen = self.lm.generate(input_ids=ids, attention_mask=mask, **kwargs)
        eos = self.lm.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos]) | {self.tok.eos_token_id}
        results = []
        for row in gen[:, ids.shape[1] :].tolist():
            n, finish = len(row), "length"
            for j, t in enumerate(row):
                if t in eos_ids:
                    n, finish = j + 1, "stop"
                    break
            text = self.tok.decode(row[:n], skip_special_tokens=True)
            results.append((text, n, finish))
        return results

    def answer_top_tokens(
        self, reqs: Sequence[ChoiceRequest], k: int, on_item: OnResult[TopTokens] | None = None
    ) -> list[TopTokens]:
        torch = self._torch
        out: list[TopTokens | None] = [None] * len(reqs)

        def deliver(i: int, item: TopTokens) -> None:
            out[i] = item
            if on_item:
                on_item(i, item)

        ready = []
        for i, req in enumerate(reqs):
            ids = self._ids(req.prompt, req.system, req.answer_prefix)
            if len(ids) >= self.max_len:
                deliver(
                    i,
                    TopTokens(
                        status="too_long",
                        tokens_in=len(ids),
                        error=f"prompt has {len(ids)} tokens; the context is {self.max_len}",
                    ),
                )
            else:
                ready.append((i, ids))
        ready.sort(key=lambda x: len(x[1]))  # similar lengths together: less padding
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start : start + self.batch_size]
            ids, mask = self._batch([s for _, s in chunk])
            try:
                with torch.inference_mode():
                    logits = self.lm(input_ids=ids, attention_mask=mask).logits[:, -1, :].float()
            except RuntimeError as e:
                raise BackendError(f"transformers forward pass failed on {self.device}: {e}") from None
            vals, idx = torch.log_softmax(logits, dim=-1).topk(k, dim=-1)
            for (i, seq), v_row, i_row in zip(chunk, vals.tolist(), idx.tolist(), strict=True):
                top = tuple((self.tok.decode([t]), lp) for t, lp in zip(i_row, v_row, strict=True))
                deliver(i, TopTokens(status="ok", top=top, tokens_in=len(seq)))
        return out  # type: ignore[return-value]

    def score(
        self, reqs: Sequence[ScoreRequest], on_result: OnResult[ScoreResult] | None = None
    ) -> list[ScoreResult]:
        """Each text's log-probability after its prefix: the summed log-probs of the prompt's tokens that
        end past the prefix (from the tokenizer's offsets), the first token excepted (it has none)."""
        torch = self._torch
        if not self.tok.is_fast:
            raise ConfigError(f"model {self.model!r} has no fast tokenizer (offsets): it cannot score texts")
        out: list[ScoreResult | None] = [None] * len(reqs)

        def deliver(i: int, res: ScoreResult) -> None:
            out[i] = res
            if on_result:
                on_result(i, res)

        ready = []
        for i, req in enumerate(reqs):
            enc = self.tok(req.prefix + req.text, return_offsets_mapping=True)
            ids, ends = list(enc["input_ids"]), [e for _, e in enc["offset_mapping"]]
            if len(ids) > self.max_len:
                msg = f"prompt has {len(ids)} tokens; the context is {self.max_len}"
                deliver(i, ScoreResult(id=req.id, status="too_long", tokens_in=len(ids), error=msg))
                continue
            first = first_text_token(ends, req.prefix)
            if first >= len(ids):  # no token of the text has a log-prob (an empty text)
                deliver(i, ScoreResult(id=req.id, status="ok", logprob=0.0, tokens_in=len(ids)))
            else:
                ready.append((i, ids, first))
        ready.sort(key=lambda x: len(x[1]))
        pad = self.tok.pad_token_id
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start : start + self.batch_size]
            width = max(len(s) for _, s, _ in chunk)
            batch = torch.tensor([s + [pad] * (width - len(s)) for _, s, _ in chunk], device=self.device)
            mask = torch.tensor(
                [[1] * len(s) + [0] * (width - len(s)) for _, s, _ in chunk], device=self.device
            )
            try:
                with torch.inference_mode():
                    logits = self.lm(input_ids=batch, attention_mask=mask).logits
            except RuntimeError as e:
                raise BackendError(f"transformers forward pass failed on {self.device}: {e}") from None
            for row, (i, seq, first) in enumerate(chunk):
                lps = torch.log_softmax(logits[row, first - 1 : len(seq) - 1].float(), dim=-1)
                picked = lps.gather(-1, batch[row, first : len(seq)].unsqueeze(-1))
                res = ScoreResult(
                    id=reqs[i].id, status="ok", logprob=float(picked.double().sum()), tokens_in=len(seq)
                )
                deliver(i, res)
        return out  # type: ignore[return-value]

    def close(self) -> None:
        self.lm = None  # type: ignore[assignment]


def _apply_stop(text: str, finish: str, stop: Sequence[str]) -> tuple[str, str]:
    cut = min((j for j in (text.find(s) for s in stop) if j >= 0), default=-1)
    return (text[:cut], "stop") if cut >= 0 else (text, finish)
