"""Mintlify components whose content is in their attributes or that show one version of a page
(``<Tree>``, ``<Color>``, ``<View>``, ``<Prompt>``, ``<Popup>``): real MkDocs and Sphinx builds,
strict (an unknown component is a warning, so a build that does not know them fails)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hosts import built_page

TREE = """\
Before the tree:

- a list of the page

<Tree>
  <Tree.Folder name="app" defaultOpen>
    <Tree.File name="layout.tsx" />

    <Tree.Folder name="api">
      <Tree.File name="route.ts" />
    </Tree.Folder>
  </Tree.Folder>
  <Tree.File name="package.json" />
</Tree>
- a list after it
"""


def _items(page: str) -> list[str]:
    """The text of each list item, its nested items left out, in document order."""
    text = re.sub(r"<[^>]+>", lambda m: "\n" if m.group(0).startswith(("<li", "</li", "<ul",
                                                                       "</ul")) else "", page)
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_tree_is_a_nested_list_of_its_names(engine: str, tmp_path: Path,
                                              cache_dir: Path) -> None:
    page = built_page(engine, tmp_path, {"docs/index.mdx": "---\ntitle: Layout\n---\n\n" + TREE})
    main = page.split("Before the tree:", 1)[1]
    # the folders' names end in "/", every name is code, and each file is in its folder's list
    folder = re.search(r"<li>\s*(?:<p>)?<code[^>]*>(?:<span[^>]*>)?app/.*?</li>\s*</ul>\s*</li>",
                       main, re.S)
    assert folder, main
    assert "layout.tsx" in folder.group(0) and "api/" in folder.group(0), folder.group(0)
    assert "package.json" not in folder.group(0)
    assert "package.json" in main
    # the page's own lists before and after stay lists of their own
    lists = re.findall(r"<ul[^>]*>.*?</ul>", main.replace("\n", " "))
    assert "a list of the page" in lists[0] and "app/" not in lists[0], lists
    after = main.split("package.json", 1)[1]
    assert "a list after it" in after and "</ul>" in after.split("a list after it")[0], after
    assert "Tree" not in re.sub(r"<[^>]+>", "", main)  # no tag left as text


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_palette_shows_each_colour_with_its_name(engine: str, tmp_path: Path,
                                                   cache_dir: Path) -> None:
    page = built_page(engine, tmp_path, {"docs/index.mdx": (
        "---\ntitle: Colours\n---\n\n<Color variant=\"table\">\n"
        "  <Color.Row title=\"Primary\">\n"
        "    <Color.Item name=\"primary-500\" value=\"#3B82F6\" />\n"
        "    <Color.Item name=\"Surface\" value={{ light: \"#FFFFFF\", dark: \"#18181B\" }} />\n"
        "  </Color.Row>\n</Color>\n")})
    text = re.sub(r"<[^>]+>", "", page)
    assert "Primary" in text
    assert re.search(r"primary-500\s+#3B82F6", text), text
    assert re.search(r"Surface\s+light\s+#FFFFFF,\s+dark\s+#18181B", text), text


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_views_prompts_and_popups_keep_their_titles_and_content(
        engine: str, tmp_path: Path, cache_dir: Path) -> None:
    page = built_page(engine, tmp_path, {"docs/index.mdx": (
        "---\ntitle: Views\n---\n\n"
        "<View title=\"JavaScript\" icon=\"js\">\n  Only for JavaScript.\n</View>\n\n"
        "<View title=\"Python\" icon=\"python\">\n  Only for Python.\n</View>\n\n"
        "<Prompt description=\"Write the docs\" actions={[\"copy\"]}>\n"
        "You are a **technical writer**.\n</Prompt>\n\n"
        "<Popup>\n  <PopupTrigger>API rate limits</PopupTrigger>\n"
        "  <PopupContent>\n    **Rate limits** protect your API.\n  </PopupContent>\n</Popup>\n")})
    if engine == "mkdocs":  # the versions are tabs, as Mintlify's view switcher has them
        labels = re.findall(r"<label[^>]*>([^<]*)</label>", page)
        assert labels == ["JavaScript", "Python"], page
    else:  # each version under its title, apart from its content
        for title, text in (("JavaScript", "Only for JavaScript."), ("Python", "Only for Python.")):
            assert re.search(rf"<strong>{title}</strong></p>\s*<p>{text}", page), page
    prompt = page.split("Write the docs", 1)
    assert len(prompt) == 2 and "admonition-title" in prompt[0][-200:], page
    assert "<strong>technical writer</strong>" in prompt[1]
    assert "API rate limits" in page and "<strong>Rate limits</strong> protect" in page


def test_an_entry_keeps_what_is_not_an_entry_as_written() -> None:
    """Entries alone make a tight list; other content of an entry (a code block, two
    paragraphs) keeps its blank lines; a name with a backtick is still code."""
    from miles_docs_plugin.core.transform.blocks import Component, fallback

    code = ["  ```py", "  a = 1", "", "  b = 2", "  ```"]
    folder = fallback(Component("Tree.Folder", {"name": "app"}, "", code))
    assert folder[0] == "- `app/`" and "" in folder[1:folder.index("      b = 2")], folder
    items = fallback(Component("Tree.Folder", {"name": "lib"}, "",
                               ["- `a.py`", "", "- `b.py`"]))
    assert items[:3] == ["- `lib/`", "    - `a.py`", "    - `b.py`"], items
    assert fallback(Component("Tree.File", {"name": "we`ird"}, "", [])) == ["- `` we`ird ``"]
