"""Upstream redirects (Mintlify ``docs.json`` ``redirects``) applied to links.

A link to a path that moved (``/advanced/architecture-support``) works on the upstream's own
site through a redirect; here it becomes a link to the redirect's destination. Redirects are
followed up to :data:`MAX_HOPS` times; a destination that is an absolute URL stays external.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import unquote

from ..collect.upstream import apply_redirect
from ..model import ExternalTarget, Target
from ..urls import URL_RE

if TYPE_CHECKING:
    from ..model import Section

MAX_HOPS = 10

#: resolves a docs-relative path and anchor to a target (or None)
Lookup = Callable[[str, "str | None"], "Target | None"]


def redirected(section: Section, path: str, anchor: str | None,
               lookup: Lookup) -> Target | None:
    """Where the upstream's redirects send the site path ``path``, or None."""
    site = section.upstream
    if site is None or not site.redirects:
        return None
    current = "/" + path.strip("/")
    seen: set[str] = set()
    for _ in range(MAX_HOPS):
        if current in seen:
            return None
        seen.add(current)
        dest = next((d for d in (apply_redirect(r, current) for r in site.redirects)
                     if d is not None), None)
        if dest is None:
            return None
        if URL_RE.match(dest):
            return ExternalTarget(dest + (f"#{anchor}" if anchor and "#" not in dest else ""))
        dest_path, _, dest_anchor = dest.partition("#")
        dest_path = unquote(dest_path.split("?", 1)[0])
        if dest_anchor:
            anchor = dest_anchor  # as in a browser: the redirect's fragment wins
        found = lookup(dest_path.strip("/"), anchor)
        if found is not None:
            return found
        current = "/" + dest_path.strip("/")
    return None
