"""The review page in a real headless Chromium (the Debian package, driven by selenium through
chromedriver): one item labelled with a click, one with a key, the page reloaded; it resumes on the
next item, and the labels file holds both answers."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import read_rows

from corpusbench.review.server import url_of
from corpusbench.review.session import open_review

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the dev extras (make setup)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.slow


@pytest.fixture
def browser() -> Iterator[object]:
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.fail(
            "chromium and chromedriver are missing: `make review-browser` installs them (mk/review.mk)"
        )
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,800"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _wait_for(driver, done: int) -> str:  # type: ignore[no-untyped-def]
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-done") == str(done)
    )
    return driver.find_element("tag name", "body").get_attribute("data-fingerprint")


def test_label_by_click_and_by_key_then_reload_resumes(browser, release_dir: Path, run_dir: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    server = open_review(release_dir, reviewer="ann", n=6, n_rejected=2, seed=5, rejected_from=run_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(url_of(server))
        first = _wait_for(browser, 0)
        shown = [browser.find_element(By.CSS_SELECTOR, f"#s{i} .t").text for i in (0, 1)]
        truth = server.session.by_fp[first]
        assert sorted(shown) == sorted([truth.good, truth.bad])
        assert "0 of 8 labelled" in browser.find_element(By.ID, "count").text
        assert browser.find_element(By.ID, "last").text == ""  # nothing revealed yet
        browser.find_element(By.ID, "s1").click()  # "B is the correct one"
        browser.find_element(By.ID, "note").send_keys("B reads oddly")
        browser.find_element(By.CSS_SELECTOR, "button.invalid").click()
        second = _wait_for(browser, 1)
        assert second != first
        assert "The benchmark's correct sentence was" in browser.find_element(By.ID, "last").text
        browser.find_element(By.TAG_NAME, "body").send_keys("1")  # valid, by key
        third = _wait_for(browser, 2)
        assert browser.find_element(By.ID, "progress").get_attribute("style").startswith("width: 25%")
        browser.refresh()
        assert _wait_for(browser, 2) == third  # resumes where it stopped
        assert "2 of 8 labelled (1 valid, 1 invalid)" in browser.find_element(By.ID, "count").text
        browser.find_element(By.TAG_NAME, "body").send_keys("u")  # undo the key's answer
        assert _wait_for(browser, 1) == second
        browser.find_element(By.TAG_NAME, "body").send_keys("3")
        _wait_for(browser, 2)
    finally:
        server.shutdown()
        server.server_close()
    rows = read_rows(release_dir / "review" / "labels-ann.jsonl")
    assert [(r["fingerprint"], r["label"]) for r in rows] == [
        (first, "invalid"),
        (second, "valid"),
        (second, "undo"),
        (second, "invalid"),
    ]
    assert rows[0]["note"] == "B reads oddly"
    assert rows[0]["picked"] == ("good" if shown[1] == truth.good else "bad")
