"""A page whose front matter has a title and whose body has no level-1 heading gets the title
as its heading (as Mintlify shows it). Whether the body has one is read from the page's scan,
and the scan of the page with the heading inserted is made from it (``with_heading``), not by
reading the page again: these tests hold that equal to a scan of the whole text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import CORPUS, Site, lock_text, make_repo, mkdocs_build, write
from test_scan_reference import grammar_page

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import BuildResult, build
from miles_docs_plugin.core.transform.components import _heading_text
from miles_docs_plugin.core.transform.markdown import scan, with_heading
from miles_docs_plugin.core.transform.scanned import ScanResult

TITLES = ["Setup", "Setup & run", "A *starred* [title](x.md) <b>", "&amp; &copy; \\ `x`",
          "Über # hash", "   spaced   out   "]


def assert_derived(body: str, title: str, offset: int = 4) -> None:
    heading = "# " + _heading_text(title)
    newline = "\r\n" if "\r\n" in body else "\n"
    derived = with_heading(heading, newline, scan(body, line_offset=offset), offset)
    assert derived == scan(heading + newline + body, line_offset=offset - 1)


@pytest.mark.parametrize("tree", ["miles_diffusion/v2", "miles_host/tree", "mem0/tree"])
def test_the_derived_scan_is_the_scan_of_every_corpus_page_with_its_heading(tree: str) -> None:
    pages = sorted(p for p in (CORPUS / tree).rglob("*") if p.suffix in (".md", ".mdx"))
    assert pages
    for i, page in enumerate(pages):
        assert_derived(page.read_text("utf-8"), TITLES[i % len(TITLES)])


def test_the_derived_scan_is_the_scan_of_generated_pages_with_their_heading() -> None:
    for seed in range(1500):
        text = grammar_page(seed)
        try:
            assert_derived(text, TITLES[seed % len(TITLES)])
        except AssertionError as error:
            raise AssertionError(f"grammar_page({seed}) = {text!r}") from error


@pytest.mark.parametrize("body", [
    "", "\n", "text", "---\nx\n", "===\n", "    code\n", "- item\n", "> quote\n",
    "[r]\n\n[r]: d.md\n", "<div>\n# not a heading\n</div>\n", "a\r\n[l](d.md)\r\n",
    "Title\n=====\n", "```\n# comment\n```\n[l](d.md)\n",
])
def test_the_derived_scan_at_the_edges_of_a_page(body: str) -> None:
    for title in TITLES:
        assert_derived(body, title)


PAGES: dict[str, str | bytes] = {
    "docs/index.md": "# Home\n\nSee [run](run.md#steps) and [again](again.md#again).\n",
    # a title, no level-1 heading, a `#` line in a fence that only looks like one
    "docs/run.md": (
        "---\ntitle: Setup & run\n---\n\nIntro, [home](index.md).\n\n"
        "```bash\n# install it\npip install x\n```\n\n## Steps\n\n"
        "[steps](#steps) and [broken](#nope).\n"),
    # a title and a level-1 heading of its own: no second one
    "docs/again.md": "---\ntitle: Ignored\n---\n\n# Again\n\n```sh\n# c\n```\n",
}


def _build(tmp_path: Path) -> BuildResult:
    up = tmp_path / "up"
    commit = make_repo(up, PAGES)
    write(tmp_path / "miles-docs.yml", f"""
        sources:
          - name: s
            repo: {up.as_uri()}
            web_url: https://github.com/o/r
        """)
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    return build(load_config(tmp_path / "miles-docs.yml"), Engine())


def test_a_titled_page_gets_its_heading_once_and_links_to_it_resolve(
        tmp_path: Path, cache_dir: Path) -> None:
    result = _build(tmp_path)
    pages = result.sections["s"].pages
    run = pages["run.md"].content
    assert run.count("# Setup & run") == 1 and run.index("# Setup") < run.index("Intro")
    assert "# install it" in run
    again = pages["again.md"].content
    assert "Ignored" not in again.split("---")[-1] and again.count("# Again") == 1
    found = [d.format() for d in result.diagnostics]
    assert not any("#steps" in m or "#again" in m for m in found), found
    # lines are upstream's: the inserted heading moves none
    assert any("docs/run.md:14: anchor #nope matches no heading" in m for m in found), found
    # the scan the links step used: the inserted heading, then the body's on upstream's lines
    scanned = pages["run.md"].scan
    assert scanned is not None
    assert [(h.level, h.text, h.line) for h in scanned.headings] == [
        (1, "Setup & run", 3), (2, "Steps", 12)]


def test_mkdocs_shows_the_title_as_the_one_page_heading(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, PAGES)
    site = tmp_path / "site"
    write(site / "docs" / "index.md", "# Host\n")
    write(site / "mkdocs.yml", "site_name: Host\nplugins:\n  - miles-docs\n")
    write(site / "miles-docs.yml", f"""
        sources:
          - name: s
            repo: {up.as_uri()}
            web_url: https://github.com/o/r
            mount: s
        """)
    write(site / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    assert mkdocs_build(site, strict=False).returncode == 0
    html = Site(site / "site")
    assert h1s(html.page("s/run/index.html").text) == ["Setup &amp; run"]
    assert h1s(html.page("s/again/index.html").text) == ["Again"]


def h1s(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<h1\b.*?</h1>", html, re.S)]


def test_an_autodoc_line_in_a_fence_stays_code_on_a_page_without_headings(
        tmp_path: Path, cache_dir: Path) -> None:
    """An engine with admonitions and no mkdocstrings: `::: module` lines become a note, but
    not inside a fence (the page's code lines come from a block parse even when nothing on the
    page looks like a heading)."""
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": (
        "API\n\n!!! note\n    See below.\n\n```text\n::: pkg.mod\n```\n\n::: pkg.other\n")})
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    engine = Engine()
    engine.features = frozenset({"admonition"})
    text = build(load_config(tmp_path / "miles-docs.yml"), engine).sections["s"].pages[
        "index.md"].content
    assert "```text\n::: pkg.mod\n```" in text
    assert "::: pkg.other" not in text and "`pkg.other` is generated by the upstream" in text


def test_a_titled_page_is_scanned_once_even_without_a_kept_cache(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan that decides the title heading is the one the link step uses, also in a
    build that keeps no scan cache (its scans are kept in memory for the build)."""
    from miles_docs_plugin.core.transform import markdown

    scanned: list[str] = []
    real = markdown.scan

    def counting(text: str, **kwargs: object) -> ScanResult:
        scanned.append(text)
        return real(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown, "scan", counting)
    up = tmp_path / "up"
    commit = make_repo(up, PAGES)
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine(), use_scan_cache=False)
    assert "# Setup & run" in result.sections["s"].pages["run.md"].content
    assert sum("Intro, [home]" in text for text in scanned) == 1, scanned


def test_sphinx_titles_untitled_mkdocs_pages_as_mkdocs_does(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    """MkDocs takes a page's title from the upstream's nav, else its file name, and its themes
    show it as the heading: MkDocs authors leave the ``#`` line out. MyST would warn that the
    headings start at H2 (``-W`` fails) and Sphinx would name the page after its first H2."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, {
        "mkdocs.yml": "site_name: Up\nnav:\n  - Introduction: index.md\n  - guide_one.md\n"
                      "  - More:\n    - Setting it up: more/index.md\n    - more/API-notes.md\n",
        "docs/index.md": "Intro text, see [notes](more/API-notes.md#usage).\n\n## Highlights\n\n"
                         "Text.\n\n## Next steps\n\nMore.\n",
        "docs/guide_one.md": "Just text.\n",
        "docs/more/index.md": "## Part\n\nText.\n",
        "docs/more/API-notes.md": "## Usage\n\nText.\n",
        "docs/more/titled.md": "# Has one\n\n## Usage\n",
    })
    host = make_host("sphinx", tmp_path / "sphinx", up.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    assert "myst.header" not in run.output, run.output
    site = host.site()

    def title(page: str) -> str:
        found = re.search(r"<h1>(.*?)<a class=\"headerlink", site.page(page).text, re.S)
        assert found is not None, page
        return found.group(1).strip()

    assert title("diffusion/index.html") == "Introduction"  # from the nav
    assert title("diffusion/guide_one.html") == "Guide one"  # from the file name
    assert title("diffusion/more/index.html") == "Setting it up"
    assert title("diffusion/more/API-notes.html") == "API notes"  # its case kept
    assert title("diffusion/more/titled.html") == "Has one"  # its own
    assert 'href="more/API-notes.html#usage"' in site.page("diffusion/index.html").text

    mk = make_host("mkdocs", tmp_path / "mkdocs", up.as_uri(), commit)
    run = mk.build()
    assert run.returncode == 0, run.output
    page = Site(mk.out).page("diffusion/index.html").text
    assert "<h1" not in page.split("<main>")[1], page  # MkDocs titles it from the nav itself


def test_sphinx_reads_headings_below_the_title_without_a_gap(tmp_path: Path,
                                                             cache_dir: Path) -> None:
    """Mintlify pages often start at ``###`` under their front matter title: MyST warned
    "Non-consecutive header level increase; H1 to H3" (``-W`` failed on Helicone's FAQ). Sphinx
    nests such a heading one level down anyway, so it is written there; code stays."""
    from hosts import built_page

    html = built_page("sphinx", tmp_path, {
        "docs/faq.mdx": "---\ntitle: FAQ\n---\n\n### First question\n\nText.\n\n"
                        "##### Detail\n\nMore.\n\n```bash\n### not a heading\n```\n\n"
                        "## Second part\n\n#### Deep\n\n[Back](#first-question) "
                        "and [down](#deep).\n",
    }, "faq.md")
    tags = re.findall(r"<(h\d)>([^<]*)", html.split("sphinxsidebar")[0])
    assert tags == [("h1", "FAQ"), ("h2", "First question"), ("h3", "Detail"),
                    ("h2", "Second part"), ("h3", "Deep")], tags
    assert "### not a heading" in html
    assert 'href="#first-question"' in html and 'href="#deep"' in html


def test_names_become_titles_as_mkdocs_makes_them() -> None:
    """A folder's group in a tree nav, and a page titled from its file name, are named as
    MkDocs names them: capitalized when all lowercase, else as written ("API reference", not
    "Api Reference"; "LoRA training", not "Lora Training")."""
    from mkdocs.utils import dirname_to_title

    from miles_docs_plugin.builtin.nav import auto_nav
    from miles_docs_plugin.core.model import NavGroup, name_title
    from miles_docs_plugin.sphinx_ext.toctree import stem_title

    for name in ["getting-started", "API-reference", "FAQ", "qwen_image", "LoRA-training", "uv"]:
        assert name_title(name) == dirname_to_title(name), name
    assert stem_title("more/LoRA-training.md") == "LoRA training"
    nav = auto_nav(["index.md", "API-reference/index.md", "getting-started/quick-start.md"])
    assert [item.title for item in nav if isinstance(item, NavGroup)] == [
        "API reference", "Getting started"]
