"""Which pages the MkDocs engine shapes for Python-Markdown (``_may_need_shaping``).

Shaping (:func:`commonmark_blocks`) parses a page with markdown-it, about a millisecond a page:
on a cold build of 1,000 pages with a fenced block each it was most of the MkDocs engine's own
time. The gate must let through every page whose rendering shaping changes, and may leave out
the rest: a closing fence under a code line, or a code line under a bare opening fence, is no
fence next to a line of text.
"""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from support import CORPUS

from miles_docs_plugin.mkdocs_plugin.commonmark import commonmark_blocks
from miles_docs_plugin.mkdocs_plugin.engine import _may_need_shaping, mkdocs_source

EXTENSIONS = ["admonition", "pymdownx.superfences", "pymdownx.details", "pymdownx.tabbed",
              "tables", "attr_list"]


def _rendered(text: str) -> str:
    """Python-Markdown's HTML with runs of white space outside ``<pre>`` made one space (the
    shaping moves a continued item's text by a column, which no reader sees)."""
    html = markdown.markdown(text, extensions=EXTENSIONS)
    parts = re.split(r"(<pre.*?</pre>)", html, flags=re.S)
    return "".join(p if p.startswith("<pre") else re.sub(r"\s+", " ", p) for p in parts)


def _reads_the_same_unshaped(page: str) -> bool:
    shaped = commonmark_blocks(page)
    return shaped == page or _rendered(shaped) == _rendered(page)


BETWEEN_BLANK_LINES = [
    "Intro.\n\n```bash\ngit clone x\npython run.py\n```\n\nMore text.\n",
    "# Title\n\n```\nplain code\n```\n\n~~~python\nx = 1\n~~~\n",
    "Text.\n\n````md\n```\ninner\n```\n````\n\nAfter.\n",
    "- item\n\n    ```python\n    code\n    ```\n\n- next\n",
    # code indented as YAML and JSON are: no line of it is a line of the page's text
    "Config:\n\n```yaml\nsteps:\n  - run: x\n   - more\n```\n\n```json\n{\n  \"a\": 1\n}\n```\n",
]


@pytest.mark.parametrize("page", BETWEEN_BLANK_LINES)
def test_fenced_blocks_between_blank_lines_are_not_shaped(page: str) -> None:
    assert not _may_need_shaping(page)
    assert commonmark_blocks(page) == page  # shaping would have changed nothing
    assert mkdocs_source(page, 0) == page


TOUCHING = [
    "Run:\n```bash\necho x\n```\n\nDone.\n",  # opens right under a line of text
    "Text.\n\n```bash\necho x\n```\nThen more.\n",  # closes right above one
    "```\nnever closed\n",  # open to the end of the page
    "- item\n\n    ```\n    code\nback at the margin\n    ```\n",  # the item may end inside
    "<pre>\n\n```\n</pre>\n\ntext\n```\n",  # an HTML block over blank lines
    "Text.\n\n\t```\n\tcode\n\t```\n",  # a tab in a fence's indentation
    # CommonMark closes the block at the fence indented two columns: "  - b" is an item
    "Text.\n\n```\ncode\n  ```\n  - b\n```\n",
    "Text.\n\n  ```\n  code\n  ```\n",  # a fence indented two columns
]


@pytest.mark.parametrize("page", TOUCHING)
def test_a_fence_that_may_touch_text_is_still_shaped(page: str) -> None:
    assert _may_need_shaping(page)


def test_a_fence_right_under_text_gets_its_blank_line() -> None:
    page = TOUCHING[0]
    assert mkdocs_source(page, 0) == "Run:\n\n```bash\necho x\n```\n\nDone.\n"


@pytest.mark.parametrize("page", [
    "Text.\n\n- item\n1. item\n", "1. one\n2. two\n- three\n", "- a\n- b\n3. c\n\nAfter.\n",
    "- a\n* e\n", "Text\n\n- a\n- b\n+ c\n+ d\n", "- a\n    - d\n* e\n", "1. b\n    - d\n* e\n",
    "- a\n\n    - b\n- c\n",  # a nested list after a blank line, then an outer item
    "1. a\n    more\n\n    - d\n2. b\n",
])
def test_a_list_of_the_other_kind_right_under_an_item_is_shaped(page: str) -> None:
    # CommonMark starts a new list there (or ends the nested one); Python-Markdown went on
    # with the one above
    assert _may_need_shaping(page)
    lists = MarkdownIt("commonmark").render(page)
    shaped = _rendered(mkdocs_source(page, 0))
    for tag in ("<ul", "<ol", "<li"):
        assert shaped.count(tag) == lists.count(tag), (page, shaped)


@pytest.mark.parametrize("page", ["- a\n- b\n\nText.\n\n* c\n", "1. a\n\nText.\n\n- b\n",
                                  "- a\n    - b\n\n- c\n", "- a\n\n```\ncode\n```\n\n* b\n"])
def test_lists_a_paragraph_or_a_blank_line_ends_are_not_shaped(page: str) -> None:
    assert not _may_need_shaping(page)
    assert _reads_the_same_unshaped(page)


@pytest.mark.parametrize("page", [
    'Intro.\n\n<p align="center">\n  <img src="a.png" width="300">\n</p>\n\nText.\n',
    "<table>\n  <tr>\n    <td>x</td>\n  </tr>\n</table>\n\n- a\n- b\n",
])
def test_an_html_block_indented_inside_is_not_shaped(page: str) -> None:
    assert not _may_need_shaping(page)
    assert commonmark_blocks(page) == page


@pytest.mark.parametrize("page", [
    "<div>\n!!! note\n  text\n</div>\n",  # a component's opening line: shaping reads it
    "Text\n<div>\n  - a\n</div>\n",  # under a line of text, not after a blank line
    "```\n\n<div>\n```\n\n  - a\n",  # a "block" in code is none
])
def test_an_html_block_shaping_may_read_is_shaped(page: str) -> None:
    assert _may_need_shaping(page)


def test_a_numbered_list_with_parentheses_is_shaped() -> None:
    # Python-Markdown has no "2)" list: its text is left a paragraph of its own
    assert _may_need_shaping("1. a\n2) b\n")


def _corpus_pages() -> list[Path]:
    trees = [CORPUS / "miles_diffusion" / "v1" / "docs", CORPUS / "miles_diffusion" / "v2" / "docs",
             CORPUS / "miles_host" / "tree" / "docs", CORPUS / "mem0" / "tree" / "docs"]
    return [p for tree in trees for p in sorted(tree.rglob("*.md*")) if p.is_file()]


def test_every_corpus_page_left_unshaped_reads_the_same() -> None:
    pages = _corpus_pages()
    if not pages:
        pytest.skip(f"no corpus at {CORPUS}")
    left = [p for p in pages if not _may_need_shaping(p.read_text("utf-8"))]
    assert left, "the gate let every corpus page through"
    differ = [p.name for p in left if not _reads_the_same_unshaped(p.read_text("utf-8"))]
    assert differ == []


LINES = ["Some text.", "", "", "```", "```python", "````", "~~~", "- item", "1. item", "    ```",
         "    code", "    - nested", "!!! note", "    text", "<div>", "</div>", "<!-- c -->",
         "<pre>", "</pre>", "> ```", "> quote", "# Head", "| a | b |", "|---|---|", "\t```",
         "        ```", '```js title="x"', "`` ` ``", "``` `x` ```", "echo x", "  key: 1",
         "   - deep", "  ```", "      six", "  1. two", "  text", "* star", "+ plus"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=14))
def test_a_generated_page_left_unshaped_reads_the_same(lines: list[str]) -> None:
    page = "\n".join(lines)
    if not _may_need_shaping(page):
        assert _reads_the_same_unshaped(page), page
