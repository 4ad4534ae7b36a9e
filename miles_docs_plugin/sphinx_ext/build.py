"""Reading the config and building the section: ``config-inited`` and ``builder-inited``.

``builder-inited`` runs before Sphinx discovers documents (``Builder.read``), so the generated
folder is complete when the project is scanned.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig
from sphinx.errors import ConfigError as SphinxConfigError
from sphinx.errors import ExtensionError
from sphinx.util import logging

from ..core.collect.landing import landing_page
from ..core.config import load_host_config
from ..core.errors import ConfigError, Diagnostic, LockError, MilesDocsError, Severity
from ..core.model import Section
from ..core.pipeline import BuildResult, build
from ..core.section.generated import is_generated
from ..core.section.mounts import collisions
from ..core.section.report import report
from ..core.transform.blocks import escape_inline
from .engine import PIN_SCHEME, SphinxEngine
from .folder import GeneratedFolder
from .restamp import read_pins_record
from .sandbox import SandboxInfo
from .state import BuildOnly, PageInfo, State, core_config
from .toctree import NavDocuments, docname_of, stem_title, with_title, with_toctree

logger = logging.getLogger("miles_docs_plugin.sphinx_ext")


def on_config_inited(app: Sphinx, config: SphinxConfig) -> None:
    base = Path(app.confdir)
    # options without sources are refused by the core's one rule, as in MkDocs (they would
    # otherwise be dropped without a word when the sources come from miles-docs.yml)
    inline = dict(config.miles_docs_options or {})
    if config.miles_docs_sources:
        inline["sources"] = config.miles_docs_sources
    try:
        core = load_host_config(base, config.miles_docs_config, inline, "miles_docs_sources")
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
    """The host's own pages. A generated folder found outside the ``mounts`` (its source was
    removed from the config, or mounts elsewhere now) is removed first: Sphinx would read its
    pages as the host's, in no toctree (``-W`` fails), in fresh and incremental builds."""
    exclude = list(app.config.exclude_patterns) + [f"{m}/**" for m in mounts]
    found = app.project.discover(exclude, app.config.include_patterns)
    # str before Sphinx 7.3, a Path since
    pages = {Path(app.project.doc2path(d, absolute=False)).as_posix() for d in found}
    srcdir = Path(app.srcdir)
    generated: dict[str, bool] = {}  # by folder: one look for its marker
    retired: set[str] = set()  # the outermost generated folder of each such page
    for page in pages:
        parts = page.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in generated:
                generated[folder] = is_generated(srcdir / folder)
            if generated[folder]:
                retired.add(folder)
                break
    for folder in sorted(retired):
        logger.info("[miles-docs] removing %s/: generated for a source no longer mounted there",
                    folder)
        shutil.rmtree(srcdir / folder)
    return {page for page in pages if not any(page.startswith(f"{f}/") for f in retired)}


def on_builder_inited(app: Sphinx) -> None:
    core = core_config(app)
    srcdir = Path(app.srcdir)
    host_pages = _host_pages(app, [s.mount for s in core.sources])
    for _source, error in collisions(core, host_pages):
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
    written_pins = read_pins_record(app)
    for section in result.sections.values():
        old_pin = written_pins.get(section.source.name)
        if old_pin and section.checkout.commit and old_pin != section.checkout.commit:
            state.restamp[section.source.name] = old_pin
        folder = GeneratedFolder(srcdir, section)
        folder.claim()
        checkout_root, mount_dir = str(section.checkout.root), str(folder.root)
        files: dict[str, bytes | Path] = {}
        landing = landing_page(section)
        index_doc = docname_of(section, landing.path) if landing else f"{section.mount}/index"
        nav = NavDocuments(section, index_doc)
        for rel, text in nav.groups.items():
            files[rel] = text
            docname = docname_of(section, rel)
            state.pages[docname] = PageInfo(nav.titles[docname], {}, None)
        for page in section.pages.values():
            content = page.content
            docname = docname_of(section, page.path)
            content = with_title(content, page.body_start, page.title or stem_title(page.path))
            if docname == index_doc:
                content = with_toctree(content, page.body_start, nav.index_toctree)
            elif docname not in nav.listed:
                state.orphans.add(docname)  # built and linkable, as MkDocs' not-in-nav pages
            if section.source.sandboxed:
                # no front matter reaches MyST (html_meta, myst: options, substitutions);
                # blank lines keep the line numbers of the upstream page
                content = "\n" * page.body_line + content[page.body_start:]
                repo_path = section.aliases.get(page.path) or section.repo_path(page.path)
                sandbox[docname] = SandboxInfo(
                    f"{section.source.display}:{section.repo_path(page.path)}",
                    os.path.join(checkout_root, repo_path), mount_dir)  # noqa: PTH118
            files[page.dest] = content.encode("utf-8")
            if old_pin and old_pin[:7] in page.text:
                state.rewrite.add(docname)  # a replacement of the pin could change its text
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
    app.env.miles_docs_sandbox = BuildOnly(sandbox)  # type: ignore[attr-defined]


def _report(result: BuildResult) -> None:
    def emit(section: Section, diag: Diagnostic) -> None:
        if diag.severity is Severity.INFO:
            logger.info("[miles-docs] %s", diag.format())
        else:
            logger.warning("[miles-docs] %s", diag.message, type="miles-docs",
                           subtype=diag.code, location=f"{section.source.display}:{diag.location}")

    error = report(result.sections.values(), emit, lambda line: logger.info("miles-docs: %s", line))
    if error:
        raise ExtensionError(error)
