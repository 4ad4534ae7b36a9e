"""A third-party plugin (``tests/plugins/example_plugin.py``), installed as one would be.

The plugin is found through a dist-info whose ``entry_points.txt`` registers it in the
``miles_docs`` group, on ``PYTHONPATH`` of real ``mkdocs build`` and ``sphinx-build`` runs. It
declares config keys (validated like the built-in ones) and its users turn a built-in off with
``disable:``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hosts import Host, make_host
from support import make_repo, write

from miles_docs_plugin.core.section.banner import BANNER_CLASS

PLUGINS = Path(__file__).resolve().parent / "plugins"
STAMP = 'class="example-stamp"'


def install(tmp_path: Path) -> dict[str, str]:
    """An environment in which the example plugin is installed (a dist-info in the group)."""
    site = tmp_path / "site-packages"
    info = site / "example_miles_docs_stamp-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: example-miles-docs-stamp\n"
                             "Version: 1.0\n")
    write(info / "entry_points.txt", "[miles_docs]\nexample-stamp = example_plugin\n")
    return {"PYTHONPATH": f"{site}:{PLUGINS}"}


def host(tmp_path: Path, engine: str, config: str) -> Host:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Upstream home\n\n[Guide](guide.md)\n",
                            "docs/guide.md": "# Guide\n\nText.\n"})
    return make_host(engine, tmp_path / "host", up.as_uri(), commit, name="up",
                     config=f"sources:\n  - name: up\n    repo: {up.as_uri()}\n{config}")


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_plugin_declares_a_key_and_replaces_a_disabled_builtin(tmp_path: Path, engine: str,
                                                                  cache_dir: Path) -> None:
    site = host(tmp_path, engine, "stamp: Imported from up\ndisable: [provenance]\n")
    run = site.build(env=install(tmp_path))
    assert run.returncode == 0, run.output
    page = site.site().page("up/guide/index.html" if engine == "mkdocs" else "up/guide.html")
    assert STAMP in page.text and "Imported from up (up: guide.md)" in page.text
    assert BANNER_CLASS not in page.text  # the built-in banner is off


def test_without_disable_the_builtin_still_runs(tmp_path: Path, cache_dir: Path) -> None:
    # the built-in provenance plugin (trylast) writes its banner after the plugin's stamp
    site = host(tmp_path, "mkdocs", "    stamped: true\n")
    run = site.build(env=install(tmp_path))
    assert run.returncode == 0, run.output
    page = site.site().page("up/guide/index.html")
    assert BANNER_CLASS in page.text and STAMP not in page.text


def test_a_per_source_key_of_the_plugin(tmp_path: Path, cache_dir: Path) -> None:
    site = host(tmp_path, "mkdocs", "    stamped: false\ndisable: [provenance]\n")
    run = site.build(env=install(tmp_path))
    assert run.returncode == 0, run.output
    page = site.site().page("up/guide/index.html")
    assert STAMP not in page.text and BANNER_CLASS not in page.text


def test_the_plugin_keys_are_validated_like_the_builtin_ones(tmp_path: Path,
                                                             cache_dir: Path) -> None:
    site = host(tmp_path, "mkdocs", "stamp: 3\n")
    run = site.build()  # without the plugin, its key is unknown
    assert run.returncode != 0
    assert "miles-docs.yml: unknown key 'stamp'" in run.output, run.output
    run = site.build(env=install(tmp_path))
    assert run.returncode != 0
    assert "miles-docs.yml: 'stamp' must be string, got 3" in run.output, run.output
    assert "The line the example plugin puts on every injected page." in run.output


def test_the_plugin_resolves_every_link_it_knows(tmp_path: Path, cache_dir: Path) -> None:
    # the built-in link rules are called directly when they alone resolve links; a plugin's
    # implementation is still asked about every link, and the built-ins about the rest
    up = tmp_path / "up"
    commit = make_repo(up, {
        "docs/index.md": "# Home\n\n[one](page:guide) and [two](page:guide)\n\n"
                         "- [three](page:other)\n- [four](guide.md)\n",
        "docs/guide.md": "# Guide\n\n[back](page:index)\n",
        "docs/other.md": "# Other\n"})
    site = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit, name="up")
    run = site.build(env=install(tmp_path))
    assert run.returncode == 0, run.output
    html = site.site().page("up/index.html").text
    for text, href in (("one", "guide/"), ("two", "guide/"), ("three", "other/"),
                       ("four", "guide/")):
        assert f'<a href="{href}">{text}</a>' in html, html
    assert '<a href="../">back</a>' in site.site().page("up/guide/index.html").text
