"""Helpers shared by the tests: real git repositories, real engine runs, HTML checks."""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
#: The real workload: ../shared/corpus next to the clone (CI provides it), or MILES_DOCS_CORPUS.
CORPUS = Path(os.environ.get("MILES_DOCS_CORPUS") or ROOT.parent / "shared" / "corpus")
V1 = "0d0689ccc2ab7509a74b15f43d140153080ebe4d"
V2 = "e93b2a50dc36edce1be6d6a5aae5fd6664535de4"
#: The mem0 docs as ``make_mintlify.sh mem0`` commits them.
MEM0 = "fb61b02ee764e9054c8df34d19f5077342b620bf"

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = {**os.environ, **GIT_ENV, **(env or {})}
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=full,
                         check=False)
    if out.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout.strip()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def make_repo(path: Path, files: Mapping[str, str | bytes], message: str = "commit") -> str:
    """A git repository holding ``files``; returns the commit id."""
    path.mkdir(parents=True, exist_ok=True)
    if not (path / ".git").exists():
        git(path, "init", "-q", "-b", "main")
    for name, content in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return git(path, "rev-parse", "HEAD")


def lock_text(entries: dict[str, tuple[str, str]], ref: str = "main") -> str:
    body = "".join(f"  {name}:\n    repo: {repo}\n    ref: {ref}\n    commit: {commit}\n"
                   for name, (repo, commit) in entries.items())
    return f"version: 1\nsources:\n{body}"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 300) -> Run:
    full = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=full,
                          timeout=timeout, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def superfences_html(text: str, *extensions: str) -> str:
    """``text`` as Python-Markdown writes it with pymdownx.superfences and pymdownx.highlight
    set as miles-docs sets it (no Pygments), and ``extensions``."""
    import markdown

    return str(markdown.markdown(
        text, extensions=[*extensions, "pymdownx.superfences", "pymdownx.highlight"],
        extension_configs={"pymdownx.highlight": {"use_pygments": False}}))


def same_code(html: str) -> str:
    """What superfences writes otherwise than fenced_code (its class, no newline at the end
    of the code, quotes left as they are), made equal; the structure is left as it is."""
    import re

    html = html.replace('<pre class="highlight"><code', "<pre><code").replace("&quot;", '"')
    return re.sub(r"\s*</code>", "</code>", html)


def mkdocs_build(site: Path, *extra: str, env: dict[str, str] | None = None,
                 strict: bool = True) -> Run:
    args = [sys.executable, "-m", "mkdocs", "build", "--clean"]
    if strict:
        args.append("--strict")
    return run([*args, *extra], cwd=site, env=env)


def sphinx_build(src: Path, out: Path, *extra: str, env: dict[str, str] | None = None,
                 strict: bool = True) -> Run:
    # -N: no colours (Sphinx colours its output on CI, where CI=true); tests read it as text
    flags = ["-N", "-W", "--keep-going"] if strict else ["-N"]
    return run([sys.executable, "-m", "sphinx", *flags, "-b", "html", *extra, str(src),
                str(out)], cwd=src, env=env)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.title = ""
        self._in_title = False
        self.classes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = {k: v or "" for k, v in attrs}
        for key in ("href", "src"):
            if d.get(key):
                self.refs.append((tag, key, d[key]))
        if d.get("id"):
            self.ids.add(d["id"])
        if tag == "a" and d.get("name"):
            self.ids.add(d["name"])
        if d.get("class"):
            self.classes.extend(d["class"].split())
        if tag == "title":
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


@dataclass
class HtmlPage:
    path: Path
    text: str
    refs: list[tuple[str, str, str]]
    ids: set[str]
    title: str
    classes: list[str]


@dataclass
class Site:
    """A built site, read back from disk."""

    root: Path
    pages: dict[Path, HtmlPage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for path in self.root.rglob("*.html"):
            self.load(path)

    def load(self, path: Path) -> HtmlPage:
        if path not in self.pages:
            text = path.read_text(encoding="utf-8")
            p = _Parser()
            p.feed(text)
            self.pages[path] = HtmlPage(path, text, p.refs, p.ids, p.title.strip(), p.classes)
        return self.pages[path]

    def page(self, rel: str) -> HtmlPage:
        return self.load(self.root / rel)

    def under(self, prefix: str) -> list[HtmlPage]:
        base = self.root / prefix
        return [p for path, p in sorted(self.pages.items()) if base in path.parents]

    def broken(self, prefix: str = "") -> list[str]:
        """Internal href/src of pages under ``prefix`` that resolve to no file or no id."""
        problems: list[str] = []
        for page in self.under(prefix) if prefix else list(self.pages.values()):
            for tag, key, value in page.refs:
                url = urlsplit(value)
                if url.scheme or value.startswith("//"):
                    continue
                path = unquote(url.path)
                if path.startswith("/"):
                    target = self.root / path.lstrip("/")
                    if target.is_dir():
                        target = target / "index.html"
                elif path:
                    target = Path(posixpath.normpath(
                        posixpath.join(page.path.parent.as_posix(), path)))
                    if target.is_dir():
                        target = target / "index.html"
                else:
                    target = page.path
                if not target.exists():
                    problems.append(f"{page.path.relative_to(self.root)}: {tag} {key}={value}")
                    continue
                if (url.fragment and target.suffix == ".html"
                        and url.fragment not in self.load(target).ids):
                        problems.append(f"{page.path.relative_to(self.root)}: {value} (no id)")
        return problems


def copytree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def copy_sample(workdir: Path) -> Path:
    """The sample site copied into a new git repository (with its upstream made), so tests
    build it without touching the working tree; returns ``<repo>/sample_site``."""
    repo = workdir / "repo"
    sample = repo / "sample_site"
    shutil.copytree(ROOT / "sample_site", sample, ignore=shutil.ignore_patterns(
        "site", "_build", "_upstream.git", "diffusion"))
    shutil.copy(ROOT / ".gitignore", repo / ".gitignore")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "sample")
    made = run([sys.executable, str(sample / "make_upstream.py")], cwd=sample)
    assert made.returncode == 0, made.output
    return sample
