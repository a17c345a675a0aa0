"""Load an HF model + tokenizer for scoring: architecture detection, device/dtype checks, provenance.

The head split: scorers run the base model and apply the output head only at the positions
they score ("logits only where scored"). Whether that equals the full forward is *checked* on a
probe input at load time (softcapped or scaled heads fail the check and fall back to the full
forward), so no architecture list has to be maintained.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from corpusbench.errors import BackendError, ConfigError, InputError
from corpusbench.eval.records import Arch
from corpusbench.provenance import file_sha256_cached, fingerprint

log = logging.getLogger(__name__)

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(slots=True, kw_only=True)
class LoadedModel:
    """A model ready for scoring and the facts recorded in results."""

    model: Any
    tokenizer: Any
    arch: Arch
    model_id: str
    revision: str | None
    device: torch.device
    dtype: torch.dtype
    files_sha256: str | None = None  # local folders: fingerprint of the files (a Hub model has a revision)
    cpu_linear: str = "torch"  # "onednn": its nn.Linear layers run by oneDNN (:func:`use_onednn_linears`)

    def provenance(self) -> dict[str, Any]:
        tok = self.tokenizer
        return {
            "model_id": self.model_id,
            "model_revision": self.revision,
            "model_files_sha256": self.files_sha256,
            "model_class": type(self.model).__name__,
            "arch": self.arch,
            "dtype": str(self.dtype).removeprefix("torch."),
            "device": str(self.device),
            "tokenizer_class": type(tok).__name__,
            "tokenizer_vocab_size": len(tok),
            "max_positions": max_positions(self.model, tok),
            "cpu_linear": self.cpu_linear,
        }


def resolve_device(device: str) -> torch.device:
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"--device {device} requested but no CUDA GPU is available (use --device cpu)")
    elif device != "cpu":
        raise ConfigError(f"unknown device {device!r}: use cpu or cuda[:N]")
    return torch.device(device)


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    """``auto``: bfloat16 on a GPU that has it, else float32 (on CPU bf16 moves log-probs: measured)."""
    if dtype == "auto":
        bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
        return torch.bfloat16 if bf16 else torch.float32
    if dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}: choose auto or one of {', '.join(DTYPES)}")
    if dtype == "float16" and device.type == "cpu":
        raise ConfigError("float16 is not supported on CPU: use float32 (default) or bfloat16")
    return DTYPES[dtype]


def detect_arch(config: Any) -> Arch:
    """causal / mlm / seq2seq from the config's ``architectures`` and ``is_encoder_decoder``."""
    from transformers.models.auto import modeling_auto as ma

    if getattr(config, "is_encoder_decoder", False):
        return "seq2seq"
    for name in getattr(config, "architectures", None) or []:
        if name.endswith(("ForCausalLM", "LMHeadModel")) and "DoubleHeads" not in name:
            return "causal"
        if name.endswith("ForMaskedLM"):
            return "mlm"
        if name.endswith("ForConditionalGeneration"):
            return "seq2seq"
    mtype = getattr(config, "model_type", "")
    if mtype in ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES:  # BERT-likes are in both maps; MLM is their use
        return "mlm"
    if mtype in ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return "causal"
    raise ConfigError(
        f"cannot detect the architecture of model type {mtype!r} (architectures={config.architectures}); "
        "pass --arch causal|mlm|seq2seq"
    )


def _auto_class(arch: Arch) -> Any:
    import transformers as tf

    return {
        "causal": tf.AutoModelForCausalLM,
        "mlm": tf.AutoModelForMaskedLM,
        "seq2seq": tf.AutoModelForSeq2SeqLM,
    }[arch]


def load_model(
    model_id: str,
    *,
    arch: str = "auto",
    device: str = "cpu",
    dtype: str = "auto",
    revision: str | None = None,
    trust_remote_code: bool = False,
    onednn: bool = True,
) -> LoadedModel:
    """Load ``model_id`` (a local folder or a Hub id, ``ID@revision`` allowed) for scoring.

    A causal model in float32 on an AVX-512 CPU gets its linear layers run by oneDNN
    (:class:`OneDnnLinear`, see :func:`onednn_applies`; ``onednn=False`` or ``CORPUSBENCH_ONEDNN=0``
    keeps torch's). A local folder's fingerprint is hashed in a thread while the model loads."""
    from transformers import AutoConfig, AutoTokenizer

    if "@" in model_id and revision is None and not Path(model_id).exists():
        model_id, revision = model_id.rsplit("@", 1)
    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, dev)
    local = Path(model_id).expanduser()
    if local.exists():
        if not (local / "config.json").is_file():
            raise InputError(f"{model_id}: not a model folder (no config.json)")
        source = str(local)
    elif model_id.startswith((".", "/", "~")) or model_id.count("/") > 1:
        raise InputError(f"{model_id}: model folder not found")
    else:
        source = model_id
    if local.exists() and not trust_remote_code:
        refuse_custom_code(model_id, local / "config.json")
    kw: dict[str, Any] = {"revision": revision, "trust_remote_code": trust_remote_code}
    fingerprint_thread = _Background(local_fingerprint, local) if local.exists() else None
    try:
        config = AutoConfig.from_pretrained(source, **kw)
    except OSError as e:
        offline = " (HF_HUB_OFFLINE is set)" if os.environ.get("HF_HUB_OFFLINE") else ""
        raise InputError(f"{model_id}: cannot load model config{offline}: {str(e).splitlines()[0]}") from None
    except ValueError as e:  # e.g. a Hub model whose config needs its own code
        raise ConfigError(f"{model_id}: cannot load model config: {str(e).splitlines()[0]}") from None
    chosen: Arch = detect_arch(config) if arch == "auto" else _check_arch(arch)
    try:
        tok = AutoTokenizer.from_pretrained(source, **kw)
        # on an accelerator the weights go straight to it (no full copy in host memory first)
        on_device = {"device_map": str(dev)} if dev.type != "cpu" else {}
        model = _auto_class(chosen).from_pretrained(source, dtype=torch_dtype, **on_device, **kw)
    except (OSError, ValueError) as e:
        raise BackendError(f"{model_id}: cannot load as a {chosen} model: {str(e).splitlines()[0]}") from None
    model.to(dev).eval()
    linear = "torch"
    if onednn and chosen == "causal" and onednn_applies(dev, torch_dtype) and use_onednn_linears(model):
        linear = "onednn"
    sha = getattr(config, "_commit_hash", None) or revision
    return LoadedModel(
        model=model,
        tokenizer=tok,
        arch=chosen,
        model_id=model_id,
        revision=sha,
        device=dev,
        dtype=torch_dtype,
        files_sha256=fingerprint_thread.result() if fingerprint_thread else None,
        cpu_linear=linear,
    )


ONEDNN_ENV = "CORPUSBENCH_ONEDNN"  # "0": torch's own float32 products on CPU; "1": oneDNN on any CPU


def onednn_applies(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether float32 linear layers on ``device`` run by oneDNN: on a CPU whose torch kernels use AVX-512
    (``ONEDNN_ENV=1``: any CPU with oneDNN; ``0``: none).

    Measured (prep_anim, 4,800 pairs, SmolLM2-135M, forward seconds of ``eval run``, alternating runs on one
    machine): an AMD EPYC with AVX-512, oneDNN 2.1x faster than torch's MKL sgemm; an AMD EPYC with AVX2
    only, MKL faster (median 9.4 s vs 10.7 s over five runs each), so there torch's own product stays.
    """
    if device.type != "cpu" or dtype != torch.float32 or not torch.backends.mkldnn.is_available():
        return False
    wanted = os.environ.get(ONEDNN_ENV, "auto")
    if wanted in ("0", "1"):
        return wanted == "1"
    return torch.backends.cpu.get_cpu_capability().startswith("AVX512")


class OneDnnLinear(torch.nn.Module):
    """A float32 ``nn.Linear`` whose product oneDNN computes, from a weight converted once.

    torch's CPU ``linear`` calls MKL's sgemm, which on AMD CPUs runs well below the chip (measured: a whole
    SmolLM2-135M scoring pass 2.1x slower than oneDNN on the same cores). The numbers are the same float32
    products summed in another order (log-probs within ~2e-4 nats of a sentence's). The dense weight is
    not kept: ``weight`` is a meta tensor of its shape and dtype (code that reads them still works; code
    that would compute with it fails loudly).
    """

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        w = linear.weight.detach()
        bias = linear.bias.detach() if linear.bias is not None else torch.zeros(self.out_features)
        self.packed, self.packed_bias = w.to_mkldnn(), bias.float().to_mkldnn()
        self.weight = torch.empty(w.shape, dtype=w.dtype, device="meta")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, self.in_features)
        if flat.shape[0] == 0:
            return x.new_zeros(*x.shape[:-1], self.out_features)
        out = torch._C._nn.mkldnn_linear(flat.contiguous().to_mkldnn(), self.packed, self.packed_bias)
        return out.to_dense().view(*x.shape[:-1], self.out_features)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, onednn"


def use_onednn_linears(model: Any) -> int:
    """Replace every plain float32 ``nn.Linear`` of a CPU model by :class:`OneDnnLinear`; how many."""
    n = 0
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if type(child) is torch.nn.Linear and child.weight.dtype == torch.float32:
                setattr(module, name, OneDnnLinear(child))
                n += 1
    return n


class _Background:
    """``fn(*args)`` in a daemon thread (hashing releases the GIL); ``result()`` waits for it."""

    def __init__(self, fn: Any, *args: Any) -> None:
        import threading

        self._out: list[Any] = []
        self._thread = threading.Thread(target=lambda: self._out.append(_outcome(fn, *args)), daemon=True)
        self._thread.start()

    def result(self) -> Any:
        self._thread.join()
        ok, value = self._out[0]
        if not ok:
            raise value
        return value


def _outcome(fn: Any, *args: Any) -> tuple[bool, Any]:
    try:
        return True, fn(*args)
    except BaseException as err:  # re-raised in the caller's thread by result()
        return False, err


def refuse_custom_code(model_id: str, config_file: Path) -> None:
    """ConfigError (one line, nothing run) when a model folder's config names its own code (``auto_map``)."""
    import json

    try:
        auto_map = json.loads(config_file.read_text(encoding="utf-8")).get("auto_map")
    except (OSError, ValueError, AttributeError):
        return  # transformers reports an unreadable config
    if auto_map:
        refs = auto_map.values() if isinstance(auto_map, dict) else []
        files = sorted({str(v).split(".")[0] + ".py" for v in refs})
        raise ConfigError(
            f"{model_id}: the model folder brings its own code ({', '.join(files) or 'auto_map'}); "
            "corpusbench does not run it: pass --trust-remote-code only for code you have read and trust"
        )


def local_fingerprint(folder: Path) -> str:
    """sha256 over (name, sha256) of every file in a local model folder (weights, config, tokenizer); the
    weights' digests are remembered by stat (:func:`~corpusbench.provenance.file_sha256_cached`)."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    return fingerprint([(p.name, file_sha256_cached(p)) for p in files])


def _check_arch(arch: str) -> Arch:
    if arch not in ("causal", "mlm", "seq2seq"):
        raise ConfigError(f"unknown --arch {arch!r}: use auto, causal, mlm or seq2seq")
    return arch  # type: ignore[return-value]


def max_positions(model: Any, tokenizer: Any) -> int:
    """The model window in tokens: config positions, capped by a sane tokenizer ``model_max_length``."""
    cfg = model.config
    n = None
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        if getattr(cfg, key, None):
            n = int(getattr(cfg, key))
            break
    if n is not None and getattr(cfg, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        n -= 2  # RoBERTa reserves padding_idx + 1 positions
    tml = getattr(tokenizer, "model_max_length", None)
    if tml and tml < 1_000_000:
        n = min(n, int(tml)) if n else int(tml)
    return n or 512


class HeadSplit:
    """``base(ids) -> hidden`` and ``head(hidden) -> logits``, verified against the full forward."""

    def __init__(self, model: Any, head: Any | None) -> None:
        self.model = model
        self.base = model.base_model
        self.head = head
        self.ok = head is not None and self.base is not model and self._probe()

    def _probe(self) -> bool:
        dev = next(self.model.parameters()).device
        vocab = self.model.config.vocab_size
        ids = torch.arange(3, 11, device=dev).remainder(vocab).unsqueeze(0)
        seen: list[Any] = []  # the base model's output inside the full forward: one forward, not two
        hook = self.base.register_forward_hook(lambda _m, _args, out: seen.append(out))
        try:
            with torch.no_grad():
                full = self.model(input_ids=ids).logits.float()
        finally:
            hook.remove()
        if len(seen) != 1:  # the model did not run its base model once: no split
            return False
        hidden = seen[0].last_hidden_state if hasattr(seen[0], "last_hidden_state") else seen[0][0]
        with torch.no_grad():
            split = self.head(hidden).float()
        good = split.shape == full.shape and torch.allclose(split, full, atol=1e-4, rtol=1e-4)
        if not good:
            log.info(
                "%s: head split differs from the full forward; using full logits", type(self.model).__name__
            )
        return bool(good)


def causal_head(model: Any) -> Any | None:
    return model.get_output_embeddings()


def masked_head(model: Any) -> Any | None:
    """The MLM head: the one child module of the model that is not the base model."""
    others = [m for name, m in model.named_children() if m is not model.base_model]
    return others[0] if len(others) == 1 else None
