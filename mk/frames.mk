# Frames (corpusbench/families/frames): S-clusters and substitutable precision/recall (Frank et al. 2009).
#   Needs only what `make setup` provides (the default corpus, NLTK data, the SmolLM2 folder).
#   make frames-demo   the held-out check on the default corpus: split it by file (1 train : 6 test, as the
#                      paper), stats of the training part, S-clusters of the test part, then the Mintz
#                      frequent-frames baseline and SmolLM2 input-embedding k-means over K, scored by SP/SR
#                      and by matched accuracy / pairwise P/R against the tagger's tags (~10 min on 2 cores).

FRAMES_OUT ?= out/frames
FRAMES_KS ?= 5 10 12 20 30 45 53 80 120
FRAMES_DEMO_KS ?= 12 45 80  # `make demo` runs a shorter sweep
FRAMES_RUN_KS = $(FRAMES_DEMO_KS)
FRAMES_DEMO = $(PY) -m corpusbench frames split $(DATA)/default --out $(FRAMES_OUT)/split --train-every 7 ; \
	$(PY) -m corpusbench stats $(FRAMES_OUT)/split/train --out $(FRAMES_OUT)/train-stats ; \
	$(PY) -m corpusbench frames build $(FRAMES_OUT)/split/test --stats $(FRAMES_OUT)/train-stats \
	  --out $(FRAMES_OUT)/sclusters ; \
	$(PY) -m corpusbench eval clusters --frames $(FRAMES_OUT)/sclusters --frequent-frames $(FRAMES_OUT)/split/train \
	  --model $(MODEL_DIR) $(foreach k,$(FRAMES_RUN_KS),-k $(k)) --gold $(FRAMES_OUT)/train-stats \
	  --out $(FRAMES_OUT)/eval-input

DEMO_STEPS += $(FRAMES_DEMO);

.PHONY: frames-demo
frames-demo: FRAMES_RUN_KS = $(FRAMES_KS)
frames-demo: setup
	$(FRAMES_DEMO)
