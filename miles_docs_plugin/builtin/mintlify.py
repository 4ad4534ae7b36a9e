"""Mintlify's own link rules, for sources that are Mintlify sites (``docs.json``/``mint.json``).

- **Redirects** are followed by the built-in link rules (:mod:`.redirects`, patterns as
  ``docs.json`` documents them).
- **``.md`` links.** Mintlify serves pages without their extension, so ``[x](01-label.md)``
  is a broken link on the upstream's own site (``mint broken-links`` reports it). It still
  resolves here; the warning says the upstream site differs.
"""

from __future__ import annotations

import json
import posixpath
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.patterns import lazy_re
from ..core.transform.lookup import find_page, split_url

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page, Section, Target
    from ..core.transform.scanned import LinkRef

CONFIG_FILES = ("docs.json", "mint.json")
SCHEME_RE = lazy_re(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def site_config(section: Section, ctx: BuildContext) -> dict[str, Any] | None:
    """The parsed ``docs.json`` (or ``mint.json``) of a source, or None (once per build)."""
    # one memo entry for every source: asked for every link of every page
    configs = ctx.memo.get("mintlify-config")
    source = section.source.name
    if not isinstance(configs, dict):
        configs = ctx.memo["mintlify-config"] = {}
    elif source in configs:
        found: dict[str, Any] | None = configs[source]
        return found
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
    configs[source] = config
    return config


def any_site(ctx: BuildContext) -> bool:
    """Whether a source of this build is a Mintlify site (else :func:`mdp_resolve_link`
    returns None for every link, and a caller that calls the rules itself may leave it out)."""
    return any(site_config(section, ctx) is not None for section in ctx.sections.values())


def _a_page(section: Section, page: Page, path: str) -> bool:
    """Whether ``path``, as a page of ``section`` links it, names a page: a link that names
    none is reported once, by the rules that find nothing."""
    rel = path.lstrip("/") if path.startswith("/") else \
        posixpath.normpath(posixpath.join(posixpath.dirname(page.path), path))
    return find_page(section, rel) is not None


@hookimpl
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    section = ctx.sections[page.source]
    if site_config(section, ctx) is None:
        return None
    url = link.dest.strip()
    if not url or url.startswith(("#", "//")) or SCHEME_RE.match(url):
        return None
    path, _query, _anchor = split_url(url)
    if path.endswith((".md", ".mdx")) and link.kind != "html" and _a_page(section, page, path):
        ctx.report(section, page.path, link.line, "link",
                   f"{url} is a broken link on the upstream's Mintlify site (its pages have "
                   "no .md/.mdx in their address); it is resolved here")
    return None  # the built-in rules resolve it, redirects included (core/transform/redirects.py)
