import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import free_port, wait_for_port  # noqa: F401 (imported from here too)

# Debian's headless build of Chromium (package chromium-headless-shell): the same Blink
# and V8 as its browser without the browser's own interface, which Playwright's headless
# mode would otherwise start for every page; the browser tests cost half the CPU.
CHROMIUM = "/usr/bin/chromium-headless-shell"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="session")
def _chromium():
    """One Chromium for the whole run of a test process, and Playwright's event loop.

    Playwright marks its loop as this thread's running loop between its calls, and
    Django then refuses database calls, as asyncio refuses another loop: the loop is
    marked only while a test holds the browser (`browser`), as when each test
    launched its own."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), \
        "Chromium is missing: `make test` installs Debian's chromium-headless-shell"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        loop = asyncio.get_running_loop()
        asyncio._set_running_loop(None)
        yield chromium, loop
        asyncio._set_running_loop(loop)
        chromium.close()


@pytest.fixture
def browser(_chromium):
    """The run's Chromium; every context (and page) a test opens is closed after it."""
    chromium, loop = _chromium
    asyncio._set_running_loop(loop)
    try:
        yield chromium
        for context in chromium.contexts:
            context.close()
    finally:
        asyncio._set_running_loop(None)


def in_a_thread(work):
    """`work()` on a thread of its own, its answer: Playwright's loop, marked as this
    thread's while the test holds the browser, forbids database calls here."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def run():
        try:
            return work()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def timers_until(page, selector: str, seconds: float) -> None:
    """Wait for `selector` to show, the page's clock (Playwright's, installed before the
    page opened) moved on half a second at each look: the page's own timers (the TV asks
    the server every 3 s, and shows a result for ?pause= seconds) come sooner; what the
    server says, when, is its own."""
    import time

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + seconds
    while True:
        try:
            page.wait_for_selector(selector, timeout=200)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, f"no {selector} in {seconds} s"
            page.clock.fast_forward(500)


VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def vector_states(vector: str) -> list[dict]:
    """A conformance vector's timeline states ("kakomimasu/random_s7_04")."""
    return json.loads((VECTORS / f"{vector}.timeline.json").read_text())["states"]


def published_vectors(vectors) -> dict[str, int]:
    """Import and publish the vectors' records; their match ids by vector. Call it before
    the browser starts: Playwright's loop forbids database calls after."""
    from matches.rules.records import parse_record
    from matches.services.archive import match_import

    return {vector: match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                                 published=True).pk for vector in vectors}


@pytest.fixture
def pages(browser):
    """`pages.open(url, size)`: a new page of that size at the url; every page is closed
    after the test, which fails if any of them raised a script error."""
    opened = Pages(browser)
    yield opened
    for page in opened.all:
        page.close()
    assert opened.errors == []


class Pages:
    def __init__(self, browser) -> None:
        self.browser, self.all, self.errors = browser, [], []

    def open(self, url: str, size=(1600, 900), before=None, console=False):
        """`before(page)` runs before it loads; `console`: console errors count too."""
        page = self.browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        if console:
            page.on("console", lambda message: message.type == "error"
                    and self.errors.append(message.text))
        if before:
            before(page)
        self.all.append(page)
        page.goto(url)
        return page


def judge_signed_in(browser, base: str, width: int = 1280, height: int = 800):
    """A new page of the browser, signed in as the judge "judy" (password "pw", whom
    the test made)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "judy")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page
