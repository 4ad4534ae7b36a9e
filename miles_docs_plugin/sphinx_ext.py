"""The Sphinx adapter: the same ``miles-docs.yml`` and lock, the same section as MkDocs.

Sphinx reads documents only from its source folder (no public API reads them from elsewhere),
so the section is written into a generated folder ``<srcdir>/<mount>/``:

- it holds its own ``.gitignore`` (``*``), so the host's ``git status`` stays clean;
- a marker file (``.miles-docs-generated``) proves the folder is ours: a folder without it is a
  host folder, and the build stops instead of touching it;
- a file is rewritten only when its bytes change (atomic replace), so Sphinx re-reads exactly
  the pages that changed upstream; files that no longer exist upstream are removed.

Events and why:

- ``config-inited``: load and validate the config (``ExtensionError`` naming the key); turn on
  MyST heading anchors if the host has them off, since upstream pages link to headings.
- ``builder-inited``: runs before Sphinx discovers documents (``Builder.read``), so the
  generated folder is complete when the project is scanned.
- ``doctree-read`` (priority 400, before the toctree collector at 500): add the section to the
  root document's toctree (``placement``); (priority 600, after the title collector): titles
  from front matter, as MkDocs does.
- ``html-page-context`` (priority 400, before sphinx-book-theme's buttons at 501): edit links
  of injected pages point upstream; provenance in the template context; the banner, added to
  the page body here (after the doctree was indexed for search, and at write time, so a moved
  pin re-writes pages without re-reading them).
- ``build-finished``: copy assets that only raw HTML references (Sphinx copies the rest).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import myst_parser  # noqa: F401  (the sandbox and the slugs need it)
    from docutils import nodes
    from sphinx import addnodes
    from sphinx.application import Sphinx
    from sphinx.config import Config as SphinxConfig
    from sphinx.domains import Domain
    from sphinx.errors import ConfigError as SphinxConfigError
    from sphinx.errors import ExtensionError
    from sphinx.util import logging
except ModuleNotFoundError:  # Sphinx is an extra: say which one
    from .engines import require

    require("sphinx", "the Sphinx extension")
    raise

from . import __version__
from .builtin.provenance import BANNER_CSS, insert_banner_html
from .core.collect.landing import landing_page
from .core.config import CONFIG_FILE, Config, load_config, parse_config
from .core.engine import Engine
from .core.errors import ConfigError, LockError, MilesDocsError, Severity
from .core.model import NavGroup, NavItem, NavLink, NavPage, Section
from .core.pipeline import BuildResult, build
from .core.section.mounts import collision_error, mount_collisions
from .core.section.sandbox import safe_title, tagless
from .core.transform.anchors import PageSlugger
from .core.transform.blocks import (
    CALLOUTS,
    GROUPS,
    Component,
    card_body,
    card_head,
    code_group_parts,
    escape_inline,
    fence_length,
    framed_image,
)
from .core.transform.mdx import FenceMeta
from .sphinx_sandbox import SandboxedMystParser, SandboxInfo
from .sphinx_sandbox import on_doctree_read as sandbox_doctree_read

logger = logging.getLogger(__name__)

MARKER = ".miles-docs-generated"
STATE = ".miles-docs-state.json"  #: what sync() wrote last time (lets it skip reading files)
#: Repository-file links are written as ``miles-docs-pin:<source>/<blob|tree>/<path>`` and
#: turned into permalinks at write time, so moving the pin does not change the page sources.
PIN_SCHEME = "miles-docs-pin"
#: A link that leads nowhere (reported already): ``#`` in the written page.
INERT_LINK = f"{PIN_SCHEME}:#"
#: Mintlify callout kind -> docutils admonition
SPHINX_KINDS = {"info": "important", "success": "hint"}


def _myst_slugs() -> tuple[dict[str, Callable[[str], str]], Callable[[str], str],
                           Callable[[str, set[str]], str]]:
    """MyST's slug presets, its GitHub slugify and its de-duplication, from the installed
    myst-parser (``myst_parser.slugs`` is new in 5.0; before, the same rules lived in the
    renderer, and ``myst_heading_slug_func`` was an import path, not a preset name)."""
    try:
        from myst_parser.slugs import SLUG_PRESETS, github_slugify, unique_slug
    except ImportError:
        from myst_parser.mdit_to_docutils.base import default_slugify

        def unique(slug: str, existing: set[str]) -> str:  # compute_unique_slug's loop
            uniq, i = slug, 1
            while uniq in existing:
                uniq, i = f"{slug}-{i}", i + 1
            return uniq

        return {}, default_slugify, unique
    return SLUG_PRESETS, github_slugify, unique_slug


def _import_path(path: str) -> Callable[[str], str] | None:
    import importlib

    module, _, name = path.rpartition(".")
    try:
        func = getattr(importlib.import_module(module), name) if module else None
    except ImportError:
        return None
    return func if callable(func) else None


class SphinxEngine(Engine):
    name = "sphinx"
    slugify: Callable[..., str]  #: set in __init__, from the engine's own settings
    raw_html_ids = True  # MyST resolves them through the labels on_doctree_read_raw_ids adds
    heading_attrs = False

    def __init__(self, app: Sphinx, host_pages: set[str]) -> None:
        super().__init__(host_pages)
        self.app = app
        self.features = frozenset({"myst"} | ({"design"} if "sphinx_design" in
                                               app.config.extensions else set()))
        presets, github_slugify, _unique = _myst_slugs()
        func = getattr(app.config, "myst_heading_slug_func", None)
        if isinstance(func, str):
            func = presets.get(func) or _import_path(func) or github_slugify
        self.slugify = func or github_slugify
        # the host's depth: MyST gives deeper headings no anchor (set to 6 when it was off)
        self.heading_depth = int(getattr(app.config, "myst_heading_anchors", 0) or 6)
        self.heading_depth_setting = "myst_heading_anchors"

    def repo_link(self, source: str, kind: str, path: str, url: str) -> str:
        return f"{PIN_SCHEME}:{source}/{kind}/{path}"

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        rel = posixpath.relpath(to_doc, posixpath.dirname(from_doc) or ".")
        if not page or not re.search(r"[#%]", rel):
            return rel  # MyST reads the path as written (it does not percent-decode it)
        # MyST cuts a path at its first '#' and reads '%' as an escape, so `a#b.md` and
        # `50%.md` cannot be named there: link to the written URL (already quoted by Sphinx),
        # filled in at write time
        return f"{PIN_SCHEME}:url/{self.url_from(from_doc, self.page_url(to_doc))}"

    def inert_link(self, *, image: bool = False) -> str:
        # MyST would report `#` once more ("cross-reference target not found: ''", or "image
        # file not readable") on the generated copy; it is already reported upstream
        return "data:," if image else INERT_LINK

    def fence_info(self, info: str) -> str:
        if info.split()[:1] == ["mermaid"]:
            return "{mermaid}" if "sphinxcontrib.mermaid" in self.app.config.extensions else "text"
        return info

    def page_url(self, doc_path: str) -> str:
        docname = posixpath.splitext(doc_path)[0]
        assert self.app.builder is not None
        return str(self.app.builder.get_target_uri(docname))

    def page_slugger(self) -> PageSlugger:
        unique_slug = _myst_slugs()[2]
        seen: set[str] = set()
        slugify = self.slugify

        def make(text: str) -> str:
            slug = unique_slug(slugify(text), seen)
            if slug:
                seen.add(slug)
            return str(slug)

        return make

    checks_languages = True  # "Pygments lexer name 'mdx' is not known" under -W fails a build

    def known_language(self, lang: str) -> bool:
        from pygments.lexers import find_lexer_class_by_name
        from pygments.util import ClassNotFound

        if lang in ("text", "none", "default", "mermaid"):
            return True
        try:
            find_lexer_class_by_name(lang)
        except ClassNotFound:
            return False
        return True

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        if meta.title:
            # MyST reads a directive's options from lines starting with ":" (a caption)
            return [f"{indent}{marker}{{code-block}} {meta.lang or 'text'}",
                    f"{indent}:caption: {' '.join(meta.title.split())}"]
        return [f"{indent}{marker}{meta.lang}"]

    def block(self, c: Component) -> list[str]:
        ind = c.indent
        design = "design" in self.features
        inner = c.inner()
        fence = ind + "`" * fence_length(inner)
        title = " ".join(c.title.split())
        kind = CALLOUTS.get(c.name)
        if kind:
            kind = SPHINX_KINDS.get(kind, kind)
            if title:
                return c.wrap([f"{fence}{{admonition}} {title}", f"{ind}:class: {kind}"], inner,
                              [fence])
            return c.wrap([f"{fence}{{{kind}}}"], inner, [fence])
        if c.name in ("Accordion", "Expandable"):
            if design:
                return c.wrap([f"{fence}{{dropdown}} {title or c.name}"], inner, [fence])
            return c.wrap([f"{fence}{{admonition}} {title or c.name}", f"{ind}:class: note"],
                          inner, [fence])
        if design and c.name == "Tabs":
            return c.wrap([f"{fence}{{tab-set}}"], inner, [fence])
        if design and c.name == "Tab" and not any(line.strip() for line in inner):
            return c.wrap([], [], [])  # sphinx-design refuses an empty tab
        if design and c.name == "Tab":
            return c.wrap([f"{fence}{{tab-item}} {title or 'Tab'}"], inner, [fence])
        if design and c.name == "CodeGroup":
            parts = code_group_parts(inner)
            if parts:
                item = ind + "`" * fence_length([line for _, p in parts for line in p])
                outer = ind + "`" * (len(item.strip()) + 1)
                lines = [f"{outer}{{tab-set}}"]
                for part_title, code in parts:
                    lines += [f"{item}{{tab-item}} {part_title}", *code, item]
                return c.wrap(lines, [], [outer])
        if c.name == "Step":
            head = f"{ind}{c.index}. **{escape_inline(title or f'Step {c.index}')}**"
            return c.wrap([head], c.indented("   "), [""])
        image = framed_image(c) if c.name == "Frame" else None
        if image:
            alt, src = image
            caption = " ".join(c.attrs["caption"].split())
            lines = [f"{fence}{{figure}} {src}"] + ([f"{ind}:alt: {alt}"] if alt else [])
            return c.wrap(lines, ["", f"{ind}{escape_inline(caption)}"], [fence])
        if design and c.name in GROUPS:
            cols = c.attrs.get("cols", "2")
            cols = cols if cols.isdigit() and 0 < int(cols) <= 12 else "2"
            return c.wrap([f"{fence}{{grid}} 1 {cols} {cols} {cols}", f"{ind}:gutter: 2"],
                          inner, [fence])
        if design and c.name in ("Card", "Tile"):
            body = card_body(c)
            head = card_head(c)
            directive = "grid-item-card" if c.parent in GROUPS else "card"
            return c.wrap([f"{fence}{{{directive}}}"], ([f"{ind}{head}", ""] if head else [])
                          + body, [fence])
        return super().block(c)


# -- generated folder ----------------------------------------------------------------------


def _write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically replace ``path`` with ``data`` unless it already holds exactly that."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _copy_if_changed(src: Path, dst: Path) -> bool:
    return _write_if_changed(dst, src.read_bytes())


class GeneratedFolder:
    """``<srcdir>/<mount>``, owned by miles-docs (proved by its marker file)."""

    def __init__(self, srcdir: Path, section: Section) -> None:
        self.root = srcdir / section.mount
        self.section = section

    def claim(self) -> None:
        marker = self.root / MARKER
        if self.root.exists() and not marker.exists():
            raise ExtensionError(
                f"[miles-docs] source {self.section.source.name!r} mounts at "
                f"{self.section.mount!r}, but {self.root} is a folder of the host (it has no "
                f"{MARKER} marker). Nothing was touched; set `mount:` to a free folder or move "
                "that folder.")
        self.root.mkdir(parents=True, exist_ok=True)
        _write_if_changed(marker, json.dumps(
            {"source": self.section.source.name, "generator": f"miles-docs {__version__}"}
        ).encode() + b"\n")
        _write_if_changed(self.root / ".gitignore",
                          b"# Generated by miles-docs at build time; never commit it.\n*\n")

    def sync(self, files: dict[str, bytes | Path]) -> list[str]:
        """Make the folder hold exactly ``files``; return the paths that were (re)written.

        What was written last time is recorded in a state file (content digest, and the size
        and mtime the file then had), so an unchanged file is recognised without reading it.
        """
        state_file = self.root / STATE
        try:
            old_state = json.loads(state_file.read_text("utf-8"))
        except (OSError, ValueError):
            old_state = {}
        state: dict[str, list[Any]] = {}
        written = []
        for rel, content in files.items():
            if rel in (MARKER, STATE, ".gitignore"):
                continue  # an upstream file may not replace what keeps the folder safe
            target = self.root / rel
            if isinstance(content, Path):
                st = content.stat()
                digest = f"file:{content}:{st.st_size}:{st.st_mtime_ns}"
            else:
                digest = hashlib.sha1(content, usedforsecurity=False).hexdigest()
            known = old_state.get(rel)
            try:
                tst = target.stat()
                current = [digest, tst.st_size, tst.st_mtime_ns]
            except FileNotFoundError:
                current = None
            if known is None or current is None or list(known) != current:
                changed = (_copy_if_changed(content, target) if isinstance(content, Path)
                           else _write_if_changed(target, content))
                if changed:
                    written.append(rel)
                tst = target.stat()
                current = [digest, tst.st_size, tst.st_mtime_ns]
            state[rel] = current
        if state != old_state:
            _write_if_changed(state_file, json.dumps(state, sort_keys=True).encode())
        keep = set(files) | {MARKER, STATE, ".gitignore"}
        for path in sorted(self.root.rglob("*"), reverse=True):
            rel = path.relative_to(self.root).as_posix()
            if path.is_file() and rel not in keep and not path.name.startswith("."):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        return written


# -- nav as toctrees -----------------------------------------------------------------------


def _docname(section: Section, path: str) -> str:
    return posixpath.splitext(section.host_path(path))[0]


#: folder (below the mount) of the generated pages that stand for nav groups
GROUPS_DIR = "_nav"


def _page_entry(section: Section, item: NavPage) -> str:
    """A toctree line for a page: its absolute docname, with the nav title (``sidebarTitle``,
    the nav config, or the front matter title), as MkDocs' nav does; Sphinx would otherwise
    show the first heading."""
    page = section.pages.get(item.path)
    title = item.title or (page.title if page else None)
    target = "/" + _docname(section, item.path)
    return f"{_toctree_title(title)} <{target}>" if title else target


class NavDocuments:
    """The section's nav as Sphinx sees it: the landing page's toctree, and one generated page
    per group holding the toctree of its children (so every theme shows the groups: a toctree
    caption alone is not shown by furo and others). Pages keep the nav's order."""

    def __init__(self, section: Section, index_doc: str) -> None:
        self.section = section
        self.index_doc = index_doc
        self.groups: dict[str, bytes] = {}  #: generated file (relative to the mount) -> text
        self.titles: dict[str, str] = {}  #: docname -> group title
        self.listed: set[str] = set()  #: docnames the nav lists
        self._slugs: set[str] = set()
        taken = {posixpath.dirname(p.dest).split("/", 1)[0] for p in section.pages.values()}
        self.folder = GROUPS_DIR
        while self.folder in taken:
            self.folder = "_" + self.folder
        self.index_toctree = self._toctree(self._entries(section.nav, ""), hidden=True)

    def _slug(self, title: str, parent: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "group"
        slug = f"{parent}--{base}" if parent else base
        unique, n = slug, 1
        while unique in self._slugs:
            n += 1
            unique = f"{slug}-{n}"
        self._slugs.add(unique)
        return unique

    def _entries(self, items: list[NavItem], parent: str) -> list[str]:
        out: list[str] = []
        for item in items:
            if isinstance(item, NavPage):
                docname = _docname(self.section, item.path)
                if docname == self.index_doc:
                    continue  # the landing page is the parent of them all
                self.listed.add(docname)
                out.append(_page_entry(self.section, item))
            elif isinstance(item, NavLink):
                out.append(f"{_toctree_title(item.title)} <{item.url}>")
            elif isinstance(item, NavGroup):
                slug = self._slug(item.title, parent)
                children = self._entries(item.children, slug)
                if not children:
                    continue
                rel = f"{self.folder}/{slug}.md"
                docname = _docname(self.section, rel)
                self.titles[docname] = item.title
                self.groups[rel] = (f"# {escape_inline(item.title)}\n\n"
                                    + self._toctree(children, hidden=False)).encode("utf-8")
                out.append(f"{_toctree_title(item.title)} </{docname}>")
        return out

    @staticmethod
    def _toctree(entries: list[str], *, hidden: bool) -> str:
        if not entries:
            return ""
        head = "```{toctree}\n" + (":hidden:\n" if hidden else ":maxdepth: 1\n")
        return head + "\n" + "\n".join(entries) + "\n```\n"


def _with_toctree(content: str, body_start: int, toctree: str) -> str:
    """Put the (hidden) toctree right after the page title, outside every subsection:
    Sphinx nests a toctree's pages under the section that holds it."""
    body = content[body_start:]
    m = re.match(r"(?:[ \t]*\n)*[ \t]{0,3}#[ \t][^\n]*\n", body)
    at = body_start + (m.end() if m else 0)
    return f"{content[:at]}\n{toctree}\n{content[at:]}"


HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]|^[^\n]+\n[ \t]{0,3}(?:=+|-+)[ \t]*$", re.M)


def _with_title(content: str, body_start: int, title: str) -> str:
    """A page without any heading (Mintlify shows the front matter title, and an OpenAPI page
    has no body at all) gets its title as a heading: a toctree links only to documents with
    a section, and the nav must list every page."""
    if HEADING_RE.search(content, body_start):
        return content
    return f"{content[:body_start]}# {escape_inline(title)}\n\n{content[body_start:]}"


def _stem_title(path: str) -> str:
    return re.sub(r"[-_]+", " ", posixpath.splitext(posixpath.basename(path))[0]).strip().title()


def _toctree_title(title: str) -> str:
    # a toctree entry is "Title <target>": keep its own angle brackets from being read as one
    return " ".join(title.replace("<", "\\<").split())


# -- state ---------------------------------------------------------------------------------


@dataclass
class PageInfo:
    title: str | None
    provenance: dict[str, Any]
    description: str | None
    banner_html: str | None = None
    pin_links: bool = False  #: the page has repository links to fill in at write time


@dataclass
class State:
    """What the later events need, kept on the environment for the forked readers."""

    pages: dict[str, PageInfo] = field(default_factory=dict)  #: by docname
    roots: list[tuple[str, str, str]] = field(default_factory=list)  #: (title, index, placement)
    html_assets: list[tuple[str, str]] = field(default_factory=list)  #: (src abs, dest rel)
    written: list[str] = field(default_factory=list)
    #: per source: (web_url, commit or ref) for permalinks resolved at write time
    permalinks: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    pins: dict[str, str | None] = field(default_factory=dict)
    #: injected pages the section's nav does not list (no toctree holds them)
    orphans: set[str] = field(default_factory=set)


def _state(app: Sphinx) -> State:
    state = getattr(app.env, "miles_docs_state", None)
    if not isinstance(state, State):
        state = State()
        app.env.miles_docs_state = state  # type: ignore[attr-defined]
    return state


# -- events --------------------------------------------------------------------------------


def _core_config(app: Sphinx) -> Config:
    config: Config | None = getattr(app, "_miles_docs_config", None)
    if config is None:
        raise ExtensionError("[miles-docs] the config was not loaded (config-inited did not run)")
    return config


def on_config_inited(app: Sphinx, config: SphinxConfig) -> None:
    base = Path(app.confdir)
    try:
        if config.miles_docs_sources:
            data: dict[str, Any] = {"sources": config.miles_docs_sources}
            data.update(config.miles_docs_options or {})
            core = parse_config(data, base_dir=base, config_file=None)
        else:
            core = load_config(base / config.miles_docs_config)
    except MilesDocsError as exc:  # Sphinx's own one-line "Configuration error:"
        raise SphinxConfigError(f"[miles-docs] {exc}") from None
    app._miles_docs_config = core  # type: ignore[attr-defined]
    schemes = config.myst_url_schemes
    if isinstance(schemes, dict):
        schemes.setdefault(PIN_SCHEME, None)
    elif PIN_SCHEME not in (schemes or ()):
        config.myst_url_schemes = [*(schemes or ()), PIN_SCHEME]
    if not getattr(config, "myst_heading_anchors", None):
        config.myst_heading_anchors = 6
        logger.info("[miles-docs] set myst_heading_anchors = 6 (upstream pages link to headings)")


def _host_pages(app: Sphinx, mounts: list[str]) -> set[str]:
    exclude = list(app.config.exclude_patterns) + [f"{m}/**" for m in mounts]
    found = app.project.discover(exclude, app.config.include_patterns)
    # str before Sphinx 7.3, a Path since
    return {Path(app.project.doc2path(d, absolute=False)).as_posix() for d in found}


def on_builder_inited(app: Sphinx) -> None:
    core = _core_config(app)
    srcdir = Path(app.srcdir)
    host_pages = _host_pages(app, [s.mount for s in core.sources])
    for source in core.sources:
        clash = mount_collisions(source.mount, host_pages)
        if clash:
            error = collision_error(source.name, source.mount, clash,
                                    str(core.config_file or "config"))
            raise ExtensionError(f"[miles-docs] {error}")
    engine = SphinxEngine(app, host_pages)
    try:
        result = build(core, engine, progress=lambda m: logger.info("[miles-docs] %s", m))
    except (ConfigError, LockError) as exc:  # the config or the lock: what the user fixes
        raise SphinxConfigError(f"[miles-docs] {exc}") from None
    except MilesDocsError as exc:
        raise ExtensionError(f"[miles-docs] {exc}") from None
    state = State()
    sandbox: dict[str, SandboxInfo] = {}
    _report(result)
    for section in result.sections.values():
        folder = GeneratedFolder(srcdir, section)
        folder.claim()
        files: dict[str, bytes | Path] = {}
        landing = landing_page(section)
        index_doc = _docname(section, landing.path) if landing else f"{section.mount}/index"
        nav = NavDocuments(section, index_doc)
        for rel, text in nav.groups.items():
            files[rel] = text
            docname = _docname(section, rel)
            state.pages[docname] = PageInfo(nav.titles[docname], {}, None)
        for page in section.pages.values():
            content = page.content
            docname = _docname(section, page.path)
            content = _with_title(content, page.body_start, page.title or _stem_title(page.path))
            if docname == index_doc:
                content = _with_toctree(content, page.body_start, nav.index_toctree)
            elif docname not in nav.listed:
                state.orphans.add(docname)  # built and linkable, as MkDocs' not-in-nav pages
            if section.source.sandboxed:
                # no front matter reaches MyST (html_meta, myst: options, substitutions);
                # blank lines keep the line numbers of the upstream page
                content = "\n" * page.body_line + content[page.body_start:]
                repo_path = section.aliases.get(page.path) or section.repo_path(page.path)
                sandbox[docname] = SandboxInfo(
                    f"{section.source.display}:{section.repo_path(page.path)}",
                    str(section.checkout.root / repo_path), str(folder.root))
            files[page.dest] = content.encode("utf-8")
            description = page.meta.get("description")
            state.pages[docname] = PageInfo(page.title, page.extra.get("provenance") or {},
                                            description if isinstance(description, str) else None,
                                            page.extra.get("banner_html"),
                                            PIN_SCHEME + ":" in content)
        if landing is None:
            files["index.md"] = (f"# {escape_inline(section.source.title)}\n\n"
                                 + nav.index_toctree).encode("utf-8")
            state.pages[index_doc] = PageInfo(section.source.title, {}, None)
        for asset in section.assets.values():
            files[asset.path] = asset.abs_path
            state.html_assets.append((str(asset.abs_path), section.host_path(asset.path)))
        written = folder.sync(files)
        state.written.extend(f"{section.mount}/{w}" for w in written)
        state.roots.append((section.source.title, index_doc, section.source.placement))
        checkout = section.checkout
        state.permalinks[section.source.name] = (section.source.web_url,
                                                 checkout.commit or section.source.ref)
        state.pins[section.source.name] = checkout.commit
    app.env.miles_docs_state = state  # type: ignore[attr-defined]
    app.env.miles_docs_sandbox = sandbox  # type: ignore[attr-defined]


def _report(result: BuildResult) -> None:
    errors = 0
    for section in result.sections.values():
        warnings = 0
        for diag in section.diagnostics:
            if diag.severity is Severity.INFO:
                logger.info("[miles-docs] %s", diag.format())
                continue
            warnings += 1
            errors += diag.severity is Severity.ERROR
            logger.warning("[miles-docs] %s", diag.message, type="miles-docs", subtype=diag.code,
                           location=f"{section.source.display}:{diag.location}")
        checkout = section.checkout
        state = "local working copy" if checkout.local else (
            "cached" if checkout.cached else "fetched")
        logger.info("miles-docs: %s ← %s@%s (%d pages, %d assets, %d warnings, %s)",
                    section.source.name, section.source.display, checkout.short,
                    len(section.pages), len(section.assets), warnings, state)
    if errors:
        raise ExtensionError(f"[miles-docs] {errors} unresolved link(s) with "
                             "`links.unresolved: error` (listed above)")


def on_doctree_read_placement(app: Sphinx, doctree: nodes.document) -> None:
    """Add each section to the root document's toctree (``placement``)."""
    if app.env.docname != app.config.root_doc:
        return
    for title, index_doc, placement in _state(app).roots:
        if placement == "none":
            continue
        toctrees = list(doctree.findall(addnodes.toctree))
        if any(index_doc in (tc.get("includefiles") or []) for tc in toctrees):
            continue
        if toctrees:
            tc = toctrees[-1] if placement == "end" else toctrees[0]
        else:
            tc = addnodes.toctree(entries=[], includefiles=[], maxdepth=-1, glob=False,
                                  hidden=True, caption=None, titlesonly=False, numbered=0,
                                  parent=app.env.docname)
            wrapper = nodes.compound(classes=["toctree-wrapper"])
            wrapper += tc
            doctree += wrapper
        entry = (title, index_doc)
        if placement == "start":
            tc["entries"].insert(0, entry)
            tc["includefiles"].insert(0, index_doc)
        else:
            tc["entries"].append(entry)
            tc["includefiles"].append(index_doc)


RAW_ID_RE = re.compile(r"""<[A-Za-z][\w-]*\s[^>]*?\bid\s*=\s*["']([^"'<>]+)["']""")
#: Prefix of the std-domain label names that record raw HTML ids of injected pages.
RAW_ID_LABEL = "miles-docs-raw-id"


def on_doctree_read_raw_ids(app: Sphinx, doctree: nodes.document) -> None:
    """Make ids of raw HTML in injected pages (``<a id>``, ``<div id>``, component ids)
    link targets, as they are on Mintlify and in MkDocs.

    Each id becomes an anonymous std label of its document (a name no author writes), which
    MyST resolves for ``other.md#id`` links; same-page ``#id`` links are answered by the
    ``miles-docs`` domain below. Sphinx clears both when the document is read again.
    """
    docname = app.env.docname
    if docname not in _state(app).pages:
        return
    std = app.env.domaindata["std"]
    # myst-parser before 5 resolves ``other.md#id`` only against the page's heading slugs
    slugs = app.env.metadata[docname].setdefault("myst_slugs", {})
    for raw in doctree.findall(nodes.raw):
        if "html" not in raw.get("format", "").split():
            continue
        for value in RAW_ID_RE.findall(raw.astext()):
            std["anonlabels"].setdefault(f"{RAW_ID_LABEL}:{docname}#{value}", (docname, value))
            if isinstance(slugs, dict):
                slugs.setdefault(value, (0, value, value))


class RawIdDomain(Domain):
    """Resolves MyST's same-page ``[text](#id)`` to ids of raw HTML (recorded above)."""

    name = "miles-docs"
    label = "miles-docs raw HTML ids"

    def resolve_any_xref(self, env: Any, fromdocname: str, builder: Any, target: str,
                         node: Any, contnode: Any) -> list[tuple[str, Any]]:
        labels = env.domaindata["std"]["anonlabels"]
        hit = labels.get(f"{RAW_ID_LABEL}:{fromdocname}#{target}")
        if hit is None:
            return []
        from sphinx.util.nodes import make_refnode

        return [("miles-docs:id", make_refnode(builder, fromdocname, hit[0], hit[1],
                                               contnode))]

    def resolve_xref(self, env: Any, fromdocname: str, builder: Any, typ: str, target: str,
                     node: Any, contnode: Any) -> Any:
        return None

    def merge_domaindata(self, docnames: Any, otherdata: Any) -> None:
        pass  # it keeps no data of its own: the labels live in the std domain


def on_doctree_read_orphans(app: Sphinx, doctree: nodes.document) -> None:
    """Pages the nav does not list are orphans (built, linkable, in no toctree), as on the
    upstream's own site."""
    if app.env.docname in _state(app).orphans:
        app.env.metadata[app.env.docname]["orphan"] = True


def on_doctree_read_titles(app: Sphinx, doctree: nodes.document) -> None:
    """Front matter titles win over the first heading, as in MkDocs."""
    info = _state(app).pages.get(app.env.docname)
    if info is None or not info.title:
        return
    text = tagless(info.title)  # themes print a title's text raw (sphinx-book-theme)
    title = nodes.title(text, text)
    app.env.titles[app.env.docname] = title
    app.env.longtitles[app.env.docname] = title


def on_html_page_context(app: Sphinx, pagename: str, templatename: str,
                         context: dict[str, Any], doctree: Any) -> None:
    info = _state(app).pages.get(pagename)
    if info is None:
        context.setdefault("miles_docs", None)  # templates can test it on every page
        return
    prov = info.provenance
    if info.banner_html and "body" in context:
        # Into the HTML, not the doctree: Sphinx indexes a doctree's raw HTML for search.
        context["body"] = insert_banner_html(context["body"], info.banner_html)
    context["miles_docs"] = prov
    for key in ("source_repo", "source_commit", "source_path", "source_url"):
        context[key] = prov.get(key)
    if info.title:
        # templates take ``title`` as HTML (Sphinx renders it from the title node)
        context["title"] = safe_title(info.title)
    if info.description:
        tag = f'<meta name="description" content="{safe_title(info.description)}" />\n'
        context["metatags"] = context.get("metatags", "") + tag
    view = _current_blob_url(app, prov)
    if view:
        # furo's "view this page" would point into the host repository, where the generated
        # page is not committed: point it at the upstream file at the pin instead
        context["theme_source_view_link"] = view.replace("{", "{{").replace("}", "}}")
    edit = prov.get("edit_url")
    if edit:
        # furo / basic-ng: a per-page edit link template ({filename} is the only field)
        context["theme_source_edit_link"] = edit.replace("{", "{{").replace("}", "}}")
        # pydata-sphinx-theme / sphinx-book-theme: a per-page template that must name file_name
        context["miles_docs_edit_url"] = edit
        context["edit_page_url_template"] = "{{ miles_docs_edit_url }}{# file_name #}"
        context["edit_page_provider_name"] = "GitLab" if "/-/" in edit else "GitHub"


def _current_blob_url(app: Sphinx, prov: dict[str, Any]) -> str | None:
    from .core.urls import web_link

    web, commit = _state(app).permalinks.get(prov.get("source_name", ""), (None, ""))
    if not web or not prov.get("source_path"):
        return None
    return web_link(web, "blob", commit, prov["source_path"])


def on_env_get_outdated(app: Sphinx, env: Any, added: set[str], changed: set[str],
                        removed: set[str]) -> list[str]:
    """Pages that entered or left the nav re-read (their orphan mark is set when read)."""
    orphans = _state(app).orphans
    return [d for d in _state(app).pages if d in env.all_docs and
            (d in orphans) != bool(env.metadata.get(d, {}).get("orphan"))]


def on_env_get_updated(app: Sphinx, env: Any) -> list[str]:
    """Pages to write again (not re-read) because a pin moved: their banner and permalinks
    name the commit, and those are filled in at write time."""
    state = _state(app)
    previous = getattr(env, "miles_docs_written_pins", None)
    env.miles_docs_written_pins = dict(state.pins)
    if previous is None or previous == state.pins:
        return []
    return [d for d in state.pages if d in env.all_docs]


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fill in what names the pinned commit: repository-file permalinks (the banner, which
    names it too, is added in html-page-context)."""
    state = _state(app)
    info = state.pages.get(docname)
    if info is None:
        return
    from .core.urls import web_link

    prefix = PIN_SCHEME + ":"
    for ref in doctree.findall(nodes.reference) if info.pin_links else ():
        uri = ref.get("refuri", "")
        if not uri.startswith(prefix):
            continue
        if uri == INERT_LINK:
            ref["refuri"] = "#"
            continue
        if uri.startswith(prefix + "url/"):
            ref["refuri"] = uri[len(prefix + "url/"):]
            continue
        source, kind, rest = [*uri[len(prefix):].split("/", 2), "", ""][:3]
        path, _, anchor = rest.partition("#")
        web, commit = state.permalinks.get(source, (None, ""))
        if web:
            ref["refuri"] = web_link(web, kind, commit, path) + (f"#{anchor}" if anchor else "")


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for src, rel in _state(app).html_assets:
        target = out / rel
        if Path(src).exists():
            _copy_if_changed(Path(src), target)


def on_builder_inited_static(app: Sphinx) -> None:
    """The banner's stylesheet, from the package's own static folder."""
    static = str(BANNER_CSS.parent)
    if static not in app.config.html_static_path:
        app.config.html_static_path.append(static)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("myst_parser")
    # MyST with the sandbox for pages of untrusted sources (see sphinx_sandbox)
    app.add_source_parser(SandboxedMystParser, override=True)
    app.connect("doctree-read", sandbox_doctree_read, priority=100)  # before the collectors
    app.add_css_file(BANNER_CSS.name)
    app.connect("builder-inited", on_builder_inited_static)
    app.add_config_value("miles_docs_config", CONFIG_FILE, "env", types=[str])
    app.add_config_value("miles_docs_sources", None, "env", types=[list, type(None)])
    app.add_config_value("miles_docs_options", None, "env", types=[dict, type(None)])
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("doctree-read", on_doctree_read_placement, priority=400)
    app.connect("doctree-read", on_doctree_read_titles, priority=600)
    app.connect("doctree-read", on_doctree_read_raw_ids)
    app.add_domain(RawIdDomain)
    # after the metadata collector (500), which fills the page's metadata from its docinfo
    app.connect("doctree-read", on_doctree_read_orphans, priority=600)
    app.connect("html-page-context", on_html_page_context, priority=400)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-get-updated", on_env_get_updated)
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}

