"""The section in MkDocs' nav: its entries in ``nav:`` syntax, placed unless the host's own nav
already places the mount."""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files, file_sort_key
from mkdocs.utils import nest_paths

from ..core.model import NavGroup, NavItem, NavLink, NavPage, Section
from ..core.pipeline import BuildResult
from ..core.section.sandbox import safe_title


def _nav_config(items: list[NavItem], section: Section) -> list[Any]:
    """The section's nav in MkDocs' syntax. Titles come from upstream (front matter, folder
    names) and MkDocs themes print nav titles as HTML, so they are escaped; a page without one
    gets its front matter title here (MkDocs strips tags from a title it takes from a heading)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, NavPage):
            path = section.host_path(item.path)
            page = section.pages.get(item.path)
            title = item.title or (page.title if page else None)
            out.append({safe_title(title): path} if title else path)
        elif isinstance(item, NavLink):
            out.append({safe_title(item.title): item.url})
        elif isinstance(item, NavGroup):
            out.append({safe_title(item.title): _nav_config(item.children, section)})
    return out


def _mentions(nav: Any, mount: str) -> bool:
    """Does the host's own nav already place pages of ``mount``?"""
    if isinstance(nav, str):
        return nav == mount or nav.startswith(mount + "/")
    if isinstance(nav, list):
        return any(_mentions(x, mount) for x in nav)
    if isinstance(nav, dict):
        return any(_mentions(x, mount) for x in nav.values())
    return False


def extend_nav(files: Files, config: MkDocsConfig, result: BuildResult, ours: set[str]) -> None:
    """Add each section to ``config.nav`` (the host's nav, or MkDocs' own from the host's files
    when it has none: ``ours`` are the injected files)."""
    nav = config.nav
    if nav is None:
        host = sorted((f for f in files.documentation_pages()
                       if f.src_uri not in ours and f.inclusion.is_in_nav()),
                      key=file_sort_key)
        nav = nest_paths(f.src_uri for f in host)
    for section in result.sections.values():
        if section.source.placement == "none" or _mentions(nav, section.mount):
            continue
        entry = {section.source.title: _nav_config(section.nav, section)}
        if section.source.placement == "start":
            nav.insert(0, entry)
        else:
            nav.append(entry)
    config.nav = nav
