"""Code fences keep their highlighted lines and line numbers in both engines, whichever way
the upstream wrote them: pymdownx.highlight's ``hl_lines="2"`` and ``linenums="3"`` (an MkDocs
upstream, also in superfences' attribute list ``{ .python hl_lines="2" }``), Mintlify's
``highlight={2}``, bare ``{1,3-5}``, ``lines`` and Shiki's ``// [!code ++]`` notation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hosts import ENGINES, built_page

from miles_docs_plugin.core.transform.mdx import fence_meta

PAGE = """\
# Code

```yaml title="ci.yml" hl_lines="2"
a: 1
b: 2
```

```python linenums="3"
x = 1
y = 2
```

```js Example {1,3-9}
one()
two()
three()
```

```js highlight={2} lines
first()
second()
```

``` { .python .no-copy hl_lines="2" }
kept = 1
marked = 2
```

```js
const added = 1; // [!code ++]
const kept = 2;
old(); /* [!code --:2] */
older();
```
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_highlighted_lines_and_line_numbers_reach_the_page(engine: str, tmp_path: Path,
                                                           cache_dir: Path) -> None:
    # built strictly: Sphinx would warn about a highlighted line past a block's end
    html = built_page(engine, tmp_path, {"docs/index.md": PAGE})
    blocks = re.split(r'<div class="(?:[\w-]+ )?highlight">', html)[1:]  # no-copy: MkDocs
    assert len(blocks) == 6, html

    def marked(block: str) -> list[str]:  # each highlighted line: a span up to its newline
        return [re.sub(r'<span class="linenos">[^<]*</span>|<[^>]+>', "", m).strip()
                for m in re.findall(r'<span class="hll">(.*?)\n', block)]

    def numbers(block: str) -> list[str]:  # MkDocs: a table of them; Sphinx: inline
        return re.findall(r'<span class="(?:normal|linenos)">\s*(\d+)</span>', block)

    assert marked(blocks[0]) == ["b: 2"], blocks[0]
    assert marked(blocks[2]) == ["one()", "three()"], blocks[2]  # 3-9 cut to the block
    assert marked(blocks[3]) == ["second()"], blocks[3]
    assert numbers(blocks[1]) == ["3", "4"], blocks[1]
    assert numbers(blocks[3]) == ["1", "2"], blocks[3]
    assert numbers(blocks[0]) == [] and numbers(blocks[2]) == []
    assert "ci.yml" in html and "Example" in html
    # superfences' attribute list: its first class is the language (MyST read "{")
    assert marked(blocks[4]) == ["marked = 2"], blocks[4]
    assert '<span class="n">kept</span>' in blocks[4], blocks[4]
    # Shiki's notation (Mintlify's diffs): the comments go, the lines they mark are marked
    assert marked(blocks[5]) == ["const added = 1;", "old();", "older();"], blocks[5]
    assert "[!code" not in html


def test_fence_meta_reads_both_ways_of_writing_them() -> None:
    assert fence_meta("js Title {1,3-5}").highlighted() == [(1, 1), (3, 5)]
    assert fence_meta("js Title {1,3-5}").title == "Title"
    assert fence_meta('yaml hl_lines="2 4-5"').highlighted(4) == [(2, 2), (4, 4)]
    assert fence_meta("js highlight={2-3} lines").line_numbers() == 1
    assert fence_meta('py linenums="7"').line_numbers() == 7
    assert fence_meta("js {x}").title == "{x}" and fence_meta("js {x}").highlighted() == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_thematic_break_inside_a_card_or_a_quote(engine: str, tmp_path: Path,
                                                   cache_dir: Path) -> None:
    """Material's grid cards put a ``---`` in each list item, and pages open sections with
    one: docutils refuses a transition there (a warning, which fails a strict build), so
    Sphinx leaves those out; MkDocs draws them."""
    page = ("# Grid\n\n-   __Set up__\n\n    ---\n\n    Install it.\n\n"
            "> Quoted\n>\n> ---\n>\n> text\n\n---\n\nAfter.\n\n"
            "## A section\n\n---\n\nIts first rule opens it.\n\n---\n\n## Next\n\nEnd.\n")
    html = built_page(engine, tmp_path, {"mkdocs.yml": "site_name: Up\n",
                                         "docs/index.md": page})
    body = html[html.index("<h1"):]
    # Sphinx keeps only the rule between two paragraphs: docutils has no transition first or
    # last in a section either
    assert body.count("<hr") == (5 if engine == "mkdocs" else 1), body
    assert body.count("<blockquote>") == 1 and "Install it." in body, body
