# LT-Swap (corpusbench/generators/ltswap): needs only what the base setup installs (NLTK words +
# WordNet via nltk-data, lemminflect from pyproject, the default model) plus the vLLM CPU venv
# (mk/llm.mk) for the demo, which serves the default model on a free local port for the run.
LTSWAP_DEMO_ARGS ?= --max-per-bin 3 --agreement-samples 1

DEMO_TARGETS += vllm-venv
DEMO_STEPS += $(PY) -m corpusbench ltswap $(DATA)/default --stats out/demo/stats --out out/demo/ltswap \
	--llm-backend vllm-server $(LTSWAP_DEMO_ARGS) ;

# The LT-Swap tests serve the default model on the real vLLM CPU server (tests/generators/ltswap).
TEST_TARGETS += vllm-venv model default-corpus

# A small LT-Swap release (releases/ltswap-demo.yaml: 2 items per bin, vLLM server started for the build)
# and the SmolLM2 eval of its prefix config. Needs out/demo/stats (`make demo` makes it).
.PHONY: ltswap-release-demo
ltswap-release-demo: vllm-venv model
	test -f out/demo/stats/counts.parquet || $(PY) -m corpusbench stats $(DATA)/default --out out/demo/stats --workers 2
	$(PY) -m corpusbench release build releases/ltswap-demo.yaml
	$(PY) -m corpusbench eval --dataset releases/build/ltswap-demo/0.1.0/data --model models/smollm2-135m-instruct \
		--configs ltswap-wordswap-prefix --out out/demo/eval-ltswap-prefix
