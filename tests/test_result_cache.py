"""Warm builds reuse the previous build's results, and only when nothing they depend on moved."""

from __future__ import annotations

from pathlib import Path

from support import lock_text, make_repo, write

from miles_docs_plugin import hookimpl
from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.context import Engine
from miles_docs_plugin.core.pipeline import BuildResult, build


def site(tmp_path: Path, extra: str = "") -> Path:
    up = tmp_path / "up"
    commit = make_repo(up, {
        "docs/index.md": "---\ntitle: Home\n---\n<Note>\nSee [g](guide.md#part).\n</Note>\n",
        "docs/guide.md": "# Guide\n\n## Part\n\n[missing](nope.md)\n",
    })
    write(tmp_path / "miles-docs.yml",
          f"{extra}sources:\n  - name: s\n    repo: {up.as_uri()}\n    web_url: https://x.org/o/r\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    return tmp_path / "miles-docs.yml"


def snapshot(result: BuildResult) -> object:
    section = result.sections["s"]
    return ({p: (pg.content, pg.title, pg.extra.get("provenance"), pg.extra.get("banner_html"))
             for p, pg in
             section.pages.items()}, [d.format() for d in section.diagnostics],
            repr(section.nav), sorted(section.assets))


def test_a_warm_build_reuses_the_results_exactly(tmp_path: Path, cache_dir: Path) -> None:
    path = site(tmp_path)
    first = build(load_config(path), Engine())
    assert "reused" not in first.timings
    second = build(load_config(path), Engine())
    assert second.timings.get("reused")
    assert "transform" not in second.timings
    assert snapshot(second) == snapshot(first)
    assert any("nope.md" in d.message for d in second.diagnostics)  # diagnostics come back too


def test_any_input_change_means_a_rebuild(tmp_path: Path, cache_dir: Path) -> None:
    path = site(tmp_path)
    build(load_config(path), Engine())
    warm = build(load_config(path), Engine())
    assert warm.timings.get("reused")
    assert "miles-docs-banner" in warm.sections["s"].pages["guide.md"].extra["banner_html"]
    # the config
    write(path, "banner: false\n" + path.read_text())
    changed = build(load_config(path), Engine())
    assert not changed.timings.get("reused")
    assert "banner_html" not in changed.sections["s"].pages["guide.md"].extra
    # the host's pages
    assert not build(load_config(path), Engine(host_pages={"index.md"})).timings.get("reused")
    # the engine's settings
    class Other(Engine):
        raw_html_ids = False

    assert not build(load_config(path), Other()).timings.get("reused")


def test_plugins_that_do_not_say_they_are_pure_disable_it(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    calls: list[str] = []

    class Counting:
        @hookimpl
        def mdp_transform_page(self, page: object, ctx: object) -> None:
            calls.append("x")

    path = site(tmp_path)
    build(load_config(path), Engine(), plugins=[Counting()])
    build(load_config(path), Engine(), plugins=[Counting()])
    assert len(calls) == 4  # two pages, two builds: it ran every time

    class Pure(Counting):
        miles_docs_cacheable = True

    calls.clear()
    build(load_config(path), Engine(), plugins=[Pure()])
    build(load_config(path), Engine(), plugins=[Pure()])
    assert len(calls) == 2


def test_local_working_copies_are_never_reused(tmp_path: Path, cache_dir: Path) -> None:
    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# One\n")
    write(tmp_path / "miles-docs.yml",
          f"sources:\n  - name: s\n    repo: https://x.org/o/r.git\n    local: {wc}\n")
    build(load_config(tmp_path / "miles-docs.yml"), Engine())
    (wc / "docs" / "index.md").write_text("# Two\n")
    again = build(load_config(tmp_path / "miles-docs.yml"), Engine())
    assert not again.timings.get("reused")
    assert "# Two" in again.sections["s"].pages["index.md"].content
