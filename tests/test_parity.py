"""One suite, both engines: the same section, the same pages, the same links.

Every test here runs against a real `mkdocs build --strict` and a real `sphinx-build -W` of the
same host config and pin, and the comparison test checks that the two agree link for link.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hosts import ENGINES, Host, content_links, make_host
from support import CORPUS, V1, V2, git

VERSIONS = {"v1": V1, "v2": V2}
# The Miles host: upstream links to miles.radixark.com/docs become links to these pages.
HOST_CONFIG = """
host_urls: [https://miles.radixark.com/docs]
sources:
  - name: diffusion
    repo: {repo}
    web_url: https://github.com/radixark/miles_diffusion
"""
HOST_PAGES = {
    "index.md": "# Miles\n\n## Supported models\n\nThe model list.\n\n```{toctree}\n```\n",
    "user-guide/customization.md": "# Customization\n\nHost page.\n",
}


def corpus_docs(version: str) -> Path:
    return CORPUS / "miles_diffusion" / version / "docs"


def corpus_pages(version: str) -> list[str]:
    docs = corpus_docs(version)
    return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))


def front_matter_titles(version: str) -> dict[str, str]:
    titles = {}
    for page in corpus_docs(version).rglob("*.md"):
        m = re.match(r"---\n(.*?)\n---\n", page.read_text("utf-8"), re.S)
        t = re.search(r"^title:\s*(.+?)\s*$", m.group(1), re.M) if m else None
        if t:
            titles[page.relative_to(corpus_docs(version)).as_posix()] = t.group(1).strip("'\"")
    return titles


@pytest.fixture(scope="module")
def built(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory,
          ) -> dict[tuple[str, str], Host]:
    """The corpus at v1 and v2, built by both engines once for the whole module."""
    import os

    cache = tmp_path_factory.mktemp("cache")
    old = os.environ.get("MILES_DOCS_CACHE")
    os.environ["MILES_DOCS_CACHE"] = str(cache)
    try:
        hosts = {}
        for version, commit in VERSIONS.items():
            for engine in ENGINES:
                host = make_host(engine, tmp_path_factory.mktemp(f"{engine}-{version}"),
                                 corpus_repo.as_uri(), commit, config=HOST_CONFIG.format(
                                     repo=corpus_repo.as_uri()), host_pages=HOST_PAGES)
                result = host.build()
                assert result.returncode == 0, result.output
                assert "WARNING" not in result.output, result.output
                hosts[(engine, version)] = host
        return hosts
    finally:
        if old is None:
            os.environ.pop("MILES_DOCS_CACHE", None)
        else:
            os.environ["MILES_DOCS_CACHE"] = old


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("engine", ENGINES)
def test_every_page_link_image_and_title(built: dict[tuple[str, str], Host], engine: str,
                                         version: str) -> None:
    host = built[(engine, version)]
    site = host.site()
    pages = corpus_pages(version)
    assert len(pages) == {"v1": 22, "v2": 29}[version]
    for md in pages:
        assert (host.out / host.page_file(md)).exists(), md
    assert site.broken("diffusion") == []
    docs = corpus_docs(version)
    for img in (docs / "assets").rglob("*.*"):
        rel = img.relative_to(docs).as_posix()
        assert (host.out / "diffusion" / rel).read_bytes() == img.read_bytes(), rel
    for md, title in front_matter_titles(version).items():
        assert site.page(host.page_file(md)).title.startswith(title), (md, title)
    assert git(host.root, "status", "--porcelain") == ""


@pytest.mark.parametrize("version", VERSIONS)
def test_both_engines_have_the_same_links(built: dict[tuple[str, str], Host],
                                          version: str) -> None:
    mk, sx = built[("mkdocs", version)], built[("sphinx", version)]
    kinds: dict[str, int] = {}
    for md in corpus_pages(version):
        a = content_links(mk, mk.out / mk.page_file(md))
        b = content_links(sx, sx.out / sx.page_file(md))
        assert a == b, md
        for kind, _ in a:
            kinds[kind] = kinds.get(kind, 0) + 1
    # the comparison saw the real link population of the corpus (README "Link kinds")
    assert kinds["page"] >= {"v1": 86, "v2": 99}[version], kinds
    assert kinds["img"] >= {"v1": 9, "v2": 18}[version], kinds
    assert kinds["ext"] >= 44, kinds


@pytest.mark.parametrize("engine", ENGINES)
def test_recipe_anchors_and_admonitions(built: dict[tuple[str, str], Host], engine: str) -> None:
    host = built[(engine, "v2")]
    site = host.site()
    sd3 = site.page(host.page_file("models/sd3/sd3.md"))
    fg = [href for _, _, href in sd3.refs if "recipe-verification" in href and "#" in href]
    assert fg, "the #fg status links are gone"
    quick = site.page(host.page_file("getting-started/quick-start.md")).text
    assert re.search(r'class="admonition note', quick), "<Note> is not an admonition"
    lora = site.page(host.page_file("advanced/lora.md")).text
    assert re.search(r'class="admonition warning', lora), "<Warning> is not an admonition"
    # the host URL https://miles.radixark.com/docs#supported-models became an internal link
    index = host.out / host.page_file("index.md")
    assert ("host", "index#") in content_links(host, index)
    assert "miles.radixark.com" not in site.page(host.page_file("index.md")).text
