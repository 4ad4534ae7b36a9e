"""Host sites for both engines, built for real, read back the same way (for parity tests)."""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from support import Run, Site, git, lock_text, make_repo, mkdocs_build, sphinx_build, write

ENGINES = ("mkdocs", "sphinx")

MKDOCS_THEME = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ page.title }} - {{ config.site_name }}</title>
{%- if page.meta.description %}
<meta name="description" content="{{ page.meta.description }}">{% endif %}
<meta name="mdp-source" content="{{ page.meta.source_repo }} {{ page.meta.source_path }} \
{{ page.meta.source_commit }}">
</head><body>
<nav>{% for item in nav recursive %}<span class="nav">{{ item.title }}</span>\
{% if item.children %}{{ loop(item.children) }}{% endif %}{% endfor %}</nav>
{% if page.edit_url %}<a class="edit" href="{{ page.edit_url }}">edit</a>{% endif %}
<main>
{{ page.content }}
</main><!-- end-content --></body></html>
"""


@dataclass
class Host:
    engine: str
    root: Path  #: the host repository
    docs: Path  #: where its pages live (docs/ for MkDocs, the Sphinx srcdir)
    config: Path  #: folder of miles-docs.yml
    out: Path

    def build(self, *extra: str, env: dict[str, str] | None = None, strict: bool = True) -> Run:
        if self.engine == "mkdocs":
            return mkdocs_build(self.root, *extra, env=env, strict=strict)
        return sphinx_build(self.docs, self.out, *extra, env=env, strict=strict)

    def site(self) -> Site:
        return Site(self.out)

    def page_file(self, upstream_md: str, mount: str = "diffusion") -> str:
        stem = upstream_md[:-3]
        if self.engine == "mkdocs":
            return f"{mount}/index.html" if stem == "index" else f"{mount}/{stem}/index.html"
        return f"{mount}/{stem}.html"

    def upstream_of(self, html: Path, mount: str = "diffusion") -> str | None:
        rel = html.relative_to(self.out).as_posix()
        if not rel.startswith(mount + "/"):
            return None
        rel = rel[len(mount) + 1:]
        if self.engine == "mkdocs":
            stem = rel[: -len("/index.html")] if rel.endswith("/index.html") else "index"
            return ("index" if rel == "index.html" else stem) + ".md"
        return rel[:-5] + ".md"


def make_host(engine: str, path: Path, repo: str, commit: str, *, config: str = "",
              conf_extra: str = "", mkdocs_extra: str = "", minimal_theme: bool = True,
              name: str = "diffusion", host_pages: dict[str, str] | None = None) -> Host:
    """A host site (committed to git) pinned to ``commit`` of ``repo``."""
    path.mkdir(parents=True, exist_ok=True)
    if not (path / ".git").exists():
        git(path, "init", "-q", "-b", "main")
    config = config or f"""
sources:
  - name: {name}
    repo: {repo}
    web_url: https://github.com/radixark/miles_diffusion
"""
    if engine == "mkdocs":
        theme = "theme:\n  name: null\n  custom_dir: theme\n" if minimal_theme else ""
        write(path / "mkdocs.yml", f"""
site_name: Host
nav:
  - Home: index.md
{theme}plugins:
  - search
  - miles-docs
validation:
  anchors: warn
  unrecognized_links: warn
  absolute_links: warn
{mkdocs_extra}
""")
        if minimal_theme:
            write(path / "theme" / "main.html", MKDOCS_THEME)
        docs = path / "docs"
        write(docs / "index.md", "# Host home\n\n## Team\n\nWelcome.\n")
        cfg_dir = path
        out = path / "site"
    else:
        docs = path / "docs"
        write(docs / "conf.py", f"""
project = "Host"
extensions = ["myst_parser", "miles_docs_plugin.sphinx_ext"]
html_theme = "alabaster"
exclude_patterns = ["_build"]
{conf_extra}
""")
        write(docs / "index.md", "# Host home\n\n## Team\n\nWelcome.\n\n```{toctree}\n```\n")
        cfg_dir = docs
        out = path / "_build" / "html"
    for rel, text in (host_pages or {}).items():
        if engine == "sphinx" and rel != "index.md":
            text = "---\norphan: true\n---\n" + text  # not in a toctree, on purpose
        write(docs / rel, text)
    write(cfg_dir / "miles-docs.yml", config)
    write(cfg_dir / "miles-docs.lock", lock_text({name: (repo, commit)}))
    write(path / ".gitignore", "site/\n_build/\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "host")
    return Host(engine, path, docs, cfg_dir, out)


class _Content(HTMLParser):
    """Links and images of the main content of a page (theme chrome left out)."""

    def __init__(self, engine: str) -> None:
        super().__init__(convert_charrefs=True)
        self.engine = engine
        self.depth = 0
        self.inside = False
        self.items: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        if not self.inside:
            if (self.engine == "mkdocs" and tag == "main") or (
                    self.engine == "sphinx" and d.get("role") == "main"):
                self.inside = True
                self.depth = 1
            return
        if tag not in ("img", "br", "hr", "meta", "input", "source"):
            self.depth += 1
        if tag == "a" and d.get("href") and "headerlink" not in d.get("class", ""):
            self.items.append(("a", d["href"], d.get("class", "")))
        if tag == "img" and d.get("src"):
            self.items.append(("img", d["src"], ""))

    def handle_endtag(self, tag: str) -> None:
        if self.inside and tag not in ("img", "br", "hr", "meta", "input", "source"):
            self.depth -= 1
            if self.depth == 0:
                self.inside = False


def content_links(host: Host, html: Path) -> list[tuple[str, str]]:
    """Engine-independent view of a page's content links."""
    p = _Content(host.engine)
    p.feed(html.read_text("utf-8"))
    out: list[tuple[str, str]] = []
    for kind, href, _cls in p.items:
        url = urlsplit(href)
        if url.scheme or href.startswith("//"):
            out.append(("ext", href))
            continue
        path = unquote(url.path)
        target = (Path(posixpath.normpath(posixpath.join(html.parent.as_posix(), path)))
                  if path else html)
        if target.is_dir():
            target = target / "index.html"
        if kind == "img":
            digest = hashlib.sha1(target.read_bytes()).hexdigest()[:12] if target.exists() \
                else "missing"
            out.append(("img", digest))
            continue
        if target.suffix != ".html":
            out.append(("file", hashlib.sha1(target.read_bytes()).hexdigest()[:12]))
            continue
        upstream = host.upstream_of(target)
        frag = "#" if url.fragment else ""
        if upstream is None:
            rel = target.relative_to(host.out).as_posix()
            out.append(("host", re.sub(r"(/index)?\.html$", "", rel) + frag))
        else:
            out.append(("page", upstream + frag))
    return out


def built_page(engine: str, tmp_path: Path, files: dict[str, str | bytes],
               page: str = "index.md") -> str:
    """The HTML of the upstream page ``page`` (its path under ``docs/``, ``.md`` for
    ``.mdx`` too), once a host of ``engine`` injecting an upstream made of ``files`` has been
    built, strictly; the build must succeed."""
    up = tmp_path / "up"
    commit = make_repo(up, files)
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    return host.site().page(host.page_file(page)).text
