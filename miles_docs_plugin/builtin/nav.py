"""Built-in nav: the upstream's own navigation, the folder tree, or the source's ``nav:`` list.

``nav: auto`` (the default) takes the upstream's navigation
(:mod:`..core.collect.upstream`: Mintlify ``docs.json`` / ``mint.json``, or an MkDocs
``mkdocs.yml`` next to the docs folder), its page references matched to pages by the same rules
as links; without one it is ``tree``: the index first, then pages and folders in name order,
folders as groups titled after their name (``getting-started`` → "Getting Started"), like
MkDocs' own automatic navigation. A list is
MkDocs ``nav`` syntax. Pages a listed nav leaves out are reported (``unlisted``, for ``check``).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.errors import Diagnostic, Severity
from ..core.model import NavGroup, NavItem, NavLink, NavPage, name_title, nav_pages
from ..core.transform.lookup import find_page

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Section

INDEX_STEMS = ("index", "readme")


def _sort_key(path: str) -> tuple[tuple[int, str], ...]:
    parts = path.split("/")
    stem = posixpath.splitext(parts[-1])[0].lower()
    last = (0 if stem in INDEX_STEMS else 1, parts[-1].lower())
    return (*((1, p.lower()) for p in parts[:-1]), last)


def auto_nav(paths: list[str]) -> list[NavItem]:
    """Nest page paths into groups by folder, ``index.md`` first in each."""
    root: list[NavItem] = []
    groups: dict[str, NavGroup] = {}
    for path in sorted(paths, key=_sort_key):
        parent = root
        folder = ""
        for part in path.split("/")[:-1]:
            folder = f"{folder}/{part}" if folder else part
            group = groups.get(folder)
            if group is None:
                group = NavGroup(name_title(part))
                groups[folder] = group
                parent.append(group)
            parent = group.children
        parent.append(NavPage(path))
    return root


class _NavError(Exception):
    pass


def _parse(items: Any, section: Section, ctx: BuildContext, where: str) -> list[NavItem]:
    out: list[NavItem] = []
    if not isinstance(items, list):
        items = [items]
    for item in items:
        if isinstance(item, str):
            out.append(_page_or_link(None, item, section, ctx, where))
        elif isinstance(item, dict) and len(item) == 1:
            (title, value), = item.items()
            if isinstance(value, list):
                out.append(NavGroup(str(title), _parse(value, section, ctx, where)))
            elif isinstance(value, str):
                out.append(_page_or_link(str(title), value, section, ctx, where))
            else:
                raise _NavError(f"nav entry {title!r} must be a path, a URL or a list")
        else:
            raise _NavError(f"nav entry {item!r} must be a path or a one-key mapping")
    return out


def _page_or_link(title: str | None, value: str, section: Section, ctx: BuildContext,
                  where: str) -> NavItem:
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value) or value.startswith("/"):
        return NavLink(title or value, value)
    page = find_page(section, value)
    if page is None:
        section.diagnostics.append(Diagnostic(
            section.source.name, where, None, "nav",
            f"nav lists {value!r}, which is not a page of {section.source.docs_dir}/"))
        return NavLink(title or value, value)
    return NavPage(page, title or _sidebar_title(section, page))


def _sidebar_title(section: Section, path: str) -> str | None:
    """Mintlify's ``sidebarTitle`` front matter names a page in the nav."""
    sidebar = section.pages[path].meta.get("sidebarTitle")
    return sidebar.strip() if isinstance(sidebar, str) and sidebar.strip() else None


def _upstream_nav(items: list[NavItem], section: Section, ctx: BuildContext,
                  where: str) -> list[NavItem]:
    """The upstream's navigation with its references matched to pages (same rules as links:
    ``x``, ``x.md``, ``x.mdx``, ``x/index``); entries without a page are reported."""
    out: list[NavItem] = []
    for item in items:
        if isinstance(item, NavGroup):
            children = _upstream_nav(item.children, section, ctx, where)
            if children:
                out.append(NavGroup(item.title, children))
        elif isinstance(item, NavLink):
            out.append(item)
        else:
            ref = item.path.split("#", 1)[0]
            page = find_page(section, ref)
            if page is None:
                what = ("a snippet, not a page" if _snippet(section, ref) else
                        f"not a page of {section.source.docs_dir}/")
                section.diagnostics.append(Diagnostic(
                    section.source.name, where, None, "nav",
                    f"the upstream navigation lists {item.path!r}, which is {what}; left out",
                    _severity(ctx)))
                continue
            if _hidden(section, page):
                continue  # built, reachable by its URL, not listed
            out.append(NavPage(page, item.title or _sidebar_title(section, page)))
    return out


def _hidden(section: Section, path: str) -> bool:
    """Mintlify's ``hidden: true`` front matter: the page stays out of the navigation."""
    site = section.upstream
    return site is not None and site.mintlify and \
        section.pages[path].meta.get("hidden") is True


def _snippet(section: Section, ref: str) -> bool:
    ref = ref.strip("/")
    return any(p in section.snippets for p in (ref, ref + ".md", ref + ".mdx"))


def _severity(ctx: BuildContext) -> Severity:
    return {"warn": Severity.WARNING, "error": Severity.ERROR,
            "ignore": Severity.INFO}[ctx.config.unresolved]


def tree_nav(section: Section) -> list[NavItem]:
    """Every page, folders as groups, each folder's index first."""
    items = auto_nav(list(section.pages))
    for item in nav_pages(items):
        item.title = _sidebar_title(section, item.path)
    return items


@hookimpl(trylast=True)
def mdp_build_nav(section: Section, ctx: BuildContext) -> list[NavItem] | None:
    config = section.source.nav
    upstream = section.upstream
    if config == "tree":
        return tree_nav(section)
    if config == "auto":
        if upstream is None or upstream.nav is None:
            return tree_nav(section)
        where = section.repo_path(upstream.file)
        return _upstream_nav(upstream.nav, section, ctx, where)
    where = f"{ctx.config.config_file or 'config'}: sources.{section.source.name}.nav"
    try:
        return _parse(config, section, ctx, where)
    except _NavError as exc:
        from ..core.errors import ConfigError

        raise ConfigError(str(exc), where=where,
                          hint="use MkDocs nav syntax: `- path.md` or `- Title: path.md` or "
                               "`- Group: [...]`, or `auto` / `tree`") from None


def uses_listed_nav(section: Section) -> bool:
    """Does the section's nav come from a list (configured or upstream), not the tree?"""
    config = section.source.nav
    if isinstance(config, list):
        return True
    return config == "auto" and section.upstream is not None and section.upstream.nav is not None


@hookimpl
def mdp_collect_diagnostics(section: Section, ctx: BuildContext) -> list[Diagnostic] | None:
    found: list[Diagnostic] = []
    upstream = section.upstream
    if upstream is not None:
        where = section.repo_path(upstream.file)
        # a note names its file ("docs.json: …"), which the diagnostic names already
        named = (f"{upstream.file}: ", f"{posixpath.basename(where)}: ")
        found += [Diagnostic(section.source.name, where, None, "upstream",
                             message.removeprefix(named[0]).removeprefix(named[1]),
                             Severity.WARNING if problem else Severity.INFO)
                  for message, problem in upstream.notes]
    if not uses_listed_nav(section):
        return found
    listed = {item.path for item in nav_pages(section.nav)}
    missing = sorted(p for p, page in section.pages.items()
                     if p not in listed and not page.extra.get("generated"))
    return found + [Diagnostic(section.source.name, section.repo_path(p), None, "unlisted",
                               f"{p} is not listed in the nav of source {section.source.name!r} "
                               "(built, reachable by link)", Severity.INFO) for p in missing]
