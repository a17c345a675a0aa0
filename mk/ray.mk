# Scale-out on Ray (corpusbench/corpus/executors.py, corpusbench/llm/ray_backend.py).
# Ray itself comes with the `ray` extra that `make venv` installs.
#   make ray-head    start a Ray head on this machine (RAY_CPUS workers; join more with `ray start --address`)
#   make ray-stop    stop the Ray processes of this machine
#   make bench-ray   stats throughput local vs Ray x1/x2, LLM prompts/s per vLLM replica
#   make bench-stats  the sizing table of docs/scaling.md: stats vs the LT-Swap reference (1M words),
#                     spaCy/HanTa plain vs fast, 1M/10M words at 1 and 2 workers (~35 min on 2 idle cores;
#                     BENCH_STATS_ARGS passes options, e.g. --sections scale --scale 100 for 100M words)

RAY := $(VENV)/bin/ray
RAY_CPUS ?= $(shell nproc)
RAY_STAMP := $(VENV)/.ray-stamp

TEST_TARGETS += ray-check
DEMO_STEPS += $(PY) -m corpusbench stats $(DATA)/default/shakespeare --out out/demo/ray-stats \
  --executor ray --workers 2 --shard-mb 0.5 ;

.PHONY: ray-check ray-head ray-stop bench-ray bench-stats
ray-check: $(RAY_STAMP)
$(RAY_STAMP): $(STAMP) mk/ray.mk
	$(PY) -c "import ray, ray.data; print('ray', ray.__version__)"
	touch $@

ray-head: $(RAY_STAMP)
	$(RAY) start --head --num-cpus $(RAY_CPUS) --include-dashboard=false --disable-usage-stats

ray-stop:
	$(RAY) stop

bench-ray: $(RAY_STAMP) vllm-venv model
	$(PY) -m benchmarks.bench_ray

bench-stats: setup
	$(PY) -m benchmarks.bench_stats $(BENCH_STATS_ARGS)
