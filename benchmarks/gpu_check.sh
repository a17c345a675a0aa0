#!/usr/bin/env bash
# LT-Swap's LLM work on one GPU (issue #29, item 5; never part of CI): start vLLM on the GPU with the
# default judge weights, run `ltswap judge-check` (pointwise, the whole calibration set: 632 requests)
# and a 200-word writer batch, then report requests/s and whether the GPU's keep/drop decisions equal
# the CPU run's (benchmarks/data/judge_decisions_cpu.json). Fits in ~8 minutes on one H100.
#
#   bash benchmarks/gpu_check.sh [OUT_DIR]   # needs: make setup judge-model, and a GPU build of vLLM in
#                                            # .venv-vllm (the servers start from there; `make vllm-venv`
#                                            # builds the CPU one: on a GPU machine `pip install vllm` into it)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-benchmarks/results/gpu_check}}
MODEL=${MODEL:-models/qwen2.5-coder-1.5b-instruct}
PY=${PY:-.venv/bin/python}
VLLM_PYTHON=.venv-vllm/bin/python
mkdir -p "$OUT"

# preflight: say what is missing, in one line each, before any minute is spent
fail=0
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
  | tee "$OUT/gpu.txt" || { echo "gpu_check: no NVIDIA GPU (nvidia-smi not found)"; fail=1; }
[ -x "$PY" ] || { echo "gpu_check: $PY missing (run make setup)"; fail=1; }
"$VLLM_PYTHON" -c "import vllm, torch; assert torch.cuda.is_available(), 'torch sees no GPU'; print('vllm', vllm.__version__)" \
  2>/dev/null || { echo "gpu_check: no GPU build of vLLM at $VLLM_PYTHON (pip install vllm there)"; fail=1; }
[ -f "$MODEL/config.json" ] || { echo "gpu_check: judge weights missing at $MODEL (run make judge-model)"; fail=1; }
[ "$fail" = 0 ] || exit 2

t0=$(date +%s.%N)
"$PY" -m corpusbench ltswap judge-check --filter-rule pointwise --llm-backend vllm-server --llm-model "$MODEL" \
  --llm-cache "$OUT/judge-gpu.sqlite" --out "$OUT/judge-gpu.json" 2>&1 | tee "$OUT/judge-check.log"
t1=$(date +%s.%N)
"$PY" -m benchmarks.bench_writer_prompts --words 200 --variants v3 --model "$MODEL" 2>&1 | tee "$OUT/writer.log"
cp benchmarks/results/bench_writer_prompts.json "$OUT/writer-gpu.json"
"$PY" -m benchmarks.gpu_check "$OUT" "$(echo "$t1 - $t0" | bc)"
