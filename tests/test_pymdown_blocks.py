"""pymdownx.blocks (``/// tip`` … ``///``) in an MkDocs upstream: written as the indented
syntax, they become admonitions, collapsibles and tabs on every host (they were text)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hosts import ENGINES, make_host
from support import git, lock_text, make_repo, write

from miles_docs_plugin.core.collect.pymdown_blocks import registered, rewrite

MKDOCS_YML = """\
site_name: Up
markdown_extensions:
  - pymdownx.superfences
  - pymdownx.blocks.admonition:
      types: [note, tip, {name: check, class: success, title: Checked}]
  - pymdownx.blocks.details
  - pymdownx.blocks.tab:
      alternate_style: true
  - pymdownx.blocks.caption
"""

PAGE = """\
# Blocks

/// tip

Prefer the `Annotated` version, see [the guide](guide.md#install-it).

///

//// tab | Python 3.9+

```py
x = 1
///
```

////

//// tab | Python 3.8+

```py
y = 2
```

////

/// details | Other versions
    type: warning

Hidden [text](guide.md).

/// check

Inside the details.

///

///

![A chart](chart.png)

/// caption
The chart's caption.
///

/// unknown
Stays as written.
///

[Broken](nowhere.md) on line 49.
"""

FILES: dict[str, str | bytes] = {
    "mkdocs.yml": MKDOCS_YML,
    "docs/index.md": PAGE,
    "docs/guide.md": "# Guide\n\n## Install it\n\nText.\n",
    "docs/chart.png": b"\x89PNG\r\n\x1a\n",
}


def test_blocks_keep_their_lines_and_code() -> None:
    kinds = registered({"pymdownx.blocks.admonition": {}, "pymdownx.blocks.details": {},
                        "pymdownx.blocks.tab": {}, "pymdownx.blocks.caption": {}})
    out, notes = rewrite(PAGE, kinds)
    lines = out.split("\n")
    assert len(lines) == len(PAGE.split("\n"))
    assert lines[2] == '!!! tip "Tip"' and lines[4].startswith("    Prefer")
    assert lines[8] == '=== "Python 3.9+"' and lines[12] == "    ///"  # code: not a block end
    assert lines[17] == '=== "Python 3.8+"'
    assert lines[25] == '??? warning "Other versions"' and lines[26] == ""  # its option
    assert "/// unknown" in out and "///\n\n[Broken]" in out
    assert notes == [(40, "the caption block is shown as its content")]
    # a site that turns on no block extension: `///` is text there, and stays
    assert registered({"admonition": {}}) == {}


def test_nested_blocks_options_and_custom_types() -> None:
    kinds = registered({"pymdownx.blocks.admonition": {
        "types": ["note", {"name": "check", "class": "success", "title": "Checked"}]},
        "pymdownx.blocks.details": {}, "pymdownx.blocks.tab": {}})
    text = ("/// details | Summary\n    open: true\n\nOuter.\n\n//// check\nInner.\n////\n"
            "///\n\n/// tab | A\n///\n\n/// tab | B\n    new: true\n///\n\n/// tip\nNot a type.\n"
            "///\n")
    out, _ = rewrite(text, kinds)
    assert out.split("\n") == [
        '???+ note "Summary"', "", "", "    Outer.", "", '    !!! success "Checked"',
        "        Inner.", "", "", "", '=== "A"', "", "", '===! "B"', "", "", "", "/// tip",
        "Not a type.", "///", ""]


@pytest.mark.parametrize("engine", ENGINES)
def test_blocks_render_on_mkdocs_and_sphinx_hosts(engine: str, tmp_path: Path,
                                                  cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, FILES)
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit, minimal_theme=False)
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    html = host.site().page(host.page_file("index.md")).text
    for marks in ("/// tip", "//// tab", "/// details", "/// check", "/// caption"):
        assert marks not in html, marks
    assert "Prefer the" in html and "Hidden" in html and "Inside the details." in html
    assert "caption." in html
    assert "/// unknown" in html  # not a block of this site: text, as on the upstream
    if engine == "mkdocs":
        assert 'class="admonition tip"' in html and 'class="admonition success"' in html
        assert '<details class="warning"' in html and 'class="tabbed-set' in html
        assert html.count('class="tabbed-block"') == 2
    else:  # a Sphinx host without sphinx-design: tabs are titled sections
        assert 'class="tip admonition"' in html and ">Checked</p>" in html
        assert "<strong>Python 3.9+</strong>" in html and "<strong>Python 3.8+</strong>" in html
    assert 'href="guide/#install-it"' in html or 'href="guide.html#install-it"' in html
    warnings = [line for line in run.output.splitlines() if "WARNING" in line]
    assert len(warnings) == 1 and "docs/index.md:49" in warnings[0], run.output


def _mintlify_page(tmp_path: Path, up: Path, commit: str) -> str:
    """The upstream's ``index.md`` as a Mintlify host's build writes it (no banner)."""
    docs = tmp_path / "host" / "docs"
    write(docs / "docs.json", '{"name": "Host", "navigation": {"tabs": [{"tab": "Guide", '
                              '"pages": ["index"]}]}}\n')
    write(docs / "index.mdx", "---\ntitle: Home\n---\n\nHome.\n")
    write(docs / "miles-docs.yml", f"sources:\n  - name: up\n    repo: {up.as_uri()}\n"
                                   "    banner: false\n")
    write(docs / "miles-docs.lock", lock_text({"up": (up.as_uri(), commit)}))
    git(docs.parent, "init", "-q")
    git(docs.parent, "add", "-A")
    git(docs.parent, "commit", "-q", "-m", "host")
    done = subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build",
                           "--out", str(tmp_path / "out")], cwd=docs, capture_output=True,
                          text=True, env={**os.environ})
    assert done.returncode == 0, done.stderr
    return (tmp_path / "out" / "up" / "index.md").read_text("utf-8")


def test_blocks_become_mintlify_components(tmp_path: Path, cache_dir: Path) -> None:
    from mintlify_support import broken_links

    up = tmp_path / "up"
    commit = make_repo(up, {**FILES, "docs/index.md": PAGE.replace("[Broken](nowhere.md)",
                                                                   "Not broken")})
    out = tmp_path / "out"
    written = _mintlify_page(tmp_path, up, commit)
    assert '<Tip title="Tip">' in written and '<Check title="Checked">' in written, written
    assert written.count("<Tab title=") == 2 and '<Accordion title="Other versions">' in written
    assert "/// tip" not in written and "//// tab" not in written
    assert broken_links(out, tmp_path / "home") == {}


def test_blocks_in_lists_and_admonitions_and_code_as_python_markdown_reads_them() -> None:
    """Options are the lines four spaces past the block's own indentation (a block in a list
    item took its content for options and never closed); a block in indented code is code."""
    kinds = registered({"pymdownx.blocks.admonition": {}})
    text = ("* A list item\n\n    /// tip | Inside a list\n    Nested in the item.\n    ///\n\n"
            "* Another item\n\n!!! note \"Outer\"\n\n    /// tip | Inner\n    Inner text.\n"
            "    ///\n\nExample of the syntax:\n\n    /// note | Shown as code\n    text\n"
            "    ///\n\nAfter.\n")
    out, _ = rewrite(text, kinds)
    assert out.split("\n") == [
        "* A list item", "", '    !!! tip "Inside a list"', "        Nested in the item.", "",
        "", "* Another item", "", '!!! note "Outer"', "", '    !!! tip "Inner"',
        "        Inner text.", "", "", "Example of the syntax:", "",
        "    /// note | Shown as code", "    text", "    ///", "", "After.", ""]


SAMPLES = [
    "* A list item\n\n    /// tip | Inside a list\n    Nested in the item.\n    ///\n\n"
    "* Another item\n",
    '!!! note "Outer"\n\n    /// tip | Inner\n    Inner text.\n    ///\n\nAfter.\n',
    "Example:\n\n    /// note | Shown as code\n    text\n    ///\n\nAfter.\n",
    "/// tip\n\nPrefer it.\n\n///\n\n//// tab | A\n\n```py\nx = 1\n///\n```\n\n////\n\n"
    "//// tab | B\n\ny\n\n////\n",
    "/// details | Other versions\n    type: warning\n    open: true\n\nHidden.\n\n/// tip\n"
    "Inside.\n///\n\n///\n",
    "/// warning | Careful\nOne\n\n    code in it\n\nTwo\n///\nText after.\n",
    "1. Step\n\n    //// tab | X\n    a\n    ////\n\n    //// tab | Y\n    b\n    ////\n\n"
    "2. Next\n",
    "//// tab | A\na\n////\n\n//// tab | B\n    new: true\nb\n////\n",
    "/// unknown\nStays.\n///\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_python_markdown_renders_the_rewrite_as_it_renders_the_blocks(text: str) -> None:
    """The oracle: Python-Markdown with pymdownx.blocks on the page as written, and with
    admonition, details and tabbed on the rewrite, give the same HTML."""
    import markdown

    common = ["pymdownx.superfences", "admonition"]
    blocks = [*common, "pymdownx.blocks.admonition", "pymdownx.blocks.details",
              "pymdownx.blocks.tab"]
    indented = [*common, "pymdownx.details", "pymdownx.tabbed"]
    kinds = registered({name: {} for name in blocks[2:]})
    out, _ = rewrite(text, kinds)
    want = markdown.markdown(text, extensions=blocks, extension_configs={
        "pymdownx.blocks.tab": {"alternate_style": True}})
    got = markdown.markdown(out, extensions=indented, extension_configs={
        "pymdownx.tabbed": {"alternate_style": True}})
    assert got == want, out


OPEN_AND_NEW = """\
# Page

???+ success "Open by default"

    Shown.

=== "A"

    a

=== "B"

    b

===! "C"

    c
"""


@pytest.mark.parametrize("engine", ["sphinx", "mintlify"])
def test_open_collapsibles_and_new_tab_sets_are_kept(engine: str, tmp_path: Path,
                                                     cache_dir: Path) -> None:
    """``???+`` is open at first and ``===!`` starts a set of tabs of its own (on MkDocs
    as written): a dropdown with ``:open:`` and two tab sets on Sphinx (sphinx-design),
    ``<Accordion defaultOpen>`` and two ``<Tabs>`` on Mintlify (both were lost)."""
    files = {"mkdocs.yml": "site_name: Up\nmarkdown_extensions: [admonition, pymdownx.details, "
                           "pymdownx.superfences, pymdownx.tabbed]\n",
             "docs/index.md": OPEN_AND_NEW}
    up = tmp_path / "up"
    commit = make_repo(up, files)
    if engine == "sphinx":
        host = make_host(engine, tmp_path / "host", up.as_uri(), commit,
                         conf_extra='extensions.append("sphinx_design")\n')
        run = host.build()
        assert run.returncode == 0, run.output
        html = host.site().page(host.page_file("index.md")).text
        assert re.search(r"<details[^>]*sd-dropdown[^>]*\sopen", html), html
        assert html.count('class="sd-tab-set') == 2 and html.count("sd-tab-label") == 3
        return
    written = _mintlify_page(tmp_path, up, commit)
    assert '<Accordion title="Open by default" defaultOpen>' in written, written
    assert written.count("<Tabs>") == 2, written


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mintlify_accordion_open_by_default_is_open(engine: str, tmp_path: Path,
                                                      cache_dir: Path) -> None:
    """``<Accordion defaultOpen>`` (Helicone's header directory) starts open: ``???+`` on
    MkDocs, ``:open:`` on a sphinx-design dropdown; it rendered closed."""
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.mdx": "# Page\n\n<Accordion title=\"Shown\" defaultOpen>"
                                              "\n  Text.\n</Accordion>\n"})
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit, minimal_theme=False,
                     conf_extra='extensions.append("sphinx_design")\n')
    run = host.build()
    assert run.returncode == 0, run.output
    html = host.site().page(host.page_file("index.md")).text
    assert re.search(r"<details[^>]*\sopen", html), html


def test_sets_of_tabs_one_after_another_stay_apart_on_mkdocs(tmp_path: Path,
                                                             cache_dir: Path) -> None:
    """A ``<RequestExample>`` and the ``<ResponseExample>`` after it, and two ``<Tabs>`` one
    after the other, are two sets each (pymdownx.tabbed joined them into one)."""
    page = ("# Endpoint\n\n<RequestExample>\n```bash cURL\ncurl x\n```\n```ts TypeScript\nf()\n"
            "```\n</RequestExample>\n\n<ResponseExample>\n```json Response\n{}\n```\n"
            "</ResponseExample>\n\n<Tabs>\n<Tab title=\"A\">\na\n</Tab>\n</Tabs>\n\n"
            "<Tabs>\n<Tab title=\"B\">\nb\n</Tab>\n<Tab title=\"C\">\nc\n</Tab>\n</Tabs>\n")
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.mdx": page})
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit, minimal_theme=False)
    run = host.build()
    assert run.returncode == 0, run.output
    html = host.site().page(host.page_file("index.md")).text
    sets = re.findall(r'class="tabbed-set[^"]*" data-tabs="(\d+):(\d+)"', html)
    assert [int(n) for _, n in sets] == [2, 1, 1, 2], sets


def test_a_type_that_is_no_class_name_is_a_note() -> None:
    """A block's ``type`` is upstream text: one the indented syntax cannot carry as a class
    (quotes, markup) is a note, not part of the header line."""
    kinds = registered({"pymdownx.blocks.admonition": {}})
    out, _ = rewrite("/// admonition | T\n    type: 'x\"<b>'\nText.\n///\n", kinds)
    assert out.split("\n")[0] == '!!! note "T"', out
