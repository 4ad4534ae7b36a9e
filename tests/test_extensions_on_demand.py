"""MkDocs: what the plugin adds to a build is what its pages need, no more (issue 18).

Markdown extensions are turned on only for the injected pages that use them: each one costs on
every page MkDocs renders with it (pymdownx.superfences alone ~35% of a page's conversion), so
the host's ``markdown_extensions`` stay as the host wrote them and a page gets, while it renders,
exactly the ones its syntax needs. And once MkDocs has the pages, the plugin holds no scans and
no second copy of their text while MkDocs renders them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import make_repo, mkdocs_build, same_code, superfences_html, write

from miles_docs_plugin.mkdocs_plugin import MilesDocsPlugin
from miles_docs_plugin.mkdocs_plugin.engine import NESTED_FENCES, margin_fences, page_extensions

TABS = """\
# Install

<Tabs>
  <Tab title="pip">
    ```bash
    pip install miles
    ```
  </Tab>
  <Tab title="uv">
    ```bash
    uv add miles
    ```
  </Tab>
</Tabs>
"""

#: A host page that writes syntax of extensions the host did not turn on: it stays text.
HOST_PAGE = """\
# Host

!!! note "Host note"
    text of the host

=== "Host tab"
    host tab text

## Custom {#custom-id}
"""


def _site(tmp_path: Path, pages: dict[str, str], extensions: str = "") -> Path:
    up = tmp_path / "up"
    commit = make_repo(up, pages)
    site = tmp_path / "host"
    write(site / "mkdocs.yml", f"""
        site_name: Host
        {extensions}
        plugins:
          - miles-docs
        """)
    write(site / "docs" / "index.md", HOST_PAGE)
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {up.as_uri()}\n")
    write(site / "miles-docs.lock",
          f"version: 1\nsources:\n  diffusion:\n    repo: {up.as_uri()}\n    ref: main\n"
          f"    commit: {commit}\n")
    return site


def test_a_section_that_needs_none_leaves_the_host_extensions_untouched(
        tmp_path: Path, cache_dir: Path) -> None:
    site = _site(tmp_path, {
        "docs/index.md": "# Home\n\nSee [the guide](guide.md).\n",
        "docs/guide.md": "# Guide\n\n```python\nprint('hi')\n```\n",
    }, extensions="markdown_extensions: [attr_list]")
    run = mkdocs_build(site)
    assert run.returncode == 0, run.output
    assert "turned on" not in run.output, run.output
    host = (site / "site" / "index.html").read_text("utf-8")
    # the host turned on attr_list itself: kept; admonition and tabs it did not: text
    assert 'id="custom-id"' in host
    assert "admonition" not in host and "!!! note" in host, host
    assert "tabbed-set" not in host and "=== " in host, host
    guide = (site / "site" / "diffusion" / "guide" / "index.html").read_text("utf-8")
    assert '<code class="language-python">print(' in guide, guide


def test_tabs_turn_on_what_tabs_need_for_that_page_only(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    site = _site(tmp_path, {
        "docs/index.md": "# Home\n\nSee [install](install.md).\n",
        "docs/install.md": TABS,
    })
    run = mkdocs_build(site)
    assert run.returncode == 0, run.output
    assert "pymdownx.superfences (1 page)" in run.output, run.output
    assert "pymdownx.tabbed (1 page)" in run.output, run.output
    page = (site / "site" / "diffusion" / "install" / "index.html").read_text("utf-8")
    assert page.count('class="tabbed-set') == 1, page
    assert 'class="tabbed-labels"' in page  # alternate_style, as Material expects
    text = re.sub(r"<[^>]+>", "", page)
    assert "pip install miles" in text and "uv add miles" in text
    assert "```" not in page and "&lt;Tab" not in page, page
    host = (site / "site" / "index.html").read_text("utf-8")
    assert "tabbed-set" not in host and "admonition" not in host, host
    home = (site / "site" / "diffusion" / "index.html").read_text("utf-8")
    assert "tabbed" not in home


def test_page_extensions_reads_emitted_and_upstream_syntax() -> None:
    assert page_extensions("# Plain\n\ntext {x} and a [link](a.md)\n") == set()
    assert page_extensions("```python\nx = 1\n```\n") == set()
    assert page_extensions('!!! note "T"\n    body\n') == {"admonition"}
    assert page_extensions("???+ tip\n    body\n") == {"pymdownx.details"}
    assert page_extensions('=== "A"\n    a\n') == {"pymdownx.tabbed"}
    assert page_extensions("## Heading {#custom}\n") == {"attr_list"}
    assert page_extensions('![x](x.png){ width="300" }\n') == {"attr_list"}
    assert page_extensions('<div class="grid cards" markdown>\n\n- a\n\n</div>\n') == {
        "md_in_html"}
    # fences Python-Markdown's fenced_code cannot read: indented (miles-docs' own extension
    # reads them), quoted, titled (pymdownx.superfences, with pymdownx.highlight set to leave
    # Pygments out, unless a fence asks for what only Pygments renders: a title, highlighted
    # lines, line numbers)
    assert page_extensions("1. step\n\n   ```bash\n   run\n   ```\n") == {NESTED_FENCES}
    assert page_extensions("1. step\n\n   ```bash\n   run\n   ```\n\n> ```\n> q\n> ```\n") == {
        "pymdownx.superfences", "pymdownx.highlight"}  # superfences reads both
    assert page_extensions('```bash title="Terminal"\nrun\n```\n') == {"pymdownx.superfences"}
    assert page_extensions('> ```py hl_lines="1"\n> quoted\n> ```\n') == {
        "pymdownx.superfences"}
    assert page_extensions("> ```\n> quoted\n> ```\n") == {
        "pymdownx.superfences", "pymdownx.highlight"}
    # syntax shown inside fenced code is code, not syntax
    assert page_extensions('```markdown\n!!! note\n=== "A"\n## H {#x}\n```\n') == set()


#: A fence under a list item, indented like the item's text (CommonMark reads it as code; the
#: real corpus has one, in user-guide/launch-script.md).
LIST_FENCE = """\
# Launch

1. **Append flags.** The value lands at the end:

   ```bash
   python3 run.py \\
       --extra-args "--beta 0.02"
   ```

2. Edit the script.
"""


def test_a_fence_under_a_list_item_stays_in_its_item(tmp_path: Path, cache_dir: Path) -> None:
    """CommonMark reads the fence (indented to the item's text) as the item's code, and the
    list going on after it; Python-Markdown's fenced_code reads no fence in an item, and
    miles-docs' own extension, which reads it as superfences does, is turned on for that page
    (a fence moved to the margin would end the list, and the next item would start a new one,
    numbered 1 again)."""
    site = _site(tmp_path, {
        "docs/index.md": "# Home\n\nSee [launch](launch.md).\n",
        "docs/launch.md": LIST_FENCE,
    })
    run = mkdocs_build(site)
    assert run.returncode == 0, run.output
    assert f"{NESTED_FENCES} (1 page)" in run.output, run.output
    assert "superfences" not in run.output, run.output
    page = (site / "site" / "diffusion" / "launch" / "index.html").read_text("utf-8")
    assert page.count("<ol>") == 1, page
    item = page.split("<ol>", 1)[1].split("</li>", 1)[0]
    assert "python3" in item and "--extra-args" in item, page  # the code, in item 1
    assert "```" not in page, page
    # the code as fenced_code writes it on every other page (for the theme's highlighter),
    # not highlighted by Pygments on this page alone
    assert '<code class="language-bash">python3 run.py' in item, item
    assert "<span" not in item, item


def test_a_host_that_highlights_with_pygments_keeps_it_on_every_page(
        tmp_path: Path, cache_dir: Path) -> None:
    site = _site(tmp_path, {
        "docs/index.md": "# Home\n\nSee [launch](launch.md).\n",
        "docs/launch.md": LIST_FENCE,
    }, extensions="markdown_extensions: [codehilite]")
    run = mkdocs_build(site)
    assert run.returncode == 0, run.output
    assert "pymdownx.superfences (1 page)" in run.output, run.output
    assert "pymdownx.highlight" not in run.output, run.output
    page = (site / "site" / "diffusion" / "launch" / "index.html").read_text("utf-8")
    item = page.split("<ol>", 1)[1].split("</li>", 1)[0]
    assert '<div class="highlight">' in item and "<span" in item, item


def _fenced_code(text: str) -> str:
    import markdown

    return str(markdown.markdown(text, extensions=["fenced_code"]))


@pytest.mark.parametrize("text", [
    LIST_FENCE,
    "1. step\n\n   ```bash\n   run\n\n     more\n   ```\n\nafter\n",
    "- a\n\n  ```py\n  x = 1\n  ```\n\n- b\n",
    "text\n\n ~~~\n a < b\n ~~~\n",
    "   ```js\n   \n   a\n   \n   ```\n\n   ```\n   b\n   ```\n",
    "   ```bash\r\n   run\r\n   ```\r\n",
])
def test_a_fence_moved_to_the_margin_reads_as_superfences_reads_it(text: str) -> None:
    moved = margin_fences(text)
    assert moved != text and page_extensions(moved) == set()
    assert same_code(_fenced_code(moved)) == same_code(superfences_html(text))


@pytest.mark.parametrize("text", [
    "1. step:\n   ```bash\n   run\n   ```\n2. next\n",  # in the item's paragraph
    "para\n\n  ~~~\n  a\n  ~~~\ntext\n",  # the paragraph after it holds it
    "1. step\n\n   ```bash\n  run\n   ```\n",  # a line less indented than the fence
    "   ```\n   a\n    ```\n   ```\n",  # closed at another indentation
    "   ```\n   a\n   ````\n",  # closed by a longer fence
    '   ```bash title="x"\n   run\n   ```\n',  # more than a language
    "    ```\n    four: a list item's content\n    ```\n",
    "\t```\n\ttab\n\t```\n",
    "> ```\n> quoted\n> ```\n",
    "   ```\n   never closed\n",
])
def test_fences_fenced_code_would_read_otherwise_stay_where_they_are(text: str) -> None:
    assert margin_fences(text) == text
    assert page_extensions(text) & {"pymdownx.superfences", NESTED_FENCES}


def test_nothing_is_held_twice_while_mkdocs_renders(tmp_path: Path, cache_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site = _site(tmp_path, {
        "docs/index.md": "# Home\n\nSee [install](install.md).\n",
        "docs/install.md": TABS,
    })
    (site / "miles-docs.yml").write_text(
        (site / "miles-docs.yml").read_text() + "    trust: full\n  - name: other\n"
        f"    repo: {(tmp_path / 'up').as_uri()}\n    mount: other\n")
    lock = (site / "miles-docs.lock").read_text()
    (site / "miles-docs.lock").write_text(lock + lock.split("sources:\n", 1)[1].replace(
        "diffusion:", "other:"))
    monkeypatch.chdir(site)
    config = load_config(str(site / "mkdocs.yml"))
    build(config)
    plugin = config.plugins["miles-docs"]
    assert isinstance(plugin, MilesDocsPlugin)
    result = plugin.result
    assert result is not None
    assert result.ctx.scans is None
    for section in result.sections.values():
        assert section.pages
        for page in section.pages.values():
            assert page.scan is None and page.text == ""
            # MkDocs has the content (a sandboxed page's: its own copy)
            assert (page.content == "") is section.source.sandboxed, page.path
    assert "tabbed-set" in (site / "site" / "other" / "install" / "index.html").read_text()


#: Syntax of extensions an author turns on in an MkDocs site, on one page.
WRITTEN_FOR_EXTENSIONS = """\
# Syntax

Press ++ctrl+alt+del++ to ==mark== text and ~~strike~~ it.

- [x] done
- [ ] open

A claim[^1].

[^1]: The footnote.

Term
:   Its definition.

The HTML spec.

*[HTML]: Hyper Text Markup Language

An :material-check: icon, a :smile: and `#!python range()` in a line.

$$
\\{g\\in G\\}
$$
"""


@pytest.mark.parametrize("upstream", ["mkdocs", "mkdocs-without", "mintlify"])
def test_pages_get_the_syntax_their_upstream_site_turns_on(upstream: str, tmp_path: Path,
                                                           cache_dir: Path) -> None:
    """An MkDocs upstream's pages are written for its ``markdown_extensions``: the ones that
    only read their own marks are turned on for the pages that use them, and only those the
    upstream turned on (``==x==`` means itself to a site without pymdownx.mark). Mintlify's
    pages are GitHub-flavoured: footnotes, task lists and strikethrough."""
    files = {"docs/index.md": WRITTEN_FOR_EXTENSIONS}
    if upstream == "mkdocs":
        files["mkdocs.yml"] = (
            "site_name: Up\nmarkdown_extensions:\n  - footnotes\n  - def_list\n  - abbr\n"
            "  - pymdownx.keys\n  - pymdownx.mark\n  - pymdownx.tilde\n"
            "  - pymdownx.tasklist:\n      custom_checkbox: true\n  - pymdownx.emoji:\n"
            "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
            "      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n"
            "  - pymdownx.inlinehilite\n  - pymdownx.arithmatex:\n      generic: true\n")
    elif upstream == "mkdocs-without":
        files["mkdocs.yml"] = "site_name: Up\nmarkdown_extensions:\n  - footnotes\n"
    else:
        files["docs/docs.json"] = '{"name": "Up", "navigation": {"pages": ["index"]}}'
    site = _site(tmp_path, files)
    run = mkdocs_build(site)
    assert run.returncode == 0, run.output
    page = (site / "site" / "diffusion" / "index.html").read_text("utf-8")
    host = (site / "site" / "index.html").read_text("utf-8")
    assert "footnote" not in host  # the host's pages keep the host's extensions
    assert 'class="footnote-ref"' in page, page  # every upstream here has footnotes
    every = upstream == "mkdocs"
    gfm = upstream != "mkdocs-without"
    assert ("<del>strike</del>" in page) is gfm, page
    assert ('class="task-list' in page) is gfm, page
    assert ("<mark>mark</mark>" in page) is every, page
    assert ('<span class="keys">' in page) is every, page
    assert ("<dt>Term</dt>" in page) is every, page
    assert ('<abbr title="Hyper Text Markup Language">' in page) is every, page
    # Material's icons inline (its index, where Material is installed), code highlighted
    # inline, math kept as TeX for the host's renderer
    assert ('<span class="twemoji"><svg' in page) is every, page
    assert ('<code class="highlight">' in page) is every, page
    assert ('<div class="arithmatex">\\[\n\\{g\\in G\\}' in page) is every, page


def test_an_upstream_s_extensions_by_any_of_their_names() -> None:
    """``mkdocs.yaml`` as well as ``mkdocs.yml``; ``extra`` (Python-Markdown's and pymdownx's)
    stands for the extensions it turns on; full module names are the short ones."""
    from miles_docs_plugin.core.collect.upstream import UpstreamSite
    from miles_docs_plugin.mkdocs_plugin.engine import GFM, upstream_syntax

    site = UpstreamSite("mkdocs.yaml", "../mkdocs.yaml", None,
                        extensions=["extra", "markdown.extensions.abbr", "pymdownx.mark"])
    assert upstream_syntax(site) == {"abbr", "def_list", "footnotes", "pymdownx.mark"}
    assert upstream_syntax(UpstreamSite("docs.json", "docs.json", None)) == GFM
    # a line of many `==` is read once (the pattern does not try each `==` against the rest)
    assert page_extensions("==a " * 50_000, frozenset({"pymdownx.mark"})) == {"pymdownx.mark"}


def test_sphinx_shows_emoji_and_leaves_material_icons_out(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    """MyST reads no emoji shortcodes: for an upstream whose site turns pymdownx.emoji on, an
    emoji is its character and one of Material's icons (drawn from Material's files) is left
    out with its attribute list, instead of both showing as text."""
    from hosts import built_page

    page = ("# Icons\n\n- :material-clock-fast:{ .lg .middle } Set up\n- A :smile: face\n\n"
            "At 10:30:45, `:smile:` in code stays.\n")
    html = built_page("sphinx", tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - attr_list\n  - pymdownx.emoji\n",
        "docs/index.md": page})
    body = html[html.index("<h1"):]
    assert "material-clock-fast" not in body and "{ .lg" not in body, body
    assert "A \U0001f604 face" in body and "10:30:45" in body, body
    assert '<span class="pre">:smile:</span>' in body, body


def test_sphinx_keeps_a_card_whose_icon_is_left_out_a_list_item(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    """Material's card grids (``-   :icon:{ .lg } __Title__`` then the card's text indented
    four columns): the icon goes with the space after it; left behind, that space put the
    item's text at column five, and its second paragraph fell out of the item as code."""
    from hosts import built_page

    page = ("# Cards\n\n-   :material-clock-fast:{ .lg .middle } __Set up in 5 minutes__\n\n"
            "    ---\n\n    Install with [pip](index.md) and get up\n")
    html = built_page("sphinx", tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - attr_list\n  - md_in_html\n"
                      "  - pymdownx.emoji\n",
        "docs/index.md": page})
    body = html[html.index("<h1"):]
    assert "<pre" not in body and "[pip]" not in body, body
    item = body[body.index("<li"):body.index("</li>")]
    assert "<strong>Set up in 5 minutes</strong>" in item and "Install with" in item, body


def test_an_mkdocs_page_with_admonitions_is_no_mdx_page(tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """On Sphinx, an MkDocs page's admonitions become components; the page stayed an MDX
    page after that: its icons and attribute lists showed as text, and the ``</div>`` of its
    HTML was reported as closing nothing (a warning that fails ``-W``)."""
    from hosts import built_page

    page = ("# Icons\n\nA :material-apple:{ .lg } b :smile: c, [B](index.md){ .md-button }\n\n"
            '!!! note "T"\n\n    text\n\n<div class="x"><pre>\na\n</pre>\n</div>\n')
    html = built_page("sphinx", tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - admonition\n  - attr_list\n"
                      "  - pymdownx.emoji\n",
        "docs/index.md": page})  # (built strictly: no warning)
    body = html[html.index("<h1"):]
    assert "material-apple" not in body and "{ ." not in body, body
    assert "b \U0001f604 c" in body and "admonition" in body, body


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_fence_the_upstream_draws_with_its_own_code_is_reported(
        tmp_path: Path, cache_dir: Path, engine: str) -> None:
    """superfences' ``custom_fences`` run the upstream's own code (Textual's screenshots),
    which is not run here: the fence became an empty code block, silently."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, {
        "mkdocs.yml": ("site_name: Up\nmarkdown_extensions:\n  - pymdownx.superfences:\n"
                       "      custom_fences:\n        - name: textual\n          class: textual\n"
                       "          format: !!python/name:textual._doc.format_svg\n"
                       "        - name: mermaid\n          class: mermaid\n"
                       "          format: !!python/name:pymdownx.superfences.fence_code_format\n"),
        "docs/index.md": ('# Home\n\n```{.textual path="app.py"}\n```\n\n```textual\nx\n```\n\n'
                          "```mermaid\ngraph TD; A-->B\n```\n")})
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    said = [line for line in run.output.splitlines() if "custom_fences" in line]
    assert len(said) == 1 and "docs/index.md:3" in said[0] and "`textual`" in said[0], said


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
@pytest.mark.parametrize("extensions", ["[abbr]", "[toc]"], ids=["abbr", "no-abbr"])
def test_abbreviation_definitions_are_read_where_the_upstream_reads_them(
        engine: str, extensions: str, tmp_path: Path, cache_dir: Path) -> None:
    """``*[CLI]: Command Line Interface`` is a definition on a site with abbr, text on one
    without: MkDocs draws the tooltip; Sphinx, which has no such syntax, leaves the
    definition out (it showed as a paragraph), and keeps the text of a site without abbr."""
    from hosts import built_page

    html = built_page(engine, tmp_path, {
        "mkdocs.yml": f"site_name: Up\nmarkdown_extensions: {extensions}\n",
        "docs/index.md": "# Home\n\nThe CLI is nice.\n\n```text\n*[kept]: in code\n```\n\n"
                         "*[CLI]: Command Line Interface\n"})
    assert "The" in html and "is nice." in html and "*[kept]: in code" in html
    if extensions == "[toc]":
        assert "*[CLI]: Command Line Interface" in html
    elif engine == "mkdocs":
        assert '<abbr title="Command Line Interface">CLI</abbr>' in html
    else:
        assert "Command Line Interface" not in html and "The CLI is nice." in html
