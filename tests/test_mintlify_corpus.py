"""Real Mintlify trees (mem0, the Miles docs) injected into MkDocs Material and Sphinx (its
basic theme, without a sidebar).

Each tree is built once per engine (module fixtures); every rendered page's visible text is
scanned for syntax that should have been rendered: component tags, fence markers, MDX comments,
``import``/``export`` lines and literal ``## `` headings.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hosts import ENGINES, Host, make_host
from support import CORPUS, git

RAW = re.compile(r"</?[A-Z][A-Za-z]+(?:[\s/>]|$)|```|~~~|\{/\*|^\s*import\s.*\sfrom\s+[\"']|"
                 r"^\s*export\s+(?:const|let|var|function|default)\s|^#{1,6} |mdp:", re.M)
TREES = ("mem0", "miles_host")


def visible_text(html: str) -> str:
    """Text a reader sees in the page's article (code blocks and inline code left out)."""
    m = re.search(r"<article\b.*?</article>", html, re.S) or re.search(
        r'<div class="body" role="main">.*?(?=<div class="footer"|</body>)', html, re.S)
    text = m.group(0) if m else ""
    text = re.sub(r"<(pre|code|script|style)\b.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", "\n", text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    base = tmp_path_factory.mktemp("mintlify")
    out = {}
    for name in TREES:
        repo = base / name
        subprocess.run(["bash", str(CORPUS / "make_mintlify.sh"), name, str(repo)],
                       capture_output=True, text=True, check=True)
        out[name] = (repo, git(repo, "rev-parse", "HEAD"))
    return out


@pytest.fixture(scope="module")
def built(trees: dict[str, tuple[Path, str]],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], Host]]:
    base = tmp_path_factory.mktemp("mintlify-hosts")
    # the builds of this module share one cache; the variable goes when the module ends
    cache_env = pytest.MonkeyPatch()
    cache_env.setenv("MILES_DOCS_CACHE", str(base / "cache"))
    hosts = {}
    for name, (repo, commit) in trees.items():
        for engine in ENGINES:
            config = f"sources:\n  - name: up\n    repo: {repo.as_uri()}\n"
            hosts[(name, engine)] = make_host(
                engine, base / f"{name}-{engine}", repo.as_uri(), commit, config=config,
                name="up", minimal_theme=False, mkdocs_extra="theme:\n  name: material\n",
                # no sidebar: furo draws the whole nav on every page, which takes as long
                # again for each page as the site has pages (mem0: 115 s of a 125 s build)
                conf_extra='html_theme = "basic"\nhtml_sidebars = {"**": []}\n'
                           'extensions.append("sphinx_design")\n')
    # one tree's two engines at a time: each build is one process, the cache is per commit
    for name in trees:
        with ThreadPoolExecutor(max_workers=len(ENGINES)) as pool:
            futures = [pool.submit(hosts[(name, e)].build, strict=False) for e in ENGINES]
            runs = [f.result() for f in futures]
        for run in runs:
            assert run.returncode == 0, run.output[-3000:]
            assert "Traceback" not in run.output
    yield hosts
    cache_env.undo()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("tree", TREES)
def test_no_page_shows_raw_syntax(built: dict[tuple[str, str], Host], tree: str,
                                  engine: str) -> None:
    host = built[(tree, engine)]
    pages = sorted((host.out / "up").rglob("*.html"))
    assert len(pages) > 50 if tree == "mem0" else len(pages) > 20
    shown = []
    for page in pages:
        text = visible_text(page.read_text("utf-8"))
        for m in RAW.finditer(text):
            around = " ".join(text[max(0, m.start() - 40):m.end() + 40].split())
            shown.append(f"{page.relative_to(host.out)}: {m.group(0).strip()!r} in {around!r}")
    assert shown == []
