"""The MkDocs adapter: injected pages are virtual files, nothing is written into ``docs_dir``.

Events (MkDocs 1.6):

- ``on_startup``: with it, ``mkdocs serve`` keeps one plugin object across rebuilds.
- ``on_config``: read ``miles-docs.yml`` (or inline options).
- ``on_files``: run the core pipeline, refuse a mount that collides with host files, add every
  page (``File.generated(content=...)``; fences CommonMark reads under a list item moved to the
  margin, where Python-Markdown reads them, :func:`.engine.margin_fences`) and referenced asset
  (``File.generated(abs_src_path=<cache>)``), and add the section to the nav. Record which
  Markdown extensions each page uses (admonitions, dropdowns, tabs… that components became,
  or that an MkDocs upstream wrote); said once in the log.
- ``on_page_markdown``: expose ``source_repo``/``source_path``/``source_commit`` in page meta and
  point ``page.edit_url`` upstream; turn on the extensions this page uses and the host lacks,
  until ``on_page_content`` (host pages render with the host's own list, untouched).
- ``on_serve``: watch the config, the lock and local working copies, nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

try:
    from mkdocs.config import config_options as opt
    from mkdocs.config.base import Config as MkConfig
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import PluginError
    from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page as MkPage
except ModuleNotFoundError:  # MkDocs is an extra: say which one
    from ..engines import require

    require("mkdocs", "the MkDocs plugin")
    raise

from .. import __version__
from ..core.config import CONFIG_FILE, TOP_FIELDS, Config, load_host_config
from ..core.errors import Diagnostic, MilesDocsError, Severity
from ..core.model import Page, Section
from ..core.pipeline import BuildResult, build
from ..core.records import replace
from ..core.section.banner import BANNER_CSS, insert_banner_html
from ..core.section.mounts import collisions
from ..core.section.report import report
from ..core.section.sandbox import escape_snippet_markers, report_line, safe_meta, safe_source
from ..core.section.sanitize import sanitize_html
from .engine import (
    NESTED_FENCES,
    MkDocsEngine,
    extension_options,
    installable_extensions,
    mintlify_meta,
    mkdocs_source,
    page_extensions,
    upstream_syntax,
)
from .nav import extend_nav

log = get_plugin_logger("miles-docs")
CSS_URI = f"_miles_docs/{BANNER_CSS.name}"  # a folder of its own: no host file is shadowed

class _PluginOptions(MkConfig):
    config_file = opt.Type(str, default=CONFIG_FILE)
    enabled = opt.Type(bool, default=True)


def _config_class() -> type[_PluginOptions]:
    """The plugin's options: ``config_file``, ``enabled`` and every top-level key of the one
    schema (``core/config.py``), inline under ``- miles-docs:``. They are validated once, by
    the schema (:func:`parse_config`), so MkDocs takes them as they are."""
    options = {f.key: opt.Optional(opt.Type(object)) for f in TOP_FIELDS}
    return type("MilesDocsPluginConfig", (_PluginOptions,), {"__module__": __name__, **options})


if TYPE_CHECKING:
    MilesDocsPluginConfig = _PluginOptions
else:
    MilesDocsPluginConfig = _config_class()


def _has_template(config: MkDocsConfig, name: object) -> bool:
    """Whether the theme (with its ``custom_dir``) has the template ``name``."""
    import jinja2

    if not isinstance(name, str):
        return False
    try:
        config.theme.get_env().get_template(name)
    except (jinja2.TemplateNotFound, jinja2.TemplateSyntaxError, OSError):
        return False
    return True


def _release(page: Page, sandboxed: bool) -> None:
    """Let go of what only the transform needed, once MkDocs has the page: its scan, and its
    texts but the one MkDocs holds (the transformed page, or its sandboxed copy). The upstream
    text that locates what the sanitiser removed is read again from the checkout when that
    happens (:func:`_upstream_page`). MkDocs renders every page while the build result is held:
    kept, these made a 5,000-page build's peak memory 1.5 times a static copy's."""
    page.scan = None
    page.text = ""
    if sandboxed:
        page.content = ""


def _upstream_page(section: Section, page: Page) -> Page:
    """``page`` with its upstream text, read again from the checkout (see :func:`_release`)."""
    path = section.checkout.root / (section.aliases.get(page.path)
                                    or section.repo_path(page.path))
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return page
    return replace(page, text=text)


class MilesDocsPlugin(BasePlugin[MilesDocsPluginConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.core_config: Config | None = None
        self.result: BuildResult | None = None
        self.by_host_path: dict[str, tuple[Section, Page]] = {}
        #: host path -> extensions turned on while that page renders (the host lacks them)
        self.page_extensions: dict[str, list[str]] = {}
        self._host_extensions: list[str] | None = None
        self.is_serve = False

    # -- lifecycle ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.is_serve = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        if not self.config.enabled:
            return None
        base = Path(config.config_file_path or ".").resolve().parent
        inline = {f.key: self.config[f.key] for f in TOP_FIELDS if self.config[f.key] is not None}
        try:
            self.core_config = load_host_config(base, self.config.config_file, inline)
        except MilesDocsError as exc:
            raise PluginError(f"[miles-docs] {exc}") from None
        if self.core_config.banner is not False and CSS_URI not in config.extra_css:
            config.extra_css.append(CSS_URI)
        return config

    @event_priority(50)  # before plugins that read the file list (e.g. literate-nav, search)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files | None:
        if not self.config.enabled or self.core_config is None:
            return None
        core = self.core_config
        self._check_mounts(files, config, core)
        host_pages = {f.src_uri for f in files.documentation_pages()}
        installable = installable_extensions()
        engine = MkDocsEngine(config, host_pages, installable)
        try:
            # progress (a fetch, pages replayed from the last build) in MkDocs' own log
            result = build(core, engine, progress=log.info)
        except MilesDocsError as exc:
            raise PluginError(f"[miles-docs] {exc}") from None
        self.result = result
        result.ctx.release()  # MkDocs renders every page while the result is held
        self._report(result)
        self.by_host_path.clear()
        self.page_extensions.clear()
        snippets = "pymdownx.snippets" in config.markdown_extensions
        for section in result.sections.values():
            written_for = upstream_syntax(section.upstream)
            for page in section.pages.values():
                host = section.host_path(page.path)
                needs = page.extra.get("extensions")  # (engine.finish_page)
                if needs is None:  # a page the build generated (landing, endpoint)
                    page.content = mkdocs_source(page.content, page.body_start, False)
                    needs = page_extensions(page.content[page.body_start:], written_for)
                if section.source.sandboxed:
                    content = self._sandboxed(section, page, snippets)
                else:  # MkDocs holds the page's text: one copy (see _release)
                    content = page.content
                files.append(File.generated(config, host, content=content))
                self.by_host_path[host] = (section, page)
                self._note_extensions(section, page, needs, installable, config)
                _release(page, section.source.sandboxed)
            for asset in section.assets.values():
                files.append(File.generated(config, section.host_path(asset.path),
                                            abs_src_path=str(asset.abs_path)))
        if CSS_URI in config.extra_css:
            files.append(File.generated(config, CSS_URI,
                                        abs_src_path=str(BANNER_CSS)))
        extend_nav(files, config, result, set(self.by_host_path))
        self._report_extensions(config)
        return files

    def _note_extensions(self, section: Section, page: Page, uses: Iterable[str],
                         installable: list[str], config: MkDocsConfig) -> None:
        """Record the extensions ``page`` needs of those it ``uses`` (on the section too); the
        ones the host has not turned on are turned on for that page only, while MkDocs
        renders it."""
        needs = set(uses).intersection(installable)
        host = config.markdown_extensions
        codehilite = any(name.endswith("codehilite") for name in host)
        if NESTED_FENCES in needs and (any(name.endswith("superfences") for name in host) or (
                codehilite and "pymdownx.superfences" in installable)):
            # the host's superfences reads those fences; with codehilite, superfences highlights
            # them as the host's other code
            needs.discard(NESTED_FENCES)
            needs.add("pymdownx.superfences")
        section.extensions.update(needs)
        extra = sorted(needs.difference(host))
        if "pymdownx.highlight" in extra and ("pymdownx.superfences" not in extra or codehilite):
            # the host highlights its code itself (its superfences, or codehilite): as it does
            extra.remove("pymdownx.highlight")
        if extra:
            self.page_extensions[section.host_path(page.path)] = extra

    def _report_extensions(self, config: MkDocsConfig) -> None:
        used: dict[str, int] = {}
        for names in self.page_extensions.values():
            for name in names:
                used[name] = used.get(name, 0) + 1
        for name in used:
            options = extension_options(name)
            if options is not None:
                config.mdx_configs.setdefault(name, options)
        if used:
            log.info("turned on %s for the injected pages that use them (upstream components "
                     "render as admonitions, dropdowns and tabs); host pages are rendered with "
                     "the host's extensions", ", ".join(f"{name} ({n} page{'s' if n > 1 else ''})"
                                                        for name, n in sorted(used.items())))

    def _sandboxed(self, section: Section, page: Page, snippets: bool) -> str:
        """The page as MkDocs may see it when its source is untrusted: front matter reduced to
        escaped ``title``/``description`` and ``hide`` (themes print them unescaped; ``template``
        or ``icon`` would pick host templates), ``render_macros: false`` (mkdocs-macros leaves
        the page's ``{{ }}`` as text) and, with pymdownx.snippets, ``--8<--`` lines made literal
        (they would publish host files)."""
        meta = {**safe_meta(page.meta, ("title", "description", "hide")),
                "render_macros": False}
        content = safe_source(page, meta)
        if snippets:
            content, _ = escape_snippet_markers(content)
            _, lines = escape_snippet_markers(page.text)
            for line in lines:
                log.warning(Diagnostic(
                    section.source.name, section.repo_path(page.path), line, "sandbox",
                    "a pymdownx.snippets line would include a file of the host; it is shown as "
                    "text (`trust: full` on the source allows it)").format())
        return content

    def _check_mounts(self, files: Files, config: MkDocsConfig, core: Config) -> None:
        host = [f.src_uri for f in files]
        for _source, error in collisions(core, host, Path(config.docs_dir).name):
            raise PluginError(f"[miles-docs] {error}")

    def _report(self, result: BuildResult) -> None:
        def emit(section: Section, diag: Diagnostic) -> None:
            level = {Severity.ERROR: log.error, Severity.WARNING: log.warning}
            level.get(diag.severity, log.info)(diag.format())

        error = report(result.sections.values(), emit, log.info)
        if error:
            raise PluginError(error)

    # -- pages ----------------------------------------------------------------------------

    def on_page_markdown(self, markdown: str, *, page: MkPage, config: MkDocsConfig,
                         files: Files) -> str | None:
        hit = self.by_host_path.get(page.file.src_uri)
        if hit is None:
            return None
        section, core_page = hit
        # MkDocs has read the page (``markdown`` is its body): the generated file's copy of
        # the source would otherwise be held, next to it, until the build ends (a static site
        # reads its files from disk). At 5,000 pages that is the size of the docs tree.
        page.file.content_string = ""
        info = core_page.extra.get("provenance") or {}
        for key in ("source_repo", "source_path", "source_commit", "source_url"):
            page.meta.setdefault(key, info.get(key))
        if info.get("edit_url"):
            page.edit_url = info["edit_url"]
        mintlify_meta(page.meta)
        template = page.meta.get("template")
        if template is not None and not _has_template(config, template):
            # a template of the upstream's own site (trust: full keeps the key): MkDocs would
            # stop the build with a traceback that names no page
            log.warning("[%s] %s: front matter template: %r is not a template of this site's "
                        "theme; the page uses the default", section.source.name,
                        section.repo_path(core_page.path), template)
            del page.meta["template"]
        extra = self.page_extensions.get(page.file.src_uri)
        if extra:
            # MkDocs makes a new Markdown converter for every page from the config: this page
            # gets the extensions it uses, and on_page_content gives the host its list back,
            # so host pages (and injected pages that need none) render as the host configured.
            self._host_extensions = config.markdown_extensions
            config.markdown_extensions = [*config.markdown_extensions, *extra]
        return None

    @event_priority(100)  # before other plugins (and the search index) see the page
    def on_page_content(self, html_text: str, *, page: MkPage, config: MkDocsConfig,
                        files: Files) -> str | None:
        if self._host_extensions is not None:
            config.markdown_extensions = self._host_extensions
            self._host_extensions = None
        hit = self.by_host_path.get(page.file.src_uri)
        if hit is None or not hit[0].source.sandboxed:
            return None
        section, core_page = hit
        clean, removed = sanitize_html(html_text)
        upstream = _upstream_page(section, core_page) if removed else core_page
        for item in removed:
            log.warning(Diagnostic(
                section.source.name, section.repo_path(core_page.path),
                report_line(upstream, [item.needle]), "sandbox",
                f"removed the {item.what} from the rendered page (untrusted source; "
                "`trust: full` keeps it)").format())
        return clean

    @event_priority(-100)  # after the search plugins indexed the page: the banner is not content
    def on_page_context(self, context: Any, *, page: MkPage, config: MkDocsConfig,
                        nav: Any) -> Any:
        hit = self.by_host_path.get(page.file.src_uri)
        banner = hit[1].extra.get("banner_html") if hit else None
        if banner and page.content is not None:
            page.content = insert_banner_html(page.content, banner)
        return context

    # -- serve ----------------------------------------------------------------------------

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        core = self.core_config
        if core is None:
            return server
        if core.config_file is not None:
            server.watch(str(core.config_file))
        if core.lock_file.exists():
            server.watch(str(core.lock_file))
        for source in core.sources:
            if source.local is not None:
                server.watch(str(source.local / source.docs_dir))
        return server


__all__ = ["MilesDocsPlugin", "MkDocsEngine", "__version__"]
