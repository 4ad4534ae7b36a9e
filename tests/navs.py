"""The navigation of a built site, read back from its HTML (Material's sidebar, Sphinx's global
toctree)."""

from __future__ import annotations

import posixpath
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

from support import git, run, write

ENGINES = ("mkdocs", "sphinx")


def url_key(path: str) -> str:
    """``getting-started/index`` and ``getting-started/index.html`` -> ``getting-started``."""
    path = path.strip("/")
    for suffix in ("/index.html", ".html", ".md", ".mdx"):
        if path.endswith(suffix) or path == suffix.lstrip("/"):
            path = path[: -len(suffix)] if path.endswith(suffix) else ""
            break
    return "" if path == "index" else path.removesuffix("/index")


class _Sidebar(HTMLParser):
    """Links of the primary navigation, in document order."""

    def __init__(self, engine: str) -> None:
        super().__init__(convert_charrefs=True)
        self.engine = engine
        self.depth = 0
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        classes = d.get("class", "").split()
        if self.depth:
            if tag in ("div", "nav", "ul", "li"):
                self.depth += 1
            if tag == "a" and d.get("href"):
                self.links.append(d["href"])
            return
        if (self.engine == "mkdocs" and tag == "nav" and "md-nav--primary" in classes) or (
                self.engine == "sphinx" and tag == "div" and "sphinxsidebarwrapper" in classes):
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag in ("div", "nav", "ul", "li"):
            self.depth -= 1


def sidebar(engine: str, out: Path, mount: str) -> list[str]:
    """The flattened section nav of the host's home page: URL keys of the section's pages."""
    p = _Sidebar(engine)
    p.feed((out / "index.html").read_text("utf-8"))
    keys = []
    for href in p.links:
        if "#" in href or "://" in href:
            continue
        path = posixpath.normpath(href)
        if path == mount or path.startswith(mount + "/"):
            keys.append(url_key(path[len(mount):]))
    return keys


def build_hosts(base: Path, config: str, lock: str, *, timeout: float = 1200,
                strict: bool = False) -> dict[str, tuple[Path, str]]:
    """A MkDocs Material host and a Sphinx host (its nav on the home page) with ``config`` and
    ``lock``, each built once: engine -> (output folder, build log)."""
    jobs: dict[str, tuple[list[str], Path, Path]] = {}
    for engine in ENGINES:
        host = base / engine
        host.mkdir()
        git(host, "init", "-q", "-b", "main")
        if engine == "mkdocs":
            write(host / "mkdocs.yml", """
                site_name: Host
                theme:
                  name: material
                plugins:
                  - search
                  - miles-docs
                """)
            write(host / "docs" / "index.md", "# Host home\n")
            cfg, out = host, host / "site"
            cmd = [sys.executable, "-m", "mkdocs", "build"] + (["--strict"] if strict else [])
        else:
            # The global toctree (the nav) on the home page only: a theme that draws it on
            # every page (furo) takes as long again for each page as the site has pages
            # (115 s for mem0's 300, against 10 s here); furo is built in test_sphinx.
            write(host / "docs" / "conf.py", """
                project = "Host"
                extensions = ["myst_parser", "miles_docs_plugin.sphinx_ext"]
                html_theme = "basic"
                html_sidebars = {"index": ["globaltoc.html"], "**": []}
                html_theme_options = {"globaltoc_collapse": False,
                                      "globaltoc_includehidden": True}
                exclude_patterns = ["_build"]
                """)
            write(host / "docs" / "index.md", "# Host home\n\n```{toctree}\n```\n")
            cfg, out = host / "docs", host / "_build" / "html"
            cmd = [sys.executable, "-m", "sphinx", "-j", "2", "-b", "html", str(cfg), str(out)]
            cmd[3:3] = ["-W", "--keep-going"] if strict else []
        (cfg / "miles-docs.yml").write_text(config, "utf-8")
        (cfg / "miles-docs.lock").write_text(lock, "utf-8")
        jobs[engine] = (cmd, host, out)
    # both engines at once: MkDocs runs in one process, so the two overlap on two cores
    # (each with a cache of its own: a build must not see the other's fetch in progress)
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        runs = {engine: pool.submit(run, cmd, host,
                                    {"MILES_DOCS_CACHE": str(base / f"cache-{engine}")}, timeout)
                for engine, (cmd, host, _out) in jobs.items()}
        built: dict[str, tuple[Path, str]] = {}
        for engine, future in runs.items():
            result = future.result()
            assert result.returncode == 0, result.output[-3000:]
            built[engine] = (jobs[engine][2], result.output)
    return built
