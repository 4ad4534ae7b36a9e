"""Whole-build results, reused when nothing they depend on has changed.

A built section is a pure function of the pinned commits, the config and lock, the host engine's
settings, the host's own pages and the plugins that ran. When all of these are the same as in
the previous build, the transformed pages, assets, nav and diagnostics are read back instead of
computed: a warm build does no transform work at all. Any difference — one byte of config, one
commit, one host page, one more plugin — is a different key and a full (scan-cached) rebuild.

Only builds whose sources are all pinned use it: a local working copy changes under our feet.
Third-party plugins take part only when they say they are pure (``miles_docs_cacheable = True``
on the plugin object); otherwise nothing is cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .errors import Diagnostic, Severity
from .markdown import SCANNER_VERSION
from .model import Asset, Checkout, NavGroup, NavItem, NavLink, NavPage, Page, Section

if TYPE_CHECKING:
    from .config import Config
    from .context import Engine
    from .plugins import Hooks

RESULT_VERSION = "2"
#: Page extras that later steps (the adapters) read; the rest is working state.
KEPT_EXTRAS = ("provenance", "banner_html")


def result_key(config: Config, engine: Engine, hooks: Hooks,
               checkouts: dict[str, Checkout]) -> str | None:
    """The key of this build's results, or None when they must not be cached."""
    if any(c.local or not c.commit for c in checkouts.values()):
        return None
    from .plugins import BUILTIN_PLUGINS

    builtin = {name for name, _ in BUILTIN_PLUGINS}
    plugins = []
    for name, plugin in hooks.pm.list_name_plugin():
        if name in builtin:
            continue
        if not getattr(plugin, "miles_docs_cacheable", False):
            return None
        if isinstance(plugin, types.ModuleType):
            ident = plugin.__name__
        else:  # pluggy names unnamed objects by id(): name them by their class instead
            ident = f"{type(plugin).__module__}.{type(plugin).__qualname__}"
        plugins.append(f"{ident}:{getattr(plugin, '__version__', '')}")
    parts = {
        "version": [RESULT_VERSION, __version__, SCANNER_VERSION],
        "engine": engine.signature(),
        "host_pages": sorted(engine.host_pages) if engine.host_pages is not None else None,
        "config": config.raw,
        "config_file": str(config.config_file or config.base_dir),
        "pins": {name: [c.commit, c.source.docs_dir, c.source.url.fetch_url]
                 for name, c in sorted(checkouts.items())},
        "plugins": sorted(plugins),
    }
    blob = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _nav_dump(items: list[NavItem]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, NavPage):
            out.append(["page", item.path, item.title])
        elif isinstance(item, NavLink):
            out.append(["link", item.title, item.url])
        else:
            out.append(["group", item.title, _nav_dump(item.children)])
    return out


def _nav_load(data: list[Any]) -> list[NavItem]:
    out: list[NavItem] = []
    for kind, a, b in data:
        if kind == "page":
            out.append(NavPage(a, b))
        elif kind == "link":
            out.append(NavLink(a, b))
        else:
            out.append(NavGroup(a, _nav_load(b)))
    return out


def dump(sections: dict[str, Section]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, section in sections.items():
        root = section.checkout.root
        out[name] = {
            "pages": [[p.path, p.dest, p.title, p.body_start, p.body_line, p.content,
                       json.loads(json.dumps(p.meta, default=str)),
                       {k: p.extra[k] for k in KEPT_EXTRAS if k in p.extra}]
                      for p in section.pages.values()],
            "assets": [[a.path, os.path.relpath(a.abs_path, root)]
                       for a in section.assets.values()],
            "aliases": section.aliases,
            "nav": _nav_dump(section.nav),
            "diagnostics": [[d.path, d.line, d.code, d.message, d.severity.value]
                            for d in section.diagnostics],
        }
    return out


def load(data: dict[str, Any], checkouts: dict[str, Checkout]) -> dict[str, Section]:
    sections: dict[str, Section] = {}
    for name, checkout in checkouts.items():
        raw = data[name]
        section = Section(source=checkout.source, checkout=checkout, pages={}, assets={},
                          nav=_nav_load(raw["nav"]), aliases=dict(raw["aliases"]))
        for path, dest, title, body_start, body_line, content, meta, extra in raw["pages"]:
            section.pages[path] = Page(source=name, path=path, dest=dest, text="", meta=meta,
                                       body_start=body_start, body_line=body_line,
                                       content=content, title=title, extra=extra)
        for path, rel in raw["assets"]:
            section.assets[path] = Asset(path, checkout.root / rel)
        section.diagnostics = [Diagnostic(name, p, line, code, message, Severity(sev))
                               for p, line, code, message, sev in raw["diagnostics"]]
        sections[name] = section
    return sections


class ResultCache:
    """One file per site and engine, holding the results of the last build."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def get(self, key: str) -> dict[str, Any] | None:
        if self.path is None:
            return None
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        sections = data.get("sections")
        return sections if isinstance(sections, dict) else None

    def put(self, key: str, sections: dict[str, Section]) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".result-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "sections": dump(sections)}, fh, separators=(",", ":"))
            os.replace(tmp, self.path)
        except (OSError, TypeError, ValueError):
            return  # a cache that cannot be written only costs speed
