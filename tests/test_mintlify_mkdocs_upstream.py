"""A Mintlify host injecting an MkDocs site (as astral-sh/uv's and typer's docs are): what
MkDocs reads on such pages, written so that Mintlify reads the same. Each test builds the site
with `miles-docs mintlify build` and reads it back, where it can with Mintlify's own code (the
pinned `mint`'s ``@mintlify/common``, run by node) or `mint broken-links`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from mintlify_support import broken_links, ensure_mint
from support import git, lock_text, make_repo, write

HOST_DOCS_JSON = """\
{
  "name": "Host",
  "theme": "mint",
  "colors": {"primary": "#000000"},
  "navigation": {"tabs": [{"tab": "Guide", "pages": ["index"]}]}
}
"""

MKDOCS_YML = """\
site_name: Up
markdown_extensions:
  - admonition
  - attr_list
  - abbr
  - pymdownx.mark
  - pymdownx.caret
  - pymdownx.keys
  - pymdownx.superfences
  - pymdownx.highlight:
      anchor_linenums: true
nav:
  - Introduction: index.md
  - Concepts:
      - concepts/index.md
      - Structure and files: concepts/projects/layout.md
      - "Sneaky\\"\\nicon: evil\\nmode: custom": concepts/sneaky.md
      - concepts/described.md
      - concepts/untitled.md
"""


def _build(root: Path, files: Mapping[str, str | bytes], trust: str = "") -> tuple[Path, str]:
    """``files`` (an MkDocs upstream's tree) built into a Mintlify host with the CLI, no
    banners: (the section's folder in the output, the build's stderr)."""
    commit = make_repo(root / "up", files)
    docs = root / "host" / "docs"
    write(docs / "docs.json", HOST_DOCS_JSON)
    write(docs / "index.md", "---\ntitle: Home\n---\n\nSee [the section](/up).\n")
    write(docs / "miles-docs.yml", f"sources:\n  - name: up\n    repo: {(root / 'up').as_uri()}\n"
          f"    web_url: https://github.com/o/up\n    banner: false\n{trust}")
    write(docs / "miles-docs.lock", lock_text({"up": ((root / "up").as_uri(), commit)}))
    git(docs.parent, "init", "-q")
    git(docs.parent, "add", "-A")
    git(docs.parent, "commit", "-q", "-m", "host")
    done = subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build",
                           "--out", str(root / "out")], cwd=docs, capture_output=True,
                          text=True, check=False, env={**os.environ,
                                                       "MILES_DOCS_CACHE": str(root / "cache")})
    assert done.returncode == 0, done.stderr
    return root / "out" / "up", done.stderr


def _node(root: Path, name: str, code: str) -> Any:
    """Run ``code`` (an ES module that prints JSON) by node beside the pinned ``mint``'s
    ``@mintlify/common`` (``COMMON`` in the code: its ``dist`` folder's URL)."""
    common = ensure_mint().parent.parent / "@mintlify" / "common" / "dist"
    script = write(root / name, code.replace("COMMON", common.as_uri()))
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _page_metadata(root: Path, pages: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """What Mintlify makes of each page's front matter (``getDecoratedNavPageAndSlug``): its
    title, sidebarTitle and the other keys, by page id."""
    return dict(_node(root, "meta.mjs", (
        "import fs from 'fs';\n"
        "import { getDecoratedNavPageAndSlug } from "
        "'COMMON/slug/getDecoratedNavPageAndSlug.js';\n"
        f"const pages = {json.dumps({k: str(v) for k, v in pages.items()})};\n"
        "console.log(JSON.stringify(Object.entries(pages).map(([id, file]) => [id, "
        "getDecoratedNavPageAndSlug(id + '.mdx', fs.readFileSync(file, 'utf8'), [], [])"
        ".pageMetadata])));\n")))


# -- titles ----------------------------------------------------------------------------------

TITLED = {
    "mkdocs.yml": MKDOCS_YML,
    "docs/index.md": "# Installing uv\n\nIntro, see [layout](concepts/projects/layout.md).\n",
    "docs/concepts/index.md": "\n# Concepts\n\n## Concepts\n\nSee [below](#concepts).\n",
    "docs/concepts/projects/layout.md": "# The `pyproject.toml` *file*\n\n## Rich\n\nText.\n",
    "docs/concepts/sneaky.md": "Sneaky page\n===========\n\nText.\n",
    "docs/concepts/described.md": "---\ndescription: Said\ntitle: Front\n---\n# Heading\n\nText.\n",
    "docs/concepts/untitled.md": "Text only.\n",
}


def test_titles_come_from_the_heading_and_the_nav(tmp_path: Path) -> None:
    """An MkDocs page names itself with its first ``# heading`` and the site's nav names it in
    the navigation: both were lost (Mintlify named the pages Index, Layout… and showed the
    heading twice). They are the front matter's ``title`` and ``sidebarTitle``, the heading
    out of the body; a nav title never makes a key of its own."""
    out, _ = _build(tmp_path, TITLED)
    ids = {p: f"up/{p}" for p in ("index", "concepts/index", "concepts/projects/layout",
                                  "concepts/sneaky", "concepts/described",
                                  "concepts/untitled")}
    meta = _page_metadata(tmp_path, {ids[p]: out / f"{p}.md" for p in ids})
    titles = {p: (meta[ids[p]]["title"], meta[ids[p]].get("sidebarTitle")) for p in ids}
    assert titles == {
        "index": ("Installing uv", "Introduction"),
        "concepts/index": ("Concepts", None),
        "concepts/projects/layout": ("The pyproject.toml file", "Structure and files"),
        "concepts/sneaky": ("Sneaky page", 'Sneaky" icon: evil mode: custom'),
        # MkDocs: the front matter title names the page in the nav, the heading shows on it
        "concepts/described": ("Heading", "Front"),
        "concepts/untitled": ("Untitled", None),
    }
    assert "icon" not in meta[ids["concepts/sneaky"]] and "mode" not in meta[
        ids["concepts/sneaky"]]
    assert meta[ids["concepts/described"]]["description"] == "Said"
    # the heading is the title, not a line of the body too; the page's other headings stay
    index = (out / "index.md").read_text()
    assert "# Installing uv" not in index and "Intro, see" in index, index
    concepts = (out / "concepts" / "index.md").read_text()
    assert "\n# Concepts" not in concepts and "## Concepts" in concepts, concepts
    assert "===" not in (out / "concepts" / "sneaky.md").read_text()
    # docs.json lists the pages (titles are no part of it)
    tabs = json.loads((tmp_path / "out" / "docs.json").read_text())["navigation"]["tabs"]
    assert tabs[1]["pages"][0] == "up/index"
    # the heading ids Mintlify gives the rest of the page are the ones links were given
    assert "[below](#concepts)" in concepts, concepts
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}


def test_a_title_never_makes_a_key_or_a_tag(tmp_path: Path) -> None:
    """The upstream is untrusted: a trusted page's nav title with quotes and line breaks is
    one string to Mintlify; an untrusted page's heading keeps no tag (the sandbox's rule for
    front matter titles)."""
    files = {"mkdocs.yml": MKDOCS_YML, "docs/index.md": "# Use <script>x</script> here\n",
             "docs/concepts/sneaky.md": "# Sneaky\n"}
    out, _ = _build(tmp_path / "trusted", files, "    trust: full\n")
    meta = _page_metadata(tmp_path, {"up/concepts/sneaky": out / "concepts" / "sneaky.md"})
    assert meta["up/concepts/sneaky"]["sidebarTitle"] == 'Sneaky"\nicon: evil\nmode: custom'
    assert "icon" not in meta["up/concepts/sneaky"] and "mode" not in meta["up/concepts/sneaky"]
    out, _ = _build(tmp_path / "untrusted", files)
    meta = _page_metadata(tmp_path, {"up/index": out / "index.md"})
    assert "<" not in meta["up/index"]["title"] and "script" in meta["up/index"]["title"]


# -- code fences -----------------------------------------------------------------------------

FENCES = """\
# Fences

```yaml title="example.yml" hl_lines="2 4-5"
a: 1
b: 2
c: 3
d: 4
e: 5
```

``` { .python .no-copy hl_lines="2" linenums="3" }
x = 1
y = 2
```

```python linenums="1" hl_lines="1 9"
print()
```

!!! note

    ```toml title="pyproject.toml" hl_lines="1"
    [project]
    ```

```console
$ uv sync
```

```python
# hl_lines="1" in code is code
```
"""


def test_fence_options_are_mintlifys(tmp_path: Path) -> None:
    """pymdownx.highlight's ``hl_lines`` and ``linenums`` were written as they were, and
    Mintlify's parseMetaString read only the file name of them: they are ``highlight={…}``
    and ``lines`` (what parseMetaString reads, checked with it), lines past the block's end
    dropped; a superfences attribute list gives its first class as the language."""
    out, _ = _build(tmp_path, {"mkdocs.yml": MKDOCS_YML, "docs/index.md": FENCES})
    page = (out / "index.md").read_text()
    opening = [line.strip() for line in page.splitlines()
               if line.strip().startswith("```") and line.strip() != "```"]
    assert opening == ['```yaml title="example.yml" highlight={2,4-5}',
                       "```python highlight={2} lines", "```python highlight={1} lines",
                       '```toml title="pyproject.toml" highlight={1}', "```console",
                       "```python"], page
    assert '# hl_lines="1" in code is code' in page
    metas = [line.split(None, 1)[1] if " " in line else "" for line in opening]
    parsed = _node(tmp_path, "fence.mjs", (
        "import { parseMetaString } from "
        "'COMMON/mdx/plugins/rehype/rehypeCodeBlocks/parseMetaString.js';\n"
        f"console.log(JSON.stringify({json.dumps(metas)}.map(parseMetaString)));\n"))
    assert [{k: v for k, v in p.items() if v not in ("", None)} for p in parsed] == [
        {"filename": "example.yml", "highlight": [2, 4, 5]},
        {"highlight": [2], "lines": True}, {"highlight": [1], "lines": True},
        {"filename": "pyproject.toml", "highlight": [1]}, {}, {}]
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


# -- attribute lists -------------------------------------------------------------------------

ATTRS = """\
# Help

Read [the help](commands/help.md#rich){.internal-link target=_blank} first.

![chart](chart.png){ width="300" .center }

[Get started](commands/help.md){ .md-button .md-button--primary }

## Part one { #custom-id .no-toc }

## Part two {: .special }

A paragraph with a class.
{: .lead }

See [part one](#custom-id) and [part two](#part-two).

`[code](x.md){.kept}` and

```md
[code](x.md){.kept}
```
"""


@pytest.mark.parametrize("trust", ["", "    trust: full\n"])
def test_attribute_lists_are_left_out(tmp_path: Path, trust: str) -> None:
    """attr_list's ``{ … }`` (after a link or an image, after a heading, under a paragraph)
    was a JSX expression to Mintlify: written as text with a hint to set ``trust: full``, and
    trusted it stopped the MDX compile. It is left out, as on Sphinx; links to a heading's
    ``#id`` go to the heading's Mintlify id. (Typer's and Material's pages write them.)"""
    out, stderr = _build(tmp_path, {
        "mkdocs.yml": MKDOCS_YML, "docs/index.md": ATTRS, "docs/chart.png": b"\x89PNG\r\n",
        "docs/commands/help.md": "# Help\n\n## Rich\n\nText.\n"}, trust)
    page = (out / "index.md").read_text()
    assert "trust: full" not in stderr and "JSX expression" not in stderr, stderr
    assert "Read [the help](/up/commands/help#rich) first." in page, page
    assert "![chart](/up/chart.png)\n" in page and "(/up/commands/help)\n" in page, page
    assert "## Part one\n" in page and "## Part two\n" in page, page
    assert "lead" not in page and "{" not in page.replace("{.kept}", ""), page
    assert page.count("[code](x.md){.kept}") == 2, page
    assert "[part one](#part-one) and [part two](#part-two)" in page, page
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}


# -- abbreviations, marks, keys --------------------------------------------------------------

MARKS = """\
# Marks

The ==CLI== is ^^new^^: press ++ctrl+alt+del++, or ++ctrl+unknownkey++; `==code==` stays,
and a == b == c too.

*[CLI]: Command Line Interface
"""


def test_abbreviations_marks_and_keys(tmp_path: Path) -> None:
    """abbr's definitions showed as text, ``==x==``, ``^^x^^`` and ``++ctrl+c++`` as they
    were written: the definitions are left out, the others are ``<mark>``, ``<ins>`` and
    ``<kbd>`` (as pymdownx renders them, a combination with a key it does not know stays text),
    where the upstream's mkdocs.yml turns the extension on, else they are text there too."""
    out, _ = _build(tmp_path / "on", {"mkdocs.yml": MKDOCS_YML, "docs/index.md": MARKS})
    page = (out / "index.md").read_text()
    assert ("The <mark>CLI</mark> is <ins>new</ins>: press <kbd>Ctrl</kbd>+<kbd>Alt</kbd>+"
            "<kbd>Del</kbd>, or ++ctrl+unknownkey++; `==code==` stays,\nand a == b == c too."
            ) in page, page
    assert "*[CLI]" not in page and "Command Line Interface" not in page, page
    assert broken_links(tmp_path / "on" / "out", tmp_path / "home") == {}
    out, _ = _build(tmp_path / "off", {"mkdocs.yml": "site_name: Up\n",
                                       "docs/index.md": MARKS})
    page = (out / "index.md").read_text()
    assert "The ==CLI== is ^^new^^: press ++ctrl+alt+del++" in page and "*[CLI]" in page, page


def test_an_untitled_nav_group_has_no_level_of_its_own(tmp_path: Path) -> None:
    """An MkDocs nav group titled ``""`` (Typer's nav) puts its pages in the parent's list:
    a docs.json group needs a name."""
    out, _ = _build(tmp_path, {
        "mkdocs.yml": 'site_name: Up\nnav:\n  - Home: index.md\n  - "":\n      - a.md\n'
                      '      - "":\n          - b.md\n  - Named:\n      - c.md\n',
        "docs/index.md": "# Home\n", "docs/a.md": "# Page A\n", "docs/b.md": "# Page B\n",
        "docs/c.md": "# Page C\n"})
    text = (out.parent / "docs.json").read_text("utf-8")
    assert '"group": ""' not in text
    tab = next(t for t in json.loads(text)["navigation"]["tabs"] if t["tab"] != "Guide")
    assert tab["pages"][1:] == ["up/a", "up/b", {"group": "Named", "pages": ["up/c"]}], tab


def test_a_link_to_the_title_heading_reaches_the_top_unsaid(tmp_path: Path) -> None:
    """The title heading becomes the front matter's title, shown at the top of the page: a
    link to its id (FastAPI's `index.md#fastapi`, from `# FastAPI { #fastapi }`) reaches
    the top, where the title is, and says nothing (it warned "matches no heading")."""
    out, stderr = _build(tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions: [attr_list, toc]\n",
        "docs/index.md": "# FastAPI { #fastapi }\n\nHome.\n",
        "docs/other.md": "# Other\n\nSee [home](index.md#fastapi) and "
                         "[gone](index.md#nowhere).\n"})
    other = (out / "other.md").read_text("utf-8")
    assert "[home](/up)" in other and "[gone](/up)" in other, other
    assert "#fastapi" not in stderr and "#nowhere" in stderr, stderr
