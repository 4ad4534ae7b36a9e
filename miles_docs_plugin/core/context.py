"""What a build knows while it runs: config, hooks, cache, the host engine, all sections."""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import Diagnostic, Severity
from .transform.anchors import AnchorMap, PageSlugger, github_slug, github_unique
from .transform.blocks import Component, fallback

if TYPE_CHECKING:
    from .config import Config
    from .model import Page, Section
    from .plugins import Hooks
    from .source.cache import Cache
    from .source.lock import Lock
    from .transform.markdown import ScanResult
    from .transform.mdx import FenceMeta
    from .transform.scancache import ScanCache

log = logging.getLogger("miles_docs")


class Engine:
    """What the core needs to know about the host engine. Adapters subclass it.

    The default describes a neutral engine (used by the CLI ``check``): pages are addressed by
    their ``.md`` paths and headings get GitHub slugs.
    """

    name = "none"
    #: Markdown features available in the host: ``admonition``, ``details``, ``tabbed``,
    #: ``mermaid``, ``sphinx-design``, ``attr_list``, ``mkdocstrings`` (``::: module`` lines).
    features: frozenset[str] = frozenset()
    #: Links to ids of raw HTML (``<a id="x">``) work in this engine.
    raw_html_ids = True
    #: ``## Heading {#id}`` gives the heading that id (MkDocs' attr_list does; MyST does not,
    #: so those attributes are removed and links to them go to the heading's slug).
    heading_attrs = True
    #: Deepest heading level the engine gives an id to, and the setting that says so.
    heading_depth = 6
    heading_depth_setting = ""
    #: The host's heading slug function, where the adapter uses one.
    slugify: Callable[..., str] | None = None

    def __init__(self, host_pages: set[str] | None = None) -> None:
        #: Docs paths of the host's own pages (``index.md``), when known.
        self.host_pages = host_pages

    def page_url(self, doc_path: str) -> str:
        """URL of a page of the host docs tree, relative to the site root."""
        return doc_path

    def asset_url(self, doc_path: str) -> str:
        return doc_path

    def page_slugger(self) -> PageSlugger:
        """A new slugger for one page (headings in order, duplicates handled)."""
        seen: dict[str, int] = {}
        return lambda text: github_unique(github_slug(text), seen)

    # -- components ---------------------------------------------------------------------------

    def block(self, component: Component) -> list[str]:
        """Write a component in the engine's own syntax (see :mod:`.blocks`).

        The returned lines replace the component's lines, tags included; return as many as it
        had where you can. This default writes plain Markdown that every engine reads.
        """
        return fallback(component)

    def repo_link(self, source: str, kind: str, path: str, url: str) -> str:
        """The destination written for a repository file link (``url`` is the permalink).

        ``kind`` is ``blob`` or ``tree``. Engines that resolve commit-specific URLs at write
        time return a stable placeholder here.
        """
        return url

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        """Markdown destination of the docs file ``to_doc`` (a page when ``page``) from the
        page ``from_doc``: a relative path whose ``%``, ``#`` and ``?`` are percent-encoded
        (MkDocs decodes the path, so ``a%23b.md`` is the file ``a#b.md``)."""
        rel = posixpath.relpath(to_doc, posixpath.dirname(from_doc) or ".")
        return re.sub(r"[%#?]", lambda m: f"%{ord(m.group()):02X}", rel)

    def inert_link(self, *, image: bool = False) -> str:
        """The Markdown destination of a link (or image) that leads nowhere, unresolved or
        unsafe: the page gets ``#``. Engines that would report it once more (MyST) return
        what they do not report, so one problem is one warning."""
        return "#"

    def fence_info(self, info: str) -> str:
        """The info string a fenced code block should carry (e.g. for ``mermaid``)."""
        return info

    #: The engine reads MDX itself (Mintlify): pages keep their module syntax, snippets,
    #: OpenAPI front matter and tags; components are only neutralised for the link rules,
    #: line for line and without markers, and put back by the engine.
    reads_mdx = False
    #: The engine warns about code languages its highlighter does not know (Sphinx does).
    checks_languages = False

    def known_language(self, lang: str) -> bool:
        """Can the engine's highlighter read code in ``lang``? (Unknown ones become text.)"""
        return True

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        """The opening line(s) of a fenced code block whose info string carried Mintlify meta
        (a title, ``theme={null}``, ``wrap``…). The default keeps the language only."""
        return [f"{indent}{marker}{meta.lang}"]

    def url_from(self, from_doc: str, to_url: str) -> str:
        """``to_url`` (site-relative) as seen from the page ``from_doc`` (for raw HTML)."""
        url = self.page_url(from_doc)
        base = url.rstrip("/") if url.endswith("/") else posixpath.dirname(url)
        rel = posixpath.relpath(to_url or ".", base or ".")
        if to_url.endswith("/") and not rel.endswith("/"):
            rel += "/"
        return rel


@dataclass
class BuildContext:
    config: Config
    hooks: Hooks
    cache: Cache
    engine: Engine
    lock: Lock | None = None
    scans: ScanCache | None = None
    sections: dict[str, Section] = field(default_factory=dict)
    progress: Callable[[str], None] = lambda message: log.info("miles-docs: %s", message)
    _anchors: dict[tuple[str, str], AnchorMap] = field(default_factory=dict)
    #: What built-in plugins work out once per build (a source's site config, …), by key.
    memo: dict[str, object] = field(default_factory=dict)

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
            scan = self.scan(page)
            synthetic = page.extra.get("synthetic_headings", ())
            amap = AnchorMap.build(scan.headings, scan.ids, self.engine.page_slugger(),
                                   raw_html_ids=self.engine.raw_html_ids, synthetic=synthetic,
                                   heading_ids=page.extra.get("heading_ids"),
                                   depth=self.engine.heading_depth)
            self._anchors[key] = amap
        return amap

    def scan(self, page: Page) -> ScanResult:
        """The scan of a page's prepared content (cached by content)."""
        if page.scan is None:
            from .transform.markdown import scan as do_scan

            body = page.content[page.body_start:]
            if self.scans is not None:
                page.scan = self.scans.get(body, page.body_line - page.line_delta, do_scan)
            else:
                page.scan = do_scan(body, line_offset=page.body_line - page.line_delta)
        return page.scan

