"""Every hook of miles-docs (prefix ``mdp_``).

Plugins implement these with :data:`miles_docs_plugin.hookimpl` and register through the
``miles_docs`` entry-point group. The built-in behaviour (the collector, git source, local
source, link rules, components, nav, provenance) is a set of ordinary plugins on the same
hooks, so any of it can be extended, wrapped, replaced, or turned off with ``disable:``.

Hooks are always called with keyword arguments, so a spec can grow arguments without breaking
implementations, and an implementation may accept only the arguments it uses. Where one answer
is wanted the hook is ``firstresult``: it stops at the first non-None result. Otherwise every
implementation runs and the results are collected. Implementations run
last-registered-first; the order of registration is: the built-ins (in
:data:`~miles_docs_plugin.core.plugins.BUILTIN_PLUGINS` order), then the entry points, then the
plugins given to :func:`~miles_docs_plugin.core.pipeline.build`. So a plugin's implementation
runs before the built-ins' unless one of them says ``tryfirst``; built-ins that must run in a
given place say so with ``tryfirst``/``trylast``, and so should a plugin that depends on order.

Call order (one build)::

    mdp_config_keys           when the config is read     (all)
    for every source, in parallel threads:
        mdp_fetch             -> Checkout                 (firstresult)
        mdp_collect           -> Section                  (firstresult)
    mdp_prepare_page          for every page              (all)
    mdp_transform_page        for every page              (all; links rewritten here)
        mdp_resolve_link      for every link              (firstresult)
        mdp_render_component  for every component         (firstresult)
    for every section:
        mdp_build_nav         -> nav                      (firstresult)
        mdp_collect_diagnostics -> diagnostics            (all)

Every page of every section is prepared before any page is transformed, so a transform may
look at another page's prepared text (``ctx.sections``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .core.config import ConfigKeys, SourceConfig
    from .core.context import BuildContext
    from .core.errors import Diagnostic
    from .core.model import Checkout, NavItem, Page, Section, Target
    from .core.source.lock import LockEntry
    from .core.transform.blocks import Component
    from .core.transform.scanned import LinkRef

PROJECT = "miles_docs"

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def mdp_config_keys() -> ConfigKeys | None:
    """Declare the config keys this plugin reads.

    :return: a :class:`~miles_docs_plugin.core.config.ConfigKeys` with the plugin's top-level
        keys (``top``) and the keys it reads in each entry of ``sources:`` (``source``), each a
        :class:`~miles_docs_plugin.core.config.FieldSpec` (key, type text, default, one-line
        doc, ``required``, ``check``); or None to declare none.

    Called once each time a config is read (``miles-docs.yml``, the MkDocs plugin block's
    inline keys, Sphinx's ``miles_docs_options`` and ``miles_docs_sources``), before it is
    validated. The declared keys are validated as the built-in ones are: an unknown key, a
    missing required key or a value its ``check`` refuses stops with the file, the key and
    the key's doc. A key that a built-in or another plugin already declares is an error
    naming both. The values, or the defaults, are then in ``config.extra`` (top-level keys)
    and ``source.extra`` (per-source keys), which an implementation of any other hook reads
    as ``ctx.config.extra[key]``.

    All results are collected; the order does not matter. An implementation must not change
    anything: it only declares.

    .. versionadded:: 0.2
    """


@hookspec(firstresult=True)
def mdp_fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout | None:
    """Make the files of ``source`` available and return its :class:`Checkout`.

    :param source: the source's validated config (repository, ``docs_dir``, ``local`` …).
    :param pin: the source's lock entry, with the 40-hex ``commit`` to build; None only when
        a local working copy is used and the lock has no entry for it.
    :param ctx: the build; ``ctx.cache`` is the checkout cache, ``ctx.config.offline`` says
        whether the network may be used.
    :return: a :class:`~miles_docs_plugin.core.model.Checkout` whose ``commit`` is
        ``pin.commit`` and whose files are those of that commit; or None to let the next
        implementation fetch. No answer at all stops the build with an error naming the
        source.

    The built-in local source (``tryfirst``) answers when a local override is configured;
    the built-in git source fetches exactly ``pin.commit`` into the cache. The core verifies
    the entry against the pin after this hook returns; an entry that fails is discarded and
    this hook called once more.

    Called once per source, in a thread of its own when there are several sources: an
    implementation must not share mutable state between calls without a lock.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def mdp_collect(checkout: Checkout, ctx: BuildContext) -> Section | None:
    """Read the pages of a fetched ``checkout`` into a new :class:`Section`.

    :param checkout: what :func:`mdp_fetch` returned, already verified against the pin.
    :param ctx: the build; ``ctx.report`` records diagnostics (with upstream ``path:line``),
        ``ctx.config.max_page_size`` bounds what may be read.
    :return: the section, with its pages (content, front matter, title), assets and the
        upstream site (navigation, redirects); its nav is built later by
        :func:`mdp_build_nav`. Or None to let the next implementation collect. No answer at
        all stops the build with an error naming the source.

    The built-in collector (``trylast``, plugin ``collect``) reads every page of the docs
    folder, checks each file against its blob id in the pinned tree (raising
    ``CacheEntryInvalid`` on a mismatch, which makes the core fetch the entry again), splits
    front matter and finds titles. A plugin that answers first takes all of that on.

    Called once per source, right after :func:`mdp_fetch`, in the same thread.

    Stops at first non-None result.

    .. versionadded:: 0.2
    """


@hookspec
def mdp_prepare_page(page: Page, ctx: BuildContext) -> None:
    """Change the markup of ``page.content`` before its links are scanned.

    :param page: one upstream page of a collected section; ``page.content`` is its text
        (front matter included, the body from ``page.body_start``), ``page.extra`` holds
        what plugins record about it.
    :param ctx: the build; every section is collected (``ctx.sections``).
    :return: nothing; change ``page.content`` and ``page.extra`` in place.

    The built-in components plugin (``tryfirst``) turns the tags of Mintlify components into
    plain Markdown here (it writes the engine's constructs after the links are rewritten), so
    that links inside them are seen and rewritten like any other. Each component leaves an
    HTML comment marker (``<!--mdp:N-->`` … ``<!--/mdp:N-->``) where its tags stood; it is
    found again by those markers, so adding or removing lines does not disturb it (keep the
    markers). Keep the number of lines unchanged where you can: diagnostics report upstream
    line numbers.

    Called for every upstream page of every section before any page is transformed.

    .. versionadded:: 0.1
    """


@hookspec
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    """Transform ``page.content`` (in place) after every page of the section is prepared.

    :param page: one upstream page, prepared.
    :param ctx: the build; ``ctx.engine`` is the host engine (the
        :class:`~miles_docs_plugin.core.engine.Engine` contract), ``ctx.scan(page)`` the
        page's links and headings.
    :return: nothing; change ``page.content`` and ``page.extra`` in place.

    The built-in links plugin (``tryfirst``) rewrites link destinations (calling
    :func:`mdp_resolve_link` for each); the components plugin then writes components in the
    engine's syntax (calling :func:`mdp_render_component` for each); the provenance plugin
    (``trylast``) records the page's provenance and banner (``page.extra``), which the
    adapters add to the rendered page. A plugin's plain implementation runs after the links
    are rewritten and before the components are written. Keep the page's line count where
    you can, as for :func:`mdp_prepare_page`.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    """Classify one link destination of ``page`` into a target.

    :param link: the link as scanned: ``dest`` (the destination as written), its kind
        (inline link, image, reference definition, autolink, raw HTML attribute) and its
        exact span and line in the page.
    :param page: the page the link is in.
    :param ctx: the build; ``ctx.sections`` has every section, to resolve links between
        them.
    :return: a target from :mod:`miles_docs_plugin.core.model` (``PageTarget``,
        ``AssetTarget``, ``RepoFileTarget``, ``HostTarget``, ``ExternalTarget``,
        ``AnchorTarget``, ``UnresolvedTarget``), or None to let the next implementation
        decide. The links plugin writes the target back in the engine's form; an
        ``UnresolvedTarget`` is reported with the upstream ``path:line``.

    The built-in link rules are ``trylast``; the Mintlify rules (``.md`` URLs of a Mintlify
    site) run before them. A plugin's implementation runs before both; one that must see a
    link before another plugin's uses ``tryfirst``. An implementation must not change
    ``link`` or ``page``.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def mdp_render_component(component: Component, page: Page,
                         ctx: BuildContext) -> list[str] | None:
    """Write one component in the host engine's syntax.

    :param component: a Mintlify component of ``page`` as data
        (:class:`~miles_docs_plugin.core.transform.blocks.Component`: its name, attributes,
        indentation, body lines with their links already rewritten, and its position among
        its siblings and parent).
    :param page: the page the component is in.
    :param ctx: the build; ``ctx.engine.features`` says what the host's Markdown can write.
    :return: the lines that replace the component's lines, tags included (as many as it had
        where you can); or None to let the next implementation, and finally the engine
        (:meth:`Engine.block <miles_docs_plugin.core.engine.Engine.block>`), render it.

    Called by the built-in components plugin from its :func:`mdp_transform_page`, for every
    known component of a page, innermost first. No built-in implements it: without a
    plugin, every component is rendered by the engine.

    Stops at first non-None result.

    .. versionadded:: 0.2
    """


@hookspec(firstresult=True)
def mdp_build_nav(section: Section, ctx: BuildContext) -> list[NavItem] | None:
    """Build the navigation of ``section`` (paths relative to its docs_dir).

    :param section: a section whose pages are transformed.
    :param ctx: the build.
    :return: the section's navigation, a list of
        :class:`~miles_docs_plugin.core.model.NavItem` (pages, groups, links) whose page paths
        are relative to the docs folder; or None to let the next implementation decide. No
        answer gives the section an empty navigation.

    The built-in nav plugin (``trylast``) follows the source's ``nav:``: ``auto`` (the
    upstream's own navigation from ``docs.json``, ``mint.json`` or ``mkdocs.yml``, else
    ``tree``), ``tree`` (every page, each folder's index first, folders as groups) or an
    explicit list. The core adds the landing page afterwards when the nav has none.

    Stops at first non-None result.

    .. versionadded:: 0.1
    """


@hookspec
def mdp_collect_diagnostics(section: Section, ctx: BuildContext) -> list[Diagnostic] | None:
    """Return extra diagnostics about a finished section (e.g. pages the nav does not list).

    :param section: a section with its pages and navigation, finished.
    :param ctx: the build.
    :return: diagnostics to add to the section's (each with the upstream path and line, a
        code and a severity), or None. An implementation must not change the section.

    Called once per section, after :func:`mdp_build_nav`. All results are collected, in
    call order.

    .. versionadded:: 0.1
    """
