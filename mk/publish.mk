# Releases (corpusbench/publish): versioned Hugging Face datasets.
#   make demo-release   build releases/corpusbench-default.yaml (FIT-CLAMS from the embedded corpus; needs out/demo/stats),
#                       audit it with shallow baselines trained on that corpus (card section "How far shallow
#                       baselines get", audit.json; models cached in releases/build/.baselines) and push it to a
#                       local Hub stand-in (tests/hubserver); it prints the load_dataset line that works while
#                       `make hub` runs
#   make hub            serve the demo release (the build folder on disk, pushed at start) from the local Hub
#                       stand-in on 127.0.0.1:$(HUB_PORT) until Ctrl-C, and print a working load_dataset line
#   make hub RELEASE=releases/build/NAME/VERSION [REPO_ID=ORG/NAME] [CONFIG=NAME]
#                       the same for any release build folder (repo id: the spec's repo_id; config: its first)

DEMO_RELEASE_SPEC := releases/corpusbench-default.yaml
DEMO_RELEASE_DIR := releases/build/corpusbench-default/0.1.0
DEMO_RELEASE_REPO := corpusbench/default
DEMO_LOAD_CONFIG := cac-the-a
HUB_PORT ?= 8765

# The stand-in is a test double (the real Hub is not reachable here); with a real token and internet,
# run `corpusbench release push $(DEMO_RELEASE_DIR) --repo-id ORG/NAME` instead.
DEMO_STEPS += $(MAKE) --no-print-directory demo-release ;

.PHONY: demo-release hub

demo-release: $(STAMP) childes
	$(PY) -m corpusbench release build $(DEMO_RELEASE_SPEC) --force
	$(PY) -m corpusbench audit $(DEMO_RELEASE_DIR) --spec $(DEMO_RELEASE_SPEC)
	$(PY) -m tests.hubserver -- $(PY) -m corpusbench release push $(DEMO_RELEASE_DIR) --repo-id $(DEMO_RELEASE_REPO)
	@echo "The stand-in above has stopped. To load the release: run 'make hub' (serves it until Ctrl-C), then:"
	@$(PY) -c "from tests.hubserver import load_line; \
	  print(load_line('http://127.0.0.1:$(HUB_PORT)', '$(DEMO_RELEASE_REPO)', '$(DEMO_LOAD_CONFIG)', 'v0.1.0', '$(PY)'))"

RELEASE ?= $(DEMO_RELEASE_DIR)
ifeq ($(RELEASE),$(DEMO_RELEASE_DIR))
HUB_ARGS := --repo-id $(DEMO_RELEASE_REPO) --config $(DEMO_LOAD_CONFIG)
HUB_MISSING := no demo release: run 'make demo-release' first
else
HUB_ARGS := $(if $(REPO_ID),--repo-id $(REPO_ID)) $(if $(CONFIG),--config $(CONFIG))
HUB_MISSING := RELEASE=$(RELEASE): no provenance.json there (give a folder made by 'corpusbench release build')
endif

hub: $(STAMP)
	@test -f $(RELEASE)/provenance.json || { echo "$(HUB_MISSING)"; exit 2; }
	$(PY) -m tests.hubserver --port $(HUB_PORT) --push $(RELEASE) $(HUB_ARGS)
