"""The section's nav as Sphinx sees it: toctrees in the landing page and in generated group
pages, with the nav's titles and order."""

from __future__ import annotations

import posixpath
import re

from ..core.model import NavGroup, NavItem, NavLink, NavPage, Section, name_title
from ..core.transform.blocks import escape_inline


def docname_of(section: Section, path: str) -> str:
    return posixpath.splitext(section.host_path(path))[0]


#: folder (below the mount) of the generated pages that stand for nav groups
GROUPS_DIR = "_nav"


def _page_entry(section: Section, item: NavPage) -> str:
    """A toctree line for a page: its absolute docname, with the nav title (``sidebarTitle``,
    the nav config, or the front matter title), as MkDocs' nav does; Sphinx would otherwise
    show the first heading."""
    page = section.pages.get(item.path)
    title = item.title or (page.title if page else None)
    target = "/" + docname_of(section, item.path)
    return f"{_toctree_title(title)} <{target}>" if title else target


class NavDocuments:
    """The section's nav as Sphinx sees it: the landing page's toctree, and one generated page
    per group holding the toctree of its children (so every theme shows the groups: a toctree
    caption alone is not shown by furo and others). Pages keep the nav's order."""

    def __init__(self, section: Section, index_doc: str) -> None:
        self.section = section
        self.index_doc = index_doc
        self.groups: dict[str, bytes] = {}  #: generated file (relative to the mount) -> text
        self.titles: dict[str, str] = {}  #: docname -> group title
        self.listed: set[str] = set()  #: docnames the nav lists
        self._slugs: set[str] = set()
        taken = {posixpath.dirname(p.dest).split("/", 1)[0] for p in section.pages.values()}
        self.folder = GROUPS_DIR
        while self.folder in taken:
            self.folder = "_" + self.folder
        self.index_toctree = self._toctree(self._entries(section.nav, ""), hidden=True)

    def _slug(self, title: str, parent: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "group"
        slug = f"{parent}--{base}" if parent else base
        unique, n = slug, 1
        while unique in self._slugs:
            n += 1
            unique = f"{slug}-{n}"
        self._slugs.add(unique)
        return unique

    def _entries(self, items: list[NavItem], parent: str) -> list[str]:
        out: list[str] = []
        for item in items:
            if isinstance(item, NavPage):
                docname = docname_of(self.section, item.path)
                if docname == self.index_doc:
                    continue  # the landing page is the parent of them all
                self.listed.add(docname)
                out.append(_page_entry(self.section, item))
            elif isinstance(item, NavLink):
                out.append(f"{_toctree_title(item.title)} <{item.url}>")
            elif isinstance(item, NavGroup) and not item.title.strip():
                # an untitled group (`"": [...]`): no level of its own to show, its pages
                # stand in the parent's list
                out.extend(self._entries(item.children, parent))
            elif isinstance(item, NavGroup):
                slug = self._slug(item.title, parent)
                children = self._entries(item.children, slug)
                if not children:
                    continue
                rel = f"{self.folder}/{slug}.md"
                docname = docname_of(self.section, rel)
                self.titles[docname] = item.title
                self.groups[rel] = (f"# {escape_inline(item.title)}\n\n"
                                    + self._toctree(children, hidden=False)).encode("utf-8")
                out.append(f"{_toctree_title(item.title)} </{docname}>")
        return out

    @staticmethod
    def _toctree(entries: list[str], *, hidden: bool) -> str:
        if not entries:
            return ""
        head = "```{toctree}\n" + (":hidden:\n" if hidden else ":maxdepth: 1\n")
        return head + "\n" + "\n".join(entries) + "\n```\n"


def with_toctree(content: str, body_start: int, toctree: str) -> str:
    """Put the (hidden) toctree right after the page title, outside every subsection:
    Sphinx nests a toctree's pages under the section that holds it."""
    body = content[body_start:]
    m = re.match(r"(?:[ \t]*\n)*[ \t]{0,3}#[ \t][^\n]*\n", body)
    at = body_start + (m.end() if m else 0)
    return f"{content[:at]}\n{toctree}\n{content[at:]}"


HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]|^[^\n]+\n[ \t]{0,3}(?:=+|-+)[ \t]*$", re.M)


def with_title(content: str, body_start: int, title: str) -> str:
    """A page without any heading (Mintlify shows the front matter title, and an OpenAPI page
    has no body at all) gets its title as a heading: a toctree links only to documents with
    a section, and the nav must list every page."""
    if HEADING_RE.search(content, body_start):
        return content
    return f"{content[:body_start]}# {escape_inline(title)}\n\n{content[body_start:]}"


def stem_title(path: str) -> str:
    """The title MkDocs gives the page at ``path`` from its file name."""
    return name_title(posixpath.splitext(posixpath.basename(path))[0])


def _toctree_title(title: str) -> str:
    # a toctree entry is "Title <target>": keep its own angle brackets from being read as one;
    # and Sphinx takes an entry with "://" anywhere for a URL (its ``url_re``), even in the
    # title: a zero-width space keeps the title's from reading so
    return " ".join(title.replace("<", "\\<").replace("://", ":\u200b//").split())
