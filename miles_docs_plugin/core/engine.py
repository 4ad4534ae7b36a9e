"""The engine contract: what the core needs to know about the host engine.

An adapter (MkDocs, Sphinx, the Mintlify host, the CLI's neutral ``check``) subclasses
:class:`Engine` and passes an instance to :func:`~miles_docs_plugin.core.pipeline.build`. The
core and the built-in plugins never import an engine: every engine-specific decision they need
goes through this object (``ctx.engine``), and nothing else.

What every adapter guarantees:

- The methods are pure: same arguments, same answer, no I/O and no engine state changed. The
  pipeline calls them from the build's thread while pages are transformed; page order is not
  guaranteed.
- Paths are docs paths of the *host* docs tree, POSIX, relative to its docs folder, without a
  leading ``/`` (``mount/guide/setup.md``): a section's pages are addressed as
  ``<mount>/<path>``.
- Returned destinations are written into Markdown link destinations as they are; the link
  rules escape them for Markdown (spaces, parentheses), nothing else.
- Returned lines replace lines of an upstream page: return as many as were given where the
  method says so, so that diagnostics keep pointing at upstream line numbers.

The attributes are class-level defaults an adapter overrides (on the class, or in
``__init__`` from the host's settings) before the build starts; they do not change during a
build.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import BuildContext
    from .model import Page, Section
    from .transform.anchors import PageSlugger
    from .transform.blocks import Component
    from .transform.mdx import FenceMeta


class Engine:
    """The neutral engine, and the base class of every adapter's engine.

    The default describes the engine of the CLI's ``check``: pages are addressed by their
    ``.md`` paths, headings get GitHub slugs, components become plain Markdown.
    """

    #: The engine's name (``mkdocs``, ``sphinx``, ``mintlify``; ``none`` here). Part of the
    #: scan cache's file name, and what plugins may test to tell engines apart.
    name = "none"
    #: Markdown features available in the host: ``admonition``, ``details``, ``tabbed``,
    #: ``mermaid``, ``sphinx-design``, ``attr_list``, ``mkdocstrings`` (``::: module`` lines).
    #: Read by the components plugin to choose what it may write.
    features: frozenset[str] = frozenset()
    #: Links to ids of raw HTML (``<a id="x">``) work in this engine. Read when a page's anchor
    #: map is built (once per page and build).
    raw_html_ids = True
    #: ``## Heading {#id}`` gives the heading that id (MkDocs' attr_list does; MyST does not,
    #: so those attributes are removed and links to them go to the heading's slug).
    heading_attrs = True
    #: Deepest heading level the engine gives an id to; a link to a deeper heading is reported
    #: naming :attr:`heading_depth_setting`, the host setting that changes it.
    heading_depth = 6
    heading_depth_setting = ""
    #: The host's heading slug function, where the adapter uses one (for
    #: :meth:`page_slugger`). The core never calls it directly.
    slugify: Callable[..., str] | None = None
    #: The engine reads MDX itself (Mintlify): pages keep their module syntax, snippets,
    #: OpenAPI front matter and tags; components are only neutralised for the link rules,
    #: line for line and without markers, and put back by the engine.
    reads_mdx = False
    #: Modules of the adapter that its page methods import on first use, which a cold build
    #: loads while it fetches (:meth:`.context.BuildContext.fetching`).
    page_modules: tuple[str, ...] = ()
    #: The MkDocs block markers (``!!!``, ``???``, ``===``) whose blocks the engine reads
    #: itself, content indented included (MkDocs with ``admonition``, ``pymdownx.details``,
    #: ``pymdownx.tabbed``): the link scan reads that content as Markdown, as the engine does.
    mkdocs_blocks: frozenset[str] = frozenset()
    #: The engine titles a page after its first heading, which must be a level-1 heading
    #: (MyST warns about a page whose headings start lower): a page without one gets its
    #: title as a level-1 heading, as MkDocs titles it (its front matter ``title``, else its
    #: title in the upstream's navigation, else its file name).
    needs_h1 = False
    #: The engine warns about code languages its highlighter does not know (Sphinx does):
    #: fences are then checked with :meth:`known_language`.
    checks_languages = False
    #: The engine's code block reads ``:key: value`` lines (and a ``---`` block) at the top of
    #: its content as options (MyST's directives do): a block whose code starts with such a
    #: line cannot be given a title or options.
    code_options_in_body = False

    def memo_key(self) -> str | None:
        """Everything the engine's answers to the link rules and components depend on (its
        settings, the versions of what it renders with, the host pages), as text; None when
        the adapter cannot say (then no page's transform is ever skipped: see
        :mod:`miles_docs_plugin.core.transform.memo`)."""
        return None

    def __init__(self, host_pages: set[str] | None = None) -> None:
        #: Docs paths of the host's own pages (``index.md``), when the adapter knows them: the
        #: link rules resolve links to the host site (``host_urls``) against this set, and
        #: report those that match no page (None: such links are kept as written).
        self.host_pages = host_pages

    # -- addresses ----------------------------------------------------------------------------

    def page_url(self, doc_path: str) -> str:
        """The URL of the page ``doc_path`` (a docs path of the host tree), relative to the
        site root, as the engine publishes it (``guide/setup/`` for MkDocs' directory URLs,
        ``guide/setup.html`` for Sphinx).

        Called by the link rules for links in raw HTML (which no engine rewrites) and for
        links to host pages. The default is the docs path itself.
        """
        return doc_path

    def asset_url(self, doc_path: str) -> str:
        """The URL of the file ``doc_path`` (an image, a download), relative to the site
        root. Called by the link rules for assets referenced from raw HTML."""
        return doc_path

    def url_from(self, from_doc: str, to_url: str) -> str:
        """``to_url`` (a site-relative URL from :meth:`page_url` or :meth:`asset_url`) as seen
        from the published page of ``from_doc``: a relative URL for raw HTML attributes.

        The default works out the page's own URL with :meth:`page_url`; an adapter overrides
        it only when its URLs are not plain paths.
        """
        url = self.page_url(from_doc)
        base = url.rstrip("/") if url.endswith("/") else posixpath.dirname(url)
        rel = relative_path(to_url or ".", base)
        if to_url.endswith("/") and not rel.endswith("/"):
            rel += "/"
        return rel

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        """The Markdown destination of the docs file ``to_doc`` (a page when ``page``, else an
        asset) from the page ``from_doc``, in the form the engine resolves and validates.

        Called by the link rules for every internal link of a Markdown link or image. The
        default is a relative path whose ``%``, ``#`` and ``?`` are percent-encoded (MkDocs
        decodes the path, so ``a%23b.md`` is the file ``a#b.md``). The anchor, if any, is
        appended by the caller.
        """
        folder = from_doc.rpartition("/")[0]  # posixpath.dirname of a relative, normalized path
        if folder.endswith("/") or from_doc.startswith("/"):
            folder = posixpath.dirname(from_doc)
        rel = relative_path(to_doc, folder)
        if "%" in rel or "#" in rel or "?" in rel:
            return re.sub(r"[%#?]", lambda m: f"%{ord(m.group()):02X}", rel)
        return rel

    def repo_link(self, source: str, kind: str, path: str, url: str) -> str:
        """The destination written for a link to a repository file outside the docs folder.

        ``source`` is the source's name, ``kind`` is ``blob`` or ``tree``, ``path`` the path in
        the repository and ``url`` its permalink at the pinned commit. Engines that resolve
        commit-specific URLs at write time return a stable placeholder here. The default is
        the permalink.
        """
        return url

    def inert_link(self, *, image: bool = False) -> str:
        """The Markdown destination of a link (or an image) that leads nowhere, unresolved or
        unsafe, after it was reported once: the default ``#``. Engines that would report it
        once more (MyST) return what they do not report, so one problem is one warning."""
        return "#"

    # -- headings -----------------------------------------------------------------------------

    def page_slugger(self) -> PageSlugger:
        """A new slugger for one page: called once per page when its anchor map is built;
        the slugger is then called with every heading's text, in page order, and returns the
        id the engine gives that heading (duplicates numbered as the engine numbers them).

        The default gives GitHub slugs (``-1``, ``-2`` for repeats).
        """
        from .transform.anchors import github_slug, github_unique

        seen: dict[str, int] = {}
        return lambda text: github_unique(github_slug(text), seen)

    # -- components and code ------------------------------------------------------------------

    def block(self, component: Component) -> list[str]:
        """Write ``component`` in the engine's own syntax (see :mod:`.transform.blocks`).

        This is the engine's renderer. The built-in components plugin hands each component,
        innermost first and once the links inside it are rewritten, to the
        ``mdp_render_component`` hook; when no plugin renders it, this method does. The
        returned lines replace the component's lines, tags included; return as many as it had
        where you can. This default writes plain Markdown that every engine reads
        (:func:`~.transform.blocks.fallback`); adapters write what their engine has a
        construct for and call it for the rest.
        """
        from .transform.blocks import fallback  # a page's transform: not a warm build's

        return fallback(component)

    def reads_footnotes(self, section: Section) -> bool:
        """Whether ``[^label]: text`` on a page of ``section`` is a footnote (its text no link
        destination), as GFM and MyST read it. The default: it is."""
        return True

    def heading_text(self, section: Section, text: str) -> str:
        """The text the engine makes the id of a heading of ``section`` from, given the text
        a reader sees as CommonMark reads it (MkDocs: without the shortcodes pymdownx.emoji
        draws, or a ``{ .class }`` attribute list). The default: the same."""
        return text

    def page_ids(self, body: str) -> list[str]:
        """Ids the engine gives elements of a page body other than its headings and raw HTML
        (MkDocs: Python-Markdown's ``{ #id }`` attribute lists and footnotes): anchors a link
        may name. Asked once per page whose anchors a link needs. The default: none."""
        return []

    def fence_info(self, info: str) -> str:
        """The info string a fenced ``mermaid`` block should carry in this engine, given the
        upstream's (``info``); called by the components plugin for each such fence. The
        default keeps it."""
        return info

    def known_language(self, lang: str) -> bool:
        """Can the engine's highlighter read code in ``lang``? Asked only when
        :attr:`checks_languages` is set; code in an unknown language is written as text so the
        engine does not warn about it. The default knows every language."""
        return True

    #: Languages whose highlighter refuses code it cannot read (asked of :meth:`lexes`).
    strict_languages: frozenset[str] = frozenset()

    def lexes(self, lang: str, code: str) -> bool:
        """Can the engine's highlighter read ``code`` as ``lang`` (one of
        :attr:`strict_languages`)? Code it cannot is written as text, so the engine does not
        warn about it. The default reads everything."""
        return True

    def finish_page(self, section: Section, page: Page, ctx: BuildContext) -> None:
        """Last words on a transformed page of ``section`` (the page's text as the engine must
        read it), called for every upstream page once the transform is done or replayed. The
        default changes nothing."""

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        """The line(s) that replace the opening line of a fenced code block whose info string
        carried Mintlify meta (a title, ``theme={null}``, ``wrap``…) or pymdownx.highlight's
        options, or whose language :meth:`known_language` refused (then ``meta.lang`` is
        ``text``). ``indent`` and ``marker`` (the backticks or tildes) are as in the page,
        ``meta`` is the parsed info string (with :meth:`~miles_docs_plugin.core.transform.mdx.
        FenceMeta.highlighted` lines within the block, and :meth:`~miles_docs_plugin.core.
        transform.mdx.FenceMeta.line_numbers`). Called by the components plugin; more lines
        may carry options (MyST's ``:caption:``). The default keeps the language only."""
        return [f"{indent}{marker}{meta.lang}"]


def relative_path(path: str, start: str) -> str:
    """``posixpath.relpath(path, start or ".")`` without its two ``abspath`` calls (a
    ``getcwd`` each), for the docs paths of the contract (relative, normalized); any other
    path goes to ``posixpath.relpath``. Called for every internal link of every page.

    The folders of ``start`` are worked out once per ``start`` (a page's links share it):
    ``path`` is then matched against them, deepest first, with ``startswith``."""
    if start == ".":
        start = ""
    tail = path + "/"
    folders = _folders_up(start)
    # an empty, "." or ".." part: the general case (looked for in "path/", and in "/start/"
    # by _folders_up)
    if folders is None or "//" in tail or "/./" in tail or "/../" in tail or tail.startswith(
            ("./", "../", "/")):
        return posixpath.relpath(path, start or ".")
    for folder, up in folders:
        if tail.startswith(folder):
            return (up + tail[len(folder):])[:-1] or "."
    raise AssertionError("unreachable: the last folder is the root, a prefix of every path")


@functools.lru_cache(maxsize=128)
def _folders_up(start: str) -> tuple[tuple[str, str], ...] | None:
    """``start`` and each folder above it, deepest first, as ``(folder + "/", "../" per level
    up)``; the root is ``("", "../" * depth)``. None when ``start`` has an empty, "." or ".."
    part."""
    text = f"/{start}/" if start else "/"
    if "//" in text or "/./" in text or "/../" in text:
        return None
    parts = start.split("/") if start else []
    return tuple(("/".join(parts[:depth]) + "/" if depth else "", "../" * (len(parts) - depth))
                 for depth in range(len(parts), -1, -1))
