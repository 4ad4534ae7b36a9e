"""What a build knows while it runs: config, hooks, cache, the host engine, all sections."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .engine import Engine
from .errors import Diagnostic, Severity
from .patterns import lazy_re
from .records import Record

if TYPE_CHECKING:
    from .config import Config
    from .model import Page, Section
    from .plugins import Hooks
    from .source.cache import Cache
    from .source.lock import Lock
    from .transform.anchors import AnchorMap
    from .transform.scancache import ScanCache
    from .transform.scanned import ScanResult

log = logging.getLogger("miles_docs")

#: ``page.extra`` key: ``[length, found]``, whether the page body held a block marker of
#: MkDocs (``!!!``, ``???``, ``===``) when it was that long. The components plugin, which looks
#: for them anyway, sets it while it prepares the page, on hosts whose engine reads such
#: blocks; the scan looks for itself when it is missing or the body's length has changed.
BLOCK_MARKS = "mkdocs_block_marks"

#: The modules that preparing, scanning and transforming pages import, which a warm build
#: (its pages replayed from the scan cache) loads only after its sources are collected, or
#: never: loaded while a source is fetched (:meth:`BuildContext.fetching`), dependencies
#: first. ``tests/test_git_source.py`` checks that a cold build of the corpus trees imports
#: no module of this package after the fetch that is not among them (or their imports).
PAGE_MODULES = (
    "markdown_it",
    "miles_docs_plugin.core.transform.inline_links",
    "miles_docs_plugin.core.transform.markdown",
    "miles_docs_plugin.core.transform.mdx",
    "miles_docs_plugin.core.transform.anchors",
    "miles_docs_plugin.core.transform.dialect",
    "miles_docs_plugin.core.transform.snippets",
    "miles_docs_plugin.core.transform.links",
    "miles_docs_plugin.core.transform.components",
    "miles_docs_plugin.core.transform.redirects",
    "miles_docs_plugin.core.transform.memo",
)


def _log_progress(message: str) -> None:
    log.info("miles-docs: %s", message)


class BuildContext(Record):
    """What every hook of one build sees: the config, hooks, cache, engine and pins."""

    __slots__ = _fields = ("config", "hooks", "cache", "engine", "lock", "scans", "sections",
                           "progress", "_anchors", "memo", "on_wait")
    config: Config
    hooks: Hooks
    cache: Cache
    engine: Engine
    lock: Lock | None
    scans: ScanCache | None
    sections: dict[str, Section]
    progress: Callable[[str], None]
    _anchors: dict[tuple[str, str], AnchorMap]
    #: What built-in plugins work out once per build (a source's site config, …), by key.
    memo: dict[str, object]
    #: What to start when a source is about to fetch (:meth:`fetching`): jobs that can
    #: overlap the wait, and that a build which fetches nothing runs in turn.
    on_wait: list[Callable[[], None]]

    def __init__(self, config: Config, hooks: Hooks, cache: Cache, engine: Engine,
                 lock: Lock | None = None, scans: ScanCache | None = None,
                 sections: dict[str, Section] | None = None,
                 progress: Callable[[str], None] = _log_progress,
                 _anchors: dict[tuple[str, str], AnchorMap] | None = None,
                 memo: dict[str, object] | None = None,
                 on_wait: list[Callable[[], None]] | None = None) -> None:
        self.config = config
        self.hooks = hooks
        self.cache = cache
        self.engine = engine
        self.lock = lock
        self.scans = scans
        self.sections = {} if sections is None else sections
        self.progress = progress
        self._anchors = {} if _anchors is None else _anchors
        self.memo = {} if memo is None else memo
        self.on_wait = [] if on_wait is None else on_wait

    def report(self, section: Section, page_path: str | None, line: int | None, code: str,
               message: str, severity: Severity = Severity.WARNING) -> None:
        """Record a diagnostic located in upstream ``docs_dir/page_path:line``."""
        path = section.repo_path(page_path) if page_path else section.source.docs_dir
        section.diagnostics.append(Diagnostic(section.source.name, path, line, code, message,
                                              severity))

    def anchors(self, section: Section, page: Page) -> AnchorMap:
        """The anchor map of a page (computed once per build)."""
        key = (section.source.name, page.path)
        amap = self._anchors.get(key)
        if amap is None:
            from .transform.anchors import AnchorMap

            scan = self.scan(page)
            synthetic = page.extra.get("synthetic_headings", ())
            headings = scan.headings
            if any(":" in h.text or "{" in h.text for h in headings):
                from .transform.scanned import Heading

                text = self.engine.heading_text
                headings = [Heading(h.level, text(section, h.text), h.line, h.raw)
                            for h in headings]
            ids = scan.ids
            more = self.engine.page_ids(page.content[page.body_start:])
            if more:
                from .transform.scanned import HtmlId

                ids = [*ids, *(HtmlId(value, 0) for value in more)]
            amap = AnchorMap.build(headings, ids, self.engine.page_slugger(),
                                   raw_html_ids=self.engine.raw_html_ids, synthetic=synthetic,
                                   heading_ids=page.extra.get("heading_ids"),
                                   depth=self.engine.heading_depth)
            self._anchors[key] = amap
        return amap

    def fetching(self) -> None:
        """A source is about to fetch (git over the network): the modules a cold build's page
        steps import (:data:`PAGE_MODULES`, and the engine's
        :attr:`~.engine.Engine.page_modules`) are loaded meanwhile, in a thread. The pages
        come after the fetch, and would otherwise wait for them (on corpus v2, ~25 ms of a
        cold build). So are the jobs of :attr:`on_wait` (reading the scan cache)."""
        from .background import preload

        preload((*PAGE_MODULES, *self.engine.page_modules))
        for start in self.on_wait:
            start()

    def release(self) -> None:
        """Let go of what only the transform needs (the scan cache, anchor maps), once an
        adapter has handed the pages to its engine."""
        self.scans = None
        self._anchors.clear()

    def scan(self, page: Page) -> ScanResult:
        """The scan of a page's prepared content (cached by content)."""
        if page.scan is None:
            body = page.content[page.body_start:]
            known = page.extra.get(BLOCK_MARKS)
            page.scan = self.scan_text(body, page.body_line - page.line_delta,
                                       known[1] if known and known[0] == len(body) else None)
        return page.scan

    def scan_all(self, pages: Iterable[Page]) -> None:
        """Scan ``pages`` (those about to be transformed) one after the other, before the first
        is transformed. In one pass the scanner's code and data stay in the processor's
        caches: interleaved with the link rules, as each page's transform asked for its own
        scan and its link targets' (for their anchors), a cold 1,000-page build's scans and
        rewrites took 10% longer. The transform then finds every page's scan."""
        for page in pages:
            self.scan(page)  # a page already scanned keeps its scan

    def scan_text(self, body: str, line_offset: int, marks: bool | None = None) -> ScanResult:
        """The scan of a page body (through the build's scan cache).

        When the engine reads MkDocs' blocks (admonitions, collapsibles, tabs) itself, their
        content is read as the engine reads it: the page's :func:`~.dialect.margin_view`
        is scanned, and its links are put back where they are in the page. ``marks``: whether
        the body holds a block marker, when the caller knows (:data:`BLOCK_MARKS`)."""
        from .transform.markdown import scan as do_scan

        markers = self.engine.mkdocs_blocks
        view = None
        if markers and marks is not False:
            from .transform.dialect import margin_view

            view = margin_view(body, markers)  # looks for the markers itself
        text = body if view is None else view.text
        if "md_in_html" in self.engine.features and "markdown" in text and \
                MARKDOWN_ATTR_RE.search(text) is not None:
            from .transform.dialect import markdown_in_html_view

            text = markdown_in_html_view(text)  # offsets as in ``text``: none to map back
        if self.scans is not None:
            found = self.scans.get(text, line_offset, do_scan)
        else:
            found = do_scan(text, line_offset=line_offset)
        return found if view is None else _moved_back(found, view.offset)



#: A tag with a ``markdown`` attribute (md_in_html), anywhere.
MARKDOWN_ATTR_RE = lazy_re(r"<[A-Za-z][\w-]*\b[^<>\n]*[ \t]markdown\b")


def _moved_back(found: ScanResult, offset: Callable[[int], int]) -> ScanResult:
    """``found`` with its links' spans mapped by ``offset`` (new links: a scan result may be
    shared through the scan cache)."""
    from .transform.scanned import LinkRef, ScanResult

    links = [LinkRef(link.kind, offset(link.start), offset(link.end), link.dest, link.line,
                     link.angle, link.tag, link.attr, link.quote, link.label, link.text)
             for link in found.links]
    return ScanResult(links, found.headings, found.ids, found.unmapped)
