"""Harness of the browser tests: the sample sites built once per engine, each served over HTTP
on 127.0.0.1, and a real Chromium (the system package) driven by Playwright.

Nothing here skips: a missing Chromium or Playwright fails the test that needs it, with the
command that installs them (``bash tests/setup_browser.sh``).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from support import ROOT, copy_sample, mkdocs_build, sphinx_build

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Page,
        Playwright,
        Request,
        Response,
        Route,
    )

CHROMIUM = Path("/usr/bin/chromium")
SETUP = "run `bash tests/setup_browser.sh` (installs the chromium package and playwright)"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
]
LOCAL = "127.0.0.1"
SAMPLE = ROOT / "sample_site"
UPSTREAM_DOCS = SAMPLE / "upstream" / "docs"
MOUNT = "diffusion"
ARTIFACTS = ROOT / "tests" / "artifacts"


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.is_file():
        return f"Chromium is not installed ({CHROMIUM} is missing): {SETUP}"
    if importlib.util.find_spec("playwright") is None:
        return f"Playwright for Python is not installed in {sys.executable}: {SETUP}"
    return None


# ---------------------------------------------------------------------------- the two engines


@dataclass(frozen=True)
class Engine:
    """What differs between the MkDocs (Material) and the Sphinx (furo) sample."""

    name: str
    nav_link: str  # links of the host navigation (one of them is "Diffusion")
    nav: str  # the navigation that lists the pages of the current section
    current_nav: str  # the current top-level entry of the navigation
    content: str  # the page's main content
    edit_link: str  # the theme's "edit this page" link

    def url_of(self, doc: str) -> str:
        """Site-relative URL of the injected page built from upstream ``docs/<doc>``."""
        stem = doc.removesuffix(".md")
        if self.name == "mkdocs":
            if stem == "index":
                return f"{MOUNT}/"
            return f"{MOUNT}/{stem.removesuffix('/index')}/"
        return f"{MOUNT}/{stem}.html"

    def host_url(self, stem: str) -> str:
        """Site-relative URL of the host's own page ``<stem>.md``, as the site links it."""
        if self.name == "mkdocs":
            return "" if stem == "index" else f"{stem}/"
        return f"{stem}.html"

    def build(self, sample: Path) -> Path:
        """Build the sample site of this engine (offline) and return its output folder."""
        env = {"MILES_DOCS_OFFLINE": "1"}
        if self.name == "mkdocs":
            result = mkdocs_build(sample / "mkdocs", env=env)
            out = sample / "mkdocs" / "site"
        else:
            out = sample / "sphinx" / "_build" / "html"
            result = sphinx_build(sample / "sphinx", out, env=env)
        assert result.returncode == 0, f"{self.name} build failed:\n{result.output}"
        assert "WARNING" not in result.output, result.output
        return out


ENGINES = {
    "mkdocs": Engine(
        name="mkdocs",
        nav_link=".md-tabs a.md-tabs__link",
        nav="nav.md-nav--primary",
        current_nav=".md-tabs__item--active > a",
        content="article.md-content__inner",
        edit_link='a.md-content__button[href*="/edit/"]',
    ),
    "sphinx": Engine(
        name="sphinx",
        nav_link=".sidebar-tree li.toctree-l1 > a.reference",
        nav=".sidebar-tree",
        current_nav=".sidebar-tree li.toctree-l1.current > a",
        content="article[role=main]",
        edit_link="a[rel=edit], .edit-this-page a",
    ),
}


def injected_docs() -> list[str]:
    """Upstream doc pages of the sample (``docs/``-relative), index first."""
    docs = sorted(p.relative_to(UPSTREAM_DOCS).as_posix() for p in UPSTREAM_DOCS.rglob("*.md"))
    return sorted(docs, key=lambda d: d != "index.md")


# ---------------------------------------------------------------------------- the HTTP server


class _Handler(SimpleHTTPRequestHandler):
    record: Callable[[str, int], None]

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.record(self.path, int(code) if str(code).isdigit() else 0)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Server:
    """A built site served by ``http.server`` on 127.0.0.1 on a free port, in a thread."""

    root: Path
    log: list[tuple[str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        lock = threading.Lock()

        def record(path: str, code: int) -> None:
            with lock:
                self.log.append((path, code))

        handler = type("Handler", (_Handler,), {"record": staticmethod(record)})
        self.httpd = ThreadingHTTPServer(
            (LOCAL, 0), functools.partial(handler, directory=str(self.root)))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://{LOCAL}:{self.httpd.server_address[1]}/"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


# ---------------------------------------------------------------------------- one browser tab


@dataclass
class Tab:
    """A page of the browser on one served site, recording what went wrong while it was open."""

    page: Page
    engine: Engine
    server: Server
    problems: list[str] = field(default_factory=list)
    blocked: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._log_start = len(self.server.log)
        self.page.on("response", self._on_response)
        self.page.on("requestfailed", self._on_failed)
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))

    def _on_response(self, response: Response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _on_failed(self, request: Request) -> None:
        # net::ERR_ABORTED: cancelled by leaving the page (e.g. Material's search worker)
        if request.url not in self.blocked and request.failure != "net::ERR_ABORTED":
            self.problems.append(f"request failed ({request.failure}): {request.url}")

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        source = message.location.get("url", "")
        # Chromium logs each aborted off-host request as "Failed to load resource".
        if source in self.blocked and message.text.startswith("Failed to load resource"):
            return
        self.problems.append(f"console error: {message.text} ({source})")

    def url(self, rel: str = "") -> str:
        return self.server.base + rel

    def goto(self, rel: str = "") -> None:
        response = self.page.goto(self.url(rel), wait_until="load")
        assert response is not None and response.ok, f"GET {rel}: {response and response.status}"

    def rel(self) -> str:
        """The current location, relative to the site root (path, query and hash)."""
        assert self.page.url.startswith(self.server.base), self.page.url
        return self.page.url.removeprefix(self.server.base)

    def content(self) -> Any:
        return self.page.locator(self.engine.content)

    def h1(self) -> str:
        return str(self.page.evaluate(
            """() => { const h = document.querySelector('h1').cloneNode(true);
                       h.querySelectorAll('.headerlink').forEach(a => a.remove());
                       return h.textContent.trim(); }"""))

    def assert_clean(self) -> None:
        """No 404 (or other error) from the local server, no console error, no JS error."""
        served = [f"server answered {code}: {path}"
                  for path, code in self.server.log[self._log_start:] if code >= 400]
        assert not self.problems + served, "\n".join(self.problems + served)


# ---------------------------------------------------------------------------- the harness


class Harness:
    """Builds each sample site once (lazily, offline), serves it, and opens browser tabs."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.sample: Path | None = None
        self.sites: dict[str, Server] = {}
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None

    def _copy_sample(self) -> Path:
        if self.sample is None:
            # Build a copy, so the working tree is untouched.
            self.sample = copy_sample(self.workdir)
        return self.sample

    def site(self, engine: str) -> Server:
        if engine not in self.sites:
            self.sites[engine] = Server(ENGINES[engine].build(self._copy_sample()))
        return self.sites[engine]

    def browser(self) -> Browser:
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            # launch() runs Chromium on a fresh temporary profile (--user-data-dir) of its own
            self._browser = self._playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        return self._browser

    def open(self, engine: str) -> Tab:
        """A fresh tab on the built, served site of ``engine``; off-host requests are aborted."""
        problem = browser_problem()
        if problem:
            pytest.fail(problem, pytrace=False)
        server = self.site(engine)
        if self._context is not None:
            self._context.close()
        # a context per tab: no storage (cookies, localStorage) carries over between tests
        self._context = self.browser().new_context(viewport={"width": 1400, "height": 700})
        self._context.set_default_timeout(10_000)
        page = self._context.new_page()
        tab = Tab(page, ENGINES[engine], server)

        def route(route: Route) -> None:
            if urlsplit(route.request.url).hostname == LOCAL:
                route.continue_()
            else:  # closed network: fonts.googleapis.com & co. would only time out
                tab.blocked.add(route.request.url)
                route.abort()

        page.route("**/*", route)
        return tab

    def close(self) -> None:
        if self._context is not None:
            self._context.close()
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()
        for server in self.sites.values():
            server.stop()
