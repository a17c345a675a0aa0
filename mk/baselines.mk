# Shallow baselines (corpusbench/baselines): Kneser-Ney n-gram models over words and POS tags of a corpus.
#   make baselines   train 5-gram word and tag models on the embedded corpus (out/demo/baselines/{word,tag};
#                    tags from the same tagger as out/demo/stats)
# The demo's release audit (mk/publish.mk) trains its own copies on the release's corpus and caches them.

BASELINES_DIR := out/demo/baselines

.PHONY: baselines
baselines: $(BASELINES_DIR)/word/manifest.json

$(BASELINES_DIR)/word/manifest.json: | $(STAMP) $(DATA)/default/.stamp nltk_data/.stamp
	test -f out/demo/stats/manifest.json || $(PY) -m corpusbench stats $(DATA)/default --out out/demo/stats --workers 2
	$(PY) -m corpusbench baseline train $(DATA)/default --out $(BASELINES_DIR) --kind both --stats out/demo/stats
