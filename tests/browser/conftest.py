"""Playwright driving the system's Chromium (Debian's /usr/bin/chromium); never downloads one.

Set CHROMIUM=/path/to/chrome to use another binary. Without a browser every test here is
skipped and the run says so at the end.
"""

import asyncio
import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

#: How long an ``expect(...)`` waits for its condition (Playwright's default is 5 s). The suite
#: runs many processes on two cores: a page that renders in half a second alone can take ten
#: while the machine is loaded, and the condition is what is tested, not how soon it holds.
EXPECT_TIMEOUT_MS = 30_000


def find_chromium():
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


def pytest_terminal_summary(terminalreporter):
    browser_reports = [
        r
        for key in ("passed", "failed", "skipped", "error")
        for r in terminalreporter.stats.get(key, [])
        if getattr(r, "when", "call") in ("call", "setup")
        and "tests/browser/" in str(getattr(r, "nodeid", ""))
    ]
    if not browser_reports:
        return
    if find_chromium() is None:
        terminalreporter.write_line(
            "BROWSER TESTS SKIPPED: no Chromium found (Debian: apt-get install chromium)",
            yellow=True,
        )
    else:
        terminalreporter.write_line(f"browser tests ran with {find_chromium()}")


class _Playwright:
    """The test process' one Playwright driver and one Chromium, started by the first browser
    module and kept for the next ones (a driver and a Chromium cost about two seconds of CPU to
    start, once per module before). Playwright's sync API keeps its event loop marked as
    running in this thread while it is open: that would break the later tests of this process
    that call ``asyncio.run()`` and make Django refuse their ORM calls. So between browser
    modules the loop is parked: unmarked (``asyncio._set_running_loop(None)``, as Playwright's
    own dispatcher does when a signal interrupts it), marked again before the next module
    touches the browser. The loop itself stays suspended inside a sync call's wait the whole
    time, where only a sync call resumes it."""

    manager = None
    playwright = None
    browser = None
    loop = None

    def open(self, executable):
        """The browser, started or taken back from the previous module."""
        if self.manager is None:
            from playwright.sync_api import sync_playwright

            manager = sync_playwright()
            self.playwright = manager.__enter__()
            self.manager = manager
            self.loop = asyncio.get_running_loop()
        else:
            asyncio._set_running_loop(self.loop)
        if self.browser is None or not self.browser.is_connected():
            self.browser = self.playwright.chromium.launch(
                executable_path=executable, headless=True, args=CHROMIUM_ARGS
            )
        return self.browser

    def park(self):
        """After a module: its contexts closed (as a browser closed after each module did),
        the loop unmarked till the next module."""
        try:
            if self.browser is not None and self.browser.is_connected():
                for context in list(self.browser.contexts):
                    context.close()
        finally:
            asyncio._set_running_loop(None)

    def close(self):
        """At the end of the test process: the browser and the driver stopped."""
        if self.manager is None:
            return
        asyncio._set_running_loop(self.loop)
        try:
            if self.browser is not None and self.browser.is_connected():
                self.browser.close()
        finally:
            manager, self.manager, self.browser = self.manager, None, None
            manager.__exit__(None, None, None)  # ends the loop's run: no loop marked after


@pytest.fixture(scope="session")
def _playwright():
    """The process' one Playwright and Chromium (:class:`_Playwright`), stopped at its end."""
    session = _Playwright()
    yield session
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        session.close()
    finally:
        _restore("DJANGO_ALLOW_ASYNC_UNSAFE", previous)


def _restore(name, previous):
    if previous is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = previous


@pytest.fixture(scope="module")
def browser(_playwright):
    # Module scope, on the process' one browser (_Playwright): each module gets it with no
    # context open, and leaves none open.
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (Debian: apt-get install chromium); browser tests skipped")
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)

    # Requests a service worker makes pass through the context's routes, so a test can take
    # the network away from it as well (``set_offline`` alone leaves the worker online).
    os.environ["PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS"] = "1"

    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # between browser steps are ordinary synchronous code.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        try:
            yield _playwright.open(executable)
        finally:
            _playwright.park()
    finally:
        _restore("DJANGO_ALLOW_ASYNC_UNSAFE", previous)


@pytest.fixture(scope="module")
def stack(browser, shared_stack):
    """The run's one stack (tests/conftest.py's ``shared_stack``) for a module that only adds
    tables and people to it; the browser is started first."""
    return shared_stack


@pytest.fixture(scope="module", autouse=True)
def _matches_wound_up(request):
    """When a module that used the run's shared stack is over, every match still playing on
    that stack ends with its deal in progress (bench.tables.wind_up_all). A page closed leaves
    its seat on auto-play, and the stack's worker would otherwise play every table a test
    left behind on, deal after deal to the match's end, beside all the later tests of this
    pytest-xdist worker (nothing else runs on its stack between two modules)."""
    yield
    items = [i for i in request.session.items if i.module is request.module]
    if not any("shared_stack" in item.fixturenames for item in items):
        return
    # the stack as started (none when this module's tests were skipped): never start one here
    defs = request._fixturemanager.getfixturedefs("shared_stack", request.node) or ()
    started = defs[-1].cached_result if defs else None
    if started is not None and started[0] is not None:
        started[0].query("from bench.tables import wind_up_all\nout = wind_up_all()")


@pytest.fixture
def new_page(browser, live_server):
    contexts = []

    def make(locale="zh-CN", mobile=False, scale=2):
        """A page in a new context; ``mobile``: a 390×844 touch phone of device pixel ratio
        ``scale`` (the layout in CSS px is the same at 1 and 2: 1 where no screenshot needs a
        phone's pixel density, as 2 costs Chromium four times the pixels)."""
        options = {"locale": locale, "base_url": live_server.url}
        if mobile:
            options.update(
                viewport={"width": 390, "height": 844},
                device_scale_factor=scale,
                is_mobile=True,
                has_touch=True,
            )
        context = browser.new_context(**options)
        # (a navigation on a loaded machine can take more than Playwright's usual seconds)
        context.set_default_timeout(EXPECT_TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
