"""The sample sites in a real browser: Chromium (system package) driven by Playwright.

Each engine's sample site (MkDocs + Material, Sphinx + furo) is built offline into a temporary
folder, served on 127.0.0.1 and browsed. Requests to other hosts are aborted (closed network);
every test fails on a 404 or other error from the local server, a console error or a JS error.

Needs ``bash tests/setup_browser.sh``; without it these tests fail (they never skip).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from browser_support import ARTIFACTS, ENGINES, MOUNT, SAMPLE, Harness, Tab, injected_docs

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("cache_dir")]

UPSTREAM = "https://github.com/miles-docs/diffusion-sample"
HOST_REPO = "https://github.com/miles-docs/sample-host"
DOCS = injected_docs()


def pinned() -> str:
    lock = yaml.safe_load((SAMPLE / "mkdocs" / "miles-docs.lock").read_text(encoding="utf-8"))
    return str(lock["sources"][MOUNT]["commit"])


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    h = Harness(tmp_path_factory.mktemp("browser"))
    yield h
    h.close()


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# ---------------------------------------------------------------------------- helpers

TARGET_JS = """() => {
  const id = decodeURIComponent(location.hash.slice(1));
  const el = document.getElementById(id);
  if (!el) return {id, found: false};
  const r = el.getBoundingClientRect();
  // the heading the anchor names: the element itself, inside it, or the first one after it
  const h = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].find(h =>
      h === el || el.contains(h) || (el.compareDocumentPosition(h) & 4));
  let heading = null;
  if (h) {
    const c = h.cloneNode(true);
    c.querySelectorAll('.headerlink').forEach(a => a.remove());
    heading = c.textContent.trim();
  }
  return {id, found: true, top: r.top, viewport: innerHeight, scrollY, heading};
}"""
IN_VIEW_JS = """() => {
  const el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (!el) return false;
  const top = el.getBoundingClientRect().top;
  return top >= -1 && top < innerHeight;
}"""


def click(tab: Tab, text: str, expect: str, h1: str, heading: str | None = None,
          anchors: tuple[str, ...] = ()) -> None:
    """Click the content link ``text``; it must land on ``expect`` (a site-relative URL), whose
    title is ``h1``. With ``heading``, the URL has one of the ``anchors`` as its hash, and the
    element with that id exists, is scrolled into view and names the heading ``heading``."""
    start = tab.rel()
    links = tab.content().get_by_role("link", name=text, exact=True)
    assert links.count() == 1, f"{start}: {links.count()} content links named {text!r}"
    links.click()
    wanted = {tab.url(expect + (f"#{a}" if a else "")) for a in anchors or ("",)}
    try:
        tab.page.wait_for_url(lambda url: url in wanted, timeout=5_000)
    except Exception as exc:
        raise AssertionError(f"{start}: {text!r} led to {tab.rel()}, not {sorted(wanted)}") from exc
    tab.page.wait_for_load_state("load")
    assert tab.h1() == h1, f"{text!r} from {start}: landed on {tab.rel()} titled {tab.h1()!r}"
    if heading is None:
        return
    target: dict[str, Any] = tab.page.evaluate(TARGET_JS)
    assert target["found"], f"{tab.rel()}: no element with id {target['id']!r}"
    try:
        tab.page.wait_for_function(IN_VIEW_JS, timeout=5_000)
    except Exception as exc:
        target = tab.page.evaluate(TARGET_JS)
        raise AssertionError(f"{tab.rel()}: #{target['id']} is not in view: {target}") from exc
    assert target["heading"] == heading, f"{tab.rel()}: the anchor names {target['heading']!r}"


def page_urls(tab: Tab) -> list[str]:
    return [tab.url(tab.engine.url_of(doc)) for doc in DOCS]


# ---------------------------------------------------------------------------- the tests


def test_section_is_in_the_host_nav(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    tab.goto()
    links = tab.page.locator(tab.engine.nav_link).filter(
        has_text=re.compile(r"^\s*Diffusion\s*$"))
    assert links.count() == 1, f"{engine}: no single 'Diffusion' entry in the home page's nav"
    assert links.is_visible(), f"{engine}: the 'Diffusion' nav entry is not visible"
    links.click()
    tab.page.wait_for_url(tab.url(tab.engine.url_of("index.md")))
    assert tab.h1() == "Diffusion Sample"
    current = tab.page.locator(tab.engine.current_nav)
    assert current.count() == 1 and current.inner_text().strip() == "Diffusion", (
        f"{engine}: the nav does not mark Diffusion as current")
    listed = set(tab.page.eval_on_selector_all(
        f"{tab.engine.nav} a[href]", "as => as.map(a => a.href.split('#')[0])"))
    missing = [url for url in page_urls(tab) if url not in listed]
    assert not missing, f"{engine}: injected pages missing from the nav: {missing}"
    tab.assert_clean()


def test_groups_of_the_section_are_visible_in_its_nav(harness: Harness, engine: str) -> None:
    """The upstream's folders are groups of the section's nav, shown by both themes (furo
    shows no toctree captions: there each group is a page of its own), in the same order."""
    tab = harness.open(engine)
    tab.goto(tab.engine.url_of("index.md"))
    nav = tab.page.locator(tab.engine.nav)
    tops = []
    for group in ("Getting Started", "User Guide"):
        item = nav.get_by_text(group, exact=True).first
        assert item.count() == 1 and item.is_visible(), f"{engine}: no visible group {group!r}"
        tops.append(item.bounding_box()["y"])  # type: ignore[index]
    assert tops == sorted(tops), f"{engine}: the groups are not in the upstream's order"
    tab.assert_clean()


def test_clicks_land_on_the_right_pages(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    url = tab.engine.url_of
    index, install = url("index.md"), url("getting-started/installation.md")
    quick, concepts = url("getting-started/quick-start.md"), url("user-guide/concepts.md")
    rewards = url("user-guide/rewards.md")
    tab.goto()
    # host page -> section
    click(tab, "Diffusion overview", index, "Diffusion Sample")
    # between section pages, and to anchors on them
    click(tab, "quick start", quick, "Quick start")
    click(tab, "requirements", install, "Installation", "Requirements", ("requirements",))
    click(tab, "quick start", quick, "Quick start")
    click(tab, "concepts", concepts, "Core concepts", "LoRA + IPC weight sync",
          ("lora-ipc-weight-sync",))
    click(tab, "overview", index, "Diffusion Sample")
    click(tab, "Quick start", quick, "Quick start")
    # an explicit <a id="pg"> before a heading: MkDocs keeps it, Sphinx links the heading
    click(tab, "Rewards", rewards, "Rewards", "🧩 PG — Proxy gated", ("pg", "pg-proxy-gated"))
    click(tab, "fully gated", rewards, "Rewards", "🛡️ FG — Fully gated",
          ("fg", "fg-fully-gated"))
    click(tab, "installation guide", install, "Installation")
    # section -> host page (an upstream link to a host URL)
    tab.goto(index)
    click(tab, "model list", tab.engine.host_url("index"), "Miles", "Supported models",
          ("supported-models",))
    tab.assert_clean()


def test_every_image_on_injected_pages_loads(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    seen: list[str] = []
    for doc in DOCS:
        tab.goto(tab.engine.url_of(doc))
        images: list[dict[str, Any]] = tab.page.evaluate(
            "() => [...document.images].map(i => ({src: i.currentSrc || i.src,"
            " complete: i.complete, width: i.naturalWidth}))")
        broken = [i for i in images if not (i["complete"] and i["width"] > 0)]
        assert not broken, f"{engine} {doc}: images that did not load: {broken}"
        seen += [i["src"] for i in images]
    assert any(src.endswith("/pipeline.svg") for src in seen), f"{engine}: no pipeline.svg"
    tab.assert_clean()


def test_edit_links_point_upstream(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    for doc in DOCS:
        tab.goto(tab.engine.url_of(doc))
        links = tab.page.locator(tab.engine.edit_link)
        hrefs = set(links.evaluate_all("as => as.map(a => a.href)"))
        assert hrefs == {f"{UPSTREAM}/edit/main/docs/{doc}"}, f"{engine} {doc}: {hrefs}"
        assert links.first.is_visible(), f"{engine} {doc}: the edit link is not visible"
        assert links.first.get_attribute("title") == "Edit this page"
    tab.goto()  # the host's own pages still edit the host repository
    hrefs = set(tab.page.locator(tab.engine.edit_link).evaluate_all(
        "as => as.map(a => a.href)"))
    assert hrefs and all(h.startswith(f"{HOST_REPO}/edit/main/") for h in hrefs), hrefs
    tab.assert_clean()


def test_provenance_banner_is_visible(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    commit = pinned()
    for doc in DOCS:
        tab.goto(tab.engine.url_of(doc))
        banner = tab.content().locator(".miles-docs-banner")
        assert banner.count() == 1, f"{engine} {doc}: {banner.count()} banners in the content"
        assert banner.is_visible(), f"{engine} {doc}: the banner is not visible"
        box = banner.bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0, box
        text = banner.inner_text()
        assert f"miles-docs/diffusion-sample/docs/{doc}" in text and commit[:7] in text, text
        source = banner.locator("a").first.get_attribute("href")
        assert source == f"{UPSTREAM}/blob/{commit}/docs/{doc}", source
    for host_page in (tab.engine.host_url("index"), tab.engine.host_url("about")):
        tab.goto(host_page)
        assert tab.page.locator(".miles-docs-banner").count() == 0, f"banner on {host_page!r}"
    tab.assert_clean()


def test_no_404_and_no_errors_on_any_page(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    targets: set[str] = set()
    for rel in ["", *(tab.engine.url_of(doc) for doc in DOCS)]:
        tab.goto(rel)
        tab.page.wait_for_load_state("networkidle")
        hrefs = tab.page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
        targets |= {h.split("#")[0] for h in hrefs if h.startswith(tab.server.base)}
    # every local link of those pages answers too (fetched, not clicked)
    bad = [(t, r.status) for t in sorted(targets)
           if not (r := tab.page.request.get(t)).ok]
    assert not bad, f"{engine}: local links that do not answer: {bad}"
    assert len(targets) > len(DOCS), targets
    tab.assert_clean()


def test_search_finds_injected_pages(harness: Harness, engine: str) -> None:
    tab = harness.open(engine)
    concepts = tab.url(tab.engine.url_of("user-guide/concepts.md"))
    if engine == "mkdocs":
        tab.goto()
        box = tab.page.locator("input.md-search__input")
        box.click()
        box.press_sequentially("adapter weights", delay=10)  # Material reacts to key events
        results = tab.page.locator(".md-search-result__item a")
    else:
        tab.goto("search.html?q=adapter+weights")
        results = tab.page.locator("#search-results li a")
    results.first.wait_for()
    found = {h.split("#")[0] for h in results.evaluate_all("as => as.map(a => a.href)")}
    assert concepts in found, f"{engine}: searching 'adapter weights' found {found}"
    tab.assert_clean()


def test_screenshot_of_an_injected_page(harness: Harness, engine: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    tab = harness.open(engine)
    tab.goto(tab.engine.url_of("getting-started/quick-start.md"))
    tab.page.evaluate("document.fonts.ready")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{engine}-quick-start.png"
    tab.page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    with capsys.disabled():
        print(f"\nscreenshot: {shot}")
    tab.assert_clean()
