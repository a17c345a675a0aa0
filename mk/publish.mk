# Releases (corpusbench/publish): versioned Hugging Face datasets.
#   make demo-release   build releases/demo-minimal-pairs.yaml and push it to a local Hub stand-in (tests/hubserver)

DEMO_RELEASE_SPEC := releases/demo-minimal-pairs.yaml
DEMO_RELEASE_DIR := releases/build/demo-minimal-pairs/0.1.0
DEMO_RELEASE_REPO := corpusbench/demo-minimal-pairs

# The stand-in is a test double (the real Hub is not reachable here); with a real token and internet,
# run `corpusbench release push $(DEMO_RELEASE_DIR) --repo-id ORG/NAME` instead.
DEMO_STEPS += $(MAKE) --no-print-directory demo-release ;

.PHONY: demo-release

demo-release: $(STAMP)
	$(PY) -m corpusbench release build $(DEMO_RELEASE_SPEC)
	$(PY) -m tests.hubserver -- $(PY) -m corpusbench release push $(DEMO_RELEASE_DIR) --repo-id $(DEMO_RELEASE_REPO)
	@echo 'A user loads it with: load_dataset("$(DEMO_RELEASE_REPO)", "subject_verb_agreement", revision="v0.1.0", split="test")'
