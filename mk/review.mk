# Human validation (corpusbench/review, docs/review.md). The review page's browser test
# (tests/review/test_review_browser.py) drives a real headless Chromium through chromedriver, both from
# the Debian packages, with selenium (pyproject dev extras). Installed once for `make test`; the stamp
# lives in the venv (.venv/.review-browser-stamp), so a fresh venv checks the packages again.
REVIEW_DEB_PKGS := chromium chromium-driver
REVIEW_BROWSER_STAMP := $(VENV)/.review-browser-stamp

.PHONY: review-browser
review-browser: $(REVIEW_BROWSER_STAMP)
$(REVIEW_BROWSER_STAMP): $(STAMP) .deb.stamp  # after it: one apt-get at a time
	@if ! dpkg -s $(REVIEW_DEB_PKGS) >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(REVIEW_DEB_PKGS) >/dev/null; fi
	dpkg -s $(REVIEW_DEB_PKGS) >/dev/null
	touch $@

TEST_TARGETS += review-browser
