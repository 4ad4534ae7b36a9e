"""The MDX page model: tags, fences, module syntax, fence meta, Mintlify slugs (unit tests)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support import lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.transform.anchors import AnchorMap, mintlify_slug
from miles_docs_plugin.core.transform.components import find_blocks
from miles_docs_plugin.core.transform.mdx import (
    code_lines,
    fence_meta,
    fences,
    read_tag,
    strip_module_syntax,
)
from miles_docs_plugin.core.transform.scanned import Heading

#: Heading ids as Mintlify gives them: each checked with `mint broken-links --check-anchors`
#: (the pinned CLI), which accepts these and reports the spellings in the comments. Where
#: Mintlify's documentation ("Automatic anchor IDs") differs, `mint` is followed.
MINTLIFY_IDS = [
    ("Fees & billing", "fees-&-billing"),  # not fees--billing, fees-and-billing
    ("What's new", "whats-new"),  # not what\u2019s-new, as the documentation has it
    ("What\u2019s next?", "what\u2019s-next"),  # not whats-next
    ("Read/write access", "read/write-access"),  # not readwrite-access
    ("Step 1: Issue a proxy secret", "step-1-issue-a-proxy-secret"),
    ("Version 2.0 (beta)", "version-2-0-beta"),  # not version-20-beta
    ("camelCase Names", "camelcase-names"),
    ("1. Model introduction", "1-model-introduction"),  # not 1--model-introduction
    ("LoRA + IPC", "lora-+-ipc"),  # not lora--ipc (GitHub's), lora-ipc
    ("Caf\u00e9 d\u00e9j\u00e0 vu", "caf\u00e9-d\u00e9j\u00e0-vu"),  # not cafe-deja-vu
    ("3.3 Colocated vs. disaggregated rollout", "3-3-colocated-vs-disaggregated-rollout"),
]


@pytest.mark.parametrize(("heading", "slug"), MINTLIFY_IDS)
def test_mintlify_slugs(heading: str, slug: str) -> None:
    assert mintlify_slug(heading) == slug


def test_links_written_for_mintlify_ids_resolve_in_another_engine(
        tmp_path: Path, cache_dir: Path) -> None:
    """An upstream written for Mintlify links to Mintlify's ids; in an engine with other
    slugs (here GitHub's) those links reach the same headings."""
    body = "".join(f"## {heading}\n\nText.\n\n" for heading, _ in MINTLIFY_IDS)
    links = "".join(f"- [{heading}](#{slug})\n" for heading, slug in MINTLIFY_IDS)
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": f"# Home\n\n{links}\n{body}"})
    write(tmp_path / "miles-docs.yml", f"sources:\n  - name: s\n    repo: {up.as_uri()}\n")
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine())
    assert [d.format() for d in result.diagnostics if "anchor" in d.message] == []
    text = result.sections["s"].pages["index.md"].content
    assert "- [LoRA + IPC](#lora--ipc)" in text  # the engine's own id (GitHub's slug here)
    assert "- [1. Model introduction](#1-model-introduction)" in text


def test_mintlify_duplicates_count_from_two() -> None:
    headings = [Heading(2, "Overview", 1, "Overview"), Heading(2, "Overview", 5, "Overview")]
    seen: set[str] = set()

    def slugger(text: str) -> str:
        slug = text.lower()
        while slug in seen:
            slug += "_"
        seen.add(slug)
        return slug

    amap = AnchorMap.build(headings, [], slugger)
    assert amap.resolve("overview-2") == "overview_"  # Mintlify's second "Overview"
    assert amap.resolve("overview-1") == "overview_"  # GitHub's


def test_upstream_spellings_are_worked_out_when_a_link_misses_the_emitted_ids(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from miles_docs_plugin.core.transform import anchors

    slugged: list[str] = []
    real = anchors.mintlify_slug

    def counting(text: str) -> str:
        slugged.append(text)
        return real(text)

    monkeypatch.setattr(anchors, "mintlify_slug", counting)
    headings = [Heading(2, "3. Setup", 1, "3. Setup"), Heading(3, "Deep one", 3, "Deep one")]
    amap = AnchorMap.build(headings, [], lambda text: text.lower().replace(" ", "_"),
                           depth=2)
    assert amap.resolve("3._setup") == "3._setup" and slugged == []  # an emitted id
    assert amap.resolve("3-setup") == "3._setup"  # Mintlify's and GitHub's spelling
    assert slugged == ["3. Setup"] and amap.too_deep == {"deep-one": 3}
    assert amap == AnchorMap({"3._setup"}, {"3-setup": "3._setup"}, {"deep-one": 3})


def test_read_tag_spans_lines_and_reads_every_attribute_form() -> None:
    text = '<Card\n  title="A &amp; B"\n  icon={"star"}\n  cols={2}\n  disabled\n  {...rest}\n>'
    tag = read_tag(text, 0)
    assert tag is not None and tag.end == len(text)
    assert tag.attrs == {"title": "A & B", "icon": "star", "cols": "2", "disabled": "true"}
    assert read_tag("<img src='x' style={{ width: 200 }} />", 0).attrs == {  # type: ignore[union-attr]
        "src": "x", "style": "{ width: 200 }"}
    assert read_tag("</Note>", 0).closing  # type: ignore[union-attr]
    assert read_tag("< Note>", 0) is None
    assert read_tag('<Note title="never closed', 0) is None


def test_blocks_nest_across_fences_indentation_and_multi_line_tags() -> None:
    lines = """<Tabs>
  <Tab title="A">
    ```bash
    echo <Note>

    echo two
    ```
  </Tab>
  <Tab
    title="B"
  >

        Indented far after a blank line.

  </Tab>
</Tabs>
<Note>one line</Note>
<Warning>
text</Warning>""".splitlines()
    top, problems = find_blocks(lines, code_lines(fences(lines)))
    assert problems == []
    assert [(b.name, b.start, b.end) for b in top] == [
        ("Tabs", 0, 15), ("Note", 16, 16), ("Warning", 17, 18)]
    assert [(b.name, b.attrs["title"], b.start, b.open_end, b.end)
            for b in top[0].children] == [("Tab", "A", 1, 1, 7), ("Tab", "B", 8, 10, 14)]
    assert top[1].inline == "one line" and top[2].tail == "text"


def test_a_div_on_one_line_inside_a_div_closes_itself() -> None:
    """``<div className="k">x</div>`` in a ``<div>`` block is inline: its ``</div>`` does not
    close the block it stands in (microsandbox's SDK pages nest them so)."""
    lines = ['<div className="a">', '  <div className="b">', '    <div className="k">x</div>',
             '    <div className="d">Text</div>', "  </div>", "</div>"]
    top, problems = find_blocks(lines, set())
    assert problems == []
    assert [(b.name, b.start, b.end) for b in top] == [("div", 0, 5)]
    assert [(b.name, b.start, b.end) for b in top[0].children] == [("div", 1, 4)]


def test_module_syntax_is_blanked_outside_code_only() -> None:
    lines = """import Intro from '/snippets/intro.mdx';
import { Aside } from "/snippets/aside.jsx";
export const config = {
  a: 1,
};
Text {/* a comment */} stays.
{/* a
comment over lines */}
```bash
export A=1
import os
```""".splitlines()
    imports = strip_module_syntax(lines, code_lines(fences(lines)))
    assert imports == {"Intro": "/snippets/intro.mdx"}
    assert lines == ["", "", "", "", "", "Text  stays.", "", "", "```bash", "export A=1",
                     "import os", "```"]


@pytest.mark.parametrize(("info", "lang", "title", "options"), [
    ("bash Terminal", "bash", "Terminal", {}),
    ("python theme={null}", "python", "", {"theme": "{null}"}),
    ("bash wrap", "bash", "", {"wrap": "true"}),
    ('java HelloWorld.java example icon="java" lines highlight={1-2,5}', "java",
     "HelloWorld.java example", {"icon": "java", "lines": "true", "highlight": "{1-2,5}"}),
    ('ts title="Main file"', "ts", "Main file", {}),
    ("{note}", "{note}", "", {}),
])
def test_fence_meta(info: str, lang: str, title: str, options: dict[str, str]) -> None:
    meta = fence_meta(info)
    assert (meta.lang, meta.title, meta.options) == (lang, title, options)


def test_fences_close_where_commonmark_closes_them() -> None:
    lines = ["````mdx", "```js", "x", "```", "````", "  ~~~", "open"]
    found = fences(lines)
    assert [(f.start, f.end, f.closed) for f in found] == [(0, 4, True), (5, 6, False)]


#: What each detection pattern of the components plugin was, as one ``re`` pattern.
LINE_PATTERNS = {
    "HAS_COMPONENT_RE": r"(?m)^[ \t]*</?[A-Z]|<(?:Badge|Tooltip|Icon|Link|Kbd)\b|"
                        r"<[a-z][^>]*\s(?:[\w-]+=\{|className=)",
    "HAS_MDX_RE": r"(?m)^(?:import|export)\s|\{\s*/\*|^[ \t]*<div\b",
    "H1_CANDIDATE_RE": r"(?m)^ {0,3}(?:#(?:[ \t]|$)|=+[ \t]*$)",
    "DIALECT_RE": r"(?m)^[ \t]*(?:!!!|\?\?\?|===|:::)[+!]{0,2}[ \t]+\S",
    "FENCE_META_RE": r"(?m)^[ \t]*(?:`{3,}|~{3,})[ \t]*[^\s`{][^\s`]*[ \t]+[^\s`]",
    "MERMAID_RE": r"(?m)^[ \t>]*(?:`{3,}|~{3,})[ \t]*mermaid\b",
}
LINE_PIECES = st.sampled_from([
    *"\n\n\r \t \t<>/#=!?:{}*`~-aA", "```", "~~~", "mermaid", "import", "export", "<div",
    "<Note", "</Tip", "<Badge", "<a ", "className=", "x={", "!!!", "???", "===", ":::",
    "# ", "==", "bash title", "/*"])


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE_PIECES, max_size=40).map("".join))
@example("!!!!! <")  # `!!!` and two flags, `+` or `!` (`???+!`): no space, no block
@example("???+! x")
def test_line_patterns_find_what_the_single_patterns_found(text: str) -> None:
    import re

    from miles_docs_plugin.core.transform import components

    for name, pattern in LINE_PATTERNS.items():
        line_pattern = getattr(components, name)
        assert isinstance(line_pattern, components.LinePattern)  # searched the fast way
        fast = line_pattern.search(text) is not None
        assert fast is (re.search(pattern, text) is not None), (name, text)


def test_h1_lines_are_the_ones_the_pattern_matched() -> None:
    # every line of an MDX page is asked whether it is an ATX h1: by string operations, which
    # must say what ``re.match(r"^[ \t]*#(?:[ \t]|$)", line)`` said
    import itertools
    import re

    from miles_docs_plugin.core.transform.components import _is_h1

    pieces = ["#", " ", "\t", "a", "\n", "\r", "##", "\u3000"]
    for size in range(5):
        for combo in itertools.product(pieces, repeat=size):
            line = "".join(combo)
            assert _is_h1(line) is bool(re.match(r"^[ \t]*#(?:[ \t]|$)", line)), repr(line)


def test_jsx_string_literals_in_text_are_their_text() -> None:
    """Prettier writes ``{" "}`` to keep a space at a line's end; a string literal renders
    its text, Markdown's special characters included."""
    from miles_docs_plugin.core.transform.mdx import string_expressions

    lines = ['Tail text.{" "}', "`{\" \"}` and {'*literal*'} and {x}", '{" "}', "plain"]
    assert string_expressions(lines, code={2})
    assert lines == ["Tail text. ", "`{\" \"}` and \\*literal\\* and {x}", '{" "}', "plain"]
    assert not string_expressions(["{name}", "{\"<b>\"}", '<img alt={"a b"} />'], code=set())


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_jsx_space_reaches_the_page_as_a_space(engine: str, tmp_path: Path,
                                                  cache_dir: Path) -> None:
    from hosts import built_page

    page = built_page(engine, tmp_path, {
        "docs/index.mdx": '---\ntitle: Home\n---\n\nTail text.{" "}\n'
                          "<Note>In a note.{' '}</Note>\n"})
    assert "Tail text." in page and "In a note." in page
    assert '{" "}' not in page and "{' '}" not in page and "{”" not in page, page


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_closing_tag_less_indented_than_its_content_does_not_place_it(
        engine: str, tmp_path: Path, cache_dir: Path) -> None:
    """Helicone's pages close an ``<AccordionGroup>`` two columns left of its content: MDX
    gives a closing tag no place, so the Step's content is still its accordion (MkDocs showed
    the accordion's ``???`` line as text, as its content was left indented four columns)."""
    from hosts import built_page

    page = built_page(engine, tmp_path, {"docs/index.mdx": (
        "---\ntitle: Home\n---\n\n<Steps>\n  <Step title=\"Get the id\">\n    <AccordionGroup>\n"
        "    <Accordion title=\"Option 1\">\n      Option 1 text.\n    </Accordion>\n"
        "  </AccordionGroup>\n  </Step>\n</Steps>\n")})
    assert "???" not in page and "Option 1 text." in page, page
    # in the step: a dropdown (MkDocs), an admonition (Sphinx without sphinx-design)
    step = page.split("Get the id", 1)[1].split("</li>", 1)[0]
    assert "<details" in step or 'class="admonition' in step, page


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_step_title_stands_apart_from_its_content(engine: str, tmp_path: Path,
                                                     cache_dir: Path) -> None:
    """Mintlify shows a step's title above its content; a numbered item whose bold title and
    content are one paragraph read "Install Run pip." on one line."""
    from hosts import built_page

    page = built_page(engine, tmp_path, {"docs/index.mdx": (
        "---\ntitle: Home\n---\n\n<Steps>\n  <Step title=\"Install\">\n    Run pip.\n  </Step>\n"
        "  <Step title=\"Use\">Call it.</Step>\n</Steps>\n")})
    for title, text in (("Install", "Run pip."), ("Use", "Call it.")):
        item = page.split(f"<strong>{title}</strong>", 1)[1].split("</li>", 1)[0]
        assert item.startswith("</p>"), (title, item)  # the title's paragraph ends there
        assert text in item, (title, item)


def test_html_elements_are_blocks_only_where_they_are_closed() -> None:
    """``<p>`` alone on its line is a block (its content Markdown) only where a ``</p>``
    closes it as this parse reads closings; HTML's own ``</p></li>`` and a page of unclosed
    elements leave them HTML, with no warning (the look-ahead is bounded per page)."""
    top, problems = find_blocks(["<p>", "  text [x](/y)", "</p>"], set())
    assert [(b.name, b.start, b.end, b.html) for b in top] == [("p", 0, 2, "<p>")]
    assert not problems
    top, problems = find_blocks(["<ul>", "<li>", "<p>", "Item", "</p></li>", "</ul>"], set())
    assert top == [] and problems == []
    top, problems = find_blocks(["<p>", "text"] * 10_000 + ["<p>", "x", "</p>"], set())
    assert problems == [] and len(top) <= 1


@pytest.mark.parametrize(("line", "expected"), [
    ("<div>[a](/x) **b**</div>", '<div><a href="/x">a</a> <strong>b</strong></div>'),
    ("  <td>~~old~~ `c`</td>", "  <td><s>old</s> <code>c</code></td>"),  # indentation kept
    ("</li><li>[c](/z)", '</li><li><a href="/z">c</a>'),
    ("<div>[a](javascript:alert(1))</div>", None),  # no link: text, as MDX has it
    ("<div>plain text</div>", None),  # nothing MDX reads otherwise: as written
    ("<div><X a={{ b: 1 }} /> [k](/x)</div>", None),  # a tag that is no HTML
    ("<div className=\"a\"", None),  # a tag that goes on over the next line
    ("Text [a](/x) <b>c</b>", None),  # a paragraph: the engine reads it
    ("<Note>[n](/x)</Note>", None),  # a component: written by the components step
])
def test_the_text_of_an_html_line_is_written_as_mdx_reads_it(line: str,
                                                              expected: str | None) -> None:
    from miles_docs_plugin.core.transform.components import html_text

    lines = [line]
    assert html_text(lines, set()) is (expected is not None)
    assert lines == [expected or line]


def test_elements_closed_the_jsx_way_get_a_closing_tag() -> None:
    """A browser closes only void elements at "/>": an iframe would take the rest of the
    page as its text. Over lines too; not in code, not void elements, not components."""
    from miles_docs_plugin.core.transform.components import close_elements

    lines = ["<iframe", '  src="https://x.org/e"', "  allowFullScreen", "/>", "",
             '<video controls src="v.mp4" /> and <br /> <img src="a.png"/>',
             "`<div />` <span className='x'/>", "<Card title='t' />", "```", "<div />", "```",
             '<video src="a.mp4" /> and <iframe src="b" />']
    assert close_elements(lines, code_lines(fences(lines)))
    assert lines[:4] == ["<iframe", '  src="https://x.org/e"', "  allowFullScreen",
                         "></iframe>"]
    assert lines[5] == '<video controls src="v.mp4" ></video> and <br /> <img src="a.png"/>'
    assert lines[6:] == ["`<div />` <span className='x'></span>", "<Card title='t' />", "```",
                         "<div />", "```",
                         '<video src="a.mp4" ></video> and <iframe src="b" ></iframe>']


def test_text_in_tables_and_html_lists_is_markdown_but_not_in_code_or_comments() -> None:
    from miles_docs_plugin.core.transform.components import html_text

    lines = ["<table>", "<tr><td>", "[a](/x)", "</td></tr>", "</table>", "[b](/y)",
             "<ul>", "```", "<li>[c](/z)</li>", "```", "</ul>",
             "export const x = '<div>[d](/w)</div>'", "{/* <div>[e](/v)</div> */}"]
    before = list(lines)
    assert html_text(lines, code_lines(fences(lines)))
    assert lines[2] == '<a href="/x">a</a>'
    assert [k for k, (a, b) in enumerate(zip(before, lines, strict=True)) if a != b] == [2]


@pytest.mark.parametrize(("lines", "expected"), [
    (["- An item", "  <p>x</p>"], True),
    (["1) Step", "", "   <p>x</p>"], True),
    (["-\tAn item", "\t<p>x</p>"], True),  # a tab counts to the next multiple of four
    (["- a", "  - b", "    <p>x</p>"], True),
    (["<td>", "  <p>x</p>"], False),  # in HTML, not in an item
    (["Text", "  <p>x</p>"], False),
])
def test_an_element_in_a_list_item_is_told_from_one_in_html(lines: list[str],
                                                             expected: bool) -> None:
    from miles_docs_plugin.core.transform.components import in_list_item

    assert in_list_item(lines, len(lines) - 1) is expected


#: a page whose only MDX is a snippet tag, one tag over several lines (with a JSX object, as
#: Mintlify's docs write `variables`), and an imported snippet used over several lines
SNIPPET_USES = {
    "docs/snippets/s1.mdx": "## Snip one\n\nsnippet text one\n",
    "docs/snippets/s2.mdx": "## Snip two\n\nsnippet text two, [a link](/other)\n",
    "docs/snippets/s3.mdx": "snippet text three says {word}\n",
    "docs/other.mdx": "# Other\n",
    "docs/plain.mdx": "# Plain\n\nBefore.\n\n<Snippet file=\"s1.mdx\" />\n\n"
                      "After [s1](#snip-one).\n",
    "docs/across.mdx": "# Across\n\nBefore.\n\n<Snippet\n  file=\"s2.mdx\"\n  variables={{\n"
                       "    \"tool\": \"X\",\n  }}\n/>\n\nAfter [s2](#snip-two).\n\n"
                       "import Three from '/snippets/s3.mdx';\n\n<Three\n  word=\"hello\"\n/>\n\n"
                       "[Broken](missing.md) at line 20.\n",
}


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_snippet_tags_are_inlined_on_any_page_and_across_lines(engine: str, tmp_path: Path,
                                                                cache_dir: Path) -> None:
    """``<Snippet file>`` on a page with no other MDX, and snippet tags written over several
    lines, are replaced by the snippet's text (they were left out, silently); the lines
    below keep their place in reports."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, SNIPPET_USES)
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    site = host.site()
    plain = site.page(host.page_file("plain.md")).text
    assert "snippet text one" in plain and 'id="snip-one"' in plain and "#snip-one" in plain
    across = site.page(host.page_file("across.md")).text
    assert "snippet text two" in across and 'id="snip-two"' in across
    assert "snippet text three says hello" in across
    assert "Snippet" not in across and "variables" not in across and "<Three" not in across
    warnings = [line for line in run.output.splitlines() if "WARNING" in line]
    assert len(warnings) == 1 and "docs/across.mdx:20" in warnings[0], run.output


TAG_DEEPER_THAN_CONTENT = """\
# Guide

<Tabs>
  <Tab title="Get the key">
    1. Go to settings
    2. You'll also need the header

      <Info>
  **Continue Secrets**: the secret is kept in
  secure storage.
</Info>

  </Tab>
  <Tab title="Second">
    Text two.
  </Tab>
</Tabs>

After.
"""


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_tag_indented_deeper_than_its_content_is_placed_by_its_content(
        engine: str, tmp_path: Path, cache_dir: Path) -> None:
    """An ``<Info>`` whose tag stands six spaces in and its text two (Continue's docs): MDX
    gives the tag's indentation no meaning. Written where the tag stood, after a list, the
    callout was an indented code block on Sphinx."""
    from hosts import built_page

    html = built_page(engine, tmp_path, {"docs/index.mdx": TAG_DEEPER_THAN_CONTENT})
    assert "<pre" not in html, html
    callout = html.split("admonition", 1)[1].split("</div>", 1)[0]
    assert "Continue Secrets" in callout, html
    assert "Text two." in html and "After." in html


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_title_written_as_text_is_a_paragraph_of_its_own(engine: str, tmp_path: Path,
                                                           cache_dir: Path) -> None:
    """Where a tab or a card is written as plain Markdown (Sphinx without sphinx-design, a
    card on MkDocs), its title is a paragraph of its own: it was the first words of the
    content's paragraph ("Automatic Format: ..." on Helicone's routing page)."""
    from hosts import built_page

    html = built_page(engine, tmp_path, {"docs/index.mdx": (
        "# Page\n\n<Card title=\"Alone\" href=\"https://example.org/\">\nA card.\n</Card>\n\n"
        "<Tabs>\n<Tab title=\"Automatic\">\n**Format:** model\n</Tab>\n</Tabs>\n")})
    assert re.search(r"Alone</a></strong></p>", html), html
    if engine == "sphinx":
        assert "<p><strong>Automatic</strong></p>" in html, html
