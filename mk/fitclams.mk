# FIT-CLAMS generator (corpusbench/generators/fitclams): no extra setup beyond the venv, the spaCy/HanTa
# models and NLTK WordNet that the main Makefile installs.
#   make fitclams-demo   FIT-CLAMS on the embedded default corpus: one set from out/demo/stats, and a
#                        two-corpus run (KJV vs Shakespeare: one pair set per corpus over the shared vocabulary)

FITCLAMS_OUT ?= out/demo
FITCLAMS_DEMO := $(PY) -m corpusbench fitclams --corpus default=$(FITCLAMS_OUT)/stats --lang en \
	  --out $(FITCLAMS_OUT)/fitclams --seed 0 ; \
	$(PY) -m corpusbench fitclams --corpus kjv=$(DATA)/default/kjv --corpus shakespeare=$(DATA)/default/shakespeare \
	  --lang en --tagger nltk --workers 2 --fill-empty --seed 0 --out $(FITCLAMS_OUT)/fitclams-kjv-shakespeare

DEMO_STEPS += $(FITCLAMS_DEMO);

.PHONY: fitclams-demo
fitclams-demo: setup
	test -f $(FITCLAMS_OUT)/stats/counts.parquet || $(PY) -m corpusbench stats $(DATA)/default --out $(FITCLAMS_OUT)/stats --workers 2
	$(FITCLAMS_DEMO)

# Score the default model on the demo's simple-agreement pairs (verb-only critical region, as the paper).
DEMO_STEPS += $(PY) -m corpusbench eval --dataset $(FITCLAMS_OUT)/fitclams/pairs/default --configs simple_agrmt \
	--model $(MODEL_DIR) --out $(FITCLAMS_OUT)/eval-fitclams ;
