"""Exact links: one problem, one warning at the upstream place, in both engines; the host's
MyST heading depth; encoded and folder paths."""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from hosts import ENGINES, make_host
from support import lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import build

BROKEN = {
    "docs/index.md": "# Home\n\nIntro.\n\nSee [the missing page](nope.md) here.\n\n"
                     "And [a missing heading](#nowhere).\n\n![a missing image](nope.png)\n",
}


def _warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if "WARNING" in line]


@pytest.mark.parametrize("engine", ENGINES)
def test_one_broken_link_is_one_warning_at_the_upstream_place(engine: str, tmp_path: Path,
                                                              cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, BROKEN)
    config = f"sources:\n  - name: diffusion\n    repo: {up.as_uri()}\n"  # no web_url: "#"
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit, config=config)
    result = host.build(strict=False)
    assert result.returncode == 0, result.output
    warnings = _warnings(result.output)
    assert len(warnings) == 3, result.output  # three problems, three warnings
    assert "docs/index.md:5" in warnings[0] and "nope.md" in warnings[0]
    assert "docs/index.md:7" in warnings[1] and "#nowhere" in warnings[1]
    assert "docs/index.md:9" in warnings[2] and "nope.png" in warnings[2]
    html = host.site().page(host.page_file("index.md")).text
    assert html.count('href="#"') >= 2 and "miles-docs-pin" not in html


def test_links_deeper_than_myst_heading_anchors_are_reported_upstream(tmp_path: Path,
                                                                     cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {
        "docs/index.md": "# Home\n\nTo [setup](guide.md#setup) and\n"
                         "[the deep one](guide.md#deep-detail).\n",
        "docs/guide.md": "# Guide\n\n## Setup\n\nText.\n\n### Deep detail\n\nMore.\n",
    })
    config = f"sources:\n  - name: diffusion\n    repo: {up.as_uri()}\n"
    host = make_host("sphinx", tmp_path / "host", up.as_uri(), commit, config=config,
                     conf_extra="myst_heading_anchors = 2\n")
    result = host.build(strict=False)
    assert result.returncode == 0, result.output
    warnings = _warnings(result.output)
    assert len(warnings) == 1, result.output
    assert "docs/index.md:4" in warnings[0], warnings
    assert "#deep-detail" in warnings[0] and "myst_heading_anchors = 2" in warnings[0]
    html = host.site().page(host.page_file("index.md")).text
    assert 'href="guide.html#setup"' in html and "guide.html#deep-detail" not in html


ENCODED = {
    "docs/index.md": "# Home\n\n[hash](a%23b.md), [question](c%3Fd.md), [percent](50%25.md)\n"
                     "and [the folder](guide/).\n",
    "docs/a#b.md": "# Hash page\n",
    "docs/c?d.md": "# Question page\n",
    "docs/50%.md": "# Percent page\n",
    "docs/guide.md": "# Sibling page\n",
    "docs/guide/index.md": "# Folder index\n",
}


def test_encoded_names_and_folder_links_resolve(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, ENCODED)
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine(host_pages=set()))
    # guide.md and guide/index.md stand for one URL: the folder's index has it, and the
    # sibling is reported by name (never lost in silence)
    assert [d.message.split(":")[0] for d in result.diagnostics] == [
        "guide.md is left out"]
    text = result.sections["s"].pages["index.md"].content
    assert "[hash](a%23b.md), [question](c%3Fd.md), [percent](50%25.md)" in text
    assert "[the folder](guide/index.md)" in text


@pytest.mark.parametrize("engine", ENGINES)
def test_encoded_names_and_folder_links_in_both_engines(engine: str, tmp_path: Path,
                                                        cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, ENCODED)
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
    result = host.build()
    assert result.returncode == 0, result.output
    site = host.site()
    assert [b for b in site.broken("diffusion") if "_sources/" not in b] == []
    index = site.page(host.page_file("index.md"))
    hrefs = [v for tag, key, v in index.refs if tag == "a"]
    for title, name in (("Hash page", "a#b"), ("Question page", "c?d"),
                        ("Percent page", "50%"), ("Folder index", "guide")):
        href = next(v for v in hrefs if unquote(v).removesuffix(".html").rstrip("/") in (
            name, f"{name}/index"))
        target = index.path.parent / unquote(href)
        target = target / "index.html" if target.is_dir() else target
        assert title in target.read_text("utf-8"), (href, hrefs)


def test_check_reads_the_sphinx_hosts_heading_depth(tmp_path: Path, cache_dir: Path) -> None:
    from miles_docs_plugin.cli import main

    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n\n[deep](#deep-detail)\n\n## Top\n\n"
                                             "### Deep detail\n"})
    site = tmp_path / "site"
    write(site / "conf.py", 'extensions = ["myst_parser"]\nmyst_heading_anchors = 2\n')
    write(site / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(site / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    out = io.StringIO()
    code = main(["check", "-f", str(site / "miles-docs.yml")], stdout=out, stderr=io.StringIO())
    assert code == 1, out.getvalue()
    assert "docs/index.md:3" in out.getvalue() and "myst_heading_anchors = 2" in out.getvalue()


@pytest.mark.parametrize("engine", ENGINES)
def test_links_to_mkdocs_slugs_reach_the_heading(engine: str, tmp_path: Path,
                                                 cache_dir: Path) -> None:
    """An MkDocs site's pages link to MkDocs' own slugs (``Caret, Mark & Tilde`` →
    ``#caret-mark-tilde``, a second ``Usage`` → ``#usage_1``), which are neither GitHub's
    nor MyST's: they go to the heading the engine gives its own id, with no warning."""
    from hosts import built_page

    files: dict[str, str | bytes] = {
        "mkdocs.yml": "site_name: Up\n",
        "docs/index.md": "# Home\n\nSee [marks](formatting.md#caret-mark-tilde) and "
                         "[the second](formatting.md#usage_1).\n",
        "docs/formatting.md": "# Formatting\n\n## Caret, Mark & Tilde\n\nText.\n\n"
                              "## Usage\n\nOne.\n\n## Usage\n\nTwo.\n\n"
                              "Back to [marks](#caret-mark-tilde).\n",
    }
    html = built_page(engine, tmp_path, files)  # (built strictly: no warning)
    other = built_page(engine, tmp_path / "again", files, "formatting.md")
    ids = set(re.findall(r'id="([^"]+)"', other))
    hrefs = re.findall(r'href="[^"]*formatting[^"#]*#([^"]+)"', html)
    assert len(hrefs) == 2 and all(h in ids for h in hrefs), (hrefs, ids)
    marks, second = hrefs
    assert "caret" in marks and second != marks
    assert other.index(f'id="{second}"') > other.index("One."), other


@pytest.mark.parametrize("engine", ENGINES)
def test_a_redirect_wins_over_a_folder_of_the_same_path(engine: str, tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """A site serves no folder: ``/realtime``, redirected to ``/realtime/overview`` while
    ``realtime/`` is a folder of pages, reaches the redirect's page (Mintlify follows the
    redirect), from a site-root and from a relative link, not the repository's folder."""
    from hosts import built_page
    files: dict[str, str | bytes] = {
        "docs/docs.json": '{"name": "Up", "navigation": {"pages": ["index", "realtime/overview"]},'
                          ' "redirects": [{"source": "/realtime", '
                          '"destination": "/realtime/overview"}]}\n',
        "docs/index.mdx": "# Home\n\nSee [realtime](/realtime) and [again](realtime#runs).\n",
        "docs/realtime/overview.mdx": "# Overview\n\n## Runs\n\nText.\n",
    }
    html = built_page(engine, tmp_path, files, "index.md")
    page = "realtime/overview/" if engine == "mkdocs" else "realtime/overview.html"
    assert f'href="{page}"' in html and f'href="{page}#runs"' in html
    assert "/tree/" not in html  # no link to the repository's folder


@pytest.mark.parametrize("engine", ENGINES)
def test_a_percent_encoded_anchor_reaches_its_heading(engine: str, tmp_path: Path,
                                                      cache_dir: Path) -> None:
    """Mintlify decodes a link's fragment and cleans it as its heading ids
    (`#tui-mode%3A-interactive` is the heading `TUI Mode: Interactive`), and `mint
    broken-links --check-anchors` accepts the link: it reaches the heading here too."""
    from hosts import built_page
    files: dict[str, str | bytes] = {
        "docs/docs.json": '{"name": "Up", "navigation": {"pages": ["index", "cli"]}}\n',
        "docs/index.mdx": "# Home\n\nSee [the TUI](/cli#tui-mode%3A-interactive-development) "
                          "and [again](cli#tui-mode:-interactive-development).\n",
        "docs/cli.mdx": "# CLI\n\n### TUI Mode: Interactive Development\n\nText.\n",
    }
    html = built_page(engine, tmp_path, files, "index.md")  # strict: no warning
    page = "cli/" if engine == "mkdocs" else "cli.html"
    assert html.count(f'href="{page}#tui-mode-interactive-development"') == 2, html


@pytest.mark.parametrize("engine", ENGINES)
def test_heading_ids_in_any_attr_list_spelling(engine: str, tmp_path: Path,
                                               cache_dir: Path) -> None:
    """attr_list's id in a heading written ``{ #id }`` (FastAPI writes every heading so),
    ``{: .wide #id }``: MkDocs emits it; Sphinx drops the list (it was shown as text, and
    MyST warned on every link to it) and links to the id reach the heading."""
    from hosts import built_page
    files: dict[str, str | bytes] = {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions: [attr_list, toc]\n",
        "docs/index.md": "# Home { #home }\n\n## Options { #options }\n\nText.\n\n"
                         "## Why it works {: .wide #why }\n\nMore.\n\n"
                         "See [options](#options), [why](#why) and [home](#home).\n",
    }
    html = built_page(engine, tmp_path, files, "index.md")  # strict
    assert "{ #options }" not in html and "#why }" not in html and ".wide" not in html
    if engine == "mkdocs":
        assert 'id="options"' in html and 'id="why"' in html
        assert 'href="#options"' in html and 'href="#why"' in html
    else:
        assert 'href="#options"' in html and 'href="#why-it-works"' in html


@pytest.mark.parametrize("engine", [*ENGINES, "mintlify"])
def test_an_anchor_broken_on_the_upstreams_mintlify_site_is_said(engine: str, tmp_path: Path,
                                                                 cache_dir: Path) -> None:
    """A Mintlify upstream's link to a heading by its GitHub spelling (Continue's FAQ links
    `#android-studio---nothing-to-show-in-chat`; Mintlify's id is
    `#android-studio-nothing-to-show-in-chat`) is broken on its own site (`mint
    broken-links --check-anchors` says so): resolved here, and said, as a link to a page's
    `.md` file is. Links by Mintlify's ids, to HTML ids and custom ids say nothing."""
    files: dict[str, str | bytes] = {
        "docs/docs.json": '{"name": "Up", "navigation": {"pages": ["index", "faqs"]}}\n',
        "docs/index.mdx": "# Home\n\nSee [a](/faqs#android-studio---nothing-to-show-in-chat), "
                          "[b](/faqs#android-studio-nothing-to-show-in-chat), [c](/faqs#kept) "
                          "and [d](/faqs#own).\n",
        "docs/faqs.mdx": "# FAQs\n\n## Android Studio - Nothing to show in chat\n\nText.\n\n"
                         '<a id="kept"></a>\n\n## Setup {#own}\n\nMore.\n',
    }
    up = tmp_path / "up"
    commit = make_repo(up, files)
    if engine == "mintlify":
        from test_mintlify_host import _build_section
        stderr = _build_section(tmp_path / "m", files, "")
        said = [line for line in stderr.splitlines() if "Mintlify site" in line]
    else:
        host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
        run = host.build(strict=False)
        assert run.returncode == 0, run.output
        said = [line for line in run.output.splitlines() if "Mintlify site" in line]
        html = host.site().page(host.page_file("index.md")).text
        assert html.count("nothing-to-show-in-chat") == 2, html  # both resolved
    assert len(said) == 1 and "#android-studio---nothing-to-show-in-chat is broken" in said[0]
    assert "(the id there is #android-studio-nothing-to-show-in-chat)" in said[0]
    assert "docs/index.mdx:3" in said[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_link_with_an_id_is_an_anchor(engine: str, tmp_path: Path,
                                               cache_dir: Path) -> None:
    """pydantic keeps an old heading id with ``[](){#old-name}`` over the heading: on Sphinx
    the list went and ``[]()`` stayed, a link to nothing (MyST: "cross-reference target not
    found", which fails ``-W``); links to the old id reach the heading."""
    from hosts import built_page
    html = built_page(engine, tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions: [attr_list]\n",
        "docs/index.md": "# Home\n\n[](){#old-name}\n## New name\n\nText.\n\n"
                         "See [it](#old-name).\n"})  # strict
    assert "[]()" not in html and "{#old-name}" not in html
    target = "#old-name" if engine == "mkdocs" else "#new-name"
    assert f'href="{target}"' in html, html
