"""Inline options under ``- miles-docs:`` are the schema's keys, all of them."""

from __future__ import annotations

from pathlib import Path

from support import make_repo, mkdocs_build, write

from miles_docs_plugin.core.config import TOP_FIELDS
from miles_docs_plugin.mkdocs_plugin import MilesDocsPluginConfig


def inline_host(host: Path, up: Path, commit: str, options: str = "") -> Path:
    """A MkDocs host whose ``- miles-docs:`` block holds ``options`` and the one source ``up``,
    pinned at ``commit``."""
    write(host / "mkdocs.yml", f"""
        site_name: Host
        plugins:
          - miles-docs:
{options}              sources:
                - name: diffusion
                  repo: {up.as_uri()}
        """)
    write(host / "docs" / "index.md", "# Host\n")
    write(host / "miles-docs.lock",
          f"version: 1\nsources:\n  diffusion:\n    repo: {up.as_uri()}\n    ref: main\n"
          f"    commit: {commit}\n")
    return host


def test_plugin_options_are_the_schema_keys() -> None:
    keys = {name for name, _option in MilesDocsPluginConfig._schema}
    assert keys == {f.key for f in TOP_FIELDS} | {"config_file", "enabled"}


def test_inline_max_page_size_is_used(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    big = "word " * (300 * 1024)  # 1.5 MiB
    commit = make_repo(up, {"docs/index.md": "# Home\n", "docs/big.md": f"# Big\n\n{big}\n"})
    host = inline_host(tmp_path / "host", up, commit,
                       "              max_page_size: 1\n"
                       "              host_urls: [https://host.example/docs]\n")
    result = mkdocs_build(host, strict=False)
    assert result.returncode == 0, result.output
    assert "Unrecognised configuration name" not in result.output
    assert "over the 1 MiB limit" in result.output, result.output
    assert not (host / "site" / "diffusion" / "big").exists()


def test_an_injected_page_is_not_held_twice_while_mkdocs_renders(tmp_path: Path,
                                                                  cache_dir: Path) -> None:
    """MkDocs keeps every page's Markdown until the build ends; the generated file's copy of
    the source goes once MkDocs has read it (a static site reads its files from disk)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.plugins import BasePlugin

    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "---\ntitle: Home\n---\n# Home\n\nText.\n",
                            "docs/guide.md": "# Guide\n\n[home](index.md)\n"})
    host = inline_host(tmp_path / "host", up, commit)
    held: dict[str, str] = {}

    class Probe(BasePlugin):  # type: ignore[type-arg,no-untyped-call]
        def on_env(self, env: object, *, config: object, files: object) -> None:
            for f in files:  # type: ignore[attr-defined]
                if f.generated_by and f.is_documentation_page():
                    held[f.src_uri] = f.content_string

    cfg = load_config(str(host / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    cfg.plugins["probe"] = Probe()
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)
    assert sorted(held) == ["diffusion/guide.md", "diffusion/index.md"]
    assert held == dict.fromkeys(held, "")
    page = (tmp_path / "site" / "diffusion" / "guide" / "index.html").read_text("utf-8")
    assert 'href="../"' in page  # rendered from the source all the same


def test_a_template_the_host_theme_lacks_is_reported_not_fatal(tmp_path: Path,
                                                               cache_dir: Path) -> None:
    """A trusted upstream keeps its front matter; a ``template:`` of the upstream's own
    site would stop MkDocs with a traceback naming no page: it is reported and left out."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "---\ntemplate: overrides/home.html\n---\n"
                                             "# Home\n\nText.\n"})
    config = f"sources:\n  - name: diffusion\n    repo: {up.as_uri()}\n    trust: full\n"
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit, config=config)
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert ("front matter template: 'overrides/home.html' is not a template of this site's "
            "theme") in run.output and "docs/index.md" in run.output, run.output
    assert "Text." in host.site().page("diffusion/index.html").text
