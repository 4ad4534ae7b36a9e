"""The full link model, anchors, components and provenance, in both engines' HTML.

The fixture upstream (``tests/fixtures/linkmodel``) uses every row of the link table, every
component and GitHub-style anchors that differ from the engines' slugs; a second source
(``tests/fixtures/other``) is linked by its repository and by its site.
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from hosts import ENGINES, Host, make_host
from support import ROOT, Site, git, lock_text, make_repo, write

FIXTURES = ROOT / "tests" / "fixtures"


class _IdText(HTMLParser):
    """Text of the element with a given id (its first 200 characters)."""

    def __init__(self, wanted: str) -> None:
        super().__init__(convert_charrefs=True)
        self.wanted = wanted
        self.depth = 0
        self.text = ""
        self.found = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag not in ("img", "br", "hr", "input", "meta")
        elif dict(attrs).get("id") == self.wanted:
            self.found = True
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and len(self.text) < 200:
            self.text += data


def heading_at(html: Path, fragment: str) -> str:
    """Text of the element a fragment points at, or of the heading right after it."""
    text = html.read_text("utf-8")
    p = _IdText(fragment)
    p.feed(text)
    assert p.found, f"no id {fragment!r} in {html}"
    if p.text.strip():
        return " ".join(p.text.split())
    after = text[text.index(f'id="{fragment}"'):]
    m = re.search(r"<h[1-6][^>]*>(.*?)</h[1-6]>", after, re.S)
    return re.sub(r"<[^>]+>", "", m.group(1)).strip() if m else ""


def copy_repo(src: Path, dst: Path) -> str:
    shutil.copytree(src, dst)
    git(dst, "init", "-q", "-b", "main")
    git(dst, "add", "-A")
    git(dst, "commit", "-q", "-m", "fixture")
    return git(dst, "rev-parse", "HEAD")


class Built(dict[str, Host]):
    """The host built with each engine, by engine name, and the upstream commit."""

    commit = ""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    import os

    base = tmp_path_factory.mktemp("linkmodel")
    # the builds of this module share one cache; the variable goes when the module ends
    cache_env = pytest.MonkeyPatch()
    cache_env.setenv("MILES_DOCS_CACHE", str(base / "cache"))
    up = base / "upstream"
    commit = copy_repo(FIXTURES / "linkmodel", up)
    other = base / "other"
    other_commit = copy_repo(FIXTURES / "other", other)
    config = f"""
host_urls: [https://host.example/docs]
sources:
  - name: diffusion
    repo: {up.as_uri()}
    web_url: https://github.com/example/upstream
  - name: other
    repo: {other.as_uri()}
    web_url: https://github.com/example/other
    site_url: https://other.example
"""
    hosts = Built()
    try:
        for engine in ENGINES:
            root = base / engine
            extra = ('extensions.append("sphinx_design")\n'
                     'templates_path = ["_templates"]\n') if engine == "sphinx" else ""
            host = make_host(engine, root, up.as_uri(), commit, config=config, conf_extra=extra)
            write(host.config / "miles-docs.lock",
                  lock_text({"diffusion": (up.as_uri(), commit),
                             "other": (other.as_uri(), other_commit)}))
            about = host.docs / ("about.md")
            write(about, "# About\n\n## Team\n\nThe team.\n")
            if engine == "sphinx":
                write(host.docs / "index.md", "# Host home\n\n```{toctree}\nabout\n```\n")
                write(host.docs / "_templates" / "layout.html",
                      '{% extends "!layout.html" %}\n{% block extrahead %}{{ super() }}\n'
                      '<meta name="mdp-source" content="{{ source_repo }} {{ source_path }} '
                      '{{ source_commit }}">\n<meta name="mdp-edit" '
                      'content="{{ miles_docs.edit_url }}">\n{% endblock %}\n')
            else:
                write(host.root / "mkdocs.yml", (host.root / "mkdocs.yml").read_text().replace(
                    "  - Home: index.md\n", "  - Home: index.md\n  - About: about.md\n"))
            git(host.root, "add", "-A")
            git(host.root, "commit", "-q", "-m", "host pages")
            result = host.build()
            assert result.returncode == 0, result.output
            assert "WARNING" not in result.output, result.output
            hosts[engine] = host
    finally:
        os.environ.pop("MILES_DOCS_CACHE", None)
    hosts.commit = commit
    yield hosts
    cache_env.undo()


def links(host: Host, page: str) -> dict[str, str]:
    """Visible text -> href of the links in a page's content."""
    text_ = (host.out / host.page_file(page)).read_text("utf-8")
    out: dict[str, str] = {}
    for m in re.finditer(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>', text_, re.S):
        text = re.sub(r"<[^>]+>", "", m.group(2)).strip()
        out.setdefault(text, html.unescape(m.group(1)))
    return out


def target(host: Host, page: str, href: str) -> tuple[Path, str]:
    src = host.out / host.page_file(page)
    url = urlsplit(href)
    path = Path(unquote(url.path))
    dest = (src.parent / path).resolve() if url.path else src
    if dest.is_dir():
        dest = dest / "index.html"
    return dest, url.fragment


@pytest.mark.parametrize("engine", ENGINES)
def test_page_links_and_anchors_land_on_the_right_heading(built: Built,
                                                          engine: str) -> None:
    host = built[engine]
    found = links(host, "index.md")
    setup = host.out / host.page_file("guide/setup.md")
    for text, heading in [
        ("GitHub anchor", "LoRA + IPC weight sync"),
        ("Mintlify root link with anchor", "Model & data"),
        ("explicit heading id", "Custom heading"),
        ("raw HTML id", "FG — Fully gated"),
        ("reference link", "Model & data"),
        ("raw HTML link", "LoRA + IPC weight sync"),
    ]:
        dest, fragment = target(host, "index.md", found[text])
        assert dest == setup.resolve(), (text, found[text])
        assert fragment, text
        assert heading in heading_at(dest, fragment), (text, found[text])
    # "Model & data" twice: the link with GitHub's "-1" lands on the second one
    dest, fragment = target(host, "index.md", found["Mintlify root link with anchor"])
    first = target(host, "index.md", found["reference link"])[1]
    assert fragment != first
    commit = built.commit
    # a docs folder without an index page: its listing upstream, at the pin
    assert found["folder link"] == (
        f"https://github.com/example/upstream/tree/{commit}/docs/guide")
    for text in ("relative page", "Mintlify root link", "titled link", "angle link",
                 "collapsed"):
        assert target(host, "index.md", found[text])[0] == setup.resolve(), text
    assert target(host, "index.md", found["in-page anchor"])[1]
    assert "Setup page" in re.search(r'<a [^>]*title="Setup page"[^>]*>',
                                     (host.out / host.page_file("index.md")).read_text()
                                     ).group(0)  # type: ignore[union-attr]


@pytest.mark.parametrize("engine", ENGINES)
def test_assets_repo_files_host_and_other_sources(built: Built, engine: str) -> None:
    host = built[engine]
    commit = built.commit
    found = links(host, "index.md")
    html = (host.out / host.page_file("index.md")).read_text()
    assert found["repo file"] == f"https://github.com/example/upstream/blob/{commit}/scripts/run.py"
    assert found["repo folder"] == f"https://github.com/example/upstream/tree/{commit}/scripts"
    assert found["readme"] == f"https://github.com/example/upstream/blob/{commit}/README.md"
    about = host.out / host.page_file("about.md", mount="").lstrip("/")
    dest, fragment = target(host, "index.md", found["host page"])
    assert dest.name in ("about.html", "index.html") and "about" in str(dest)
    assert "Team" in heading_at(dest, fragment)
    assert target(host, "index.md", found["host root"])[0].name == "index.html"
    other = host.out / host.page_file("page.md", mount="other")
    assert target(host, "index.md", found["other source by repo"])[0] == other.resolve()
    dest, fragment = target(host, "index.md", found["other source by site"])
    assert dest == other.resolve() and "Other heading" in heading_at(dest, fragment)
    assert found["external"] == "https://example.org/x"
    assert unquote(found["mail"]) == "mailto:docs@example.org"
    assert found["https://example.org/auto"] == "https://example.org/auto"
    srcs = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert len(srcs) == 2
    for src in srcs:
        dest, _ = target(host, "index.md", src)
        assert dest.read_bytes() == (FIXTURES / "linkmodel/docs/assets/pic.svg").read_bytes()
    assert about  # the host page exists in both layouts
    assert Site(host.out).broken() == []


@pytest.mark.parametrize("engine", ENGINES)
def test_code_is_never_touched(built: Built, engine: str) -> None:
    text = (built[engine].out / built[engine].page_file("index.md")).read_text()
    for literal in ("[code span](guide/setup.md)", "[fenced code](guide/setup.md)",
                    "[indented code](guide/setup.md)"):
        assert literal in re.sub(r"<[^>]+>", "", text), literal


@pytest.mark.parametrize("engine", ENGINES)
def test_components_render_natively(built: Built, engine: str) -> None:
    host = built[engine]
    html = (host.out / host.page_file("components.md")).read_text()
    kinds = (["note", "warning", "tip", "info", "success", "danger"] if engine == "mkdocs"
             else ["note", "warning", "tip", "important", "hint", "danger"])
    classes = [set(c.split()) for c in re.findall(r'<div class="([^"]*)"', html)]
    for kind in kinds:
        assert {"admonition", kind} in [c & {"admonition", kind} for c in classes], kind
    assert "Heads up" in html  # a callout's title
    assert re.search(r"<ol[^>]*>\s*<li>.*?Install.*?</li>\s*<li>.*?Configure", html, re.S)
    setup = host.out / host.page_file("guide/setup.md")
    found = links(host, "components.md")
    assert target(host, "components.md", found["link"])[0] == setup.resolve()  # inside <Note>
    assert target(host, "components.md", found["setup"])[0] == setup.resolve()  # inside <Step>
    assert target(host, "components.md", found["Setup guide"])[0] == setup.resolve()  # <Card>
    # paragraphs after the first one, and lists, inside a callout
    for text in ("second link", "a third link"):
        assert target(host, "components.md", found[text])[0] == setup.resolve(), text
    if engine == "mkdocs":
        assert 'class="tabbed-set' in html and "<details" in html
    else:
        assert "sd-tab-set" in html and "sd-dropdown" in html
    for label in ("pip", "uv", "Why pin?"):
        assert label in html
    text = re.sub(r"<[^>]+>", "", html)
    assert "pip install sample" in text and "uv pip install sample" in text
    assert "A framed picture" in text
    assert "graph LR; a--&gt;b" in text  # mermaid stays a code block


@pytest.mark.parametrize("engine", ENGINES)
def test_front_matter_and_provenance(built: Built, engine: str) -> None:
    host = built[engine]
    commit = built.commit
    html = (host.out / host.page_file("index.md")).read_text()
    # MkDocs titles a page after its nav entry, and the nav shows Mintlify's sidebarTitle
    assert ("<title>Overview" if engine == "mkdocs" else "<title>Link Model") in html
    assert 'name="description" content="Every kind of link an upstream page uses."' in html
    assert (f'name="mdp-source" content="example/upstream docs/index.md {commit}"') in html
    assert (f'href="https://github.com/example/upstream/blob/{commit}/docs/index.md"'
            in html)  # the banner links the file at the pin
    assert "miles-docs-banner" in html
    # The banner sits right under the page's heading, and stays out of the search index: it
    # is not content (searching the commit id, or "comes from", must not find every page).
    assert re.search(r"</h1>\s*<p class=\"miles-docs-banner\">", html)
    assert f"<code>{commit[:7]}</code>" in html
    index = (host.out / ("search/search_index.json" if engine == "mkdocs"
                         else "searchindex.js")).read_text()
    assert "Pages and anchors" in index  # the page itself is indexed
    assert commit[:7] not in index
    setup = (host.out / host.page_file("guide/setup.md")).read_text()
    assert '"https://github.com/example/upstream/edit/main/docs/guide/setup.md"' in setup
    if engine == "mkdocs":
        assert '<span class="nav">Overview</span>' in html
        assert '<span class="nav">Set up</span>' in html
    else:  # the toctree entry of the page's group (a page of its own in Sphinx)
        group = (host.out / "diffusion" / "_nav" / "guide.html").read_text()
        assert ">Set up</a>" in group


@pytest.mark.parametrize("engine", ENGINES)
def test_unknown_components_are_reported_and_kept(tmp_path: Path, cache_dir: Path,
                                                  engine: str) -> None:
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {"docs/index.md": "# I\n\n<Sparkles>\n\nKept text.\n\n"
                                                   "</Sparkles>\n"})
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()
    assert result.returncode != 0  # strict: the warning fails the build
    assert "docs/index.md:3: " in result.output
    assert "unknown component <Sparkles>; its content is kept" in result.output
    assert host.build(strict=False).returncode == 0
    assert "Kept text." in (host.out / host.page_file("index.md")).read_text()


@pytest.mark.parametrize(("mode", "code", "warned"), [("warn", 1, True), ("error", 1, True),
                                                      ("ignore", 0, False)])
@pytest.mark.parametrize("engine", ENGINES)
def test_links_unresolved_option(tmp_path: Path, cache_dir: Path, engine: str, mode: str,
                                 code: int, warned: bool) -> None:
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {"docs/index.md": "# I\n\n[gone](missing.md)\n"})
    config = (f"links:\n  unresolved: {mode}\nsources:\n  - name: diffusion\n"
              f"    repo: {upstream.as_uri()}\n    web_url: https://github.com/o/r\n")
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit, config=config)
    result = host.build()
    assert (result.returncode != 0) == bool(code), result.output
    assert ("missing.md matches no page" in result.output) == warned or mode == "ignore"
    if mode == "ignore":
        page = (host.out / host.page_file("index.md")).read_text()
        assert f"https://github.com/o/r/blob/{commit}/docs/missing.md" in page


@pytest.mark.parametrize(("body", "expected"), [
    ('<section id="t">\n<h1>T<a class="headerlink" href="#t">¶</a></h1>\n<p>x</p>',
     '<section id="t">\n<h1>T<a class="headerlink" href="#t">¶</a></h1>\n[B]\n\n<p>x</p>'),
    ('<h1 id="t">T</h1>\n<p>x</p>', '<h1 id="t">T</h1>\n[B]\n\n<p>x</p>'),
    ("<h2>Sub</h2>\n<h1>Late</h1>", "[B]\n<h2>Sub</h2>\n<h1>Late</h1>"),  # no leading <h1>
    ("<p>text</p><h1>T</h1>", "[B]\n<p>text</p><h1>T</h1>"),
    ("", "[B]\n"),
])
def test_the_banner_goes_under_the_leading_heading(body: str, expected: str) -> None:
    from miles_docs_plugin.core.section.banner import insert_banner_html

    assert insert_banner_html(body, "[B]") == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_markdown_in_html_elements_of_mdx_is_rendered(tmp_path: Path, cache_dir: Path,
                                                      engine: str) -> None:
    """MDX reads what stands between an HTML element's tags on lines of their own as
    Markdown (and a one-line ``<p>…</p>``'s text); CommonMark and Python-Markdown read raw
    HTML, so the links showed as ``[text](/url)`` and were never rewritten. The element is
    kept around its content (with md_in_html in MkDocs; a ``<p>`` goes in Sphinx, its
    content being a paragraph already), in a list item too."""
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": '{"navigation": {"pages": ["index", "other"]}}',
        "docs/index.mdx": (
            "---\ntitle: Home\n---\n\n"
            '<p className="lead">\n  Read [the other page](/other) and `code`.\n</p>\n\n'
            '<h3 id="seen" className="x">\n  See [second](/other#second)\n</h3>\n\n'
            "<details>\n<summary>More</summary>\n\n- an [item](/other)\n</details>\n\n"
            '<p align="center">Centered [link](/other) here.</p>\n\n'
            "<div>\n<p>raw text\n</p>\n</div>\n\n"
            "- An item\n  <p>See [in an item](/other) here.</p>\n"
            '- Second\n  <p align="right">\n    Aligned [in a second item](/other).\n  </p>\n\n'
            "Back to [the heading](#seen).\n"),
        "docs/other.mdx": "---\ntitle: Other\n---\n\n## Second\n\nText.\n"})
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()  # strict: no warning (a stray </p> closes nothing, quietly)
    assert result.returncode == 0, result.output
    page = (host.out / host.page_file("index.md")).read_text()
    other = "other/" if engine == "mkdocs" else "other.html"
    assert "](/other" not in page and "[the other page]" not in page
    for text in ("the other page", "second", "item", "link", "in an item", "in a second item"):
        assert re.search(rf'<a [^>]*href="{re.escape(other)}(#second)?"[^>]*>(<span[^>]*>)?'
                         rf"{text}<", page), text
    assert re.search(r"<code[^>]*>(<span[^>]*>)?code<", page)
    assert re.search(r'<h3 (class="x" id="seen"|id="seen" class="x")>', page)
    assert "<summary>More</summary>" in page and "<details>" in page
    assert 'href="#seen"' in page and "raw text" in page
    if engine == "mkdocs":
        assert '<p class="lead">' in page and 'markdown="1"' not in page


HTML_TEXT = """\
---
title: Home
---

<div align="center">[![Logo](/images/logo.png)](/other)</div>

<div>One-line [div link](/other#second) and **bold**</div>

<div>{"[a string](/not-a-link)"}</div>

<table>
  <tr><th>Name</th><th>Notes</th></tr>
  <tr>
    <td>[cell link](/other)</td>
    <td>
      See [text link](/other) and `code`
    </td>
  </tr>
</table>

<ul>
  <li>[list link](/other) *in* a list</li>
</ul>

<div><Custom prop={{ a: 1 }} /> [kept](/other)</div>

<iframe
  src="https://www.youtube.com/embed/abc"
  allowFullScreen
/>

## After the video

Still [seen](/other).
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_markdown_in_the_text_of_html_of_mdx_is_rendered(tmp_path: Path, cache_dir: Path,
                                                         engine: str) -> None:
    """MDX reads the text after a tag on its line (``<div>[a](/x)</div>``), and the text in
    a table or an HTML list, as Markdown; CommonMark and Python-Markdown pass it through as
    HTML, so the Markdown showed as text and its links were neither rewritten nor checked.
    A Mintlify site's ``.md`` page is MDX too. A JSX string is text, with no escapes shown."""
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": '{"navigation": {"pages": ["index", "table", "other"]}}',
        "docs/index.mdx": HTML_TEXT, "docs/images/logo.png": "png",
        "docs/table.md": ("# Table\n\n<table><tr><td>**Yes** [back](/index)</td></tr>"
                          "</table>\n"),
        "docs/other.mdx": "---\ntitle: Other\n---\n\n## Second\n\nText.\n"})
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()  # strict
    assert result.returncode == 0, result.output
    page = (host.out / host.page_file("index.md")).read_text()
    other = "other/" if engine == "mkdocs" else "other.html"
    for text in ("div link", "cell link", "text link", "list link"):
        assert re.search(rf'<a href="{re.escape(other)}(#second)?">{text}</a>', page), text
    logo = re.search(rf'<a href="{re.escape(other)}"><img src="([^"]*logo.png)" alt="Logo"',
                     page)
    assert logo is not None
    assert (host.out / host.page_file("index.md")).parent.joinpath(logo.group(1)).is_file()
    assert "<strong>bold</strong>" in page and "<em>in</em>" in page
    assert re.search(r"<code[^>]*>code</code>", page)
    assert "[a string](/not-a-link)" in page and "\\[" not in page
    assert "[kept](/other)" in page  # a tag that is no HTML: the line stays as written
    # an element closed JSX's way: closed for the browser, which would read the rest of the
    # page as the iframe's text
    assert re.search(r"<iframe[^<]*></iframe>", page, re.S)
    assert re.search(r"</iframe>.*After the video.*seen(</span>)?</a>", page, re.S)
    table = (host.out / host.page_file("table.md")).read_text()
    back = "../" if engine == "mkdocs" else "index.html"
    assert "<strong>Yes</strong>" in table and f'<a href="{back}">back</a>' in table


@pytest.mark.parametrize("engine", ENGINES)
def test_a_cards_picture_is_shown_and_published(tmp_path: Path, cache_dir: Path,
                                                engine: str) -> None:
    """Mintlify shows a card's ``img`` in the card; it was left out, and the file was not
    published."""
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": '{"navigation": {"pages": ["index", "other"]}}',
        "docs/index.mdx": ('---\ntitle: Home\n---\n\n<CardGroup cols={2}>\n'
                           '  <Card title="One" img="/images/c.png" href="/other">\n'
                           "    Card text.\n  </Card>\n"
                           '  <Card title="Two" icon="/images/i.svg" href="/other" />\n'
                           # an expression names no file (and makes no warning)
                           '  <Card title="Three" img={logos.x} href="/other" />\n'
                           "</CardGroup>\n"),
        "docs/images/c.png": "png", "docs/images/i.svg": "<svg/>",
        "docs/other.mdx": "---\ntitle: Other\n---\n\nText.\n"})
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()
    assert result.returncode == 0, result.output
    page = (host.out / host.page_file("index.md")).read_text()
    src = "images/c.png" if engine == "mkdocs" else "../_images/c.png"
    assert f'src="{src}"' in page and "Card text." in page
    assert (host.out / host.page_file("index.md")).parent.joinpath(src).resolve().is_file()
    assert "i.svg" not in page  # an icon is a decoration the host's cards have no place for


#: HTML elements of MDX that a second look found wrong (ids, HTML around them, text under
#: a tag line): each must build strict, keep its links live and rewritten, and its HTML.
ELEMENTS = """\
---
title: Home
---

<section id="features">
Features with [a link](/other).
</section>

<h2 id="plain-id">Plain heading</h2>

<h3 id="md-id">Heading with *emphasis*</h3>

<ul>
  <li>
    <p>
      Item text
    </p></li>
</ul>

<figure>
  <img src="/images/a.png" alt="A" />
  <figcaption>Caption with [caption link](/other)</figcaption>
</figure>

<p align="center">
  <img src="/images/a.png" width="100" />
  <br />
  [Docs](/other) and more
</p>

<table>
  <tr>
    <td>
      <p>
        Cell text
      </p>
    </td>
  </tr>
</table>

<details>
<summary>Top</summary>
Top text with [summary link](/other)
</details>

<img src="/images/a.png" />
See [image link](/other) under an image.

<Note>
  <h3 id="in-note">
    In a note [note link](/other)
  </h3>
</Note>

## Later heading
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_html_elements_of_mdx_keep_their_ids_and_their_html(tmp_path: Path, cache_dir: Path,
                                                            engine: str) -> None:
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": '{"navigation": {"pages": ["index", "other"]}}',
        "docs/index.mdx": ELEMENTS, "docs/images/a.png": "png",
        "docs/other.mdx": ("---\ntitle: Other\n---\n\nGo [f](/index#features), "
                           "[p](/index#plain-id), [m](/index#md-id), [n](/index#in-note).\n")})
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()  # strict
    assert result.returncode == 0, result.output
    page = (host.out / host.page_file("index.md")).read_text()
    other = (host.out / host.page_file("other.md")).read_text()
    for anchor in ("features", "plain-id", "md-id", "in-note"):  # ids, linked from elsewhere
        assert f'id="{anchor}"' in page and f'#{anchor}"' in other, anchor
    target = "other/" if engine == "mkdocs" else "other.html"
    for text in ("a link", "caption link", "Docs", "summary link", "image link", "note link"):
        assert re.search(rf'href="{re.escape(target)}"[^>]*>(<span[^>]*>)?{text}<', page), text
    assert "](" not in page and "<pre" not in page  # no Markdown as text, no HTML as code
    assert "</p></li>" in page and "Cell text" in page and "</td>" in page
    assert re.search(r'<(p|div) align="center">', page)
    assert "<summary>Top</summary>" in page
