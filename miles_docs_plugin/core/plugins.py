"""The plugin manager: a fresh one per build, built-ins first, then the entry-point group.

A config's ``disable:`` turns built-ins off by their short name (:data:`BUILTIN_NAMES`):
:meth:`Hooks.disable` blocks them in the manager before the build calls any hook.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pluggy

from .. import hookspecs
from ..hookspecs import PROJECT
from .env import on_ci, user_folder

if TYPE_CHECKING:
    from .config import ConfigKeys, SourceConfig
    from .context import BuildContext
    from .errors import Diagnostic
    from .model import Checkout, NavItem, Page, Section, Target
    from .source.lock import LockEntry
    from .transform.blocks import Component
    from .transform.scanned import LinkRef

#: Built-in plugins, registered by these names (the same names as their entry points, so pluggy
#: does not load them twice). Order matters only where a hook says tryfirst/trylast.
BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("miles_docs.collect", "miles_docs_plugin.builtin.collect"),
    ("miles_docs.git", "miles_docs_plugin.builtin.git_source"),
    ("miles_docs.local", "miles_docs_plugin.builtin.local_source"),
    ("miles_docs.links", "miles_docs_plugin.builtin.links"),
    ("miles_docs.components", "miles_docs_plugin.builtin.components"),
    ("miles_docs.openapi", "miles_docs_plugin.builtin.openapi"),
    ("miles_docs.mintlify", "miles_docs_plugin.builtin.mintlify"),
    ("miles_docs.nav", "miles_docs_plugin.builtin.nav"),
    ("miles_docs.provenance", "miles_docs_plugin.builtin.provenance"),
)
BUILTIN_PREFIX = PROJECT + "."
HOOK_PREFIX = "mdp_"  #: every hook's name starts with it (``hookspecs.py``)
#: What ``disable:`` calls the built-ins: their registered name without ``miles_docs.``.
BUILTIN_NAMES: tuple[str, ...] = tuple(name.removeprefix(BUILTIN_PREFIX)
                                       for name, _ in BUILTIN_PLUGINS)


class Hooks:
    """Typed calls of the hooks (always with keywords)."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._hook = pm.hook

    def disable(self, names: Iterable[str]) -> None:
        """Turn off the built-ins ``names`` (short names, checked by the config)."""
        for name in names:
            self.pm.set_blocked(BUILTIN_PREFIX + name)

    def config_keys(self) -> list[tuple[str, ConfigKeys]]:
        """The config keys each plugin declares, with the plugin's name."""
        out: list[tuple[str, ConfigKeys]] = []
        for impl in self._hook.mdp_config_keys.get_hookimpls():
            keys = impl.function()
            if keys is not None:
                out.append((impl.plugin_name, cast("ConfigKeys", keys)))
        return out

    def fetch(self, source: SourceConfig, pin: LockEntry | None,
              ctx: BuildContext) -> Checkout | None:
        return cast("Checkout | None", self._hook.mdp_fetch(source=source, pin=pin, ctx=ctx))

    def collect(self, checkout: Checkout, ctx: BuildContext) -> Section | None:
        return cast("Section | None", self._hook.mdp_collect(checkout=checkout, ctx=ctx))

    def prepare_page(self, page: Page, ctx: BuildContext) -> None:
        self._hook.mdp_prepare_page(page=page, ctx=ctx)

    def transform_page(self, page: Page, ctx: BuildContext) -> None:
        self._hook.mdp_transform_page(page=page, ctx=ctx)

    def resolve_link(self, link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
        return cast("Target | None", self._hook.mdp_resolve_link(link=link, page=page, ctx=ctx))

    def render_component(self, component: Component, page: Page,
                         ctx: BuildContext) -> list[str]:
        """The lines of ``component`` from the first plugin that renders it, else from the
        engine (:meth:`Engine.block <miles_docs_plugin.core.engine.Engine.block>`)."""
        lines = self._hook.mdp_render_component(component=component, page=page, ctx=ctx)
        return cast("list[str]", lines) if lines is not None else ctx.engine.block(component)

    def build_nav(self, section: Section, ctx: BuildContext) -> list[NavItem] | None:
        return cast("list[NavItem] | None",
                    self._hook.mdp_build_nav(section=section, ctx=ctx))

    def collect_diagnostics(self, section: Section, ctx: BuildContext) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for found in self._hook.mdp_collect_diagnostics(section=section, ctx=ctx):
            out.extend(found or ())
        return out


@functools.lru_cache(maxsize=8)
def group_entry_points(path: tuple[str, ...]) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The plugin group's entry points of the distributions on ``path`` (``sys.path``).

    Reading every installed distribution's metadata costs a few milliseconds; a process that
    makes several managers (``mkdocs serve`` rebuilds, the CLI) reads it once per ``sys.path``,
    and what it found is kept for the next process in the state folder
    (:func:`_kept_entry_points`) until a folder of ``path`` or a plugin's
    ``entry_points.txt`` changes. Distributions in the order pluggy's
    ``load_setuptools_entrypoints`` takes them; only the files that name the group are parsed.
    """
    kept = _kept_entry_points(path)
    if kept is not None:
        return kept
    stamps = _path_stamps(path)  # before the scan: a change during it is seen by the next process
    found: list[importlib.metadata.EntryPoint] = []
    files: list[str] | None = []  # the entry_points.txt of each plugin, when on disk
    for dist in importlib.metadata.distributions(path=list(path)):
        text = _entry_points_text(dist)
        if text is not None and PROJECT in text:
            found.extend(ep for ep in dist.entry_points if ep.group == PROJECT)
            folder = getattr(dist, "_path", None)
            if files is not None and isinstance(folder, Path):
                files.append(os.path.join(folder, "entry_points.txt"))  # noqa: PTH118
            else:
                files = None  # a zip archive's, or another finder's: not kept
    if files is not None:
        _keep_entry_points(path, stamps, files, found)
    return tuple(found)


#: The file in the state folder that keeps the group's entry points between processes.
ENTRY_POINTS_FILE = "entry-points.json"


def _kept_file() -> str | None:
    """Where the entry points are kept: the state folder (``MILES_DOCS_STATE``, else the
    user's), as the scan cache's key, once it exists (this never creates it: with ``cache:
    false``, or on a new machine, nothing is written); nowhere on CI unless
    ``MILES_DOCS_STATE`` is set (a runner does not keep the folder)."""
    folder = os.environ.get("MILES_DOCS_STATE")
    if not folder:
        if on_ci(os.environ):
            return None
        folder = user_folder("state")
    return os.path.join(os.path.expanduser(folder), ENTRY_POINTS_FILE)  # noqa: PTH118


def _stamps(names: Iterable[str]) -> list[int | None]:
    """The modification time of each file (None: missing)."""
    out: list[int | None] = []
    for name in names:
        try:
            out.append(os.stat(name).st_mtime_ns)  # noqa: PTH116 (no pathlib)
        except OSError:
            out.append(None)
    return out


def _has_metadata(folder: str) -> bool | None:
    """Does ``folder`` hold metadata folders (``*.dist-info``, ``*.egg-info``)? None when it
    is no folder (a zip archive, or missing)."""
    try:
        names = os.listdir(folder or ".")  # noqa: PTH208 (names: no pathlib)
    except OSError:
        return None
    return any(n.lower().endswith((".dist-info", ".egg-info")) for n in names)


def _path_stamps(path: Iterable[str]) -> list[list[Any]]:
    """Per folder of ``path``: its modification time, and whether it holds metadata
    folders (installing, upgrading or removing a distribution adds or removes one, and so
    changes the time)."""
    return [[time, _has_metadata(entry)]
            for entry, time in zip(path, _stamps(e or "." for e in path), strict=True)]


def _same_path(kept: list[list[Any]], path: tuple[str, ...]) -> bool:
    """Are the distributions of every folder of ``path`` those of when ``kept`` was taken?
    A folder whose time moved is looked into only when it held no metadata folders (the
    host's folder on ``sys.path``, whose time every build moves): it still holds none."""
    if len(kept) != len(path):
        return False
    for (time, meta), entry, now in zip(kept, path, _stamps(e or "." for e in path),
                                        strict=True):
        if now != time and (meta is not False or _has_metadata(entry) is not False):
            return False
    return True


def _kept_entry_points(path: tuple[str, ...]) -> tuple[importlib.metadata.EntryPoint, ...] | None:
    """The entry points the last scan of ``path`` found, if nothing it read has changed since:
    no folder of ``path`` (a distribution installed, upgraded or removed changes its folder)
    and no ``entry_points.txt`` of a plugin (:func:`_path_stamps`). (A development install
    that adds the group to an existing ``.egg-info`` folder in place, as ``setup.py develop``
    does, is seen once that folder's parent changes.)"""
    where = _kept_file()
    if where is None:
        return None
    try:
        with open(where, "rb") as fh:
            data = json.loads(fh.read())
        if data["format"] != 2 or data["path"] != list(path) or \
                not _same_path(data["stamps"], path) or \
                data["file_stamps"] != _stamps(data["files"]):
            return None
        return tuple(importlib.metadata.EntryPoint(str(name), str(value), PROJECT)
                     for name, value in data["entry_points"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _keep_entry_points(path: tuple[str, ...], stamps: list[list[Any]], files: list[str],
                       found: list[importlib.metadata.EntryPoint]) -> None:
    where = _kept_file()
    if where is None:
        return
    data = {"format": 2, "path": list(path), "stamps": stamps, "files": files,
            "file_stamps": _stamps(files), "entry_points": [[ep.name, ep.value] for ep in found]}
    folder = Path(where).parent
    if not folder.is_dir():
        return  # written only where a build that keeps its scan cache made the folder
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".entry-points.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, where)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # not kept: the next process scans again


def _entry_points_text(dist: importlib.metadata.Distribution) -> str | None:
    """``dist.read_text("entry_points.txt")``, a third of the time for a folder on disk
    (most distributions have none: one failed ``open``, no ``pathlib``, no decoding)."""
    folder = getattr(dist, "_path", None)
    if not isinstance(folder, Path):  # a zip archive's, or another finder's
        return dist.read_text("entry_points.txt")
    try:
        with open(os.path.join(folder, "entry_points.txt"), "rb") as fh:  # noqa: PTH118 (str: no pathlib)
            data = fh.read()
    except OSError:
        return None
    return data.decode("utf-8") if PROJECT.encode() in data else ""


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, with a shorter look at the built-in modules (``_builtins``) and at
    the specs (``hookspecs.py``).

    ``register`` asks :meth:`parse_hookimpl_opts` about every name of a plugin, and a module
    has dozens (its imports, constants, helpers), each looked up with
    ``inspect.getattr_static``: 1.5 ms per build for the nine built-ins. Every hook
    implementation of a built-in is named after its hook (``mdp_…``, a test holds it), so
    other names are skipped without a look, as pytest does for its own hook prefix. Other
    plugins are read the usual way (a ``specname`` implementation may have any name).
    """

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._builtins: set[int] = set()

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if id(plugin) in self._builtins and not name.startswith(HOOK_PREFIX):
            return None
        return super().parse_hookimpl_opts(plugin, name)

    def parse_hookspec_opts(self, module_or_class: Any, name: str) -> Any:
        if module_or_class is hookspecs and not name.startswith(HOOK_PREFIX):
            return None  # the specs module's imports and markers
        return super().parse_hookspec_opts(module_or_class, name)


def make_plugin_manager(extra: Iterable[Any] = (), *, entry_points: bool = True) -> Hooks:
    """A new plugin manager with the specs, the built-ins, the entry points and ``extra``.

    ``check_pending`` makes a misspelled hook implementation fail loudly instead of never
    running.
    """
    pm = _PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, module in BUILTIN_PLUGINS:
        # ``__import__`` (an import statement's path) rather than ``importlib.import_module``,
        # whose imports ``python -X importtime`` does not list
        __import__(module)
        plugin = sys.modules[module]
        pm._builtins.add(id(plugin))
        pm.register(plugin, name=name)
    if entry_points:
        # what ``pm.load_setuptools_entrypoints(PROJECT)`` does, from a scan kept per process
        for ep in group_entry_points(tuple(sys.path)):
            if pm.get_plugin(ep.name) is None and not pm.is_blocked(ep.name):
                pm.register(ep.load(), name=ep.name)
    for plugin in extra:
        pm.register(plugin)
    pm.check_pending()
    return Hooks(pm)


def builtin_calls(caller: Any) -> list[Any] | None:
    """The implementations of the hook ``caller`` (``pm.hook.<name>``) in the order pluggy
    calls them, when every one is a built-in plugin's plain implementation taking the hook's
    arguments by position; else None.

    For a hook called once per link, pluggy's dispatch costs more than the built-in rules
    themselves: a caller that gets a list here (once per build, never per call) may call the
    functions itself, as pluggy would (``firstresult``: the first result that is not None).
    A third-party implementation, a wrapper or a built-in that is blocked changes the list,
    or gives None, and the caller goes through pluggy as usual.
    """
    builtins = {name for name, _ in BUILTIN_PLUGINS}
    spec = caller.spec
    impls = caller.get_hookimpls()
    if spec is None or caller.is_historic():
        return None
    for impl in impls:
        if (impl.plugin_name not in builtins or impl.wrapper or impl.hookwrapper
                or impl.kwargnames or tuple(impl.argnames) != tuple(spec.argnames)):
            return None
    # pluggy calls the last of the list first
    return [impl.function for impl in reversed(impls)]
