"""The pluggy core: specs, the plugin manager, the built-ins as ordinary plugins."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pluggy
import pytest
from support import lock_text, make_repo, write

from miles_docs_plugin import hookimpl, hookspecs
from miles_docs_plugin.core.collect.collect import collect
from miles_docs_plugin.core.config import Config, ConfigKeys, FieldSpec, load_config, parse_config
from miles_docs_plugin.core.context import BuildContext
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.errors import ConfigError, ContentError, FetchError
from miles_docs_plugin.core.model import Checkout, Page, PageTarget, Section
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.plugins import (
    BUILTIN_PLUGINS,
    builtin_calls,
    group_entry_points,
    make_plugin_manager,
)
from miles_docs_plugin.core.transform.blocks import Component

SPECS = sorted(name for name, _ in inspect.getmembers(hookspecs, inspect.isfunction)
               if name.startswith("mdp_"))


def test_every_hook_is_documented_and_versioned() -> None:
    assert SPECS == ["mdp_build_nav", "mdp_collect", "mdp_collect_diagnostics", "mdp_config_keys",
                     "mdp_fetch", "mdp_prepare_page", "mdp_render_component", "mdp_resolve_link",
                     "mdp_transform_page"]
    for name in SPECS:
        doc = getattr(hookspecs, name).__doc__ or ""
        assert len(doc.strip()) > 80, name
        assert ".. versionadded::" in doc, name
        # like pytest's hookspec.py: every parameter and the return value are documented
        for param in inspect.signature(getattr(hookspecs, name)).parameters:
            assert f":param {param}:" in doc, (name, param)
        assert ":return:" in doc, name
    first = {name for name in SPECS
             if getattr(hookspecs, name).miles_docs_spec.get("firstresult")}
    assert first == {"mdp_fetch", "mdp_collect", "mdp_resolve_link", "mdp_render_component",
                     "mdp_build_nav"}
    for name in first:
        assert "Stops at first non-None result" in (getattr(hookspecs, name).__doc__ or "")


def test_builtins_are_registered_by_name_and_as_entry_points() -> None:
    hooks = make_plugin_manager()
    names = {name for name, _ in hooks.pm.list_name_plugin()}
    assert {name for name, _ in BUILTIN_PLUGINS} <= names
    from importlib.metadata import entry_points

    declared = {ep.name: ep.value for ep in entry_points(group="miles_docs")}
    assert declared == dict(BUILTIN_PLUGINS)


def test_misspelled_hook_implementation_fails_loudly() -> None:
    class Typo:
        @hookimpl
        def mdp_transfrom_page(self, page: object, ctx: object) -> None: ...

    with pytest.raises(pluggy.PluginValidationError, match="mdp_transfrom_page"):
        make_plugin_manager([Typo()])


def test_a_fresh_manager_per_build() -> None:
    assert make_plugin_manager().pm is not make_plugin_manager().pm


def _implementations(pm: pluggy.PluginManager) -> list[tuple[str, str, str]]:
    return sorted((caller.name, str(impl.plugin_name), impl.function.__qualname__)
                  for _, plugin in pm.list_name_plugin() if plugin is not None
                  for caller in pm.get_hookcallers(plugin) or ()
                  for impl in caller.get_hookimpls() if impl.plugin is plugin)


def test_builtins_are_read_by_their_hook_names_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # pluggy looks up every name of a module it registers (imports, helpers, constants); the
    # built-ins name each implementation after its hook, so only those names are looked up
    asked: list[str] = []
    real = pluggy.PluginManager.parse_hookimpl_opts

    def spy(self: pluggy.PluginManager, plugin: object, name: str) -> Any:
        asked.append(name)
        return real(self, plugin, name)

    specs: list[str] = []
    real_spec = pluggy.PluginManager.parse_hookspec_opts

    def spy_spec(self: pluggy.PluginManager, module: Any, name: str) -> Any:
        specs.append(name)
        return real_spec(self, module, name)

    monkeypatch.setattr(pluggy.PluginManager, "parse_hookimpl_opts", spy)
    monkeypatch.setattr(pluggy.PluginManager, "parse_hookspec_opts", spy_spec)
    hooks = make_plugin_manager(entry_points=False)
    assert asked and all(name.startswith("mdp_") for name in asked), sorted(set(asked))
    assert sorted(specs) == SPECS
    monkeypatch.undo()
    # and none is missed: the same implementations as pluggy's own reading of the modules
    plain = pluggy.PluginManager(hookspecs.PROJECT)
    plain.add_hookspecs(hookspecs)
    for name, module in BUILTIN_PLUGINS:
        plain.register(sys.modules[module], name=name)
    assert _implementations(hooks.pm) == _implementations(plain)
    assert len(_implementations(plain)) >= len(BUILTIN_PLUGINS)


#: Modules a warm single-source build never runs, imported on first use: git and the checkout
#: (a cold fetch), the thread pool (several sources), difflib (a config mistake), the
#: MkDocs-dialect converter (MkDocs upstreams), pathspec (an MkDocs upstream's excludes),
#: signal (stopping the git of a killed build), snippets (pages that include files), and what
#: only a page's transform runs (the transform memo replays the rest): the scanner, the MDX
#: reader, the anchor maps, the components step and the link rules (and on MkDocs the
#: components' writer, which the memo loads only to replay a page that has one). What each
#: engine imports itself (MkDocs: pathspec; Sphinx: signal) is left out of its list.
TRANSFORM = ["miles_docs_plugin.core.transform.anchors",
             "miles_docs_plugin.core.transform.components",
             "miles_docs_plugin.core.transform.inline_links",
             "miles_docs_plugin.core.transform.links",
             "miles_docs_plugin.core.transform.markdown",
             "miles_docs_plugin.core.transform.mdx",
             "miles_docs_plugin.core.transform.redirects"]
LAZY = {
    "mkdocs": ["concurrent.futures", "difflib", "heapq", "subprocess", "signal",
               "miles_docs_plugin.core.source.checkout", "miles_docs_plugin.core.source.git",
               "miles_docs_plugin.core.transform.blocks",
               "miles_docs_plugin.core.transform.dialect",
               "miles_docs_plugin.core.transform.openapi",
               "miles_docs_plugin.core.transform.snippets", *TRANSFORM],
    "sphinx": ["pathspec", "miles_docs_plugin.core.source.checkout",
               "miles_docs_plugin.core.source.git",
               "miles_docs_plugin.core.transform.dialect",
               "miles_docs_plugin.core.transform.openapi",
               "miles_docs_plugin.core.transform.snippets", *TRANSFORM],
}
ADAPTER = {"mkdocs": "miles_docs_plugin.mkdocs_plugin", "sphinx": "miles_docs_plugin.sphinx_ext"}


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_loading_the_plugin_imports_only_what_every_build_needs(engine: str) -> None:
    # a fresh interpreter, as a build starts: the adapter and a plugin manager, then a look
    code = (f"import sys, {ADAPTER[engine]}\n"
            "from miles_docs_plugin.core.plugins import make_plugin_manager\n"
            "make_plugin_manager()\n"
            f"print(sorted(m for m in {LAZY[engine]!r} if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


#: Modules every build loads (or every build that transforms a page) whose classes are written
#: by hand (``core/records.py``) and whose patterns are compiled on first use
#: (``core/patterns.py``): loading them generates no code. (The lock's and the sanitizer's
#: patterns serve every page of every build: they are compiled at once. The components step's
#: are compiled by the first page that needs each one.)
LEAN = ["miles_docs_plugin.builtin.components", "miles_docs_plugin.builtin.mintlify",
        "miles_docs_plugin.builtin.openapi", "miles_docs_plugin.core.collect.collect",
        "miles_docs_plugin.core.collect.conventions", "miles_docs_plugin.core.collect.upstream",
        "miles_docs_plugin.core.config", "miles_docs_plugin.core.context",
        "miles_docs_plugin.core.errors", "miles_docs_plugin.core.model",
        "miles_docs_plugin.core.pipeline", "miles_docs_plugin.core.section.sandbox",
        "miles_docs_plugin.core.section.sanitize", "miles_docs_plugin.core.source.cache",
        "miles_docs_plugin.core.source.lock", "miles_docs_plugin.core.transform.anchors",
        "miles_docs_plugin.core.transform.blocks", "miles_docs_plugin.core.transform.markdown",
        "miles_docs_plugin.core.transform.mdx", "miles_docs_plugin.core.transform.scancache",
        "miles_docs_plugin.core.transform.scanned", "miles_docs_plugin.core.transform.components",
        "miles_docs_plugin.core.urls"]


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_loading_the_plugin_generates_no_code(engine: str) -> None:
    # ``@dataclass`` compiles each class's methods, ``re.compile`` each pattern: at import,
    # that was half of loading the plugin on every build
    code = ("import dataclasses, json, re, sys\n"
            "compiled = set()\n"
            "real = re.compile\n"
            "def spy(pattern, flags=0):\n"
            "    compiled.add(sys._getframe(1).f_globals.get('__name__'))\n"
            "    return real(pattern, flags)\n"
            "re.compile = spy\n"
            f"import {ADAPTER[engine]}\n"
            "from miles_docs_plugin.core.plugins import make_plugin_manager\n"
            "make_plugin_manager()\n"
            f"lean = {LEAN!r}\n"
            "for name in lean:\n"
            "    __import__(name)  # those a page's transform loads, as the first page does\n"
            "data = [f'{c.__module__}.{c.__name__}' for name in lean\n"
            "        for c in vars(sys.modules[name]).values()\n"
            "        if isinstance(c, type) and c.__module__ == name\n"
            "        and dataclasses.is_dataclass(c)]\n"
            "eager = {'miles_docs_plugin.core.source.lock',\n"
            "         'miles_docs_plugin.core.section.sanitize'}\n"
            "print(json.dumps([sorted(data), sorted(compiled & set(lean) - eager)]))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[[], []]"


def test_the_entry_point_scan_is_read_once_per_path(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    make_plugin_manager()
    before = group_entry_points.cache_info()
    make_plugin_manager()
    assert group_entry_points.cache_info().hits == before.hits + 1
    # a plugin installed on a new path is found: the scan is kept per sys.path
    info = tmp_path / "example_miles_docs_stamp-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: example-miles-docs-stamp\n"
                             "Version: 1.0\n")
    write(info / "entry_points.txt", "[miles_docs]\nexample-stamp = example_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "plugins"))
    names = {name for name, _ in make_plugin_manager().pm.list_name_plugin()}
    assert "example-stamp" in names


def _install(folder: Path, name: str, entry: str | None) -> Path:
    """A distribution's metadata folder in ``folder`` (what pip writes), with a plugin."""
    info = folder / f"{name}-1.0.dist-info"
    write(info / "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry:
        write(info / "entry_points.txt", f"[miles_docs]\n{entry} = example_plugin\n")
    return info


def _touch(path: Path, later_ns: int = 10**9) -> None:
    """Move the modification time on (file systems count time in ticks of a few ms)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + later_ns))


def test_the_next_process_reads_the_kept_entry_points_until_something_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a process reads the group from every distribution once, and keeps what it found in the
    # state folder; the next process reads that file instead of 130 distributions' metadata
    import importlib.metadata

    site_dir = tmp_path / "site"
    plugin = _install(site_dir, "example-a", "example-a")
    host = tmp_path / "host"  # `python -m mkdocs` puts the host's folder first on sys.path
    host.mkdir()
    path = (str(host), str(site_dir), *sys.path)
    kept = tmp_path / "state" / "entry-points.json"  # MILES_DOCS_STATE (conftest)
    first = group_entry_points(path)
    assert not kept.parent.exists()  # no state folder yet (`cache: false`): nothing written
    (tmp_path / "state").mkdir()  # a build that keeps its scan cache made it
    group_entry_points.cache_clear()
    assert group_entry_points(path) == first
    assert [ep.name for ep in first][:1] == ["example-a"]
    assert kept.is_file()

    scans: list[object] = []
    real = importlib.metadata.distributions

    def counting(**kwargs: Any) -> Any:
        scans.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(importlib.metadata, "distributions", counting)
    group_entry_points.cache_clear()  # as a new process
    assert group_entry_points(path) == first
    assert scans == []
    # a build writes its site in the host's folder: a folder without distributions is not read
    (host / "site").mkdir()
    _touch(host)
    group_entry_points.cache_clear()
    assert group_entry_points(path) == first
    assert scans == []

    # a distribution installed (its folder is new: the folder of sys.path changed)
    _install(site_dir, "example-b", "example-b")
    _touch(site_dir)
    group_entry_points.cache_clear()
    assert "example-b" in [ep.name for ep in group_entry_points(path)]
    assert len(scans) == 1

    # a plugin's entry points edited in place
    write(plugin / "entry_points.txt", "[miles_docs]\nexample-c = example_plugin\n")
    _touch(plugin / "entry_points.txt")
    group_entry_points.cache_clear()
    names = [ep.name for ep in group_entry_points(path)]
    assert "example-c" in names and "example-a" not in names
    assert len(scans) == 2
    group_entry_points.cache_clear()
    assert [ep.name for ep in group_entry_points(path)] == names
    assert len(scans) == 2

    # a CI runner does not keep its user folders: nothing is written that no build reads
    monkeypatch.delenv("MILES_DOCS_STATE")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    group_entry_points.cache_clear()
    assert [ep.name for ep in group_entry_points(path)] == names
    assert len(scans) == 3
    assert not (tmp_path / "xdg-state").exists() and not (tmp_path / "home").exists()


def site(tmp_path: Path) -> Path:
    up = tmp_path / "up"
    commit = make_repo(up, {
        "docs/index.md": "# Home\n\n[guide](guide.md) and [ext](https://example.org/x)\n",
        "docs/guide.md": "# Guide\n\n## Part one\n\n[home](index.md#home)\n",
    })
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    return tmp_path / "miles-docs.yml"


def test_call_order_of_the_hooks(tmp_path: Path, cache_dir: Path) -> None:
    calls: list[str] = []

    class Recorder:
        @hookimpl
        def mdp_fetch(self, source: object, pin: object, ctx: object) -> None:
            calls.append("fetch")

        @hookimpl
        def mdp_collect(self, checkout: object, ctx: object) -> None:
            calls.append("collect")

        @hookimpl
        def mdp_prepare_page(self, page: object, ctx: object) -> None:
            calls.append("prepare")

        @hookimpl
        def mdp_transform_page(self, page: object, ctx: object) -> None:
            calls.append("transform")

        @hookimpl(tryfirst=True)
        def mdp_resolve_link(self, link: object, page: object, ctx: object) -> None:
            calls.append("resolve")

        @hookimpl(tryfirst=True)
        def mdp_build_nav(self, section: object, ctx: object) -> None:
            calls.append("nav")

        @hookimpl
        def mdp_collect_diagnostics(self, section: object, ctx: object) -> None:
            calls.append("diagnostics")

    build(load_config(site(tmp_path)), Engine(), plugins=[Recorder()])
    order = [c for i, c in enumerate(calls) if i == 0 or calls[i - 1] != c]
    # every page is prepared before any is transformed; links are resolved by the built-in
    # links transform (tryfirst), before other transforms of the same page (guide.md: 1 link,
    # index.md: 2 links); nav and diagnostics last
    assert order == ["fetch", "collect", "prepare", "resolve", "transform", "resolve", "transform",
                     "nav", "diagnostics"]
    assert calls.count("prepare") == 2 and calls.count("resolve") == 3


def test_a_plugin_can_resolve_links_first(tmp_path: Path, cache_dir: Path) -> None:
    class Redirect:
        @hookimpl(tryfirst=True)
        def mdp_resolve_link(self, link: object, page: object, ctx: object) -> object:
            if getattr(link, "dest", "") == "https://example.org/x":
                return PageTarget("s", "guide.md", "part-one")
            return None

    config = site(tmp_path)
    result = build(load_config(config), Engine(), plugins=[Redirect()])
    content = result.sections["s"].pages["index.md"].content
    assert "[ext](guide.md#part-one)" in content
    # the built-in rules alone leave it external
    plain = build(load_config(config), Engine()).sections["s"].pages["index.md"].content
    assert "[ext](https://example.org/x)" in plain and "part-one" not in plain


def test_builtin_calls_only_when_the_builtins_alone_implement_a_hook() -> None:
    from miles_docs_plugin.builtin import links, mintlify

    # pluggy's order: the mintlify check (plain) before the link rules (trylast)
    hooks = make_plugin_manager(entry_points=False)
    assert builtin_calls(hooks.pm.hook.mdp_resolve_link) == [mintlify.mdp_resolve_link,
                                                            links.mdp_resolve_link]
    hooks.disable(["mintlify"])
    assert builtin_calls(hooks.pm.hook.mdp_resolve_link) == [links.mdp_resolve_link]

    class Plain:
        @hookimpl(trylast=True)
        def mdp_resolve_link(self, link: object, page: object, ctx: object) -> None:
            return None

    class Wrapper:
        @hookimpl(wrapper=True)
        def mdp_resolve_link(self, link: object, page: object,
                             ctx: object) -> Any:
            return (yield)

    for plugin in (Plain(), Wrapper()):
        hooks = make_plugin_manager([plugin], entry_points=False)
        assert builtin_calls(hooks.pm.hook.mdp_resolve_link) is None


class Keys:
    """A plugin that declares a top-level and a per-source key."""

    @hookimpl
    def mdp_config_keys(self) -> ConfigKeys:
        return ConfigKeys(
            top=(FieldSpec("team", "string", "docs", "Team that owns the pages.",
                           check=lambda v: isinstance(v, str)),),
            source=(FieldSpec("owner", "string", None, "Owner of the source.", required=True,
                              check=lambda v: isinstance(v, str)),))


def parse(data: dict[str, Any], *plugins: object) -> Config:
    hooks = make_plugin_manager(plugins, entry_points=False)
    return parse_config(data, base_dir=Path("/nowhere"), config_file=Path("miles-docs.yml"),
                        env={}, hooks=hooks)


SOURCE = {"name": "s", "repo": "https://github.com/o/r", "owner": "ana"}


def test_a_plugin_declares_config_keys_validated_like_the_builtin_ones() -> None:
    config = parse({"sources": [SOURCE]}, Keys())
    assert config.extra == {"team": "docs"} and config.sources[0].extra == {"owner": "ana"}
    assert parse({"sources": [SOURCE], "team": "infra"}, Keys()).extra == {"team": "infra"}
    with pytest.raises(ConfigError) as exc:
        parse({"sources": [SOURCE], "team": 3}, Keys())
    assert exc.value.format() == ("miles-docs.yml: 'team' must be string, got 3 "
                                  "(team: Team that owns the pages.)")
    with pytest.raises(ConfigError) as exc:
        parse({"sources": [{**SOURCE, "owner": None}]}, Keys())
    assert exc.value.format() == ("miles-docs.yml: sources[0] (s): missing required key 'owner' "
                                  "(owner: Owner of the source.)")
    with pytest.raises(ConfigError, match=r"unknown key 'teams'.*did you mean 'team'"):
        parse({"sources": [SOURCE], "teams": "x"}, Keys())
    with pytest.raises(ConfigError, match="unknown key 'team'"):
        parse({"sources": [{k: v for k, v in SOURCE.items() if k != "owner"}], "team": "x"})


def test_a_key_declared_twice_names_both_owners() -> None:
    class Clash:
        @hookimpl
        def mdp_config_keys(self) -> ConfigKeys:
            return ConfigKeys(top=(FieldSpec("banner", "string", None, "Mine."),))

    with pytest.raises(ConfigError) as exc:
        parse({"sources": [SOURCE]}, Keys(), Clash())
    assert "declares the config key 'banner', which miles-docs itself declares too" in \
        exc.value.format()
    with pytest.raises(ConfigError, match=r"declares the config key 'team', "
                                          r"which plugin '\d+' declares too"):
        parse({"sources": [SOURCE]}, Keys(), Keys())

    class SourceClash:
        @hookimpl
        def mdp_config_keys(self) -> ConfigKeys:
            return ConfigKeys(source=(FieldSpec("owner", "string", None, "Mine."),))

    with pytest.raises(ConfigError, match=r"config key 'sources\[\]\.owner', which plugin"):
        parse({"sources": [SOURCE]}, Keys(), SourceClash())


def test_disable_names_builtins_and_refuses_unknown_names() -> None:
    assert parse({"sources": [SOURCE], "disable": ["nav", "provenance"]},
                 Keys()).disable == ("nav", "provenance")
    with pytest.raises(ConfigError) as exc:
        parse({"sources": [SOURCE], "disable": ["provenence"]}, Keys())
    assert exc.value.format() == (
        "miles-docs.yml: disable: unknown plugin 'provenence' in `disable` (did you mean "
        "'provenance'? built-in plugins: collect, git, local, links, components, openapi, "
        "mintlify, nav, provenance)")


def test_disable_turns_a_builtin_off_in_a_build(tmp_path: Path, cache_dir: Path) -> None:
    config = site(tmp_path)
    on = build(load_config(config), Engine()).sections["s"]
    assert "provenance" in on.pages["guide.md"].extra
    write(config, config.read_text() + "disable: [provenance]\n")
    off = build(load_config(config), Engine()).sections["s"]
    assert "provenance" not in off.pages["guide.md"].extra
    assert off.pages["guide.md"].content == on.pages["guide.md"].content


def test_collection_is_a_hook(tmp_path: Path, cache_dir: Path) -> None:
    class OnlyIndex:
        @hookimpl
        def mdp_collect(self, checkout: Checkout, ctx: BuildContext) -> Section:
            section = collect(checkout, ctx.report, max_page_bytes=1 << 20)
            del section.pages["guide.md"]
            return section

    config = site(tmp_path)
    assert set(build(load_config(config), Engine()).sections["s"].pages) == {"index.md",
                                                                           "guide.md"}
    result = build(load_config(config), Engine(), plugins=[OnlyIndex()])
    assert set(result.sections["s"].pages) == {"index.md"}
    write(config, config.read_text() + "disable: [collect]\n")
    with pytest.raises(ContentError, match="no plugin collected the pages of source 's'.*"
                                           r"disable: \[collect\]"):
        build(load_config(config), Engine())
    write(config, config.read_text().replace("disable: [collect]", "disable: [git]"))
    with pytest.raises(FetchError, match=r"no plugin could fetch source 's' \(the built-in git "
                                         r"source is turned off \(`disable: \[git\]`\)\)"):
        build(load_config(config), Engine())


def test_a_plugin_renders_a_component(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n\n<Note>\nA note.\n</Note>\n\n"
                                             "<Tip>\nA tip.\n</Tip>\n"})
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))

    class Notes:
        @hookimpl
        def mdp_render_component(self, component: Component, page: Page,
                                 ctx: BuildContext) -> list[str] | None:
            if component.name != "Note":
                return None
            return [f"NOTE in {page.path}: {' '.join(component.inner()).strip()}", ""]

    plain = build(load_config(tmp_path / "miles-docs.yml"), Engine())
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine(), plugins=[Notes()])
    content = result.sections["s"].pages["index.md"].content
    before = plain.sections["s"].pages["index.md"].content
    assert before == "# Home\n\n> **Note**\n> A note.\n\n\n> **Tip**\n> A tip.\n\n"
    # the Note is the plugin's; the Tip, which it leaves, is the engine's, as without it
    assert content == "# Home\n\nNOTE in index.md: A note.\n\n\n\n> **Tip**\n> A tip.\n\n"


def test_names_plugins_imported_from_where_they_moved_from_still_import() -> None:
    """The components step, the link rules and the git checkout moved out of the built-ins
    (loaded on first use), and the scan's records and writer out of the scanner: a plugin that
    imports them from where they were still gets them."""
    from miles_docs_plugin.builtin.components import find_blocks, parse_attrs
    from miles_docs_plugin.builtin.git_source import CHECKOUT_WORKERS, checkout_into
    from miles_docs_plugin.builtin.links import SCHEME_RE, render
    from miles_docs_plugin.core.source import checkout
    from miles_docs_plugin.core.transform import components, links, scanned
    from miles_docs_plugin.core.transform.markdown import (
        LINK_ATTRS,
        SCANNER_VERSION,
        LinkRef,
        escape_destination,
        rewrite,
    )

    assert (find_blocks, parse_attrs) == (components.find_blocks, components.parse_attrs)
    assert (render, SCHEME_RE) == (links.render, links.SCHEME_RE)
    assert (checkout_into, CHECKOUT_WORKERS) == (checkout.checkout_into,
                                                 checkout.CHECKOUT_WORKERS)
    assert (LINK_ATTRS, SCANNER_VERSION, LinkRef, escape_destination, rewrite) == (
        scanned.LINK_ATTRS, scanned.SCANNER_VERSION, scanned.LinkRef,
        scanned.escape_destination, scanned.rewrite)
    with pytest.raises(AttributeError):
        from miles_docs_plugin.builtin import components as builtin

        builtin.__wrapped__  # noqa: B018 (an attribute no module has)
