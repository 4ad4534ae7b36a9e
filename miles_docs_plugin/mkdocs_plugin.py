"""The MkDocs adapter: injected pages are virtual files, nothing is written into ``docs_dir``.

Events (MkDocs 1.6):

- ``on_startup``: with it, ``mkdocs serve`` keeps one plugin object across rebuilds.
- ``on_config``: read ``miles-docs.yml`` (or inline options); enable ``admonition`` if the host
  lacks it (components become admonitions; said once in the log).
- ``on_files``: run the core pipeline, refuse a mount that collides with host files, add every
  page (``File.generated(content=...)``) and referenced asset
  (``File.generated(abs_src_path=<cache>)``), and add the section to the nav.
- ``on_page_markdown``: expose ``source_repo``/``source_path``/``source_commit`` in page meta and
  point ``page.edit_url`` upstream.
- ``on_serve``: watch the config, the lock and local working copies, nothing else.
"""

from __future__ import annotations

import html
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    from mkdocs.config import config_options as opt
    from mkdocs.config.base import Config as MkConfig
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import PluginError
    from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
    from mkdocs.structure.files import File, Files, file_sort_key
    from mkdocs.structure.pages import Page as MkPage
    from mkdocs.utils import nest_paths
except ModuleNotFoundError:  # MkDocs is an extra: say which one
    from .engines import require

    require("mkdocs", "the MkDocs plugin")
    raise

from . import __version__
from .builtin.provenance import BANNER_CSS, insert_banner_html
from .core.config import CONFIG_FILE, TOP_FIELDS, Config, load_config, parse_config
from .core.engine import Engine
from .core.errors import Diagnostic, MilesDocsError, Severity
from .core.model import NavGroup, NavItem, NavLink, NavPage, Page, Section
from .core.pipeline import BuildResult, build
from .core.section.mounts import collision_error, mount_collisions
from .core.section.sandbox import (
    escape_snippet_markers,
    report_line,
    safe_meta,
    safe_source,
    safe_title,
)
from .core.section.sanitize import sanitize_html
from .core.transform.anchors import PageSlugger
from .core.transform.blocks import (
    CALLOUTS,
    GROUPS,
    Component,
    card_body,
    card_head,
    code_group_parts,
    escape_inline,
    framed_image,
)
from .core.transform.mdx import FenceMeta

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


class MkDocsEngine(Engine):
    name = "mkdocs"
    slugify: Callable[..., str]  #: set in __init__, from the engine's own settings

    def __init__(self, config: MkDocsConfig, host_pages: set[str]) -> None:
        super().__init__(host_pages)
        self.use_directory_urls = bool(config.use_directory_urls)
        exts = set(config.markdown_extensions)
        self.features = frozenset(
            name for name, ext in (("admonition", "admonition"), ("details", "pymdownx.details"),
                                   ("tabbed", "pymdownx.tabbed"), ("attr_list", "attr_list"),
                                   ("superfences", "pymdownx.superfences"),
                                   ("md_in_html", "md_in_html"))
            if ext in exts) | ({"mkdocstrings"} if "mkdocstrings" in config.plugins else set())
        toc = config.mdx_configs.get("toc", {})
        slugify = toc.get("slugify")
        separator = toc.get("separator", "-")
        if slugify is None:
            from markdown.extensions.toc import slugify as default_slugify

            slugify = default_slugify
        self.slugify = slugify
        self._separator = separator

    def page_url(self, doc_path: str) -> str:
        return str(File(doc_path, src_dir=None, dest_dir="",
                        use_directory_urls=self.use_directory_urls).url)

    def page_slugger(self) -> PageSlugger:
        from markdown.extensions.toc import unique

        used: set[str] = set()
        slugify, sep = self.slugify, self._separator

        def make(text: str) -> str:
            return str(unique(slugify(text, sep), used))

        return make

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        if meta.title and "superfences" in self.features:
            title = meta.title.replace('"', "'")
            return [f'{indent}{marker}{meta.lang or "text"} title="{title}"']
        return [f"{indent}{marker}{meta.lang}"]

    def block(self, c: Component) -> list[str]:
        ind = c.indent
        title = c.title.replace('"', "'")
        quoted = f' "{title}"' if title else ""
        kind = CALLOUTS.get(c.name)
        if kind and "admonition" in self.features:
            kind = {"caution": "warning"}.get(kind, kind)
            return c.wrap([f"{ind}!!! {kind}{quoted}"], c.indented("    "), [""])
        if c.name in ("Accordion", "Expandable") and self.features & {"details", "admonition"}:
            marker = "???" if "details" in self.features else "!!!"
            return c.wrap([f'{ind}{marker} note "{title or c.name}"'], c.indented("    "), [""])
        if c.name == "Tab" and "tabbed" in self.features:
            return c.wrap([f'{ind}=== "{title or "Tab"}"'], c.indented("    "), [""])
        if c.name == "CodeGroup" and "tabbed" in self.features:
            lines: list[str] = []
            for part_title, fence in code_group_parts(c.inner()):
                if lines and lines[-1] == "":
                    lines.pop()
                lines.append(f'{ind}=== "{part_title}"')
                lines.extend(f"{ind}    {x[len(ind):] if x.startswith(ind) else x}" if x.strip()
                             else "" for x in fence)
                lines.append("")
            return c.wrap([], lines, [""]) if lines else super().block(c)
        if c.name == "Step":
            head = f"{ind}{c.index}. **{escape_inline(c.title or f'Step {c.index}')}**"
            return c.wrap([head], c.indented("    "), [""])
        image = framed_image(c) if c.name == "Frame" else None
        if image and "md_in_html" in self.features:
            caption = html.escape(" ".join(c.attrs["caption"].split()))
            body = [line.strip() for line in c.inner() if line.strip()]
            return c.wrap([f'{ind}<figure markdown="span">'],
                          [f"{ind}  {body[0]}", f"{ind}  <figcaption>{caption}</figcaption>"],
                          [f"{ind}</figure>"])
        if "md_in_html" in self.features:
            # Material's grid cards: a list of cards in <div class="grid cards" markdown>
            if c.name in GROUPS:
                return c.wrap([f'{ind}<div class="grid cards" markdown>', ""], c.inner(),
                              ["", f"{ind}</div>"])
            if c.name in ("Card", "Tile") and c.parent in GROUPS:
                body = [f"{ind}    {x[len(ind):] if x.startswith(ind) else x.lstrip()}"
                        if x.strip() else "" for x in card_body(c)]
                head = card_head(c) or "&nbsp;"
                return c.wrap([f"{ind}-   {head}", ""], body, [""])
        return super().block(c)


def _theme_icon(name: str) -> str | None:
    """Material's name for a Mintlify (Font Awesome) icon, if the theme ships it."""
    import importlib.util

    spec = importlib.util.find_spec("material")
    if spec is None or not spec.submodule_search_locations or not name.replace("-", "").isalnum():
        return None
    icons = Path(next(iter(spec.submodule_search_locations))) / "templates" / ".icons"
    for style in ("solid", "regular", "brands"):
        if (icons / "fontawesome" / style / f"{name}.svg").is_file():
            return f"fontawesome/{style}/{name}"
    return None


def _mintlify_meta(meta: MutableMapping[str, Any]) -> None:
    """Front matter keys of Mintlify that mean something else (or a crash) to MkDocs themes.

    ``icon: building`` is a Font Awesome name: Material would look for ``.icons/building.svg``
    and stop the whole build, so it becomes Material's path for that icon, or goes.
    ``mode: wide`` / ``custom`` hide the table of contents (and the navigation), as Mintlify
    does; Material reads ``hide:``.
    """
    icon = meta.get("icon")
    if icon is not None:
        mapped = _theme_icon(icon) if isinstance(icon, str) else None
        if mapped:
            meta["icon"] = mapped
        else:
            del meta["icon"]
    mode = meta.get("mode")
    if mode in ("wide", "custom", "center") and "hide" not in meta:
        meta["hide"] = ["toc"] if mode != "custom" else ["navigation", "toc"]


def enable_extensions(config: MkDocsConfig) -> list[str]:
    """Turn on the extensions injected pages need; return the ones that were off.

    admonition and attr_list ship with Python-Markdown; the pymdownx ones (details, tabbed,
    superfences: fenced code inside admonitions and tabs) only when pymdown-extensions is
    installed, as it is with Material.
    """
    import importlib.util

    wanted: list[tuple[str, dict[str, Any]]] = [("admonition", {}), ("attr_list", {}),
                                                ("md_in_html", {})]
    if importlib.util.find_spec("pymdownx") is not None:
        wanted += [("pymdownx.details", {}), ("pymdownx.superfences", {}),
                   ("pymdownx.tabbed", {"alternate_style": True})]
    enabled = []
    for name, options in wanted:
        if name not in config.markdown_extensions:
            config.markdown_extensions.append(name)
            if options:
                config.mdx_configs.setdefault(name, options)
            enabled.append(name)
    return enabled


def _nav_config(items: list[NavItem], section: Section) -> list[Any]:
    """The section's nav in MkDocs' syntax. Titles come from upstream (front matter, folder
    names) and MkDocs themes print nav titles as HTML, so they are escaped; a page without one
    gets its front matter title here (MkDocs strips tags from a title it takes from a heading)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, NavPage):
            path = section.host_path(item.path)
            page = section.pages.get(item.path)
            title = item.title or (page.title if page else None)
            out.append({safe_title(title): path} if title else path)
        elif isinstance(item, NavLink):
            out.append({safe_title(item.title): item.url})
        elif isinstance(item, NavGroup):
            out.append({safe_title(item.title): _nav_config(item.children, section)})
    return out


def _mentions(nav: Any, mount: str) -> bool:
    """Does the host's own nav already place pages of ``mount``?"""
    if isinstance(nav, str):
        return nav == mount or nav.startswith(mount + "/")
    if isinstance(nav, list):
        return any(_mentions(x, mount) for x in nav)
    if isinstance(nav, dict):
        return any(_mentions(x, mount) for x in nav.values())
    return False


class MilesDocsPlugin(BasePlugin[MilesDocsPluginConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.core_config: Config | None = None
        self.result: BuildResult | None = None
        self.by_host_path: dict[str, tuple[Section, Page]] = {}
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
            if "sources" in inline:
                self.core_config = parse_config(inline, base_dir=base, config_file=None)
            elif inline:
                raise PluginError(
                    f"[miles-docs] inline options {', '.join(sorted(inline))} need `sources:` "
                    f"next to them (or move them into {self.config.config_file})")
            else:
                self.core_config = load_config(base / self.config.config_file)
        except MilesDocsError as exc:
            raise PluginError(f"[miles-docs] {exc}") from None
        if self.core_config.banner is not False and CSS_URI not in config.extra_css:
            config.extra_css.append(CSS_URI)
        enabled = enable_extensions(config)
        if enabled:
            log.info("enabled the Markdown extension%s %s (upstream components render as "
                     "admonitions, dropdowns and tabs)", "s" if len(enabled) > 1 else "",
                     ", ".join(enabled))
        return config

    @event_priority(50)  # before plugins that read the file list (e.g. literate-nav, search)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files | None:
        if not self.config.enabled or self.core_config is None:
            return None
        core = self.core_config
        self._check_mounts(files, config, core)
        host_pages = {f.src_uri for f in files.documentation_pages()}
        engine = MkDocsEngine(config, host_pages)
        try:
            result = build(core, engine)
        except MilesDocsError as exc:
            raise PluginError(f"[miles-docs] {exc}") from None
        self.result = result
        self._report(result)
        self.by_host_path.clear()
        snippets = "pymdownx.snippets" in config.markdown_extensions
        for section in result.sections.values():
            for page in section.pages.values():
                host = section.host_path(page.path)
                content = (self._sandboxed(section, page, snippets) if section.source.sandboxed
                           else page.content)
                files.append(File.generated(config, host, content=content))
                self.by_host_path[host] = (section, page)
            for asset in section.assets.values():
                files.append(File.generated(config, section.host_path(asset.path),
                                            abs_src_path=str(asset.abs_path)))
        if CSS_URI in config.extra_css:
            files.append(File.generated(config, CSS_URI,
                                        abs_src_path=str(BANNER_CSS)))
        self._extend_nav(files, config, result)
        return files

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
        for source in core.sources:
            clash = mount_collisions(source.mount, host)
            if clash:
                error = collision_error(source.name, source.mount, clash,
                                        str(core.config_file or "config"),
                                        Path(config.docs_dir).name)
                raise PluginError(f"[miles-docs] {error}")

    def _report(self, result: BuildResult) -> None:
        errors = []
        for section in result.sections.values():
            warnings = 0
            for diag in section.diagnostics:
                if diag.severity is Severity.ERROR:
                    errors.append(diag)
                    log.error(diag.format())
                elif diag.severity is Severity.WARNING:
                    warnings += 1
                    log.warning(diag.format())
                else:
                    log.info(diag.format())
            checkout = section.checkout
            state = "local working copy" if checkout.local else (
                "cached" if checkout.cached else "fetched")
            log.info("%s ← %s@%s (%d pages, %d assets, %d warnings, %s)", section.source.name,
                     section.source.display, checkout.short, len(section.pages),
                     len(section.assets), warnings, state)
        if errors:
            raise PluginError(f"[miles-docs] {len(errors)} unresolved link(s) with "
                              "`links.unresolved: error` (listed above)")

    def _extend_nav(self, files: Files, config: MkDocsConfig, result: BuildResult) -> None:
        nav = config.nav
        if nav is None:
            ours = set(self.by_host_path)
            host = sorted((f for f in files.documentation_pages()
                           if f.src_uri not in ours and f.inclusion.is_in_nav()),
                          key=file_sort_key)
            nav = nest_paths(f.src_uri for f in host)
        for section in result.sections.values():
            if section.source.placement == "none" or _mentions(nav, section.mount):
                continue
            entry = {section.source.title: _nav_config(section.nav, section)}
            if section.source.placement == "start":
                nav.insert(0, entry)
            else:
                nav.append(entry)
        config.nav = nav

    # -- pages ----------------------------------------------------------------------------

    def on_page_markdown(self, markdown: str, *, page: MkPage, config: MkDocsConfig,
                         files: Files) -> str | None:
        hit = self.by_host_path.get(page.file.src_uri)
        if hit is None:
            return None
        _section, core_page = hit
        info = core_page.extra.get("provenance") or {}
        for key in ("source_repo", "source_path", "source_commit", "source_url"):
            page.meta.setdefault(key, info.get(key))
        if info.get("edit_url"):
            page.edit_url = info["edit_url"]
        _mintlify_meta(page.meta)
        return None

    @event_priority(100)  # before other plugins (and the search index) see the page
    def on_page_content(self, html_text: str, *, page: MkPage, config: MkDocsConfig,
                        files: Files) -> str | None:
        hit = self.by_host_path.get(page.file.src_uri)
        if hit is None or not hit[0].source.sandboxed:
            return None
        section, core_page = hit
        clean, removed = sanitize_html(html_text)
        for item in removed:
            log.warning(Diagnostic(
                section.source.name, section.repo_path(core_page.path),
                report_line(core_page, [item.needle]), "sandbox",
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


__all__ = ["MilesDocsPlugin", "__version__"]
