"""MkDocs' own blocks (admonitions, collapsibles, tabs) on an MkDocs host: their content,
indented four spaces, is Markdown to MkDocs, and its links are rewritten like any other.

CommonMark reads that content as indented code after a blank line (MkDocs' usual style), so
the link scan reads the page's margin view (:func:`~miles_docs_plugin.core.transform.dialect.
margin_view`) instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
from hypothesis import given, settings
from hypothesis import strategies as st
from support import make_repo, mkdocs_build, write

from miles_docs_plugin.core.transform.dialect import margin_view
from miles_docs_plugin.core.transform.markdown import scan

ALL = frozenset({"!!!", "???", "==="})

PAGE = """\
# Home

!!! note "Read first"

    See [the script](../scripts/run.py) and [setup](guide.md#install-it).

    ??? tip

        Nested: [script again](../scripts/run.py#L2)

=== "pip"

    Run [install](guide.md).

1. Set up

    !!! tip

        Run [it](../scripts/run.py#L1) first.

        - Then

            ??? note

                [Read on](guide.md#install-it).

2. Go

```text
!!! note

    [not a link](../scripts/nowhere.py)
```
"""


def test_links_in_block_content_are_rewritten_in_a_real_mkdocs_build(
        tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": PAGE,
                            "docs/guide.md": "# Guide\n\n## Install it\n",
                            "scripts/run.py": "print('run')\n"})
    site = tmp_path / "host"
    write(site / "mkdocs.yml", "site_name: Host\nplugins:\n  - miles-docs\n")
    write(site / "docs" / "index.md", "# Host\n")
    write(site / "miles-docs.yml", f"""
        sources:
          - name: diffusion
            repo: {up.as_uri()}
            web_url: https://github.com/o/r
        """)
    write(site / "miles-docs.lock",
          f"version: 1\nsources:\n  diffusion:\n    repo: {up.as_uri()}\n    ref: main\n"
          f"    commit: {commit}\n")
    run = mkdocs_build(site)  # --strict: a link MkDocs cannot find fails the build
    assert run.returncode == 0, run.output
    page = (site / "site" / "diffusion" / "index.html").read_text("utf-8")
    hrefs = re.findall(r'href="([^"]+)"', page)
    script = f"https://github.com/o/r/blob/{commit}/scripts/run.py"
    assert script in hrefs and f"{script}#L2" in hrefs, hrefs
    assert f"{script}#L1" in hrefs, hrefs  # in a list item's block
    assert "guide/#install-it" in hrefs and "guide/" in hrefs, hrefs
    assert page.count('<div class="admonition ') == 2 and "tabbed-set" in page, page
    assert page.count("<details") == 2, page
    assert "../scripts/nowhere.py" in page  # in fenced code: as written


def test_the_view_moves_block_content_to_its_margin_and_maps_offsets_back() -> None:
    view = margin_view(PAGE, ALL)
    assert view is not None
    lines = view.text.split("\n")
    assert len(lines) == len(PAGE.split("\n"))  # lines keep their numbers
    assert "See [the script](../scripts/run.py) and [setup](guide.md#install-it)." in lines
    assert "Nested: [script again](../scripts/run.py#L2)" in lines
    assert "Run [install](guide.md)." in lines
    assert "    Run [it](../scripts/run.py#L1) first." in lines  # in its list item
    assert "        [Read on](guide.md#install-it)." in lines
    assert "    [not a link](../scripts/nowhere.py)" in lines  # fenced code stays
    found = scan(view.text).links
    assert [link.dest for link in found] == [
        "../scripts/run.py", "guide.md#install-it", "../scripts/run.py#L2", "guide.md",
        "../scripts/run.py#L1", "guide.md#install-it"]
    for link in found:
        start, end = view.offset(link.start), view.offset(link.end)
        assert PAGE[start:end] == link.dest
    # as written, CommonMark reads all but the tab's as indented code
    assert [link.dest for link in scan(PAGE).links] == []


def test_only_the_blocks_the_engine_reads_move() -> None:
    assert margin_view(PAGE, frozenset()) is None
    tabs_only = margin_view(PAGE, frozenset({"==="}))
    assert tabs_only is not None
    assert "    See [the script](../scripts/run.py)" in tabs_only.text
    assert "Run [install](guide.md)." in tabs_only.text.split("\n")


def test_what_is_not_a_block_stays() -> None:
    # indented four columns past its content: indented code, not a block
    assert margin_view("Text\n\n    !!! note\n\n        [a](b.md)\n", ALL) is None
    # past the list item, which a blank line and a line at the margin end; or a rule
    for before in ("- Item\n\nText\n", "* * *\n", "Text\n\n    - code\n"):
        assert margin_view(before + "\n    !!! note\n\n        [a](b.md)\n", ALL) is None
    # in the item, lazily continued, and in a nested one
    for before in ("- Item\ncontinued\n", "1. Item\n    - Nested\n\n    Text\n"):
        view = margin_view(before + "\n    !!! note\n\n        [a](b.md)\n", ALL)
        assert view is not None and "\n    [a](b.md)\n" in view.text
    # no content
    assert margin_view("!!! note\n\nText [a](b.md)\n", ALL) is None
    # a tab counts four columns, and what is left of the indent stays
    view = margin_view("!!! note\n\n\t[a](b.md)\n\n      [c](d.md)\n", ALL)
    assert view is not None
    assert view.text == "!!! note\n\n[a](b.md)\n\n  [c](d.md)\n"
    assert [view.offset(i) for i in (10, 21)] == [11, 26]


def test_a_block_another_plugin_adds_while_preparing_is_read_too(tmp_path: Path) -> None:
    """The components plugin notes whether a page holds a block marker as it prepares it (the
    scan then need not look again); a page another plugin changes afterwards is looked at
    again."""
    from miles_docs_plugin import hookimpl
    from miles_docs_plugin.core.config import parse_config
    from miles_docs_plugin.core.context import BLOCK_MARKS
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.model import Page
    from miles_docs_plugin.core.pipeline import build

    class BlocksEngine(Engine):
        mkdocs_blocks = frozenset({"!!!"})

    class AddsANote:
        @hookimpl(trylast=True)
        def mdp_prepare_page(self, page: Page) -> None:
            if page.path == "late.md":
                page.content += "\n!!! note\n\n    See [run](../scripts/run.py).\n"

    wc = tmp_path / "wc"
    write(wc / "scripts" / "run.py", "print('run')\n")
    write(wc / "docs" / "early.md", "# Early\n\n!!! note\n\n    See [run](../scripts/run.py).\n")
    write(wc / "docs" / "late.md", "# Late\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc), "web_url": "https://github.com/o/r"}]},
                          base_dir=tmp_path, env={})
    result = build(config, BlocksEngine(), plugins=[AddsANote()], use_scan_cache=False)
    pages = result.sections["s"].pages
    assert pages["early.md"].extra[BLOCK_MARKS][1] is True
    assert pages["late.md"].extra[BLOCK_MARKS][1] is False  # noted before the note came
    for page in (pages["early.md"], pages["late.md"]):
        assert "(../scripts/run.py)" not in page.content, page.content
        assert "https://github.com/o/r/blob/" in page.content, page.content


#: One line of a generated page (its number goes into link texts), indented 0-12 columns.
LINES = {"text": "Text [a{n}](p{n}.md)", "item": "- Item [i{n}](q{n}.md)",
         "step": "1. Step [s{n}](s{n}.md)", "note": "!!! note", "tip": "??? tip",
         "tab": '=== "T{n}"', "fence": "```\n{indent}[f{n}](f{n}.md)\n{indent}```"}
MKDOCS_EXTENSIONS = ["admonition", "pymdownx.details", "pymdownx.tabbed",
                     "pymdownx.superfences"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(sorted(LINES))), min_size=1,
                max_size=9))
def test_the_scan_of_the_view_finds_the_links_python_markdown_renders(
        lines: list[tuple[int, str]]) -> None:
    """Blocks in blocks, in list items and lists in blocks, at every indentation: the links
    the scan finds in the view are those MkDocs' Markdown renders, and map back to the page."""
    page = ""
    for n, (level, kind) in enumerate(lines):
        indent = "    " * level
        page += indent + LINES[kind].format(n=n, indent=indent) + "\n\n"
    view = margin_view(page, ALL)
    found = scan(view.text if view else page).links
    rendered = markdown.markdown(page, extensions=MKDOCS_EXTENSIONS)
    assert sorted(link.dest for link in found) == \
        sorted(re.findall(r'<a href="([^"]+)"', rendered)), (page, rendered)
    if view is not None:
        for link in found:
            assert page[view.offset(link.start):view.offset(link.end)] == link.dest
