"""The pluggy core: specs, the plugin manager, the built-ins as ordinary plugins."""

from __future__ import annotations

import inspect
from pathlib import Path

import pluggy
import pytest
from support import lock_text, make_repo, write

from miles_docs_plugin import hookimpl, hookspecs
from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.model import ExternalTarget, PageTarget
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.plugins import BUILTIN_PLUGINS, make_plugin_manager

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
    assert order == ["fetch", "prepare", "resolve", "transform", "resolve", "transform", "nav",
                     "diagnostics"]
    assert calls.count("prepare") == 2 and calls.count("resolve") == 3


def test_a_plugin_can_resolve_links_first(tmp_path: Path, cache_dir: Path) -> None:
    class Redirect:
        @hookimpl(tryfirst=True)
        def mdp_resolve_link(self, link: object, page: object, ctx: object) -> object:
            if getattr(link, "dest", "") == "https://example.org/x":
                return PageTarget("s", "guide.md", "part-one")
            return None

    result = build(load_config(site(tmp_path)), Engine(), plugins=[Redirect()])
    content = result.sections["s"].pages["index.md"].content
    assert "[ext](guide.md#part-one)" in content
    assert ExternalTarget  # the built-in would have left it external
