"""Host sites for the benchmark: the same content built with the plugin, and without it.

Every variant of a measurement is a real host folder built by a real ``mkdocs build`` or
``sphinx-build`` process:

- *plugin*: ``miles-docs`` (MkDocs plugin or Sphinx extension) injects the pinned sources;
- *static*: the pages the plugin produced (links already rewritten, assets copied) committed in
  the host's docs folder, built without the plugin — the same work minus the plugin;
- *raw static*: the upstream ``docs/`` tree copied as is (the baseline for mkdocs-multirepo,
  which does not rewrite links);
- *multirepo*: ``mkdocs-multirepo-plugin`` cloning the same upstream on every build.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from synth import git

MINIMAL_THEME = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ page.title }} - {{ config.site_name }}</title>
</head><body><main>
{{ page.content }}
</main></body></html>
"""

WEB_URL = "https://github.com/example/upstream"


@dataclass
class SourceSpec:
    name: str  #: source name and mount
    url: str  #: repository URL as written in miles-docs.yml and the lock
    commit: str
    web_url: str = WEB_URL


@dataclass
class BuildOutcome:
    seconds: float  #: wall clock
    warnings: int
    output: str = ""
    cpu: float = 0.0  #: user + system CPU seconds of the build process (and its children)
    max_rss: int = 0  #: peak resident set of the build process (or a child of it), bytes


@dataclass
class Host:
    engine: str  #: mkdocs or sphinx
    root: Path
    env: dict[str, str] = field(default_factory=dict)
    #: for a static copy made from a plugin build: the pipeline's own timings (seconds) when
    #: that build ran in-process, warm (``fetch`` = cache read + collect, ``transform``, ``total``)
    pipeline_timings: dict[str, float] = field(default_factory=dict)
    #: called before every build: environment variables to set for that build only (a fresh
    #: cache folder for a cold build, say)
    fresh: Callable[[], dict[str, str]] | None = None

    @property
    def srcdir(self) -> Path:
        return self.root / "docs"

    @property
    def outdir(self) -> Path:
        return self.root / ("site" if self.engine == "mkdocs" else "_build")

    def command(self, quiet: bool = True) -> list[str]:
        if self.engine == "mkdocs":
            return [sys.executable, "-m", "mkdocs", "build", "-f", str(self.root / "mkdocs.yml"),
                    "-d", str(self.outdir)] + (["-q"] if quiet else [])
        # -N: no colour even where FORCE_COLOR is set (CI): the output is parsed
        return [sys.executable, "-m", "sphinx", "-N", "-b", "html", str(self.srcdir),
                str(self.outdir / "html"), "-d", str(self.outdir / "doctrees")] + (
                    ["-q"] if quiet else [])

    def build(self, *, clean: bool = True, quiet: bool = True) -> BuildOutcome:
        """One timed build in a fresh process (the output folder removed first when clean)."""
        if clean and self.outdir.exists():
            shutil.rmtree(self.outdir)
        env = {**self.env, **self.fresh()} if self.fresh is not None else self.env
        code, seconds, usage, output = run_measured(self.command(quiet), self.root, env)
        if code != 0:
            raise RuntimeError(f"{self.engine} build of {self.root} failed "
                               f"({code}):\n{output[-4000:]}")
        warnings = sum(1 for line in output.splitlines() if "WARNING" in line)
        return BuildOutcome(seconds, warnings, output, usage.ru_utime + usage.ru_stime,
                            usage.ru_maxrss * 1024)


def run_measured(command: list[str], cwd: Path,
                 env: dict[str, str]) -> tuple[int, float, resource.struct_rusage, str]:
    """Run ``command``: (exit code, wall seconds, its own resource usage, stdout + stderr).

    ``os.wait4`` gives the usage of this one process and the children it waited for (git),
    so the CPU time and the peak RSS are the build's own, not the largest of every process
    this runner started (what ``RUSAGE_CHILDREN`` would report for ``ru_maxrss``).
    """
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    return proc.returncode, seconds, usage, output


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _theme_yaml(root: Path, theme: str) -> str:
    if theme == "minimal":
        _write(root / "theme" / "main.html", MINIMAL_THEME)
        return "theme:\n  name: null\n  custom_dir: theme\n"
    return f"theme:\n  name: {theme}\n"


def _miles_docs_files(folder: Path, sources: list[SourceSpec]) -> None:
    cfg = "sources:\n" + "".join(
        f"  - name: {s.name}\n    repo: {s.url}\n    web_url: {s.web_url}\n" for s in sources)
    lock = "version: 1\nsources:\n" + "".join(
        f"  {s.name}:\n    repo: {s.url}\n    ref: main\n    commit: {s.commit}\n"
        for s in sources)
    _write(folder / "miles-docs.yml", cfg)
    _write(folder / "miles-docs.lock", lock)


def set_pin(host: Host, name: str, commit: str) -> None:
    """Move the pin of source ``name`` in the host's lock file."""
    lock = (host.root if host.engine == "mkdocs" else host.srcdir) / "miles-docs.lock"
    text = lock.read_text("utf-8")
    pattern = re.compile(rf"(^  {re.escape(name)}:\n(?:    .*\n)*?    commit: )[0-9a-f]{{40}}",
                         re.M)
    new, n = pattern.subn(lambda m: m.group(1) + commit, text)
    if n != 1:
        raise RuntimeError(f"no pin for {name} in {lock}")
    lock.write_text(new, encoding="utf-8")


HOME_MD = "# Host home\n\nThe host's own page.\n"


# -- MkDocs --------------------------------------------------------------------------------


def mkdocs_plugin_host(root: Path, sources: list[SourceSpec], env: dict[str, str],
                       theme: str = "minimal") -> Host:
    root.mkdir(parents=True, exist_ok=True)
    _write(root / "mkdocs.yml", "site_name: Host\n" + _theme_yaml(root, theme)
           + "markdown_extensions: [admonition]\nplugins:\n  - search\n  - miles-docs\n")
    _write(root / "docs" / "index.md", HOME_MD)
    _miles_docs_files(root, sources)
    return Host("mkdocs", root, env)


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def mkdocs_static_host(root: Path, plugin_host: Host, theme: str = "minimal") -> Host:
    """The plugin's output committed as a plain MkDocs site: the same work minus the plugin.

    Every file the plugin generates (pages with rewritten links, assets, its stylesheet) is
    written into ``docs/``, and the config the plugin leaves in effect (nav, Markdown extensions
    it turned on, extra CSS) is written into ``mkdocs.yml``.
    """
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    with _environ(plugin_host.env):
        cfg = load_config(str(plugin_host.root / "mkdocs.yml"))
        cfg.plugins.on_startup(command="build", dirty=False)
        cfg = cfg.plugins.on_config(cfg)
        files = cfg.plugins.on_files(get_files(cfg), config=cfg)
        result = getattr(cfg.plugins["miles-docs"], "result", None)
        timings = dict(getattr(result, "timings", {}) or {})
    if root.exists():
        shutil.rmtree(root)
    docs = root / "docs"
    shutil.copytree(plugin_host.srcdir, docs)
    for f in files:
        if getattr(f, "generated_by", None) is None:
            continue
        target = docs / f.src_uri
        target.parent.mkdir(parents=True, exist_ok=True)
        if f.abs_src_path:
            shutil.copyfile(f.abs_src_path, target)
        else:
            target.write_bytes(f.content_bytes)
    # the plugin turns extensions on only for the pages that use them: a static site has one
    # list for all pages, so it gets them all
    plugin = cfg.plugins["miles-docs"]
    per_page = getattr(plugin, "page_extensions", {})
    used = sorted({name for names in per_page.values() for name in names})
    extensions = [{name: cfg.mdx_configs[name]} if cfg.mdx_configs.get(name) else name
                  for name in [*cfg.markdown_extensions, *used]
                  if name not in ("toc", "tables", "fenced_code")]  # MkDocs' own defaults
    settings = {"markdown_extensions": extensions, "nav": cfg.nav}
    if cfg.extra_css:
        settings["extra_css"] = [str(x) for x in cfg.extra_css]
    _write(root / "mkdocs.yml", "site_name: Host\n" + _theme_yaml(root, theme)
           + "plugins:\n  - search\n"
           + yaml.safe_dump(settings, sort_keys=False, allow_unicode=True))
    return Host("mkdocs", root, plugin_host.env, pipeline_timings=timings)


def export_tree(repo: Path, commit: str, folder: str, dest: Path) -> None:
    """Write ``folder`` of ``repo`` at ``commit`` into ``dest`` (its contents, not the folder)."""
    tmp = dest.parent / f".export-{dest.name}.tar"
    dest.parent.mkdir(parents=True, exist_ok=True)
    git(repo, "archive", "--format=tar", "-o", str(tmp.resolve()), commit, folder)
    with tarfile.open(tmp) as tar:
        tar.extractall(dest.parent / f".export-{dest.name}", filter="data")
    tmp.unlink()
    shutil.move(str(dest.parent / f".export-{dest.name}" / folder), str(dest))
    shutil.rmtree(dest.parent / f".export-{dest.name}")


def mkdocs_raw_host(root: Path, repo: Path, commit: str, mount: str, env: dict[str, str],
                    theme: str = "minimal") -> Host:
    """The upstream docs tree copied as it is (no link rewriting, MkDocs' own nav)."""
    if root.exists():
        shutil.rmtree(root)
    _write(root / "mkdocs.yml", "site_name: Host\n" + _theme_yaml(root, theme)
           + "markdown_extensions: [admonition]\nplugins:\n  - search\n")
    _write(root / "docs" / "index.md", HOME_MD)
    export_tree(repo, commit, "docs", root / "docs" / mount)
    return Host("mkdocs", root, env)


def mkdocs_multirepo_host(root: Path, url: str, mount: str, env: dict[str, str],
                          theme: str = "minimal", branch: str = "main") -> Host:
    """mkdocs-multirepo-plugin importing ``docs/`` of ``url`` as section ``mount``."""
    root.mkdir(parents=True, exist_ok=True)
    _write(root / "mkdocs.yml", "site_name: Host\n" + _theme_yaml(root, theme)
           + "markdown_extensions: [admonition]\nplugins:\n  - search\n  - multirepo:\n"
           + "      cleanup: true\n      repos:\n"
           + f"        - section: {mount}\n"
           + f"          import_url: '{url}?branch={branch}&edit_uri=/edit/{branch}/'\n")
    _write(root / "docs" / "index.md", HOME_MD)
    return Host("mkdocs", root, env)


def mkdocs_static_yml(root: Path) -> None:
    """A minimal plain MkDocs site (used where only an engine config is needed)."""
    _write(root / "mkdocs.yml", "site_name: Host\nmarkdown_extensions: [admonition]\n")
    _write(root / "docs" / "index.md", HOME_MD)


# -- Sphinx --------------------------------------------------------------------------------

# alabaster without its global-navigation sidebar: navigation.html renders the whole toctree on
# every page, which is quadratic (1,000 pages: ~345 s instead of ~38 s per build) and would
# hide the extension's cost, as furo's navigation would. Same settings for every variant.
SPHINX_CONF = """project = "Host"
extensions = {extensions!r}
html_theme = "alabaster"
html_sidebars = {{"**": ["relations.html", "searchbox.html"]}}
exclude_patterns = ["_build"]
{extra}"""


def sphinx_plugin_host(root: Path, sources: list[SourceSpec], env: dict[str, str]) -> Host:
    root.mkdir(parents=True, exist_ok=True)
    docs = root / "docs"
    _write(docs / "conf.py", SPHINX_CONF.format(
        extensions=["myst_parser", "miles_docs_plugin.sphinx_ext"], extra=""))
    _write(docs / "index.md", HOME_MD + "\n```{toctree}\n```\n")
    _miles_docs_files(docs, sources)
    return Host("sphinx", root, env)


PIN_LINK_RE = re.compile(r"miles-docs-pin://(?P<source>[^/\s)]+)/(?P<kind>blob|tree)/"
                         r"(?P<path>[^\s)#\"]*)")


def sphinx_static_host(root: Path, plugin_host: Host, sources: list[SourceSpec]) -> Host:
    """The generated folder of a plugin build, copied into a plain Sphinx site.

    Repository-file links, which the extension fills in at write time, are written as their
    final permalinks; the section is listed in the root toctree, as the extension does.
    """
    if root.exists():
        shutil.rmtree(root)
    docs = root / "docs"
    commits = {s.name: s for s in sources}

    def permalink(m: re.Match[str]) -> str:
        spec = commits[m.group("source")]
        return f"{spec.web_url}/{m.group('kind')}/{spec.commit}/{m.group('path')}"

    for spec in sources:
        src = plugin_host.srcdir / spec.name
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if path.is_dir() or any(part.startswith(".") for part in rel.parts):
                continue
            target = docs / spec.name / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".md":
                target.write_text(PIN_LINK_RE.sub(permalink, path.read_text("utf-8")), "utf-8")
            else:
                shutil.copyfile(path, target)
    extra = "myst_heading_anchors = 6\n"
    css = _package_css()
    if css:  # the extension's stylesheet, as the extension adds it
        for path in css:
            target = docs / "_static" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        extra += (f"html_static_path = ['_static']\n"
                  f"html_css_files = {[p.name for p in css]!r}\n")
    _write(docs / "conf.py", SPHINX_CONF.format(extensions=["myst_parser"], extra=extra))
    entries = "\n".join(f"{s.name}/index" for s in sources)
    _write(docs / "index.md", HOME_MD + f"\n```{{toctree}}\n{entries}\n```\n")
    return Host("sphinx", root, plugin_host.env)


def _package_css() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("miles_docs_plugin")
    if spec is None or spec.origin is None:
        return []
    return sorted((Path(spec.origin).parent / "static").glob("*.css"))


UPDATING_RE = re.compile(r"updating environment: (?:\[[^\]]*\] )?(\d+) added, (\d+) changed, "
                         r"(\d+) removed")


def reread_counts(output: str) -> tuple[int, int, int] | None:
    """(added, changed, removed) from Sphinx's "updating environment" line."""
    m = UPDATING_RE.search(output)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
