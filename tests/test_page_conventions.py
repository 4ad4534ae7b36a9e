"""Which upstream files are pages, in both engines: the index rule, snippets, dot-folders,
landing pages, ``docs_dir: .`` and an upstream MkDocs nav.

One small upstream repository holds every case; a Material host and a Sphinx host inject it
(and a second source without an index, whose docs are the repository root) once per module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from navs import ENGINES, build_hosts, sidebar
from support import lock_text, make_repo

from miles_docs_plugin.core.collect.conventions import index_rule, snippet_paths

UPSTREAM = {
    # the index rule: one file per URL
    "docs/index.md": "# Home\n\nThe real home.\n",
    "docs/README.md": "# Readme\n\nLoses to index.md.\n",
    "docs/guide/README.md": "# Guide\n\nREADME is the index without index.md.\n",
    "docs/both.md": "# Both md\n\nWins over both.mdx.\n",
    "docs/both.mdx": "# Both mdx\n\nLoses to both.md.\n",
    "docs/topic.md": "# Topic page\n\nLoses to topic/index.md.\n",
    "docs/topic/index.md": "# Topic index\n\nWins over topic.md.\n",
    "docs/topic/detail.md": "# Detail\n\n[Back](../topic.md) and [readme](../README.md).\n",
    "docs/mixed/index.mdx": "# Mixed mdx index\n\nWins over README.md.\n",
    "docs/mixed/README.md": "# Mixed readme\n\nLoses to index.mdx.\n",
    # snippets and dot-folders
    "docs/snippets/note.mdx": "A snippet in snippets/.\n",
    "docs/_shared/callout.mdx": "An imported snippet.\n",
    "docs/_parts/tip.mdx": "A snippet pulled in with the Snippet tag.\n",
    "docs/uses.mdx": ("---\ntitle: Uses\n---\n\nimport Callout from '/_shared/callout.mdx';\n\n"
                      "# Uses snippets\n\n<Snippet file=\"tip.mdx\" />\n\n"
                      "```js\nimport Nope from '/both.mdx';\n```\n"),
    "docs/.github/CONTRIBUTING.md": "# Contributing\n",
    "docs/.vale/styles/rule.md": "# A vale rule\n",
}

ROOT_DOCS = {  # a standalone docs repository without index: docs_dir `.`
    "intro.md": "# Intro\n\nFirst.\n",
    "setup/install.md": "# Install\n\nSecond.\n",
    "mkdocs.yml": "site_name: x\n",
}

MKDOCS_UPSTREAM = {  # an MkDocs upstream with its own nav, titles and custom tags
    "mkdocs.yml": ("site_name: Up\nnav:\n  - Start: zeta.md\n  - Deep:\n    - Second: alpha.md\n"
                   "    - beta.md\n  - Elsewhere: https://example.com/\n"
                   "markdown_extensions:\n  - pymdownx.emoji:\n"
                   "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                   "extra:\n  key: !ENV [NOPE, 'x']\nexclude_docs: |\n  drafts/\n"),
    "docs/index.md": "# Up home\n",
    "docs/alpha.md": "# Alpha\n",
    "docs/beta.md": "# Beta\n",
    "docs/zeta.md": "# Zeta\n",
    "docs/unlisted.md": "# Unlisted\n\nNo nav lists me.\n",
    "docs/drafts/wip.md": "# Work in progress\n",
    "docs/templates/page.md": "# A theme template folder\n",
}


MDX_INDEX = {  # the only index is index.mdx
    "docs/index.mdx": "---\ntitle: MDX home\n---\n\nOnly an index.mdx here.\n",
    "docs/page.md": "# Page\n\n[Home](index.mdx)\n",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    base = tmp_path_factory.mktemp("conventions")
    repos = {name: base / name for name in ("up", "flat", "mk", "mdx")}
    commits = {"up": make_repo(repos["up"], UPSTREAM),
               "flat": make_repo(repos["flat"], ROOT_DOCS),
               "mk": make_repo(repos["mk"], MKDOCS_UPSTREAM),
               "mdx": make_repo(repos["mdx"], MDX_INDEX)}
    config = (f"sources:\n  - name: up\n    repo: {repos['up'].as_uri()}\n"
              f"  - name: flat\n    repo: {repos['flat'].as_uri()}\n    docs_dir: .\n"
              f"  - name: mk\n    repo: {repos['mk'].as_uri()}\n"
              f"  - name: mdx\n    repo: {repos['mdx'].as_uri()}\n")
    lock = lock_text({name: (repos[name].as_uri(), commits[name]) for name in repos})
    # not strict: `<Snippet>` is not translated yet (it is reported)
    return build_hosts(base, config, lock, timeout=300)


def page(engine: str, out: Path, stem: str) -> str:
    """The HTML of the page at URL ``stem`` (``up/topic``, ``up/index``)."""
    if engine == "sphinx" or stem.endswith("/index"):
        return (out / f"{stem}.html").read_text("utf-8")
    return (out / stem / "index.html").read_text("utf-8")


# -- the index rule ------------------------------------------------------------------------

INDEX_CASES = [
    # (what, loser, winner, URL stem in the host, text the winner shows there)
    ("index.md over README.md", "README.md", "index.md", "up/index", "The real home."),
    ("README.md is a folder's index", None, "guide/README.md", "up/guide/index",
     "README is the index"),
    ("a.md over a.mdx", "both.mdx", "both.md", "up/both", "Wins over both.mdx."),
    ("x/index.md over x.md", "topic.md", "topic/index.md", "up/topic/index",
     "Wins over topic.md."),
    ("index.mdx over README.md", "mixed/README.md", "mixed/index.mdx", "up/mixed/index",
     "Wins over README.md."),
]


@pytest.mark.parametrize(("what", "loser", "winner", "stem", "text"), INDEX_CASES,
                         ids=[c[0] for c in INDEX_CASES])
def test_index_rule_core(what: str, loser: str | None, winner: str, stem: str,
                         text: str) -> None:
    pages = [p.removeprefix("docs/") for p in UPSTREAM if p.endswith((".md", ".mdx"))]
    rule = index_rule(pages)
    assert winner in rule.dests
    if loser is not None:
        assert rule.losers[loser] == winner


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("what", "loser", "winner", "stem", "text"), INDEX_CASES,
                         ids=[c[0] for c in INDEX_CASES])
def test_index_rule_in_both_engines(built: dict[str, tuple[Path, str]], engine: str,
                                    what: str, loser: str | None, winner: str, stem: str,
                                    text: str) -> None:
    out, log = built[engine]
    html = page(engine, out, stem)
    assert text in html
    if loser is not None:
        # reported by name, never dropped silently
        assert f"{loser} is left out: {winner} has the same URL" in log


@pytest.mark.parametrize("engine", ENGINES)
def test_an_index_mdx_alone_is_the_landing_page(built: dict[str, tuple[Path, str]],
                                                engine: str) -> None:
    out, _log = built[engine]
    assert "Only an index.mdx here." in page(engine, out, "mdx/index")
    assert "Only an index.mdx here." not in page(engine, out, "mdx/page")


@pytest.mark.parametrize("engine", ENGINES)
def test_links_to_a_losing_file_go_to_the_winner(built: dict[str, tuple[Path, str]],
                                                 engine: str) -> None:
    out, _log = built[engine]
    html = page(engine, out, "up/topic/detail")
    if engine == "mkdocs":
        assert 'href="../">Back</a>' in html and 'href="../../">readme</a>' in html
    else:
        assert 'href="index.html">' in html and 'href="../index.html">' in html


# -- snippets and dot-folders --------------------------------------------------------------


def test_snippet_paths_core() -> None:
    texts = {p.removeprefix("docs/"): t for p, t in UPSTREAM.items()}
    found = snippet_paths(texts)
    assert found == {"snippets/note.mdx", "_shared/callout.mdx", "_parts/tip.mdx"}


@pytest.mark.parametrize("engine", ENGINES)
def test_snippets_and_dot_folders_are_not_pages(built: dict[str, tuple[Path, str]],
                                                engine: str) -> None:
    out, _log = built[engine]
    built_pages = {p.relative_to(out / "up").as_posix() for p in (out / "up").rglob("*.html")}
    for name in ("snippets", "_shared", "_parts", ".github", ".vale", "CONTRIBUTING", "rule"):
        assert not [p for p in built_pages if name in p], name
    assert "Uses snippets" in page(engine, out, "up/uses")


# -- landing pages, docs_dir: ., an upstream mkdocs.yml -------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_root_docs_dir_without_index_gets_a_landing_page(built: dict[str, tuple[Path, str]],
                                                         engine: str) -> None:
    out, _log = built[engine]
    landing = (out / "flat" / "index.html").read_text("utf-8")
    assert "Intro" in landing and "Install" in landing  # an overview of the section
    keys = [k for k in sidebar(engine, out, "flat") if not k.startswith("_nav/")]
    assert keys == ["", "intro", "setup/install"]
    assert not (out / "flat" / "mkdocs").exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_upstream_mkdocs_nav_is_kept(built: dict[str, tuple[Path, str]], engine: str) -> None:
    out, _log = built[engine]
    keys = [k for k in sidebar(engine, out, "mk") if not k.startswith("_nav/")]
    assert keys == ["", "zeta", "alpha", "beta"]
    home = (out / "index.html").read_text("utf-8")
    assert "Start" in home and "Second" in home and "Deep" in home
    assert (out / "mk" / ("unlisted/index.html" if engine == "mkdocs"
                          else "unlisted.html")).exists()
    # what the upstream's MkDocs does not build (exclude_docs, its default templates/)
    assert not (out / "mk" / "drafts").exists() and not (out / "mk" / "templates").exists()


def test_sphinx_page_leaving_the_nav_becomes_an_orphan_incrementally(
        tmp_path: Path, cache_dir: Path) -> None:
    """A page the nav stops listing is re-read as an orphan (no 'not in any toctree' warning
    under -W), though its content did not change."""
    from hosts import make_host

    repo = tmp_path / "up"
    commit = make_repo(repo, {"docs/index.md": "# Home\n", "docs/a.md": "# A\n",
                              "docs/b.md": "# B\n"})
    config = (f"sources:\n  - name: diffusion\n    repo: {repo.as_uri()}\n"
              "    nav: [index.md, a.md, b.md]\n")
    host = make_host("sphinx", tmp_path / "host", repo.as_uri(), commit, config=config)
    first = host.build()
    assert first.returncode == 0, first.output
    (host.config / "miles-docs.yml").write_text(config.replace(", b.md]", "]"), "utf-8")
    second = host.build()
    assert second.returncode == 0, second.output
    assert (host.out / "diffusion" / "b.html").exists()


def test_a_generated_landing_page_nests_its_groups_and_lists_untitled_ones_bare(
        tmp_path: Path, cache_dir: Path) -> None:
    """A Mintlify upstream without an index page (Helicone's docs.json has a group titled
    ""): the overview nests groups as MkDocs reads a list (four spaces), titles pages from
    their front matter, and lists an untitled group's pages bare (a "- ****" item was a
    docutils transition, which fails Sphinx's -W)."""
    from hosts import make_host

    up = tmp_path / "up"
    commit = make_repo(up, {
        "docs/docs.json": '{"name": "Up", "navigation": {"groups": ['
                          '{"group": "Guides", "pages": ["intro", {"group": "Deeper", '
                          '"pages": ["deep/one"]}]}, {"group": "", "pages": ["faq"]}]}}\n',
        "docs/intro.mdx": "---\ntitle: Getting going\n---\n\nIntro.\n",
        "docs/deep/one.mdx": "---\ntitle: Deep one\n---\n\nOne.\n",
        "docs/faq.mdx": "---\ntitle: Questions\n---\n\nFAQ.\n",
    })
    for engine in ("mkdocs", "sphinx"):
        host = make_host(engine, tmp_path / engine, up.as_uri(), commit)
        run = host.build()
        assert run.returncode == 0, run.output
        landing = host.site().page("diffusion/index.html").text
        # nested: a group's list inside its item
        assert re.search(r"<strong>Guides</strong>(?:</p>)?\s*<ul>", landing), landing
        assert re.search(r"<strong>Deeper</strong>(?:</p>)?\s*<ul>", landing), landing
        assert "<strong></strong>" not in landing
        text = " ".join(re.sub(r"<[^>]+>", " ", landing.split("</h1>", 1)[1]).split())
        assert "Guides Getting going Deeper Deep one Questions" in text, text
