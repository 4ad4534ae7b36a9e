"""``pymdownx.snippets`` includes of an MkDocs upstream (``--8<--``), read from the pinned tree:
real MkDocs and Sphinx builds, and the include rules against the extension itself."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest
from hosts import make_host
from support import lock_text, make_repo, write

from miles_docs_plugin.core.collect.includes import Includes

MKDOCS_YML = """\
site_name: Upstream
markdown_extensions:
  - admonition
  - pymdownx.snippets:
      base_path: [docs, .]
exclude_docs: |
  includes/
"""

PAGE = """\
# Home

--8<-- "includes/note.md"

!!! note
    --8<-- "includes/parts.md:usage"

;--8<-- "written-as-is.md"

--8<--
includes/a.md
; includes/left-out.md
includes/lines.md:2:3
--8<--

--8<-- "README.md"

--8<-- "includes/missing.md"

--8<-- "https://example.invalid/x.md"

--8<-- "includes/loop.md"

End.
"""

FILES: dict[str, str | bytes] = {
    "mkdocs.yml": MKDOCS_YML,
    "docs/index.md": PAGE,
    "docs/other.md": "# Other\n",
    "docs/includes/note.md": "A *shared* note, see [the other page](other.md).\n",
    "docs/includes/parts.md": "before\n--8<-- [start:usage]\nRun **it**.\n--8<-- [end:usage]\n"
                              "after\n",
    "docs/includes/a.md": "Text of a.\n",
    "docs/includes/lines.md": "one\ntwo\nthree\nfour\n",
    "docs/includes/loop.md": "Loop text.\n--8<-- \"includes/loop.md\"\n",
    "README.md": "The readme.\n\n--8<-- \"LICENSE.md\"\n",
    "LICENSE.md": "The licence.\n",
    "NOT-INCLUDED.md": "Not included.\n",
}


def _warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if "pymdownx.snippets include" in line]


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_includes_are_read_from_the_pinned_tree(engine: str, tmp_path: Path,
                                                cache_dir: Path) -> None:
    upstream = tmp_path / "up"
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), make_repo(upstream, FILES))
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    page = host.site().page(host.page_file("index.md")).text
    text = re.sub(r"<[^>]+>", "", page)
    assert "A shared note" in text and "<em>shared</em>" in page
    # the included link is the page's own, rewritten like any other
    other = "other/" if engine == "mkdocs" else "other.html"
    assert f'href="{other}"' in page, page
    # a section, inside the admonition the include is indented in
    note = page.split('class="admonition-title"', 1)[1].split("</div>", 1)[0]
    assert "Run <strong>it</strong>." in note and "before" not in text
    assert "Text of a." in text and re.search(r"two\s+three", text) and "four" not in text
    assert "left-out" not in text and "Loop text." in text and "End." in text
    assert re.search(r'8&lt;\S* \S*written-as-is\.md', page), page  # `;` writes it literally
    # what an include cannot read is left out and reported at its line
    warned = _warnings(run.output)
    lines = PAGE.splitlines()
    for needle, why in (("missing.md", "not in the upstream"),
                        ("example.invalid", "not downloaded")):
        line = next(i for i, text in enumerate(lines, 1) if needle in text)
        assert any(f"index.md:{line}" in w and why in w for w in warned), (needle, warned)
    assert len(warned) == 2, warned
    # a file outside the docs folder comes with the fetch, and so do those it includes
    assert "The readme." in text and "The licence." in text
    assert "Not included." not in text


def test_a_pin_move_of_an_included_file_changes_the_page(tmp_path: Path, cache_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The included text is part of the page as collected: a change to the included file
    alone is a change of the page (the transform memo and Sphinx see it)."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "up"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), make_repo(upstream, FILES))
    assert host.build(strict=False).returncode == 0
    commit = make_repo(upstream, {"docs/includes/a.md": "Changed text of a.\n",
                                  "LICENSE.md": "The new licence.\n"})
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), commit)}))
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    page = host.site().page(host.page_file("index.md")).text
    assert "Changed text of a." in page
    assert "The new licence." in page  # outside the docs folder: fetched on a pin move too
    warm = host.build(strict=False, env={"MILES_DOCS_OFFLINE": "1"})  # from the cache alone
    assert warm.returncode == 0, warm.output
    assert "The new licence." in host.site().page(host.page_file("index.md")).text
    assert "outside the docs folder" not in warm.output, warm.output


@pytest.mark.parametrize("text", [
    "--8<-- \"f.md\"\n",
    "  --8<-- \"f.md:2\"\n",
    "--8<-- \"f.md:2:3\"\n",
    "--8<-- \"f.md:-2\"\n",
    "--8<-- \"f.md::2,4:\"\n",
    "--8<-- \"f.md:part\"\n",
    "x\n\n-8<-\nf.md\n\ng.md:1:1\n-8<-\ny\n",
    ";--8<-- \"f.md\"\n",
    "--8<-- \"g.md\"\n",  # g includes f, indented, and itself
    "--8<-- 'f.md'\nz --8<-- [start:x] z\n",
])
def test_the_include_rules_are_the_extensions(text: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Line ranges, sections, blocks, escapes and nesting give what pymdownx.snippets gives."""
    files = {"f.md": "one\n  two\n--8<-- [start:part]\nthree\n--8<-- [end:part]\nfour\n",
             "g.md": "g1\n    --8<-- \"f.md:1:2\"\n--8<-- \"g.md\"\n"}
    for name, body in files.items():
        write(tmp_path / name, body)
    monkeypatch.chdir(tmp_path)
    expected = markdown.Markdown(extensions=["pymdownx.snippets"]).preprocessors[
        "snippet"].run(text.split("\n"))

    def read(path: str) -> tuple[str | None, str]:
        return files.get(path), ""

    assert Includes({}, "", read).expand(text.split("\n")) == expected


def test_includes_that_multiply_stop_at_the_page_size_limit() -> None:
    """Each file including the next ten times is ten to the power of the depth: an upstream
    cannot make a page of gigabytes; what would pass the limit is left out and reported."""
    files = {f"f{i}.md": "".join(f'--8<-- "f{i + 1}.md"\n' for _ in range(10)) for i in range(8)}
    files["f8.md"] = "x" * 100 + "\n"

    def read(path: str) -> tuple[str | None, str]:
        return files.get(path), ""

    includes = Includes({}, "", read, max_bytes=100_000)
    out = includes.expand(['--8<-- "f0.md"'])
    assert sum(len(line) + 1 for line in out) <= 100_000
    assert includes.problems and includes.problems[0][0] == 0
    assert "page size limit" in includes.problems[0][1]


def _includes(files: dict[str, str], base_path: list[str] | None = None,
              max_bytes: int = 1 << 62) -> Includes:
    def read(path: str) -> tuple[str | None, str]:
        if path.startswith("outside/"):
            return None, "outside the docs folder"
        return files.get(path), ""

    return Includes({"base_path": base_path or ["."]}, "", read, max_bytes=max_bytes)


@pytest.mark.parametrize("page", [
    # one range per copy of the file: the copies count, each before it is taken
    ['--8<-- "big.md::' + ",:" * 500 + '"'],
    # the indentation before each line counts too
    [" " * 2000 + '--8<-- "lines.md"'],
    # and both, one level down
    [" " * 1000 + '--8<-- "mid.md"'],
])
def test_what_an_include_writes_is_what_it_pays_for(page: list[str]) -> None:
    files = {"big.md": "x" * 2000 + "\n", "lines.md": "\n" * 20_000,
             "mid.md": (" " * 1000 + '--8<-- "lines.md::,:,:,:"\n') * 10}
    includes = _includes(files, max_bytes=100_000)
    out = includes.expand(page)
    assert sum(len(line) + 1 for line in out) <= 100_000
    assert [m for _, m in includes.problems] == [
        m for _, m in includes.problems if "page size limit" in m] and includes.problems


def test_paths_split_as_the_extension_splits_them() -> None:
    """File, ranges and section of a path, against pymdownx.snippets' own split (in linear
    time: a path of many ``:`` is no slower than a long one)."""
    import random

    reference = markdown.Markdown(extensions=["pymdownx.snippets"]).preprocessors["snippet"]
    rng = random.Random(7)
    from miles_docs_plugin.core.collect.includes import _split

    for _ in range(3000):
        path = "".join(rng.choice("ab:,-019_") for _ in range(rng.randint(0, 14)))
        assert _split(path) == reference.split_path(path), path
    long = ",:" * 50_000 + "!"
    assert _split(long) == reference.split_path(long)


def test_base_paths_as_mkdocs_writes_them() -> None:
    """``!relative`` (the page's folder), ``!relative $docs_dir``, a file as a base, a base
    that is not a list; the first base that has the file decides."""
    from miles_docs_plugin.core.collect.upstream import read_upstream

    yml = ("site_name: Up\nmarkdown_extensions:\n  - pymdownx.snippets:\n"
           "      base_path:\n        - !relative\n        - !relative $docs_dir/parts\n"
           "        - docs/one.md\n        - 3\n")
    site = read_upstream(lambda rel: None, {"mkdocs.yml": yml.encode()}.get, "docs")
    assert site is not None and site.snippets is not None
    files = {"docs/guide/near.md": "near", "docs/parts/shared.md": "shared",
             "docs/one.md": "one"}

    def read(path: str) -> tuple[str | None, str]:
        return files.get(path), ""

    includes = Includes(site.snippets, "", read, page_dir="docs/guide", docs_dir="docs")
    assert includes.expand(['--8<-- "near.md"', '--8<-- "shared.md"', '--8<-- "one.md"',
                            '--8<-- "two.md"']) == ["near", "shared", "one"]
    assert Includes({"base_path": None}, "", read).expand(['--8<-- "docs/one.md"']) == ["one"]
    # the first base where the file is decides, even where it may not be read
    first = _includes({"docs/x.md": "x"}, base_path=["outside", "docs"])
    assert first.expand(['--8<-- "x.md"']) == []
    assert "outside the docs folder" in first.problems[0][1]


def test_a_page_with_mixed_line_endings_has_its_includes() -> None:
    from miles_docs_plugin.core.collect.includes import include_snippets
    from miles_docs_plugin.core.model import Page

    page = Page("s", "p.md", "p/", 'a\r\n--8<-- "f.md"\nb\rc', content='a\r\n--8<-- "f.md"\nb\rc')

    def read(path: str) -> tuple[str | None, str]:
        return {"f.md": "F"}.get(path), ""

    assert include_snippets(page, {}, "", "", read) == []
    assert page.content == "a\nF\nb\nc"


def test_every_file_the_pages_include_comes_with_the_fetch(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    """Files outside the docs folder as the build looks them up: two names of the same
    bytes, a ``.markdown`` page's includes, an include on a first line after a byte-order
    mark, a chain of includes deeper than a few levels."""
    chain = {f"C{i}.md": f"level {i}\n--8<-- \"C{i + 1}.md\"\n" for i in range(7)}
    chain["C7.md"] = "level 7\n"
    files: dict[str, str | bytes] = {
        "mkdocs.yml": MKDOCS_YML,
        "docs/index.md": '# Home\n\n--8<-- "SAME-A.md"\n\n--8<-- "SAME-B.md"\n\n--8<-- "C0.md"\n',
        "docs/other.markdown": '# Other\n\n--8<-- "OTHER.md"\n',
        "docs/bom.md": '\ufeff--8<-- "BOM.md"\n',
        "SAME-A.md": "Same bytes.\n", "SAME-B.md": "Same bytes.\n",
        "OTHER.md": "Other text.\n", "BOM.md": "Bom text.\n", **chain,
    }
    upstream = tmp_path / "up"
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), make_repo(upstream, files))
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert "pymdownx.snippets include" not in run.output, run.output
    text = {p.relative_to(host.out).as_posix(): re.sub(r"<[^>]+>", "", p.read_text("utf-8"))
            for p in (host.out / "diffusion").rglob("index.html")}
    assert text["diffusion/index.html"].count("Same bytes.") == 2
    assert all(f"level {i}" in text["diffusion/index.html"] for i in range(8))
    assert "Other text." in text["diffusion/other/index.html"]
    assert "Bom text." in text["diffusion/bom/index.html"]


def test_tree_paths_that_would_leave_the_checkout_are_never_files() -> None:
    """A tree may hold ``..`` or ``.git`` entries that git's checkout refuses; files written
    from object ids (a pin move, included files) must not follow them; an include's base
    outside the repository (``/``, ``..``) finds nothing, in a working copy too."""
    from miles_docs_plugin.core.model import safe_path
    from miles_docs_plugin.core.source.checkout import _parse_tree

    for bad in ("../x.md", "docs/../../x", "a//b", "./a", ".git/hooks/post-checkout",
                "docs/.GIT/config", "/etc/passwd", ""):
        assert not safe_path(bad), bad
    assert safe_path("docs/guide/page.md") and safe_path(".github/x.md")
    tree, blobs, modes, objects = _parse_tree(
        "100644 blob aaaa\tdocs/ok.md\x00100644 blob bbbb\tdocs/../../evil.md\x00")
    assert set(tree) == set(blobs) == set(modes) == {"docs/ok.md"}
    assert set(objects) == {"docs/ok.md", "docs/../../evil.md"}  # the pin is checked on all

    def read(path: str) -> tuple[str | None, str]:
        raise AssertionError(f"read {path}")

    for base in ("/", "..", "../.."):
        assert Includes({"base_path": [base]}, "", read).expand(['--8<-- "etc/hostname"']) == []


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_auto_append_files_end_every_page(engine: str, tmp_path: Path, cache_dir: Path) -> None:
    """``auto_append`` (mkdocs-material appends its link definitions to every page that
    way): each page gets the files, as the extension appends them, a file outside the docs
    folder fetched with it; without them the pages showed ``[MkDocs]`` as text."""
    upstream = tmp_path / "up"
    files: dict[str, str | bytes] = {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - pymdownx.snippets:\n"
                      "      auto_append:\n        - includes/links.md\n",
        "docs/index.md": "# Home\n\nBuilt with [MkDocs].\n",
        "docs/guide/other.md": "# Other\n\nSee [MkDocs] too.\n",
        "includes/links.md": "[MkDocs]: https://www.mkdocs.org\n",
    }
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), make_repo(upstream, files))
    run = host.build()
    assert run.returncode == 0, run.output
    for page in ("index.md", "guide/other.md"):
        html = host.site().page(host.page_file(page)).text
        assert re.search(r'<a [^>]*href="https://www.mkdocs.org"[^>]*>MkDocs</a>', html), html
        assert "[MkDocs]" not in html, html


def test_auto_append_files_are_named_for_the_fetch_beside_an_index_with_includes() -> None:
    """The fetch brings the ``auto_append`` files from outside the docs folder, also when the
    docs folder's index page has includes of its own."""
    from miles_docs_plugin.core.collect.includes import named_files

    def read(repo_path: str) -> tuple[str | None, str]:
        return ("Text.\n", "") if repo_path.startswith("docs/") else (None, "outside")

    named = named_files({"index.md": '--8<-- "README.md"\n'},
                        {"auto_append": ["includes/links.md"]}, "", "docs", read)
    assert named == {"README.md", "includes/links.md"}


def test_mkdocs_slugs_are_python_markdowns() -> None:
    """``anchors.mkdocs_slug`` and ``mkdocs_unique`` give what Python-Markdown's toc gives."""
    from markdown.extensions.toc import slugify, unique

    from miles_docs_plugin.core.transform.anchors import mkdocs_slug, mkdocs_unique

    headings = ["Caret, Mark & Tilde", "Usage", "Usage", "usage_1", "Émoji — test", "C++",
                "中文 标题", "Hello--World", "3. Setup", "a  b", "x_y-z", "", "Usage"]
    ours: set[str] = set()
    theirs: set[str] = set()
    for text in headings:
        assert mkdocs_unique(mkdocs_slug(text), ours) == unique(slugify(text, "-"), theirs)
