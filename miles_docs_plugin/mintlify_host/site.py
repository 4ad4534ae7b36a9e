"""Writing a Mintlify host's sections: the complete site for deploy (``build_site``), or the
generated folders beside the host's pages for ``mint dev`` (``dev_sync``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..core.config import Config
from ..core.errors import ConfigError, Diagnostic, Severity
from ..core.files import write_if_changed
from ..core.hostpages import host_pages as find_host_pages
from ..core.model import Page, Section
from ..core.pipeline import BuildResult, build
from ..core.plugins import Hooks, make_plugin_manager
from ..core.section.banner import template_banner
from ..core.section.generated import (
    MARKER,
    RESERVED,
    claim,
    host_folder_error,
    is_generated,
    marker_bytes,
    remove_others,
)
from ..core.section.mounts import check_mounts
from .docsjson import Placement, find_ref, insert_nav, nav_object, placement
from .engine import MintlifyEngine
from .pages import MintlifyPages
from .titles import nav_titles, titled

#: The section's navigation (one tab or group object) for a ``$ref`` in docs.json.
NAV_FILE = "miles-docs-nav.json"
PAGE_SUFFIXES = (".md", ".mdx")
#: Mintlify adds every .js and .css file of the docs root to every page: an untrusted source
#: never gets one in.
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".css")


def _check_mounts(config: Config, docs: Path, host_files: set[str]) -> None:
    for source in config.sources:
        folder = docs / source.mount
        if folder.exists() and not is_generated(folder):
            raise host_folder_error(source.name, source.mount, folder,
                                    str(config.config_file or "config"))
    check_mounts(config, host_files)


#: The name :class:`MintlifyPages` is registered under in a build's plugin manager.
PAGES_PLUGIN = "miles_docs_mintlify_host.pages"


def _hooks(config: Config) -> Hooks:
    """The config's plugin manager (the one that validated its keys, with the plugins given to
    :func:`~miles_docs_plugin.core.config.load_config`), with Mintlify's page writing added once;
    a new manager only for a config made without one."""
    hooks = config.hooks or make_plugin_manager()
    if hooks.pm.get_plugin(PAGES_PLUGIN) is None:
        hooks.pm.register(MintlifyPages(), name=PAGES_PLUGIN)
    return hooks


def build_sections(config: Config, docs: Path,
                   progress: Callable[[str], None] | None = None) -> BuildResult:
    """Run the core for a Mintlify host whose docs root is ``docs``."""
    host_pages = find_host_pages(docs, PAGE_SUFFIXES, [s.mount for s in config.sources])
    _check_mounts(config, docs, host_pages)
    result = build(config, MintlifyEngine(host_pages), hooks=_hooks(config), progress=progress)
    for section in result.sections.values():
        # every component is native in Mintlify: "unknown component" is no finding here
        section.diagnostics[:] = [d for d in section.diagnostics if not (
            d.code == "component" and d.message.startswith("unknown component"))]
    return result


def _banner(section: Section, page: Page) -> str | None:
    info = page.extra.get("provenance")
    if not info or section.source.banner is False:
        return None
    if isinstance(section.source.banner, str):
        return template_banner(section.source.banner, info)
    path = f"{info['source_repo']}/{info['source_path']}"
    if info["local"]:
        return (f"<Info>Preview: this page is built from a local working copy of `{path}`, "
                "uncommitted changes included; it is not a pinned commit.</Info>")
    where = f"[{path}]({info['source_url']})" if info["source_url"] else f"`{path}`"
    return f"<Info>This page comes from {where} at commit `{info['source_short']}`.</Info>"


def section_files(section: Section, report: Callable[[str, str | None, str], None]
                  ) -> dict[str, bytes | Path]:
    """The files of a section, relative to its mount folder."""
    files: dict[str, bytes | Path] = {}
    nav = nav_titles(section.nav)
    for page in section.pages.values():
        head, body = titled(section, page, nav)
        content, at = head + body, len(head)
        banner = _banner(section, page)
        if banner:
            head = content[:at] if not at or content[:at].endswith("\n") else content[:at] + "\n"
            content = head + banner + "\n\n" + content[at:]
        files[page.path] = content.encode("utf-8")
    for asset in section.assets.values():
        if section.source.sandboxed and asset.path.lower().endswith(SCRIPT_SUFFIXES):
            report(f"{asset.path} is not copied: Mintlify would add it to every page of the "
                   "site (set `trust: full` to allow it)", asset.path, "asset")
            continue
        if asset.path in files or asset.path in (*RESERVED, NAV_FILE):
            continue
        files[asset.path] = asset.abs_path
    return files


def _write(path: Path, content: bytes | Path) -> bool:
    return write_if_changed(path, content.read_bytes() if isinstance(content, Path) else content)


def _sync(folder: Path, files: dict[str, bytes | Path], keep: Iterable[str] = ()) -> list[str]:
    """Make ``folder`` hold exactly ``files`` (and ``keep``); return what was written."""
    written = [rel for rel, content in files.items() if _write(folder / rel, content)]
    remove_others(folder, set(files) | set(keep))
    return written


def _reporter(section: Section) -> Callable[[str, str | None, str], None]:
    def report(message: str, path: str | None, code: str) -> None:
        where = section.repo_path(path) if path else section.source.docs_dir
        section.diagnostics.append(Diagnostic(section.source.name, where, None, code, message,
                                              Severity.WARNING))
    return report


def _nav_json(section: Section, config: Config) -> tuple[Placement, Any]:
    place = placement(section.source, config)
    obj = nav_object(section, place, lambda m: _reporter(section)(m, None, "nav"))
    return place, obj


def build_site(config: Config, docs: Path, out: Path,
               progress: Callable[[str], None] | None = None) -> BuildResult:
    """``miles-docs mintlify build``: the complete site in ``out``."""
    docs, out = docs.resolve(), out.resolve()
    if out == docs or docs in out.parents or out in docs.parents:
        raise ConfigError(f"the output folder {out} and the docs root {docs} overlap",
                          hint="write the site to a folder outside the docs root")
    docs_json = docs / "docs.json"
    if not docs_json.is_file():
        raise ConfigError(f"no docs.json in {docs}", hint="pass --docs DIR, the Mintlify root")
    if out.exists() and any(out.iterdir()) and not is_generated(out):
        raise ConfigError(f"{out} is not empty and was not written by miles-docs",
                          hint="choose an empty or new folder for --out")
    for source in config.sources:
        placement(source, config)  # a config error stops the build before anything is written
    result = build_sections(config, docs, progress)
    text = docs_json.read_bytes().decode("utf-8")
    mounts = {s.mount for s in config.sources}
    sections: list[tuple[Section, dict[str, bytes | Path]]] = []
    for section in result.sections.values():
        files = section_files(section, _reporter(section))
        place, obj = _nav_json(section, config)
        if find_ref(text, f"{section.mount}/{NAV_FILE}"):
            files[NAV_FILE] = (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
        else:
            text = insert_nav(text, obj, place, str(docs_json))[0]
        sections.append((section, files))

    def ignore(folder: str, names: list[str]) -> list[str]:
        # the generated folders of `mintlify dev` are replaced by the fresh sections
        return [n for n in names if n in mounts or n == MARKER] if Path(folder) == docs else []

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(docs, out, ignore=ignore)
    for section, files in sections:
        _sync(out / section.mount, files)
    (out / "docs.json").write_bytes(text.encode("utf-8"))
    (out / MARKER).write_bytes(marker_bytes())
    return result


def dev_sync(config: Config, docs: Path,
             progress: Callable[[str], None] | None = None) -> tuple[BuildResult, list[str]]:
    """``miles-docs mintlify dev``, once: the sections into ``<docs>/<mount>/``."""
    docs = docs.resolve()
    result = build_sections(config, docs, progress)
    written: list[str] = []
    for section in result.sections.values():
        folder = docs / section.mount
        claim(folder, section.source.name)
        files = section_files(section, _reporter(section))
        obj = _nav_json(section, config)[1]
        files[NAV_FILE] = (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
        written += [f"{section.mount}/{w}" for w in
                    _sync(folder, files, keep=RESERVED)]
    return result, written


def ref_hint(config: Config, docs: Path) -> list[str]:
    """What to add to docs.json so that ``mint dev`` shows the sections (empty: nothing)."""
    text = (docs / "docs.json").read_text("utf-8")
    hints = []
    for source in config.sources:
        ref = f"{source.mount}/{NAV_FILE}"
        if find_ref(text, ref):
            continue
        place = placement(source, config)
        what = "group" if place.group else "tab"
        where = (f"after the {what} {place.after!r}" if place.after else
                 f"before the {what} {place.before!r}" if place.before else
                 f"as the last {what}")
        inside = f" of the tab {place.tab!r}" if place.group and place.tab else ""
        hints.append(f'{{ "$ref": "{ref}" }},   <- add this line to docs.json {where}{inside}')
    return hints
