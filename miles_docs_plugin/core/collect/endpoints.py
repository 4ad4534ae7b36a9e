"""API endpoint pages a Mintlify ``docs.json`` asks for: pages generated from an OpenAPI spec.

Mintlify builds a page for every operation of a spec named by ``openapi`` on a navigation
element that lists no pages (grouped by tag), and for every ``METHOD /path`` entry of a
``pages`` list (``spec.json METHOD /path`` naming the spec, else the nearest ``openapi`` above
it, else ``openapi.json`` of the docs root). Such a page has no file: its URL is made from the
spec as Mintlify makes it (``<directory>/<tag>/<summary>``, lowercase, spaces as hyphens,
``{}(),.'/`` removed; ``x-mint.href`` when set; ``-1``, ``-2`` … for a URL taken), its title
from ``x-mint.metadata``, the summary, or the method and path. An ``x-hidden`` operation gets
a page and no navigation entry, an ``x-excluded`` one neither. The collected section gets a
page there whose front matter names the operation, so the built-in ``openapi`` plugin writes
its reference from the pinned spec as for a page the upstream wrote (see
:mod:`..transform.openapi`). A spec given by URL is not fetched: its endpoints are reported.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

from ..model import NavGroup, NavItem, NavPage
from ..records import Record
from ..transform.openapi import DEFAULT_SPECS, MAX_SPEC, METHODS, OPENAPI_RE, parse_spec
from ..urls import URL_RE

#: Mintlify's default folder of generated endpoint pages
DIRECTORY = "api-reference"
#: the group of operations without a tag
UNTAGGED = "API Reference"
#: More generated pages than this are not made (a spec of tens of thousands of operations).
MAX_ENDPOINTS = 5000
#: What an ``openapi`` value names: spec paths from the docs root, and the pages' folder.
SpecSource = tuple[list[str], str]


class Endpoint(Record):
    """A page to generate: the operation it documents, its title and sidebar title."""

    __slots__ = _fields = ("spec", "method", "path", "title", "sidebar")
    spec: str  #: path of the spec from the docs root, ``/openapi.json``
    method: str  #: lowercase
    path: str
    title: str
    sidebar: str | None

    def __init__(self, spec: str, method: str, path: str, title: str,
                 sidebar: str | None = None) -> None:
        self.spec = spec
        self.method = method
        self.path = path
        self.title = title
        self.sidebar = sidebar

    @property
    def openapi(self) -> str:
        """The ``openapi:`` front matter value of the page."""
        return f"{self.spec} {self.method.upper()} {self.path}"


def url_part(text: str) -> str:
    """A summary or tag as Mintlify writes it in a URL."""
    return re.sub(r"[{}(),.'/]", "", text.strip().replace(" ", "-")).lower()


def _slug(method: str, path: str, op: dict[str, Any]) -> str:
    summary = op.get("summary")
    if isinstance(summary, str) and url_part(summary):
        return url_part(summary)
    parts = [p for p in path.split("/") if p and not (p.startswith("{") and p.endswith("}"))]
    return url_part("-".join([method, *parts]))


def _first_tag(op: dict[str, Any]) -> str | None:
    tags = op.get("tags")
    if isinstance(tags, list) and tags and isinstance(tags[0], str) and tags[0].strip():
        return tags[0]
    return None


class Endpoints:
    """The endpoint pages of one ``docs.json``: specs read once, URLs kept unique."""

    def __init__(self, read: Callable[[str], bytes | None], notes: list[tuple[str, bool]],
                 file: str) -> None:
        self.read = read  #: a docs-relative file's bytes, or None
        self.notes = notes
        self.file = file
        self.pages: dict[str, Endpoint] = {}  #: generated page path (``.mdx``) → endpoint
        self._specs: dict[str, dict[str, Any] | None] = {}  #: by docs-relative path
        self._made: dict[tuple[str, str, str, str], str] = {}  #: operation and URL → page
        self._suffix: dict[str, int] = {}  #: the last -N given to a URL
        self._entries = 0  #: navigation entries made (a spec may be named many times)
        self._capped: set[str] = set()

    # -- specs ---------------------------------------------------------------------------

    @property
    def specs(self) -> dict[str, dict[str, Any]]:
        """The specs read (by docs-relative path), for the pages' references."""
        return {rel: spec for rel, spec in self._specs.items() if spec is not None}

    def spec(self, ref: str) -> dict[str, Any] | None:
        """The spec at ``ref`` (a path from the docs root), read and parsed once."""
        rel = posixpath.normpath(ref.lstrip("/"))
        if rel not in self._specs:
            data = None if rel.startswith("..") else self.read(rel)
            spec = None
            if data is not None and len(data) <= MAX_SPEC:
                spec = parse_spec(data.decode("utf-8", errors="replace"), rel)
            self._specs[rel] = spec
        return self._specs[rel]

    def source(self, value: Any) -> SpecSource | None:
        """The spec paths and the page folder an ``openapi`` value names; None (reported)
        for what is not built (a URL, an invalid value)."""
        directory = DIRECTORY
        if isinstance(value, dict):
            if isinstance(value.get("directory"), str) and value["directory"].strip("/"):
                directory = value["directory"].strip("/").lower()
            value = value.get("source")
        values = value if isinstance(value, list) else [value]
        refs = []
        for item in values:
            if isinstance(item, dict):
                item = item.get("source")
            if not isinstance(item, str) or not item.strip():
                continue
            if URL_RE.match(item):
                self.notes.append((f"{self.file}: the OpenAPI spec {item} is a URL, which the "
                                   "build does not fetch; its endpoint pages are not built",
                                   True))
                continue
            refs.append("/" + posixpath.normpath(item.strip().lstrip("/")))
        return (refs, directory) if refs else None

    # -- pages ---------------------------------------------------------------------------

    def _page(self, spec_ref: str, method: str, path: str, op: dict[str, Any],
              directory: str) -> str | None:
        """The generated page of one operation (its docs-relative path without suffix); None
        past :data:`MAX_ENDPOINTS`. (A file of the upstream at that path wins: see
        ``collect``.)"""
        mint: dict[str, Any] = op["x-mint"] if isinstance(op.get("x-mint"), dict) else {}
        href = mint.get("href")
        if isinstance(href, str) and href.strip("/"):
            stem = href.strip("/").lower()
            head, _, last = stem.rpartition("/")
            stem = (head + "/" if head else "") + (last.rsplit(".", 1)[0] or last)
        else:
            tag = _first_tag(op)
            parts = [directory, *([url_part(tag)] if tag else []), _slug(method, path, op)]
            stem = "/".join(p for p in parts if p)
        # the spec and docs.json are the upstream's: no folder of the host's, no hidden name
        stem = "/".join(part.lstrip(".") for part in stem.replace("\\", "/").split("/")
                        if part.lstrip("."))
        if not stem:
            return None
        key = (spec_ref, method, path, stem)
        if key in self._made:  # the same operation listed twice: one page
            return self._made[key]
        if len(self.pages) >= MAX_ENDPOINTS:
            self._over("pages")
            return None
        base = stem
        while stem + ".mdx" in self.pages:  # Mintlify's -1, -2 … for a URL taken
            self._suffix[base] = self._suffix.get(base, 0) + 1
            stem = f"{base}-{self._suffix[base]}"
        meta: dict[str, Any] = mint["metadata"] if isinstance(mint.get("metadata"), dict) else {}
        title = next((str(t).strip() for t in (meta.get("title"), op.get("summary"))
                      if isinstance(t, str) and t.strip()), f"{method.upper()} {path}")
        sidebar = meta.get("sidebarTitle") if isinstance(meta.get("sidebarTitle"), str) \
            else None
        self._made[key] = stem
        self.pages[stem + ".mdx"] = Endpoint(spec_ref, method, path, " ".join(title.split()),
                                             sidebar)
        return stem

    def _over(self, what: str) -> None:
        """Report, once, that a limit left endpoint pages or entries out."""
        if what not in self._capped:
            self._capped.add(what)
            self.notes.append((f"{self.file}: more than {MAX_ENDPOINTS:,} API endpoint {what}; "
                               "the rest are left out", True))

    def _entry(self, stem: str | None) -> list[NavItem]:
        if stem is None:
            return []
        if self._entries >= MAX_ENDPOINTS:
            self._over("navigation entries")
            return []
        self._entries += 1
        return [NavPage(stem)]

    def listed(self, entry: str, inherited: SpecSource | None) -> list[NavItem]:
        """The page of a ``[spec] METHOD /path`` entry of a ``pages`` list; none (reported)
        when its operation is in no spec; the entry as it is when it is no such entry."""
        m = OPENAPI_RE.match(entry)
        if m is None or m.group("method").lower() not in METHODS:
            return [NavPage(entry)]
        method, path = m.group("method").lower(), m.group("path")
        if m.group("spec"):
            named = self.source(m.group("spec"))
            if named is None:
                return []
            refs, directory = named[0], inherited[1] if inherited else DIRECTORY
        elif inherited is not None:
            refs, directory = inherited
        else:
            refs, directory = ["/" + name for name in DEFAULT_SPECS], DIRECTORY
        for ref in refs:
            spec = self.spec(ref)
            item = spec.get("paths", {}).get(path) if spec is not None else None
            if isinstance(item, dict) and isinstance(item.get(method), dict):
                return self._entry(self._page(ref, method, path, item[method], directory))
        self.notes.append((f"{self.file}: the navigation lists {entry!r}, an operation of no "
                           "OpenAPI spec of the pinned tree; left out", True))
        return []

    def whole(self, value: SpecSource) -> list[NavItem]:
        """Every operation of the specs, grouped by tag as Mintlify groups them."""
        refs, directory = value
        groups: dict[str, list[NavItem]] = {}
        for ref in refs:
            spec = self.spec(ref)
            if spec is None:
                self.notes.append((f"{self.file}: the OpenAPI spec {ref} is not in the pinned "
                                   "tree (or is not a spec); its endpoint pages are not built",
                                   True))
                continue
            labels = _tag_labels(spec)
            for group in labels.values():
                groups.setdefault(group, [])
            for path, item in spec["paths"].items():
                if not isinstance(item, dict) or not isinstance(path, str):
                    continue
                for method, op in item.items():
                    if method not in METHODS or not isinstance(op, dict) or \
                            op.get("x-excluded") is True:
                        continue
                    stem = self._page(ref, method, path, op, directory)
                    if op.get("x-hidden") is True:
                        continue  # built, reachable by its URL, not listed
                    tag = _first_tag(op)
                    label = labels.get(tag, tag) if tag else UNTAGGED
                    groups.setdefault(label, []).extend(self._entry(stem))
        return [NavGroup(label, pages) for label, pages in groups.items() if pages]


def _tag_labels(spec: dict[str, Any]) -> dict[str, str]:
    """Tag name → the group label Mintlify shows (``x-group``, else ``x-displayName``),
    in the order of the spec's ``tags``."""
    out: dict[str, str] = {}
    for tag in spec.get("tags") or []:
        if isinstance(tag, dict) and isinstance(tag.get("name"), str):
            label = next((tag[k] for k in ("x-group", "x-displayName")
                          if isinstance(tag.get(k), str) and tag[k].strip()), tag["name"])
            out[tag["name"]] = str(label)
    return out
