"""The Mintlify adapter: a Mintlify host site gets its sections at build time.

Mintlify has no build plugins: it deploys a folder of a git repository as it is. So this
adapter writes files:

- ``miles-docs mintlify build --out OUT`` writes a complete site: the host's docs root as it
  is, each section under ``OUT/<mount>/``, and ``OUT/docs.json`` with the section's navigation
  added by a minimal edit (:func:`insert_nav`: only the inserted lines are new, every other
  byte — indentation, key order, line endings, trailing newline — is the host's);
- ``miles-docs mintlify dev`` writes the sections into ``<docs>/<mount>/`` (a generated folder
  that ignores itself and carries a marker, as the Sphinx adapter's), with the section's tab in
  ``<mount>/miles-docs-nav.json`` for a ``$ref`` in the host's ``docs.json``, and keeps them in
  sync with the pin or a local working copy while ``mint dev`` runs beside it.

Pages stay Mintlify MDX: components pass through untouched (the core's component plugin only
lends its parse, so that links inside components are found); links become Mintlify's site-root
form (``/diffusion/user-guide/rewards``), anchors Mintlify's heading ids, images and assets
files under the section's folder, repository files permalinks at the pin. Pages of untrusted
sources are made inert MDX (:mod:`.mintlify_sandbox`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import posixpath
import re
import shutil
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from . import __version__, hookimpl
from .builtin.components import LINK_LINE_RE, Block
from .core.config import CONFIG_FILE, Config, SourceConfig, load_config
from .core.context import BuildContext
from .core.engine import Engine
from .core.errors import ConfigError, Diagnostic, MilesDocsError, Severity
from .core.model import NavGroup, NavItem, NavLink, NavPage, Page, Section
from .core.pipeline import BuildResult, build
from .core.plugins import make_plugin_manager
from .core.section.mounts import collision_error, mount_collisions
from .core.section.sandbox import tagless
from .core.transform.anchors import PageSlugger, mintlify_unique
from .mintlify_sandbox import (
    code_structure,
    fence_indented,
    safe_front_matter,
    sanitize_body,
    valid_mdx,
)

if TYPE_CHECKING:
    from .cli import Out

MARKER = ".miles-docs-generated"
#: The section's navigation (one tab or group object) for a ``$ref`` in docs.json.
NAV_FILE = "miles-docs-nav.json"
PAGE_SUFFIXES = (".md", ".mdx")
#: Mintlify adds every .js and .css file of the docs root to every page: an untrusted source
#: never gets one in.
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".css")
PLACEMENT_KEYS = ("tab", "group", "after", "before")


# -- heading ids -------------------------------------------------------------------------------


def _slugify(text: str, *, lowercase: bool, preserve: str) -> str:
    # @sindresorhus/slugify as Mintlify calls it (decamelize off): transliterate, lowercase,
    # runs of other characters to "-", contractions joined, no leading/trailing/double "-"
    text = unicodedata.normalize("NFKD", text.replace("&", " and "))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    if lowercase:
        text = text.lower()
    keep = "a-z0-9" + ("" if lowercase else "A-Z") + re.escape(preserve)
    text = re.sub(f"[^{keep}]+", "-", text).replace("\\", "")
    text = re.sub(r"([a-zA-Z\d]+)-([ts])(-|$)", r"\1\2\3", text)
    return re.sub(r"-{2,}", "-", text).strip("-")


def mintlify_slug(text: str) -> str:
    """Mintlify's heading id, as its renderer computes it (``@mintlify/common`` ``slugify``,
    then ``cleanHeadingId``): ``## 3. Setup`` → ``3-setup``, ``LoRA + IPC`` → ``lora-+-ipc``.

    The title is lowercased, white space becomes ``-`` and the result is URI-encoded; with a
    percent escape in it the escapes are kept (and decoded for the DOM id), otherwise
    everything but letters, digits and ``_`` becomes ``-``.
    """
    encoded = quote(re.sub(r"\s+", "-", text.lower().strip()), safe="-_.!~*'()")
    if re.search(r"%[0-9A-F]{2}", encoded):
        slug = unquote(_slugify(encoded, lowercase=False, preserve="%_"))
    else:
        slug = _slugify(encoded, lowercase=True, preserve="_")
    slug = re.sub(r"[?,;:!'\"()\[\]{}]", "", slug)
    return "".join(ch for ch in slug if not unicodedata.category(ch).startswith("So"))


class MintlifyEngine(Engine):
    name = "mintlify"
    reads_mdx = True
    raw_html_ids = True
    heading_attrs = False

    def page_url(self, doc_path: str) -> str:
        stem = posixpath.splitext(doc_path)[0]
        if stem == "index":
            return "/"
        return "/" + stem.removesuffix("/index")

    def asset_url(self, doc_path: str) -> str:
        return "/" + doc_path

    def url_from(self, from_doc: str, to_url: str) -> str:
        return to_url  # Mintlify links are site-root paths

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        url = self.page_url(to_doc) if page else self.asset_url(to_doc)
        return re.sub(r"[%#?]", lambda m: f"%{ord(m.group()):02X}", url)

    def page_slugger(self) -> PageSlugger:
        seen: dict[str, int] = {}
        return lambda text: mintlify_unique(mintlify_slug(text), seen)


# -- the page transform ------------------------------------------------------------------------


class MintlifyPages:
    """Mintlify's page writing, after the built-in link rules (which write site-root links
    through :meth:`MintlifyEngine.doc_link`)."""

    @hookimpl(tryfirst=True)  # before the component plugin neutralises tags and adds a title
    def mdp_prepare_page(self, page: Page, ctx: BuildContext) -> None:
        page.extra["mintlify_body"] = page.content[page.body_start:]
        page.title = None  # Mintlify shows the front matter title itself

    # A plain hook registered after the built-ins: it runs after the links (tryfirst) and
    # before the component plugin would write components in another engine's syntax.
    @hookimpl
    def mdp_transform_page(self, page: Page, ctx: BuildContext) -> None:
        section = ctx.sections[page.source]
        # what is code, seen with the component tags out (the lines stay where they are)
        code, indented = code_structure(page.content[page.body_start:],
                                        page.extra["mintlify_body"],
                                        not page.path.lower().endswith(".mdx"))
        self._restore(page, section, ctx)
        body = valid_mdx(page.content[page.body_start:], code)
        page.content = page.content[:page.body_start] + body
        if section.source.sandboxed:
            self._sandbox(page, section, ctx, code)
        page.content = page.content[:page.body_start] + fence_indented(
            page.content[page.body_start:], indented)

    @staticmethod
    def _restore(page: Page, section: Section, ctx: BuildContext) -> None:
        """Put the component tags back as upstream wrote them (with rewritten hrefs) and undo
        the re-indentation of their content: Mintlify reads them itself."""
        original: str = page.extra.pop("mintlify_body")
        blocks: list[Block] = page.extra.pop("components", None) or []
        body = page.content[page.body_start:]
        newline = "\r\n" if "\r\n" in body else "\n"
        lines = body.split(newline)
        orig = original.split(newline)
        if len(lines) != len(orig):  # pragma: no cover - the component plugin keeps lines
            ctx.report(section, page.path, None, "component",
                       "components could not be restored; they are written as plain Markdown")
            return
        tags: dict[int, str] = {}

        def visit(block: Block) -> None:
            opening = orig[block.start]
            current = lines[block.start]
            link = LINK_LINE_RE.match(current) if "href" in block.attrs else None
            if link:
                href = link.group("href").strip()
                if href.startswith("<") and href.endswith(">"):
                    href = href[1:-1]
                value = href.replace('"', "&quot;")
                opening = re.sub(r"""(\bhref\s*=\s*)("[^"]*"|'[^']*'|\{["'][^"']*["']\})""",
                                 lambda m: f'{m.group(1)}"{value}"', opening, count=1)
            elif block.inline:
                tag_end = opening.find(">") + 1
                at = opening.find(block.inline, tag_end)
                if at >= 0:
                    opening = (opening[:at] + current.strip()
                               + opening[at + len(block.inline):])
            tags[block.start] = opening
            if block.end > block.start:
                tags[block.end] = orig[block.end]
            for child in block.children:
                visit(child)

        for block in blocks:
            visit(block)
        for i, line in enumerate(lines):
            if i in tags:
                lines[i] = tags[i]
            elif line != orig[i]:
                cur_ws = len(line) - len(line.lstrip())
                orig_ws = len(orig[i]) - len(orig[i].lstrip())
                lines[i] = orig[i][:orig_ws] + line[cur_ws:]
        page.content = page.content[:page.body_start] + newline.join(lines)

    @staticmethod
    def _sandbox(page: Page, section: Section, ctx: BuildContext, code: set[int]) -> None:
        body, findings = sanitize_body(page.content[page.body_start:], code)
        for line, message in findings:
            ctx.report(section, page.path, page.body_line + line + 1, "mdx",
                       f"{message} (MDX runs as code; set `trust: full` to allow it)",
                       Severity.WARNING)
        front = ""
        if page.body_start:
            front, removed = safe_front_matter(page.meta, page.body_line)
            if not removed and all(isinstance(v, str) and tagless(v) == v
                                   for v in page.meta.values()):
                front = page.content[:page.body_start]  # nothing to change: as written
            for key in removed:
                ctx.report(section, page.path, _front_line(page.text, key), "mdx",
                           f"front matter key {key!r} removed (untrusted pages keep "
                           "title, description and sidebarTitle)", Severity.WARNING)
        page.content = front + body
        page.body_start = len(front)


def _front_line(text: str, key: str) -> int | None:
    m = re.search(rf"(?m)^['\"]?{re.escape(key)}['\"]?\s*:", text)
    return text.count("\n", 0, m.start()) + 1 if m else None


# -- placement ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    tab: str | None  #: the new tab's title, or (with ``group``) the existing tab to put it in
    group: str | None  #: the new group's title
    after: str | None
    before: str | None

    @property
    def title(self) -> str:
        return self.group or self.tab or ""


def placement(source: SourceConfig, config: Config) -> Placement:
    raw: Any = source.mintlify or {}
    where = f"{config.config_file or 'config'}: sources ({source.name}): mintlify"
    if not isinstance(raw, dict):
        raise ConfigError("`mintlify:` must be a mapping", where=where,
                          hint="e.g. `mintlify: {tab: Diffusion, after: Developer Guide}`")
    for key, value in raw.items():
        if key not in PLACEMENT_KEYS:
            raise ConfigError(f"unknown key {key!r}", where=where,
                              hint=f"valid keys: {', '.join(PLACEMENT_KEYS)}")
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{key!r} must be a title (a string), got {value!r}", where=where)
    if raw.get("after") and raw.get("before"):
        raise ConfigError("give `after:` or `before:`, not both", where=where)
    tab = raw.get("tab")
    group = raw.get("group")
    if not tab and not group:
        tab = source.title
    return Placement(tab, group, raw.get("after"), raw.get("before"))


# -- docs.json: spans and the minimal edit -----------------------------------------------------


@dataclass
class Span:
    """A JSON value and where it is in the text."""

    value: Any
    start: int
    end: int
    items: list[Span] = dataclasses.field(default_factory=list)  #: array elements
    keys: dict[str, Span] = dataclasses.field(default_factory=dict)  #: object members


_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def parse_spans(text: str) -> Span:
    """Parse JSON, keeping the span of every value (docs.json is strict JSON)."""

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def value(i: int) -> Span:
        i = ws(i)
        ch = text[i:i + 1]
        if ch == "{":
            span = Span({}, i, i)
            i = ws(i + 1)
            if text[i:i + 1] == "}":
                span.end = i + 1
                return span
            while True:
                i = ws(i)
                m = _STRING.match(text, i)
                if not m:
                    raise ValueError(f"expected a key at offset {i}")
                key = json.loads(m.group(0))
                i = ws(m.end())
                if text[i:i + 1] != ":":
                    raise ValueError(f"expected ':' at offset {i}")
                member = value(i + 1)
                span.keys[key] = member
                span.value[key] = member.value
                i = ws(member.end)
                if text[i:i + 1] == ",":
                    i += 1
                    continue
                if text[i:i + 1] == "}":
                    span.end = i + 1
                    return span
                raise ValueError(f"expected ',' or '}}' at offset {i}")
        if ch == "[":
            span = Span([], i, i)
            i = ws(i + 1)
            if text[i:i + 1] == "]":
                span.end = i + 1
                return span
            while True:
                item = value(i)
                span.items.append(item)
                span.value.append(item.value)
                i = ws(item.end)
                if text[i:i + 1] == ",":
                    i += 1
                    continue
                if text[i:i + 1] == "]":
                    span.end = i + 1
                    return span
                raise ValueError(f"expected ',' or ']' at offset {i}")
        m = _STRING.match(text, i) or _SCALAR.match(text, i)
        if not m:
            raise ValueError(f"unexpected character at offset {i}")
        return Span(json.loads(m.group(0)), i, m.end())

    root = value(0)
    if text[ws(root.end):].strip():
        raise ValueError(f"unexpected text after the JSON value at offset {root.end}")
    return root


def nav_object(section: Section, place: Placement, report: Callable[[str], None]) -> Any:
    """The section's tab (or group) object for docs.json."""

    def page_id(path: str) -> str:
        return posixpath.splitext(posixpath.join(section.mount, path))[0]

    def items(nav: list[NavItem]) -> list[Any]:
        out: list[Any] = []
        for item in nav:
            if isinstance(item, NavPage):
                out.append(page_id(item.path))
            elif isinstance(item, NavGroup):
                out.append({"group": item.title, "pages": items(item.children)})
            elif isinstance(item, NavLink):
                report(f"nav link {item.title!r} ({item.url}) has no place in Mintlify "
                       "navigation; left out")
        return out

    pages = items(section.nav)
    if place.group:
        return {"group": place.group, "pages": pages}
    return {"tab": place.tab, "pages": pages}


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent_unit(text: str, root: Span) -> str:
    for member in root.keys.values():
        prefix = text[_line_start(text, member.start):member.start]
        m = re.match(r"[ \t]*", prefix)
        if m and m.group(0):
            return m.group(0)
    return "  "


def _render(obj: Any, unit: str, base: str, newline: str) -> str:
    indent: int | str = unit if "\t" in unit else len(unit)
    dumped = json.dumps(obj, indent=indent, ensure_ascii=False)
    return dumped.replace("\n", newline + base)


def _named(span: Span, title: str) -> Span | None:
    for item in span.items:
        if isinstance(item.value, dict) and title in (item.value.get("tab"),
                                                      item.value.get("group")):
            return item
        if item.value == title:
            return item
    return None


def _tabs(nav: Span) -> Span | None:
    if "tabs" in nav.keys:
        return nav.keys["tabs"]
    for key in ("anchors", "dropdowns"):
        holder = nav.keys.get(key)
        if holder is not None:
            for item in holder.items:
                if "tabs" in item.keys:
                    return item.keys["tabs"]
    return None


def find_ref(text: str, ref: str) -> bool:
    """Does docs.json already take the section's navigation through a ``$ref``?"""
    wanted = {ref, "./" + ref, "/" + ref}
    return any(json.loads(m.group(1)) in wanted
               for m in re.finditer(r'"\$ref"\s*:\s*("(?:[^"\\]|\\.)*")', text))


def insert_nav(text: str, obj: Any, place: Placement, where: str) -> tuple[str, int, str]:
    """``text`` (docs.json) with ``obj`` inserted; returns (new text, offset, inserted text).

    Only the inserted characters are new: indentation (detected), line endings and everything
    around the insertion are kept byte for byte.
    """
    try:
        root = parse_spans(text)
    except (ValueError, IndexError) as exc:
        raise ConfigError(f"docs.json is not valid JSON ({exc})", where=where) from None
    nav = root.keys.get("navigation")
    if nav is None or not isinstance(nav.value, dict):
        raise ConfigError("docs.json has no `navigation` object", where=where,
                          hint="add one, see https://mintlify.com/docs/organize/navigation")
    tabs = _tabs(nav)
    if place.group:
        if place.tab:
            if tabs is None or (tab := _named(tabs, place.tab)) is None:
                raise ConfigError(f"docs.json has no tab {place.tab!r} for group "
                                  f"{place.group!r}", where=where,
                                  hint="set `mintlify: tab:` to one of its tabs")
            holder = tab.keys.get("groups") or tab.keys.get("pages")
        else:
            holder = nav.keys.get("groups") or nav.keys.get("pages")
        what = "group"
    else:
        holder = tabs
        what = "tab"
    if holder is None or not isinstance(holder.value, list):
        raise ConfigError(f"docs.json has no list of {what}s to add {place.title!r} to",
                          where=where, hint="use `mintlify: group:` with `tab:` naming a tab"
                          if what == "tab" else "name an existing tab with `mintlify: tab:`")
    if _named(holder, place.title) is not None:
        raise ConfigError(f"docs.json already has a {what} {place.title!r}", where=where,
                          hint="remove it (it is generated) or choose another title")
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = _indent_unit(text, root)
    anchor_title = place.after or place.before
    anchor = _named(holder, anchor_title) if anchor_title else None
    if anchor_title and anchor is None:
        names = [i.value.get(what) if isinstance(i.value, dict) else i.value
                 for i in holder.items]
        raise ConfigError(f"docs.json has no {what} {anchor_title!r} to put {place.title!r} "
                          f"{'after' if place.after else 'before'}", where=where,
                          hint=f"{what}s there: {', '.join(map(str, names))}")
    if not holder.items:
        base = text[_line_start(text, holder.start):holder.start]
        base = base[:len(base) - len(base.lstrip())]
        block = newline + base + unit + _render(obj, unit, base + unit, newline) + newline + base
        at = holder.start + 1
        return text[:at] + block + text[at:], at, block
    first = holder.items[0]
    one_line = "\n" not in text[holder.start:first.start]
    if one_line:
        rendered = json.dumps(obj, ensure_ascii=False)
        sep = ", "
    else:
        base = text[_line_start(text, first.start):first.start]
        rendered = _render(obj, unit, base, newline)
        sep = "," + newline + base
    if place.before and anchor is not None:
        at = anchor.start
        block = rendered + sep
    else:
        at = (anchor or holder.items[-1]).end
        block = sep + rendered
    return text[:at] + block + text[at:], at, block


# -- building ----------------------------------------------------------------------------------


def _host_pages(docs: Path, mounts: Iterable[str]) -> set[str]:
    skip = tuple(m + "/" for m in mounts)
    out = set()
    for path in docs.rglob("*"):
        rel = path.relative_to(docs).as_posix()
        if path.suffix.lower() in PAGE_SUFFIXES and path.is_file() and not rel.startswith(skip) \
                and not any(part.startswith(".") or part == "node_modules"
                            for part in rel.split("/")):
            out.add(rel)
    return out


def _generated(folder: Path) -> bool:
    return (folder / MARKER).is_file()


def _check_mounts(config: Config, docs: Path, host_pages: set[str]) -> None:
    for source in config.sources:
        folder = docs / source.mount
        if folder.exists() and not _generated(folder):
            raise ConfigError(
                f"source {source.name!r} mounts at {source.mount!r}, but {folder} is a folder "
                f"of the host (it has no {MARKER} marker). Nothing was touched",
                where=str(config.config_file or "config"),
                hint="set `mount:` to a free folder or move that folder")
        clash = mount_collisions(source.mount, host_pages)
        if clash:
            raise collision_error(source.name, source.mount, clash,
                                  str(config.config_file or "config"))


def build_sections(config: Config, docs: Path,
                   progress: Callable[[str], None] | None = None) -> BuildResult:
    """Run the core for a Mintlify host whose docs root is ``docs``."""
    host_pages = _host_pages(docs, [s.mount for s in config.sources])
    _check_mounts(config, docs, host_pages)
    hooks = make_plugin_manager([MintlifyPages()])
    result = build(config, MintlifyEngine(host_pages), hooks=hooks, progress=progress)
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
        from .builtin.provenance import banner_text

        return banner_text(section, page, info)
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
    for page in section.pages.values():
        content = page.content
        banner = _banner(section, page)
        if banner:
            at = page.body_start
            head = content[:at] if not at or content[:at].endswith("\n") else content[:at] + "\n"
            content = head + banner + "\n\n" + content[at:]
        files[page.path] = content.encode("utf-8")
    for asset in section.assets.values():
        if section.source.sandboxed and asset.path.lower().endswith(SCRIPT_SUFFIXES):
            report(f"{asset.path} is not copied: Mintlify would add it to every page of the "
                   "site (set `trust: full` to allow it)", asset.path, "asset")
            continue
        if asset.path in files or asset.path in (MARKER, NAV_FILE, ".gitignore"):
            continue
        files[asset.path] = asset.abs_path
    return files


def _write(path: Path, content: bytes | Path) -> bool:
    data = content.read_bytes() if isinstance(content, Path) else content
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def _sync(folder: Path, files: dict[str, bytes | Path], keep: Iterable[str] = ()) -> list[str]:
    """Make ``folder`` hold exactly ``files`` (and ``keep``); return what was written."""
    written = [rel for rel, content in files.items() if _write(folder / rel, content)]
    wanted = set(files) | set(keep)
    for path in sorted(folder.rglob("*"), reverse=True):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
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
    if out.exists() and any(out.iterdir()) and not _generated(out):
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
    (out / MARKER).write_text(json.dumps({"generator": f"miles-docs {__version__}"}) + "\n")
    return result


def dev_sync(config: Config, docs: Path,
             progress: Callable[[str], None] | None = None) -> tuple[BuildResult, list[str]]:
    """``miles-docs mintlify dev``, once: the sections into ``<docs>/<mount>/``."""
    docs = docs.resolve()
    result = build_sections(config, docs, progress)
    written: list[str] = []
    for section in result.sections.values():
        folder = docs / section.mount
        folder.mkdir(parents=True, exist_ok=True)
        _write(folder / MARKER, (json.dumps({"source": section.source.name,
                                             "generator": f"miles-docs {__version__}"})
                                 + "\n").encode())
        _write(folder / ".gitignore",
               b"# Generated by miles-docs (mintlify dev); never commit it.\n*\n")
        files = section_files(section, _reporter(section))
        obj = _nav_json(section, config)[1]
        files[NAV_FILE] = (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
        written += [f"{section.mount}/{w}" for w in
                    _sync(folder, files, keep=(MARKER, ".gitignore"))]
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


# -- the command -------------------------------------------------------------------------------


def _load(args: argparse.Namespace, docs: Path) -> Config:
    path = Path(args.file) if args.file else docs / CONFIG_FILE
    if not path.exists():
        from .cli import UsageError

        raise UsageError(f"no {path.name} in {path.parent} (pass -f PATH, or create one next "
                         "to docs.json)")
    return load_config(path)


def _report(result: BuildResult, out: Out) -> int:
    count = 0
    for d in result.diagnostics:
        if d.severity is Severity.INFO:
            continue
        count += 1
        where = f"{d.path}:{d.line}" if d.line else d.path
        out.note(f"{d.severity.value}: {d.source}: {where}: {d.message} [{d.code}]")
    return count


def cmd_mintlify(args: argparse.Namespace, out: Out) -> int:
    docs = Path(args.docs)
    config = _load(args, docs)

    def progress(message: str) -> None:
        out.note(message + " …")

    if args.action == "build":
        if not args.out:
            from .cli import UsageError

            raise UsageError("mintlify build needs --out OUT (the folder to deploy)")
        result = build_site(config, docs, Path(args.out), progress)
        _report(result, out)
        pages = sum(len(s.pages) for s in result.sections.values())
        out.say(f"wrote {args.out}: the host docs, {pages} injected pages and docs.json")
        return 0
    return dev(config, docs, out, once=args.once, interval=args.interval)


def _watched(config: Config, docs: Path) -> list[Path]:
    paths = [p for p in (config.config_file, config.lock_file) if p is not None]
    paths.append(docs / "docs.json")
    for source in config.sources:
        if source.local is not None:
            paths.append(source.local / source.docs_dir)
    return paths


def _stamp(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    seen = []
    for root in paths:
        try:
            walk = [root] + (sorted(root.rglob("*")) if root.is_dir() else [])
        except OSError:
            continue
        for p in walk:
            try:
                st = p.stat()
            except OSError:
                continue
            seen.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(seen)


def dev(config: Config, docs: Path, out: Out, *, once: bool = False,
        interval: float = 0.2) -> int:
    """Sync once, say how to run ``mint dev``, then keep the folder in sync until interrupted."""
    result, written = dev_sync(config, docs)
    _report(result, out)
    out.say(f"miles-docs: wrote {len(written)} files into "
            + ", ".join(f"{docs}/{s.mount}/" for s in config.sources))
    for hint in ref_hint(config, docs):
        out.say(hint)
    out.say(f"run beside it:  cd {docs} && npx mint@4.2.941 dev")
    out.out.flush()
    if once:
        return 0
    watched = _watched(config, docs)
    stamp = _stamp(watched)
    while True:
        time.sleep(interval)
        now = _stamp(watched)
        if now == stamp:
            continue
        stamp = now
        try:
            if config.config_file is not None:
                config = load_config(config.config_file)
                watched = _watched(config, docs)  # `local:` may have moved
            result, written = dev_sync(config, docs)
            _report(result, out)
            out.say(f"miles-docs: synced, {len(written)} files changed")
        except (MilesDocsError, OSError) as exc:  # e.g. a file saved half-way: next change
            out.note(f"error: {exc}")
        out.out.flush()


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("mintlify", parents=[common],
                       help="build a Mintlify site with its sections, or preview them",
                       description="`build --out OUT`: the host's docs root, the sections under "
                       "OUT/<mount>/ and docs.json with their navigation (what CI deploys). "
                       "`dev`: the sections written into <docs>/<mount>/ and kept in sync, for "
                       "`mint dev`.")
    s.add_argument("action", choices=("build", "dev"))
    s.add_argument("--docs", default=".", metavar="DIR",
                   help="the Mintlify docs root, with docs.json (default: .)")
    s.add_argument("--out", metavar="OUT", help="build: the folder to write the site to")
    s.add_argument("--once", action="store_true", help="dev: sync once and exit")
    s.add_argument("--interval", type=float, default=0.2, help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_mintlify)
