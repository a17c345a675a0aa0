# LT-Swap (corpusbench/generators/ltswap): needs only what the base setup installs (NLTK words +
# WordNet via nltk-data, lemminflect from pyproject, the default model) plus the vLLM CPU venv
# (mk/llm.mk) for the demo, which serves the default model on a free local port for the run.
LTSWAP_DEMO_ARGS ?= --max-per-bin 3 --agreement-samples 1

DEMO_TARGETS += vllm-venv
DEMO_STEPS += $(PY) -m corpusbench ltswap $(DATA)/default --stats out/demo/stats --out out/demo/ltswap \
	--llm-backend vllm-server $(LTSWAP_DEMO_ARGS) ;
