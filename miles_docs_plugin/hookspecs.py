"""Every hook of miles-docs (prefix ``mdp_``).

Plugins implement these with :data:`miles_docs_plugin.hookimpl` and register through the
``miles_docs`` entry-point group. The built-in behaviour (git source, local source, link rules,
components, nav, provenance) is a set of ordinary plugins on the same hooks, so any of it can be
extended, wrapped or replaced.

Hooks are always called with keyword arguments, so a spec can grow arguments without breaking
implementations. Where one answer is wanted the hook is ``firstresult`` ("stops at first
non-None result"); implementations run last-registered-first, so the built-ins that must run in
a given place say so with ``tryfirst``/``trylast``.

Call order for one source::

    mdp_fetch                 -> Checkout            (firstresult)
    mdp_prepare_page          for every page         (all)
    mdp_transform_page        for every page         (all; links rewritten here)
        mdp_resolve_link      for every link         (firstresult)
    mdp_build_nav             -> nav                 (firstresult)
    mdp_collect_diagnostics   -> diagnostics         (all)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .core.config import SourceConfig
    from .core.context import BuildContext
    from .core.errors import Diagnostic
    from .core.model import Checkout, NavItem, Page, Section, Target
    from .core.source.lock import LockEntry
    from .core.transform.markdown import LinkRef

PROJECT = "miles_docs"

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec(firstresult=True)
def mdp_fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout | None:
    """Make the files of ``source`` available and return its :class:`Checkout`.

    ``pin`` is the lock entry (None only when a local working copy is used). The built-in git
    source fetches exactly ``pin.commit`` into the cache and verifies it; the built-in local
    source (``tryfirst``) answers when a local override is configured.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec
def mdp_prepare_page(page: Page, ctx: BuildContext) -> None:
    """Change the markup of ``page.content`` before its links are scanned.

    The built-in components plugin turns the tags of Mintlify components into plain Markdown
    here (it writes the engine's constructs after the links are rewritten), so that links
    inside them are seen and rewritten like any other. Each component leaves an HTML comment
    marker (``<!--mdp:N-->`` … ``<!--/mdp:N-->``) where its tags stood; it is found again by
    those markers, so adding or removing lines does not disturb it (keep the markers). Keep
    the number of lines unchanged where you can: diagnostics report upstream line numbers.

    .. versionadded:: 0.1
    """


@hookspec
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    """Transform ``page.content`` (in place) after every page of the section is prepared.

    The built-in links plugin (``tryfirst``) rewrites link destinations; the components
    plugin then writes components in the engine's syntax; the provenance plugin (``trylast``)
    records the page's provenance and banner (``page.extra``), which the adapters add to the
    rendered page.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    """Classify one link destination of ``page`` into a target.

    Return a target from :mod:`miles_docs_plugin.core.model` (``PageTarget``, ``AssetTarget``,
    ``RepoFileTarget``, ``HostTarget``, ``ExternalTarget``, ``AnchorTarget``,
    ``UnresolvedTarget``), or None to let the next implementation decide. The built-in rules are
    registered as an ordinary plugin; a plugin that wants to see a link first uses ``tryfirst``.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def mdp_build_nav(section: Section, ctx: BuildContext) -> list[NavItem] | None:
    """Build the navigation of ``section`` (paths relative to its docs_dir).

    The built-in nav plugin follows the source's ``nav:``: ``auto`` (the upstream's own
    navigation from ``docs.json``, ``mint.json`` or ``mkdocs.yml``, else ``tree``), ``tree``
    (every page, each folder's index first, folders as groups) or an explicit list.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec
def mdp_collect_diagnostics(section: Section, ctx: BuildContext) -> list[Diagnostic] | None:
    """Return extra diagnostics about a finished section (e.g. pages the nav does not list).

    All results are collected.

    .. versionadded:: 0.1
    """
