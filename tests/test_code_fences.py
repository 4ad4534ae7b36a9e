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


TITLED = """\
# Titled

``` title="Content tabs"
plain = 1
```

``` hl_lines="2 3"
first = 1
second = 2
```

``` markdown title="Icon with tooltip"
:smile:{ title="Important" }
```

``` yaml title="front matter"
---
hide: x
---
```
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fence_with_options_and_no_language_stays_a_fence(engine: str, tmp_path: Path,
                                                            cache_dir: Path) -> None:
    """superfences' ```` ``` title="A b" ```` has no language: its first word is an option,
    not a language (taken as one, the header was rewritten into no fence at all); and a
    code line starting with ``:`` or ``---`` costs the block its title only where the
    engine would read that line as an option (MyST), not on MkDocs."""
    html = built_page(engine, tmp_path, {"docs/index.md": TITLED})
    blocks = html.count("<pre")
    assert blocks == 4, html
    text = re.sub(r"<pre.*?</pre>", "", html, flags=re.S).replace("&quot;", '"')
    assert 'title="Content' not in text and "hl_lines=" not in text, html
    for code in ("plain", "second", "smile", "hide"):
        pre = next(b for b in html.split("<pre")[1:] if code in b)
        assert "</pre>" in pre, html
    if engine == "mkdocs":
        assert "Icon with tooltip" in html and "front matter" in html, html
        assert "Content tabs" in html, html


def test_fence_meta_takes_no_option_for_a_language() -> None:
    meta = fence_meta('title="Content tabs"')
    assert (meta.lang, meta.title) == ("", "Content tabs")
    assert fence_meta('hl_lines="2 3"').lang == ""
    assert fence_meta("c++ Example").lang == "c++"


AFTER_BLOCKS = """\
# After

!!! note

    1. inside the note

``` text
after_note = 1
```

=== "Tab"

    tab text

```text
after_tab = 2
```
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fence_at_the_margin_after_a_block_is_not_in_it(engine: str, tmp_path: Path,
                                                          cache_dir: Path) -> None:
    """Python-Markdown's admonition and pymdownx.tabbed end the block at a fence that opens
    at the margin: the code after an admonition or a tab stays out of it, and the block's
    text stays text."""
    html = built_page(engine, tmp_path, {"docs/index.md": AFTER_BLOCKS})
    pres = re.findall(r"<pre.*?</pre>", html, flags=re.S)
    assert len(pres) == 2 and "after_note" in pres[0] and "after_tab" in pres[1], html
    note = html[html.index("inside the note") - 600:html.index("inside the note")]
    assert "admonition" in note and "<li>" in html[html.index("inside the note") - 20:], html
    between = html[html.index("inside the note"):html.index("after_note")]
    assert "</div>" in between, html  # the note closes before the code
    assert "inside the note" not in "".join(pres) and "tab text" not in "".join(pres), html
    if engine == "mkdocs":  # (the Sphinx test host has no tabs: a tab is its title and text)
        between = html[html.index("tab text"):html.index("after_tab")]
        assert between.count("</div>") >= 2, html  # the tab and its set close before the code


EXAMPLE_OF_TABS = """\
# Tabs

Example:

```
=== "C"

    ``` c
    int x;
    ```
```

Result:

=== "A"

    Tab text.

## Next heading

The end.
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fence_indented_inside_a_fence_of_an_mkdocs_page_is_code(
        engine: str, tmp_path: Path, cache_dir: Path) -> None:
    """An MkDocs site's page is CommonMark: a fence indented four columns inside a fence is
    its code (Material's content-tabs page shows its tabs' source that way), not its end;
    read as MDX, the example's code ended early and the page after it became code."""
    html = built_page(engine, tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - admonition\n"
                      "  - pymdownx.superfences\n  - pymdownx.tabbed\n",
        "docs/index.md": EXAMPLE_OF_TABS})
    pres = re.findall(r"<pre.*?</pre>", html, flags=re.S)
    assert len(pres) == 1, html
    assert "int x;" in pres[0] and "C" in pres[0] and "Tab text" not in pres[0], html
    assert re.search(r"<h2[^>]*>Next heading", html), html
    assert "Tab text." in html and "tab-set" not in pres[0], html


CODE_GROUP_LONGER_CLOSE = """\
# Headless

<CodeGroup>
```bash Git Automation
# Generate commit messages
cn -p "commit"
````

```bash Pipelines
# In your pipeline scripts
cn -p "review"
```
</CodeGroup>

After the group.
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_code_group_fence_closed_by_a_longer_fence(engine: str, tmp_path: Path,
                                                     cache_dir: Path) -> None:
    """CommonMark and MDX close a fence with a longer one (Continue's docs do); written
    into a tab as it was, superfences did not, and the rest of the group became headings
    and text on MkDocs."""
    html = built_page(engine, tmp_path, {"docs/index.mdx": CODE_GROUP_LONGER_CLOSE})
    assert html.count("<pre") == 2, html
    for code in ("Generate commit messages", "In your pipeline scripts"):
        pre = next(b for b in html.split("<pre")[1:] if code in b)
        assert "</pre>" in pre.split(code)[1], html
    assert "After the group." in html
    group = html.split("Generate commit")[1].split("After the group.")[0]
    assert "<h1" not in group and "````" not in group, html


@pytest.mark.parametrize("engine", ENGINES)
def test_an_attribute_list_after_the_language_is_no_title(engine: str, tmp_path: Path,
                                                          cache_dir: Path) -> None:
    """superfences reads ```` ```python {lint="skip"} ```` (pydantic writes it on most pages)
    as the language and an attribute list: no title. It became the title ``{ }`` (and, with
    MyST's attrs_block, a Sphinx crash)."""
    html = built_page(engine, tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions: [pymdownx.superfences]\n",
        "docs/index.md": '# Home\n\n```python {lint="skip" test="skip"}\nx = 1\n```\n\n'
                         '```js {1,2}\nlet a;\nlet b;\n```\n'})
    assert html.count("<pre") == 2, html
    assert "{ }" not in html and "lint" not in html and "skip" not in html, html


@pytest.mark.parametrize("engine", ENGINES)
def test_json_examples_the_lexer_refuses_are_code_still(engine: str, tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """An example in ```` ```json ```` with ``...`` in it (Helicone's models page): Pygments'
    JSON lexer refuses it, and Sphinx's warning failed ``-W``. Written as text there; the
    code is the same on every engine."""
    html = built_page(engine, tmp_path, {"docs/index.md": (
        '# Page\n\n```json\n{"data": [\n  {"id": "gpt-4o"},\n  ...\n]}\n```\n\n'
        '```json\n{"ok": true}\n```\n')})  # a strict build
    assert html.count("<pre") == 2 and "gpt-4o" in html and "...\n" in html, html
