"""Mintlify's own link rules, for sources that are Mintlify sites (``docs.json``/``mint.json``).

- **Redirects.** A link to a path that a ``redirects`` entry of the site config catches goes
  where the live site sends it (``/old`` → ``/new#heading``), not to a dead end. Sources may
  be exact paths or end in ``*`` / ``:slug*`` (everything below).
- **``.md`` links.** Mintlify serves pages without their extension, so ``[x](01-label.md)``
  is a broken link on the upstream's own site (``mint broken-links`` reports it). It still
  resolves here; the warning says the upstream site differs.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.model import ExternalTarget, PageTarget
from .links import _resolve_in_docs, _split

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.markdown import LinkRef
    from ..core.model import Page, Section, Target

CONFIG_FILES = ("docs.json", "mint.json")
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
#: Redirects followed one after another at most this many times (a loop ends there).
MAX_HOPS = 5


def site_config(section: Section, ctx: BuildContext) -> dict[str, Any] | None:
    """The parsed ``docs.json`` (or ``mint.json``) of a source, or None (once per build)."""
    key = f"mintlify-config:{section.source.name}"
    if key not in ctx.memo:
        config = None
        for name in CONFIG_FILES:
            repo_path = section.repo_path(name)
            if section.checkout.tree.kind(repo_path) != "blob":
                continue
            try:
                data = json.loads((section.checkout.root / repo_path).read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                config = data
                break
        ctx.memo[key] = config
    value = ctx.memo[key]
    return value if isinstance(value, dict) else None


def _redirects(section: Section, ctx: BuildContext) -> list[tuple[str, str]]:
    config = site_config(section, ctx)
    entries = config.get("redirects") if config else None
    out = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("source"), str) and \
                isinstance(entry.get("destination"), str):
            out.append((entry["source"], entry["destination"]))
    return out


def _match(source: str, path: str) -> str | None:
    """The part of ``path`` that a wildcard source captures ("" for an exact match)."""
    source = "/" + source.strip("/")
    path = "/" + path.strip("/")
    m = re.match(r"^(.*?)/(?:\*|:[\w-]+\*)$", source)
    if m:
        base = m.group(1)
        if path == base or path.startswith(base + "/"):
            return path[len(base):].lstrip("/")
        return None
    return "" if path == source else None


def redirected(section: Section, path: str, anchor: str | None,
               ctx: BuildContext) -> Target | None:
    """Where the site's redirects send a site-root ``path`` (None when none catches it)."""
    rules = _redirects(section, ctx)
    for _ in range(MAX_HOPS):
        for source, destination in rules:
            captured = _match(source, path)
            if captured is None:
                continue
            destination = re.sub(r"/(?:\*|:[\w-]+\*)$", "/" + captured if captured else "",
                                 destination)
            if SCHEME_RE.match(destination):
                return ExternalTarget(destination)
            dest_path, _query, dest_anchor = _split(destination)
            target = _resolve_in_docs(section, dest_path.lstrip("/"), dest_anchor or anchor,
                                      ctx)
            if isinstance(target, PageTarget):
                return target
            path, anchor = dest_path, dest_anchor or anchor
            break
        else:
            return None
    return None


@hookimpl
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    url = link.dest.strip()
    if not url or url.startswith(("#", "//")) or SCHEME_RE.match(url):
        return None
    section = ctx.sections[page.source]
    if site_config(section, ctx) is None:
        return None
    path, _query, anchor = _split(url)
    if path.endswith((".md", ".mdx")) and link.kind != "html":
        ctx.report(section, page.path, link.line, "link",
                   f"{url} is a broken link on the upstream's Mintlify site (its pages have "
                   "no .md/.mdx in their address); it is resolved here")
        return None
    if path.startswith("/"):
        rel = path.lstrip("/")
    else:
        base = posixpath.dirname(page.path)
        rel = posixpath.normpath(posixpath.join(base, path))
        if rel.startswith(".."):
            return None
    if _resolve_in_docs(section, rel, anchor, ctx) is not None:
        return None  # the built-in rules resolve it
    return redirected(section, "/" + rel, anchor, ctx)
