"""Real headless Chromium (Debian's ``chromium`` and ``chromium-driver``) driven by selenium,
against the session's live gunicorn and Redis. Where no browser or driver is installed the
tests skip and say so (``.ci/run`` installs both)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from service.web import STATIC_DIR
from tests.conftest import PATIENCE, ROOT, free_port

#: Where the screenshots the README and docs/play.md show are written.
IMAGES = ROOT / "docs" / "images"

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver", "/usr/lib/chromium/chromedriver")


def _found(names: tuple[str, ...]) -> str | None:
    for name in names:
        path = shutil.which(name) or (name if Path(name).is_file() else None)
        if path:
            return path
    return None


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    """The browser and driver binaries, or a skip that names what is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[dev]')")
    browser, driver = _found(BROWSERS), _found(DRIVERS)
    if not browser or not driver:
        missing = " and ".join(n for n, p in (("chromium", browser), ("chromedriver", driver)) if not p)
        pytest.skip(f"no {missing} found: apt-get install chromium chromium-driver")
    return browser, driver


#: The problems that keep a part of the page from fitting the window's width (Page.assert_inside).
INSIDE = """
const root = document.querySelector(arguments[0]);
if (!root) return [`nothing matches ${arguments[0]}`];
const width = document.documentElement.clientWidth;
const name = (e) => e.tagName.toLowerCase() + (e.id ? `#${e.id}` : "")
  + [...e.classList].map((c) => `.${c}`).join("");
// visually hidden on purpose: clipped to nothing, there for screen readers
const clipped = (e) => {
  for (let n = e; n && n !== document.body; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (s.clipPath !== "none" || s.clip !== "auto") return true;
  }
  return false;
};
const problems = [];
for (const e of [root, ...root.querySelectorAll("*")]) {
  const r = e.getBoundingClientRect();
  if ((r.width === 0 && r.height === 0) || clipped(e)) continue;
  if (r.left < -0.5 || r.right > width + 0.5) problems.push(`${name(e)} spans ${Math.round(r.left)} to ${Math.round(r.right)}`);
  if (getComputedStyle(e).overflowX !== "visible" && e.scrollWidth > e.clientWidth + 1)
    problems.push(`${name(e)} scrolls sideways: ${e.scrollWidth} in ${e.clientWidth}`);
}
// each word of text (the spaces between words may hang past the end of a wrapped line,
// unseen, as white-space: pre-wrap lets them)
const texts = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let t = texts.nextNode(); t; t = texts.nextNode()) {
  if (!t.parentElement || clipped(t.parentElement)) continue;
  for (const word of t.textContent.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(t, word.index);
    range.setEnd(t, word.index + word[0].length);
    for (const r of range.getClientRects()) {
      if (r.width && (r.left < -0.5 || r.right > width + 0.5))
        problems.push(`text ${JSON.stringify(word[0].slice(0, 30))} spans ${Math.round(r.left)} to ${Math.round(r.right)}`);
    }
  }
}
return problems;
"""

#: Whether each element a selector finds is seen (Page.shown).
SHOWN = """
return [...document.querySelectorAll(arguments[0])].map((e) => {
  const top = e.getBoundingClientRect().top;
  window.scrollTo(window.scrollX, window.scrollY + top - window.innerHeight / 2);
  const r = e.getBoundingClientRect();
  if (!r.width || !r.height || r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5
      || r.top < 0 || r.bottom > window.innerHeight) return false;
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return hit !== null && (hit === e || e.contains(hit));
});
"""


class Page:
    """One browser profile (its own user-data folder: its own localStorage and cache), its
    viewport exactly ``width`` x ``height`` CSS pixels (a phone's below 600: touch-sized,
    overlay scrollbars)."""

    def __init__(self, binaries: tuple[str, str], width: int, height: int) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.TemporaryDirectory(prefix="ttt-profile-")
        options = webdriver.ChromeOptions()
        options.binary_location = binaries[0]
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    f"--user-data-dir={self.profile.name}", f"--window-size={width},{height}",
                    "--no-first-run", "--disable-extensions"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(binaries[1]), options=options)
        # headless Chromium keeps a window at least 500 px wide whatever --window-size says,
        # so the viewport is set through DevTools: a 390 px test is a 390 px page
        self.width, self.height = width, height
        self._emulate_size()
        self.driver.set_script_timeout(10)
        self.failed: list[str] = []
        self.urls: dict[str, str] = {}
        self.origins: set[str] = set()
        # the browser's own start page (chrome://new-tab-page…) is not the page under test
        self.driver.get("about:blank")
        self.driver.get_log("performance")
        self.driver.get_log("browser")
        self.console: list[str] = []

    def _emulate_size(self) -> None:
        """The viewport exactly ``width`` x ``height`` (a phone's below 600 px)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": self.width, "height": self.height, "deviceScaleFactor": 1,
            "mobile": self.width < 600})

    def open(self, url: str) -> None:
        self.origins.add("/".join(url.split("/", 3)[:3]))
        self.driver.get(url)

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def until(self, check: Callable[[], Any], timeout: float = PATIENCE, what: str = "") -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(
                lambda _: check())
        except Exception as e:
            state = self.js("return {data: {...document.body.dataset}, actions: [...document"
                            ".querySelectorAll('#actions button')].map(b => [b.textContent, b.disabled])};")
            raise AssertionError(f"timed out waiting for {what or check}: status "
                                 f"{self.text('#status')!r}; page {state}; "
                                 f"logs {self.read_logs()}; last requests "
                                 f"{list(self.urls.values())[-8:]}") from e

    def text(self, selector: str) -> str:
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
                       selector) or ""

    def data(self, name: str) -> str | None:
        return self.js("return document.body.dataset[arguments[0]] ?? null;", name)

    def click(self, selector: str) -> None:
        """Click what ``selector`` finds, finding it again if the page re-rendered it
        between the finding and the click (a view from the stream redraws the hand)."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        for _ in range(5):
            try:
                self.driver.find_element(By.CSS_SELECTOR, selector).click()
                return
            except StaleElementReferenceException:
                time.sleep(0.05)
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def fits(self) -> bool:
        """Nothing is wider than the window: the page does not scroll sideways."""
        return bool(self.js("const s = document.scrollingElement; return s.scrollWidth <= s.clientWidth;"))

    def assert_fits(self, where: str = "") -> None:
        widths = self.js("const s = document.scrollingElement; return [s.scrollWidth, s.clientWidth];")
        assert widths[0] <= widths[1], f"the page scrolls sideways {where}: {widths} at {self.width} px"

    def assert_inside(self, selector: str, where: str = "") -> None:
        """Everything in ``selector`` is on the screen sideways: no element and no word of
        its text reaches past the window's edges, and no box in it scrolls or clips
        sideways, as a wide table's own box would, hiding its last columns with no cue.
        What is clipped to nothing on purpose (a header row kept for screen readers only)
        is left out."""
        problems = self.js(INSIDE, selector)
        assert problems == [], f"{selector} is wider than the window {where} at {self.width} px: {problems}"

    def shown(self, selector: str) -> list[bool]:
        """Whether each element ``selector`` finds is where a reader sees it: with the page
        scrolled down to it (never sideways), it lies within the window and is what the
        screen shows at its centre (not clipped away by a box nor covered)."""
        found: list[bool] = self.js(SHOWN, selector)
        return found

    def read_out(self, selector: str) -> list[tuple[str, str]]:
        """The role and the accessible name the browser computes for each element
        ``selector`` finds: what a screen reader is told of it."""
        from selenium.webdriver.common.by import By

        return [(e.aria_role, e.accessible_name)
                for e in self.driver.find_elements(By.CSS_SELECTOR, selector)]

    def reduce_motion(self) -> None:
        """Ask for less motion, as a reader's system setting would."""
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})

    def hand(self) -> list[str]:
        return self.js("return [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card);")

    def screenshot(self, name: str) -> Path:
        """Save the window as ``name`` in this profile's folder, and into docs/images where
        that file is missing or ``UPDATE_SCREENSHOTS`` is set (``make screenshots``): the
        committed images change only when asked, not with every game's new id."""
        path = Path(self.profile.name) / name
        assert self.driver.save_screenshot(str(path)), f"no screenshot {name}"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
        if os.environ.get("UPDATE_SCREENSHOTS") or not (IMAGES / name).exists():
            IMAGES.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, IMAGES / name)
        return path

    def read_logs(self) -> dict[str, list[str]]:
        """Failed requests (status >= 400 or a network error the page did not cause itself)
        and console errors since the last read, added to ``failed``/``console``."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            params = message.get("params", {})
            if message["method"] == "Network.requestWillBeSent":
                self.urls[params["requestId"]] = params["request"]["url"]
            elif message["method"] == "Network.responseReceived":
                response = params["response"]
                if response["status"] >= 400:
                    self.failed.append(f"{response['status']} {response['url']}")
            elif message["method"] == "Network.loadingFailed" and not params.get("canceled"):
                url = self.urls.get(params["requestId"], "?")
                self.failed.append(f"{params.get('errorText')} {params.get('type')} {url}")
        for entry in self.driver.get_log("browser"):
            if entry["level"] in ("SEVERE", "WARNING"):
                self.console.append(entry["message"])
        return {"failed": self.failed, "console": self.console}

    def assert_clean(self) -> None:
        logs = self.read_logs()
        assert logs == {"failed": [], "console": []}, logs

    def reset(self) -> None:
        """Back to what a fresh profile would be for the next test, in a new tab: the
        origins' storage, the cookies and the cache cleared, the media emulation and the
        logs gone. A browser started and quit costs about 1.7 CPU-seconds (its helper
        processes included), most of what a short page test costs."""
        driver = self.driver
        old = driver.window_handles
        driver.switch_to.new_window("tab")  # a new tab: a new sessionStorage, no timers left
        for handle in old:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(driver.window_handles[0])
        for origin in self.origins:
            driver.execute_cdp_cmd("Storage.clearDataForOrigin",
                                   {"origin": origin, "storageTypes": "all"})
        driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        self._emulate_size()
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        driver.get("about:blank")
        driver.get_log("performance")
        driver.get_log("browser")
        self.failed, self.urls, self.console, self.origins = [], {}, [], set()

    def close(self) -> None:
        self.driver.quit()
        self.profile.cleanup()


#: The window sizes every /play feature is checked at: a phone and a laptop.
SIZES = {"390px": (390, 844), "1280px": (1280, 800)}


@pytest.fixture(params=list(SIZES.values()), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    """A test asking for ``size`` runs once on a phone-sized and once on a laptop-sized window."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def idle_pages() -> Iterator[dict[tuple[int, int], list[Page]]]:
    """The browsers a test has finished with, by window size, for the next test to take
    (reset to a fresh profile's state): the worker's web tests start a few browsers in all
    rather than one or two each. Closed at the end of the session."""
    idle: dict[tuple[int, int], list[Page]] = {}
    yield idle
    for pages in idle.values():
        for page in pages:
            page.close()


@pytest.fixture
def browser(chromium: tuple[str, str], idle_pages: dict[tuple[int, int], list[Page]],
            ) -> Iterator[Callable[..., Page]]:
    """A factory of browser profiles of the window's size, each its own (two at once never
    share one), given back reset at the end of the test; one that cannot be reset is
    closed."""
    pages: list[Page] = []

    def new(width: int = 1000, height: int = 1300) -> Page:
        spare = idle_pages.get((width, height))
        page = spare.pop() if spare else Page(chromium, width, height)
        pages.append(page)
        return page

    yield new
    for page in pages:
        try:
            page.reset()
        except Exception:  # a browser that died or hung: the next test starts its own
            page.close()
        else:
            idle_pages.setdefault((page.width, page.height), []).append(page)


@pytest.fixture(scope="session")
def other_origin() -> Iterator[str]:
    """The page's files served by a plain static file server on another host name and port:
    the page then reaches the API cross-origin (``?api=``)."""
    handler = functools.partial(_QuietFiles, directory=str(STATIC_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript"}

    def log_message(self, format: str, *args: Any) -> None:
        pass
