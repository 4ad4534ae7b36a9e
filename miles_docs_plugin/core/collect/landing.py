"""Every section has a landing page: the upstream's index, or a generated overview.

Before the pages are transformed, a section without a root index gets a placeholder
``index.md`` (so links to the site root, and redirects to ``/``, resolve); once the nav is
built it is filled with an overview of the section's groups and pages. The landing page always
opens the section's nav, in both engines.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ..model import NavGroup, NavItem, NavLink, NavPage, Page, Section, name_title, nav_pages
from ..patterns import lazy_re
from ..transform.scanned import escape_destination

if TYPE_CHECKING:
    from ..engine import Engine

LANDING = "index.md"


def landing_page(section: Section) -> Page | None:
    """The page at the section's root URL."""
    for page in section.pages.values():
        if page.dest == LANDING:
            return page
    return None


def add_placeholder(section: Section) -> None:
    """A generated landing page when the upstream has no root index."""
    if landing_page(section) is not None:
        return
    section.pages[LANDING] = Page(source=section.source.name, path=LANDING, dest=LANDING,
                                  text="", content="", title=section.source.title,
                                  extra={"generated": True})


def _overview(items: list[NavItem], section: Section, engine: Engine, depth: int) -> list[str]:
    """The overview's list: a page's link written as the engine resolves it (the link step has
    run), nested lists indented four spaces (Python-Markdown's list indent; CommonMark reads
    them too), a group without a title flattened into its parent (Mintlify shows its pages
    without a heading)."""
    from ..transform.blocks import escape_inline  # (a section without a landing page of its own)

    lines: list[str] = []
    pad = "    " * depth
    here = section.host_path(LANDING)
    for item in items:
        if isinstance(item, NavPage):
            page = section.pages.get(item.path)
            if page is None or page.dest == LANDING:
                continue
            meta_title = page.meta.get("title")
            title = item.title or page.title or (
                meta_title.strip() if isinstance(meta_title, str) and meta_title.strip()
                else _first_heading(page) or
                name_title(posixpath.splitext(posixpath.basename(item.path))[0]))
            there = section.host_path(item.path, page)
            link = escape_destination(engine.doc_link(here, there, page=True), angle=True)
            lines.append(f"{pad}- [{escape_inline(title)}]({link})")
        elif isinstance(item, NavLink):
            link = escape_destination(item.url, angle=True)
            lines.append(f"{pad}- [{escape_inline(item.title)}]({link})")
        elif isinstance(item, NavGroup):
            if not item.title.strip():
                lines += _overview(item.children, section, engine, depth)
                continue
            inner = _overview(item.children, section, engine, depth + 1)
            if inner:
                lines.append(f"{pad}- **{escape_inline(item.title)}**")
                lines += inner
    return lines


#: An ATX ``#`` heading line (its text without closing ``#``s or a ``{#id}``), and a fence.
_H1_RE = lazy_re(r"^ {0,3}# +(.*?)(?: +#+)? *(?:\{[^}]*\})? *$")
_FENCE_RE = lazy_re(r"^ *(`{3,}|~{3,})")
#: Inline markup a title in a nav shows as text: emphasis, code, a link's destination.
_MARKUP_RE = lazy_re(r"\[([^\]]*)\]\([^)]*\)|[*_`]+")


def _first_heading(page: Page) -> str | None:
    """The text of the page's first ``#`` heading outside code (its title in every engine),
    read from the page's text: a build that replays the page has no scan of it."""
    fence = ""
    for line in page.content[page.body_start:].split("\n"):
        m = _FENCE_RE.match(line)
        if m and (not fence or m.group(1).startswith(fence)):
            fence = "" if fence else m.group(1)
            continue
        h = None if fence else _H1_RE.match(line)
        if h and h.group(1).strip():
            return _MARKUP_RE.sub(lambda x: x.group(1) or "", h.group(1)).strip() or None
    return None


def finish(section: Section, engine: Engine) -> None:
    """Fill the generated landing page and make sure the landing page opens the nav."""
    page = landing_page(section)
    if page is None:
        return
    if page.extra.get("generated"):
        from ..transform.blocks import escape_inline

        body = "\n".join(_overview(section.nav, section, engine, 0))
        page.content = f"# {escape_inline(section.source.title)}\n\n{body}\n"
    if all(p.path != page.path for p in nav_pages(section.nav)):
        section.nav.insert(0, NavPage(page.path, None))
