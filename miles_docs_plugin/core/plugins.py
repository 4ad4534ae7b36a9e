"""The plugin manager: a fresh one per build, built-ins first, then the entry-point group."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import pluggy

from .. import hookspecs
from ..hookspecs import PROJECT

if TYPE_CHECKING:
    from .config import SourceConfig
    from .context import BuildContext
    from .errors import Diagnostic
    from .model import Checkout, NavItem, Page, Section, Target
    from .source.lock import LockEntry
    from .transform.markdown import LinkRef

#: Built-in plugins, registered by these names (the same names as their entry points, so pluggy
#: does not load them twice). Order matters only where a hook says tryfirst/trylast.
BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("miles_docs.git", "miles_docs_plugin.builtin.git_source"),
    ("miles_docs.local", "miles_docs_plugin.builtin.local_source"),
    ("miles_docs.links", "miles_docs_plugin.builtin.links"),
    ("miles_docs.components", "miles_docs_plugin.builtin.components"),
    ("miles_docs.openapi", "miles_docs_plugin.builtin.openapi"),
    ("miles_docs.mintlify", "miles_docs_plugin.builtin.mintlify"),
    ("miles_docs.nav", "miles_docs_plugin.builtin.nav"),
    ("miles_docs.provenance", "miles_docs_plugin.builtin.provenance"),
)


class Hooks:
    """Typed calls of the hooks (always with keywords)."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._hook = pm.hook

    def fetch(self, source: SourceConfig, pin: LockEntry | None,
              ctx: BuildContext) -> Checkout | None:
        return cast("Checkout | None", self._hook.mdp_fetch(source=source, pin=pin, ctx=ctx))

    def prepare_page(self, page: Page, ctx: BuildContext) -> None:
        self._hook.mdp_prepare_page(page=page, ctx=ctx)

    def transform_page(self, page: Page, ctx: BuildContext) -> None:
        self._hook.mdp_transform_page(page=page, ctx=ctx)

    def resolve_link(self, link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
        return cast("Target | None", self._hook.mdp_resolve_link(link=link, page=page, ctx=ctx))

    def build_nav(self, section: Section, ctx: BuildContext) -> list[NavItem] | None:
        return cast("list[NavItem] | None",
                    self._hook.mdp_build_nav(section=section, ctx=ctx))

    def collect_diagnostics(self, section: Section, ctx: BuildContext) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for found in self._hook.mdp_collect_diagnostics(section=section, ctx=ctx):
            out.extend(found or ())
        return out


def make_plugin_manager(extra: Iterable[Any] = (), *, entry_points: bool = True) -> Hooks:
    """A new plugin manager with the specs, the built-ins, the entry points and ``extra``.

    ``check_pending`` makes a misspelled hook implementation fail loudly instead of never
    running.
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, module in BUILTIN_PLUGINS:
        pm.register(importlib.import_module(module), name=name)
    if entry_points:
        pm.load_setuptools_entrypoints(PROJECT)
    for plugin in extra:
        pm.register(plugin)
    pm.check_pending()
    return Hooks(pm)
