"""Lists, fences and component blocks written for CommonMark (Mintlify, GitHub) read the same
on an MkDocs host.

Python-Markdown needs a blank line before a list and around a fence, nests by steps of four
columns, reads an item right after a block in the item above as that item's text, makes one
list of two that follow each other, and reads the blocks written for components (``!!!``,
``???``, ``===``) only at a multiple of four columns; CommonMark does none of this.
``commonmark_blocks`` writes the pages so that Python-Markdown reads what CommonMark reads:
checked here against markdown-it on generated pages, and in real ``mkdocs build`` runs.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import markdown
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from support import make_repo

from miles_docs_plugin.mkdocs_plugin.commonmark import commonmark_blocks

COMMONMARK = MarkdownIt("commonmark")


def _html(text: str) -> str:
    """Rendered HTML with what differs between the two renderers for the same structure
    (paragraph tags in items, highlighting, code classes, comments, whitespace) taken out."""
    text = re.sub(r'<div class="highlight"><pre><span></span><code>(.*?)</code></pre></div>',
                  lambda m: "<pre><code>" + re.sub(r"<[^>]+>", "", m.group(1)) + "</code></pre>",
                  text, flags=re.S)
    text = re.sub(r'<code class="language-\w+">|<!--.*?-->', lambda m: "<code>" if
                  m.group(0).startswith("<code") else "", text)
    return re.sub(r"\s+", "", re.sub(r"</?p>", "", text))


def _python_markdown(text: str) -> str:
    return str(markdown.markdown(text, extensions=["pymdownx.superfences"]))


ITEM_PARTS = st.lists(st.sampled_from(["nested", "deeper", "text", "fence", "tight fence"]),
                      max_size=2)
LISTS = st.lists(st.tuples(st.sampled_from(["para", "intro", "bullets", "numbers", "code",
                                            "indented code"]),
                           st.lists(ITEM_PARTS, min_size=1, max_size=3)),
                 min_size=1, max_size=4)


def _page(blocks: list[tuple[str, list[list[str]]]]) -> str:
    out: list[str] = []
    for kind, items in blocks:
        if kind == "para":
            out += ["Some text.", ""]
            continue
        if kind == "code":  # a fence right under a line of text, and text right under it
            out += ["Run:", "```bash", "echo x", "```", "Then more.", ""]
            continue
        if kind == "indented code":  # MDX indents as it likes; so may CommonMark, by 1-3
            pad = " " * len(items)
            closing = " " * ((len(items) + 1) % 4)  # a closing fence may be indented as well
            out += ["Code:", "", f"{pad}```bash", f"{pad} echo x", f"{pad}  echo y",
                    f"{closing}```", ""]
            continue
        if kind == "intro":
            out.append("Dealing with:")  # a list right under it
        for n, parts in enumerate(items):
            marker = f"{n + 1}." if kind == "numbers" else "-"
            pad = " " * (len(marker) + 1)  # the item's text column, as CommonMark nests
            out.append(f"{marker} item {n}")
            for part in parts:
                if part == "nested":
                    out.append(f"{pad}- nested")
                elif part == "deeper":
                    out += [f"{pad}- nested", f"{pad}  - deeper"]
                elif part == "text":
                    out += ["", f"{pad}More text."]
                elif part == "fence":
                    out += ["", f"{pad}```bash", f"{pad}echo x", f"{pad}```"]
                else:
                    out += [f"{pad}```bash", f"{pad}echo x", f"{pad}```"]
        out.append("")
    return "\n".join(out) + "\n"


@settings(max_examples=300, deadline=None)
@given(LISTS)
def test_python_markdown_reads_the_lists_as_commonmark_does(
        blocks: list[tuple[str, list[list[str]]]]) -> None:
    page = _page(blocks)
    assert _html(_python_markdown(commonmark_blocks(page))) == _html(COMMONMARK.render(page)), \
        (page, commonmark_blocks(page))


@settings(max_examples=200, deadline=None)
@given(LISTS, st.integers(0, 3), st.sampled_from(['!!! note "T"', '??? note "T"', '=== "T"']))
def test_a_component_s_content_reads_as_commonmark_reads_it_alone(
        blocks: list[tuple[str, list[list[str]]]], extra: int, opener: str) -> None:
    """What the engine writes for a component: its opening line (indented as the component's
    tag was, which MDX allows), then its content, a page of its own written for CommonMark,
    four columns further in."""
    inner = _page(blocks)
    pad = " " * extra
    page = f"Before.\n\n{pad}{opener}\n" + "".join(
        f"{pad}    {line}\n" if line.strip() else "\n" for line in inner.split("\n")) + "After.\n"
    shaped = commonmark_blocks(page)
    got = markdown.markdown(shaped, extensions=["admonition", "pymdownx.details",
                                                "pymdownx.superfences", "pymdownx.tabbed"],
                            extension_configs={"pymdownx.tabbed": {"alternate_style": True}})
    # the component's own markup, around what CommonMark makes of its content
    got = re.sub(r'<(div|details) class="(?:admonition )?note">\s*(?:<p class="admonition-'
                 r'title">T</p>|<summary>T</summary>)(.*)</\1>', r"<x>\2</x>", got, flags=re.S)
    got = re.sub(r'<div class="tabbed-set[^"]*".*?<div class="tabbed-block">(.*)</div>\s*</div>'
                 r'\s*</div>', r"<x>\1</x>", got, flags=re.S)
    assert _html(got) == _html(f"<p>Before.</p><x>{COMMONMARK.render(inner)}</x>"
                               "<p>After.</p>"), (page, shaped)


def test_pages_without_such_lists_are_left_alone() -> None:
    for page in ("# Title\n\nText.\n\n- a\n- b\n", "- a\n    - b\n", "> - quoted\n>   - two\n",
                 "```\n- a\n  - b\n```\n", "Text\n\n1. one\n2. two\n"):
        assert commonmark_blocks(page) == page


def test_a_mintlify_upstream_s_lists_in_a_real_mkdocs_build(tmp_path: Path,
                                                            cache_dir: Path) -> None:
    from hosts import make_host

    page = ("---\ntitle: Lists\n---\n\nWe are dealing with:\n- **Provider outages**\n"
            "- Rate limits\n  - nested [two](/other)\n\n1. one\n2. two\n   - sub\n")
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/docs.json": '{"navigation": {"pages": ["index", "other"]}}',
                            "docs/index.mdx": page,
                            "docs/other.mdx": "---\ntitle: Other\n---\n\nOther.\n"})
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    html = host.site().page("diffusion/index.html").text
    body = _html(html.split("<main>", 1)[1].split("</main>", 1)[0])
    # a warm build takes the lists from the scan cache: no parse, no markdown-it
    import sys

    from support import run as run_command

    probe = ("import sys\nfrom mkdocs.__main__ import cli\n"
             "try:\n    cli(['build', '-q'])\nexcept SystemExit as e:\n    code = e.code\n"
             "print('markdown_it' in sys.modules, code)\n")
    warm = run_command([sys.executable, "-c", probe], cwd=host.root)
    assert warm.output.split()[-2:] == ["False", "0"], warm.output
    assert ("Wearedealingwith:<ul><li><strong>Provideroutages</strong></li><li>Ratelimits<ul>"
            '<li>nested<ahref="other/">two</a></li></ul></li></ul><ol><li>one</li><li>two'
            "<ul><li>sub</li></ul></li></ol>") in body, body


def test_an_mkdocs_upstream_s_pages_are_read_as_written(tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """Its author wrote for Python-Markdown: a two-space item is a sibling there."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, {"mkdocs.yml": "site_name: Up\n",
                            "docs/index.md": "# Home\n\n- a\n  - b\n"})
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    body = _html(host.site().page("diffusion/index.html").text)
    assert "<ul><li>a</li><li>b</li></ul>" in body, body


def test_an_escaped_pipe_in_code_in_a_table_shows_as_a_pipe() -> None:
    """GFM reads ``\\|`` in a table cell as a pipe, in code too; Python-Markdown's tables read a
    pipe in code as code, and would show the backslash."""
    page = "Types:\n\n| name | type |\n|---|---|\n| `a` | `int \\| None` |\n"
    html = markdown.markdown(commonmark_blocks(page), extensions=["tables"])
    assert "<code>int | None</code>" in html, html
    assert "\\|" in commonmark_blocks("`a \\| b` outside a table\n")


ESCAPED = ("A cost ~\\$0.01, a \\<b\\> tag, \\~x\\~, 100\\%, \\\"q\\\", \\@user, \\\\$ and "
           "`\\$code`.\n\n```\n\\$ in a fence\n```\n")


def test_backslash_escapes_read_as_commonmark_reads_them() -> None:
    """CommonMark (and MDX, which needs ``\\<``) unescapes any ASCII punctuation;
    Python-Markdown only its own, and showed the backslash of ``\\$``, ``\\<``, ``\\@``… The
    page's text is what markdown-it makes of it; code is left alone."""
    from miles_docs_plugin.mkdocs_plugin.commonmark import commonmark_escapes

    text = commonmark_escapes(ESCAPED)
    ours = markdown.markdown(text, extensions=["fenced_code", "tables"])
    reference = MarkdownIt("commonmark").render(ESCAPED)
    assert html.unescape(re.sub(r"<[^>]+>", "", ours)).split() == \
        html.unescape(re.sub(r"<[^>]+>", "", reference)).split()
    assert "<code>\\$code</code>" in ours and "\\$ in a fence" in ours


def test_an_upstream_pages_escapes_show_no_backslash_on_mkdocs(tmp_path: Path) -> None:
    from hosts import built_page

    page = built_page("mkdocs", tmp_path, {"docs/index.md": "# Home\n\n" + ESCAPED})
    text = html.unescape(re.sub(r"<[^>]+>", "", page[page.index("<h1"):]))
    assert "A cost ~$0.01, a <b> tag, ~x~, 100%, \"q\", @user, \\$ and \\$code." in text


def test_tex_keeps_its_backslashes() -> None:
    """``\\,`` and ``\\%`` are TeX's own in a formula (arithmatex): left as written."""
    from miles_docs_plugin.mkdocs_plugin.commonmark import commonmark_escapes

    tex = "$a \\, b \\; c$ and $\\$5$\n$$\n\\int f(x) \\, dx = 50\\%\n$$\n"
    assert commonmark_escapes(tex + "Cost \\$5.") == tex + "Cost &#36;5."
