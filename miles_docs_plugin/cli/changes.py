"""What changed in a source's docs between two pins (for ``miles-docs update``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.collect.collect import is_page
from ..core.config import docs_prefix
from ..core.model import Checkout, NavGroup, NavItem, NavPage
from ..core.source.git import numstat


@dataclass
class Change:
    path: str  #: relative to docs_dir
    added: int = 0  #: lines
    removed: int = 0


@dataclass
class Changelog:
    pages_added: list[Change] = field(default_factory=list)
    pages_removed: list[Change] = field(default_factory=list)
    pages_changed: list[Change] = field(default_factory=list)
    assets_added: list[str] = field(default_factory=list)
    assets_removed: list[str] = field(default_factory=list)
    assets_changed: list[str] = field(default_factory=list)
    unlisted: list[str] = field(default_factory=list)  #: pages the configured nav leaves out
    #: nav changes: (page, old place, new place) for pages that moved between groups
    nav_moved: list[tuple[str, str, str]] = field(default_factory=list)
    nav_left: list[str] = field(default_factory=list)  #: pages the nav no longer lists
    nav_entered: list[str] = field(default_factory=list)  #: pages the nav lists now

    @property
    def empty(self) -> bool:
        return not (self.pages_added or self.pages_removed or self.pages_changed
                    or self.assets_added or self.assets_removed or self.assets_changed
                    or self.nav_moved or self.nav_left or self.nav_entered)

    def as_dict(self) -> dict[str, Any]:
        def pages(items: list[Change]) -> list[dict[str, Any]]:
            return [{"path": c.path, "added": c.added, "removed": c.removed} for c in items]

        return {
            "pages_added": pages(self.pages_added), "pages_removed": pages(self.pages_removed),
            "pages_changed": pages(self.pages_changed), "assets_added": self.assets_added,
            "assets_removed": self.assets_removed, "assets_changed": self.assets_changed,
            "unlisted": self.unlisted,
            "nav_moved": [{"path": p, "from": a, "to": b} for p, a, b in self.nav_moved],
            "nav_left": self.nav_left, "nav_entered": self.nav_entered,
        }


def _docs_files(checkout: Checkout) -> dict[str, str]:
    """docs-relative path -> blob id (or "" for a local working copy, where none is known)."""
    docs = checkout.source.docs_dir
    prefix = docs_prefix(docs)
    out = {}
    for repo_path in checkout.tree.files_under(docs):
        out[repo_path[len(prefix):]] = checkout.tree.blobs.get(repo_path, "")
    return out


def nav_paths(nav: Any) -> set[str]:
    """Every page path a MkDocs-style nav config names."""
    found: set[str] = set()
    if isinstance(nav, str):
        found.add(nav)
    elif isinstance(nav, list):
        for item in nav:
            found |= nav_paths(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            found |= nav_paths(value)
    return found


def changelog(old: Checkout, new: Checkout) -> Changelog:
    before, after = _docs_files(old), _docs_files(new)
    log = Changelog()
    docs = new.source.docs_dir

    def file(checkout: Checkout, rel: str) -> Any:
        return checkout.root / docs / rel

    for rel in sorted(set(before) | set(after)):
        if rel in before and rel in after:
            if before[rel] and before[rel] == after[rel]:
                continue
            if not before[rel] and file(old, rel).read_bytes() == file(new, rel).read_bytes():
                continue
            if is_page(rel):
                a, r = numstat(file(old, rel), file(new, rel))
                log.pages_changed.append(Change(rel, a, r))
            else:
                log.assets_changed.append(rel)
        elif rel in after:
            if is_page(rel):
                a, _ = numstat(None, file(new, rel))
                log.pages_added.append(Change(rel, a, 0))
            else:
                log.assets_added.append(rel)
        else:
            if is_page(rel):
                _, r = numstat(file(old, rel), None)
                log.pages_removed.append(Change(rel, 0, r))
            else:
                log.assets_removed.append(rel)
    if isinstance(new.source.nav, list):
        listed = nav_paths(new.source.nav)
        log.unlisted = sorted(p for p in after if is_page(p) and p not in listed)
    return log


def nav_places(items: list[NavItem], trail: tuple[str, ...] = ()) -> dict[str, str]:
    """Page path -> where the nav lists it first (``Models / Qwen``; "" for the top)."""
    places: dict[str, str] = {}
    for item in items:
        if isinstance(item, NavPage):
            places.setdefault(item.path, " / ".join(trail))
        elif isinstance(item, NavGroup):
            for path, place in nav_places(item.children, (*trail, item.title)).items():
                places.setdefault(path, place)
    return places


def add_nav_changes(log: Changelog, old: list[NavItem], new: list[NavItem]) -> None:
    """Pages that moved to another group, left the nav or entered it."""
    before, after = nav_places(old), nav_places(new)
    removed = {c.path for c in log.pages_removed}
    added = {c.path for c in log.pages_added}
    # a page that is new or gone is said above; here: pages that stay, but not in the nav
    log.nav_left = sorted(p for p in before if p not in after and p not in removed)
    log.nav_entered = sorted(p for p in after if p not in before and p not in added)
    log.nav_moved = sorted((p, before[p], after[p]) for p in before
                           if p in after and before[p] != after[p])


def format_changelog(log: Changelog) -> list[str]:
    lines: list[str] = []

    def block(title: str, items: list[str]) -> None:
        lines.append(f"  {title} ({len(items)})" + (":" if items else ""))
        lines.extend(f"    {item}" for item in items)

    block("pages added", [f"+ {c.path} (+{c.added})" for c in log.pages_added])
    block("pages removed", [f"- {c.path} (-{c.removed})" for c in log.pages_removed])
    block("pages changed", [f"~ {c.path} (+{c.added} -{c.removed})" for c in log.pages_changed])
    block("assets added", [f"+ {p}" for p in log.assets_added])
    block("assets removed", [f"- {p}" for p in log.assets_removed])
    block("assets changed", [f"~ {p}" for p in log.assets_changed])
    if log.unlisted:
        block("pages not in the nav", [f"? {p}" for p in log.unlisted])
    if log.nav_moved or log.nav_left or log.nav_entered:
        block("nav: pages moved", [f"moved {p}: {a or 'top'} → {b or 'top'}"
                                   for p, a, b in log.nav_moved])
        block("nav: pages no longer listed", [f"out {p}" for p in log.nav_left])
        block("nav: pages listed now", [f"in {p}" for p in log.nav_entered])
    return lines
