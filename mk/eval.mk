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
