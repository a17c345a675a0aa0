#!/usr/bin/env bash
# Eval at the speed of the hardware (issue #39, item 5; never part of CI): on one GPU, random-weight Llama
# models of three sizes (SmolLM2-135M's shape, 1.7B, 7.2B) built from SmolLM2's config and tokenizer (no
# download), timed on FIT-CLAMS prep_anim with corpusbench (--batch-tokens auto and 2048) and lm-eval `hf`,
# and on the whole default release with corpusbench; prints the table and the share of the card's bf16
# matmul throughput the forward passes reach (benchmarks/gpu_eval.py).
#
#   bash benchmarks/gpu_eval.sh [OUT_DIR]     # needs: make setup (the .venv with lm-eval, and
#                                             # models/smollm2-135m-instruct for its config and tokenizer),
#                                             # make demo (out/demo/fitclams and the release)
#   DEVICE=cpu SIZES=tiny bash benchmarks/gpu_eval.sh /tmp/dry   # a dry run of the plumbing on a CPU
#   WORKS=auto,lmeval,release ...                               # leave runs out (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-benchmarks/results/gpu_eval}}
PY=${PY:-.venv/bin/python}
DEVICE=${DEVICE:-cuda}
SIZES=${SIZES:-135M,1.7B,7.2B}
RELEASE=${RELEASE:-releases/build/corpusbench-default/0.1.0}
TOKENIZER=${TOKENIZER:-models/smollm2-135m-instruct}
mkdir -p "$OUT"

# preflight: say what is missing, in one line each, before any minute is spent
fail=0
[ -x "$PY" ] || { echo "gpu_eval: $PY missing (run make setup)"; fail=1; }
if [ "$DEVICE" != cpu ]; then
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
    | tee "$OUT/gpu.txt" || { echo "gpu_eval: no NVIDIA GPU (nvidia-smi not found)"; fail=1; }
  "$PY" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null \
    || { echo "gpu_eval: torch in $PY sees no GPU"; fail=1; }
fi
"$PY" -c "import lm_eval" 2>/dev/null || { echo "gpu_eval: lm-eval missing in $PY (make setup installs it)"; fail=1; }
[ -f "$TOKENIZER/tokenizer.json" ] || { echo "gpu_eval: no tokenizer at $TOKENIZER (run make model)"; fail=1; }
[ -d "${PAIRS:-out/demo/fitclams}" ] || [ -f "${PAIRS:-}" ] \
  || { echo "gpu_eval: no FIT-CLAMS pairs at out/demo/fitclams (run make demo, or PAIRS=file.jsonl)"; fail=1; }
[ -d "$RELEASE" ] || echo "gpu_eval: no release at $RELEASE: the whole-release row is left out (make demo)"
[ "$fail" = 0 ] || exit 2

args=("$OUT" --device "$DEVICE" --sizes "$SIZES" --release "$RELEASE" --tokenizer "$TOKENIZER" --works "${WORKS:-auto,2048,lmeval,release}")
[ -f "${PAIRS:-}" ] && args+=(--pairs "$PAIRS")
"$PY" -m benchmarks.gpu_eval "${args[@]}" 2>&1 | tee "$OUT/gpu_eval.log"
