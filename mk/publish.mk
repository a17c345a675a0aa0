# Releases (corpusbench/publish): versioned Hugging Face datasets.
#   make demo-release   build releases/corpusbench-default.yaml (FIT-CLAMS from the embedded corpus; needs out/demo/stats),
#                       audit it with shallow baselines trained on that corpus (card section "How far shallow
#                       baselines get", audit.json; models cached in releases/build/.baselines) and push it to a
#                       local Hub stand-in (tests/hubserver)

DEMO_RELEASE_SPEC := releases/corpusbench-default.yaml
DEMO_RELEASE_DIR := releases/build/corpusbench-default/0.1.0
DEMO_RELEASE_REPO := corpusbench/default

# The stand-in is a test double (the real Hub is not reachable here); with a real token and internet,
# run `corpusbench release push $(DEMO_RELEASE_DIR) --repo-id ORG/NAME` instead.
DEMO_STEPS += $(MAKE) --no-print-directory demo-release ;

.PHONY: demo-release

demo-release: $(STAMP)
	$(PY) -m corpusbench release build $(DEMO_RELEASE_SPEC) --force
	$(PY) -m corpusbench audit $(DEMO_RELEASE_DIR) --spec $(DEMO_RELEASE_SPEC)
	$(PY) -m tests.hubserver -- $(PY) -m corpusbench release push $(DEMO_RELEASE_DIR) --repo-id $(DEMO_RELEASE_REPO)
