"""The upstream's own site configuration: its navigation and redirects.

Read from, in this order:

- Mintlify ``docs.json`` in the docs folder: ``navigation`` with ``tabs``, ``anchors``,
  ``dropdowns``, ``products``, ``menu``, ``groups`` (nested, with an optional ``root`` page) and
  ``pages``; ``$ref`` includes of other JSON files; ``languages`` and ``versions`` (the default
  one is used, the others are reported); ``redirects`` (``:slug`` and ``:slug*`` parameters,
  ``*`` wildcards).
- Mintlify's older ``mint.json``: ``navigation`` (a list of groups, ``version`` per group),
  ``tabs`` and ``anchors`` whose ``url`` is a folder prefix, ``versions``, ``redirects``.
- MkDocs ``mkdocs.yml`` (or ``.yaml``) next to the docs folder, whose ``docs_dir`` is that
  folder: its ``nav:``.

The navigation is returned with page references as the upstream wrote them (``user-guide/x``,
``x.md``); :mod:`miles_docs_plugin.builtin.nav` matches them to pages.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import yaml

from ..model import NavGroup, NavItem, NavLink, NavPage
from ..records import FrozenRecord, Record
from ..urls import URL_RE

if TYPE_CHECKING:
    from .endpoints import Endpoint, Endpoints, SpecSource

MAX_REF_DEPTH = 16

#: reads a docs-relative file of the checkout (verified); None when it does not exist
Reader = Callable[[str], bytes | None]


class Redirect(FrozenRecord):
    """One redirect of the upstream's own site config."""

    __slots__ = _fields = ("source", "destination")
    source: str  #: ``/old/:slug*``
    destination: str  #: ``/new/:slug*#anchor`` or an absolute URL

    def __init__(self, source: str, destination: str) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "destination", destination)


class UpstreamSite(Record):
    """What the upstream's own site config says: its nav, redirects and excludes."""

    __slots__ = _fields = ("kind", "file", "nav", "redirects", "notes", "exclude", "snippets",
                           "extensions", "endpoints", "specs", "directory_urls",
                           "custom_fences", "blocks")
    kind: str  #: ``docs.json``, ``mint.json`` or ``mkdocs.yml``
    file: str  #: path of the config file, relative to docs_dir (``../mkdocs.yml`` for MkDocs)
    nav: list[NavItem] | None  #: None when the file has no navigation
    redirects: list[Redirect]
    #: (message, is_problem): what was left out (other languages, versions) or is wrong
    notes: list[tuple[str, bool]]
    #: gitignore-style patterns of files the upstream does not build (MkDocs ``exclude_docs``,
    #: ``draft_docs`` and its defaults)
    exclude: list[str]
    #: the options of MkDocs' ``pymdownx.snippets``, when the upstream turns it on (its
    #: ``--8<--`` includes are read from the pinned tree: ``core/collect/includes.py``)
    snippets: dict[str, Any] | None
    #: the Markdown extensions the upstream's own site turns on (MkDocs ``markdown_extensions``)
    extensions: list[str]
    #: Mintlify: the pages its navigation has generated from OpenAPI specs, by docs-relative
    #: path (``api-reference/users/get-user.mdx``; :mod:`.endpoints`)
    endpoints: dict[str, Endpoint]
    #: the OpenAPI specs its navigation names, as read then, by docs-relative path (the
    #: endpoint pages' references are written from them, not from another read)
    specs: dict[str, dict[str, Any]]
    #: MkDocs: a page is served as a folder (``guide/setup/``: ``use_directory_urls``, the
    #: default), which a link MkDocs leaves as written is relative to
    directory_urls: bool
    #: MkDocs: the fences ``pymdownx.superfences`` draws with the site's own code
    #: (``custom_fences``; not mermaid, which every host draws)
    custom_fences: list[str]
    #: MkDocs: the ``pymdownx.blocks`` extensions it turns on, with their options (its
    #: ``/// tip`` blocks are written as admonitions and tabs: ``core/collect/pymdown_blocks.py``)
    blocks: dict[str, dict[str, Any]]

    def __init__(self, kind: str, file: str, nav: list[NavItem] | None,
                 redirects: list[Redirect] | None = None,
                 notes: list[tuple[str, bool]] | None = None,
                 exclude: list[str] | None = None,
                 snippets: dict[str, Any] | None = None,
                 extensions: list[str] | None = None,
                 endpoints: dict[str, Endpoint] | None = None,
                 specs: dict[str, dict[str, Any]] | None = None,
                 directory_urls: bool = False,
                 custom_fences: list[str] | None = None,
                 blocks: dict[str, dict[str, Any]] | None = None) -> None:
        self.kind = kind
        self.file = file
        self.nav = nav
        self.redirects = [] if redirects is None else redirects
        self.notes = [] if notes is None else notes
        self.exclude = [] if exclude is None else exclude
        self.snippets = snippets
        self.extensions = [] if extensions is None else extensions
        self.endpoints = {} if endpoints is None else endpoints
        self.specs = {} if specs is None else specs
        self.directory_urls = directory_urls
        self.custom_fences = [] if custom_fences is None else custom_fences
        self.blocks = {} if blocks is None else blocks

    @property
    def mkdocs(self) -> bool:
        """An MkDocs site (``mkdocs.yml`` / ``mkdocs.yaml``)."""
        return self.kind.startswith("mkdocs.")

    def extension_names(self) -> frozenset[str]:
        """The Markdown extensions the site turns on, by their short names
        (``markdown.extensions.toc`` is ``toc``), with those its bundles turn on."""
        names: set[str] = set()
        for name in self.extensions:
            name = name.removeprefix("markdown.extensions.")
            names.update(EXTENSION_BUNDLES.get(name, (name,)))
        return frozenset(names)

    @property
    def mintlify(self) -> bool:
        """A Mintlify site (``docs.json`` / ``mint.json``)."""
        return self.kind in ("docs.json", "mint.json")


#: Extensions that turn on others (Python-Markdown's ``extra``, pymdownx's ``extra``).
EXTENSION_BUNDLES = {
    "extra": ("abbr", "attr_list", "def_list", "fenced_code", "footnotes", "md_in_html",
              "tables"),
    "pymdownx.extra": ("pymdownx.betterem", "pymdownx.superfences", "footnotes", "attr_list",
                       "def_list", "tables", "abbr", "md_in_html"),
}


class _Invalid(Exception):
    pass


# -- Mintlify docs.json --------------------------------------------------------------------

_CONTAINERS = (("tabs", "tab"), ("anchors", "anchor"), ("dropdowns", "dropdown"),
               ("products", "product"), ("menu", "item"))
_VARIANTS = (("languages", "language"), ("versions", "version"))


class _Mint:
    def __init__(self, read: Reader, file: str) -> None:
        self.read = read
        self.file = file
        self.notes: list[tuple[str, bool]] = []
        self._endpoints: Endpoints | None = None

    @property
    def endpoints(self) -> Endpoints:
        """The endpoint pages the navigation asks for (made on the first ``openapi``)."""
        if self._endpoints is None:
            from .endpoints import Endpoints

            self._endpoints = Endpoints(self.read, self.notes, self.file)
        return self._endpoints

    def deref(self, node: Any, base: str, depth: int = 0) -> tuple[Any, str]:
        """Follow ``{"$ref": "path.json"}`` (relative to the file that holds it)."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            if depth > MAX_REF_DEPTH:
                raise _Invalid(f"$ref chain deeper than {MAX_REF_DEPTH} at {node['$ref']!r}")
            path = posixpath.normpath(posixpath.join(posixpath.dirname(base), node["$ref"]))
            data = self.read(path) if not path.startswith("../") else None
            if data is None:
                raise _Invalid(f"$ref {node['$ref']!r} names no file of the docs folder")
            try:
                loaded = json.loads(data)
            except ValueError as exc:
                raise _Invalid(f"$ref {node['$ref']!r}: invalid JSON ({exc})") from None
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if isinstance(loaded, dict) and rest:
                loaded = {**loaded, **rest}
            node, base, depth = loaded, path, depth + 1
        return node, base

    def node(self, node: Any, base: str, spec: SpecSource | None = None) -> list[NavItem]:
        """The children of a navigation node (the root, a tab, an anchor, a version...);
        ``spec``: the OpenAPI spec of the nearest ``openapi`` above it."""
        node, base = self.deref(node, base)
        if not isinstance(node, dict):
            raise _Invalid(f"navigation entry {node!r} must be an object")
        own = None
        if node.get("openapi") is not None:
            own = self.endpoints.source(node["openapi"])
            spec = own or spec
        out: list[NavItem] = []
        for key, name_key in _VARIANTS:
            if isinstance(node.get(key), list) and node[key]:
                out += self.variant(node[key], name_key, base, spec)
        if isinstance(node.get("groups"), list):
            for group in node["groups"]:
                out += self.entry(group, base, spec)
        if isinstance(node.get("pages"), list):
            for page in node["pages"]:
                out += self.entry(page, base, spec)
        for key, name_key in _CONTAINERS:
            items = node.get(key)
            if not isinstance(items, list):
                continue
            built: list[NavItem] = []
            for item in items:
                item, item_base = self.deref(item, base)
                if not isinstance(item, dict):
                    raise _Invalid(f"{key} entry {item!r} must be an object")
                if item.get("hidden") is True:
                    continue  # built, not in the navigation
                title = str(item.get(name_key) or item.get("name") or name_key.title())
                children = self.node(item, item_base, spec)
                if children:
                    built.append(NavGroup(title, children))
                elif isinstance(item.get("href"), str):
                    built.append(NavLink(title, item["href"]))
            # a switcher with one choice shows nothing: its content is the level itself
            if len(built) == 1 and isinstance(built[0], NavGroup):
                out += built[0].children
            else:
                out += built
        if own is not None and not out:  # an element with a spec and no pages: all of it
            out = self.endpoints.whole(own)
        return out

    def variant(self, items: list[Any], name_key: str, base: str,
                spec: SpecSource | None) -> list[NavItem]:
        """Languages or versions: the default one (``"default": true``, else the first)."""
        resolved = [self.deref(i, base) for i in items]
        chosen = next((i for i, (v, _) in enumerate(resolved)
                       if isinstance(v, dict) and v.get("default") is True), 0)
        others = [str(v.get(name_key)) for i, (v, _) in enumerate(resolved)
                  if i != chosen and isinstance(v, dict)]
        if others:
            chosen_name = resolved[chosen][0].get(name_key) if isinstance(
                resolved[chosen][0], dict) else "?"
            self.notes.append((f"{self.file}: navigation {name_key} {chosen_name!r} is used; "
                               f"{', '.join(repr(o) for o in others)} left out", False))
        return self.node(*resolved[chosen], spec)

    def entry(self, entry: Any, base: str, spec: SpecSource | None = None) -> list[NavItem]:
        entry, base = self.deref(entry, base)
        if isinstance(entry, str):
            if URL_RE.match(entry):
                return [NavLink(entry, entry)]
            if " " in entry.strip():  # ``GET /users``, ``spec.json GET /users``
                return self.endpoints.listed(entry.strip(), spec)
            return [NavPage(entry)]
        if not isinstance(entry, dict):
            raise _Invalid(f"page entry {entry!r} must be a path or a group")
        if entry.get("hidden") is True:
            return []  # a hidden group: its pages are built, not listed
        if "group" not in entry:
            if "page" in entry and isinstance(entry["page"], str):
                return [NavPage(entry["page"], entry.get("title"))]
            return self.node(entry, base, spec)
        children: list[NavItem] = []
        if isinstance(entry.get("root"), str):
            children.append(NavPage(entry["root"]))
        children += self.node({k: v for k, v in entry.items() if k != "root"}, base, spec)
        if not str(entry["group"]).strip():
            return children  # a group without a title: Mintlify lists its pages bare
        return [NavGroup(str(entry["group"]), children)] if children else []


def _redirects(data: dict[str, Any], file: str, notes: list[tuple[str, bool]]) -> list[Redirect]:
    out = []
    raw = data.get("redirects") or []
    if not isinstance(raw, list):
        notes.append((f"{file}: `redirects` must be a list; ignored", True))
        return []
    for item in raw:
        if isinstance(item, dict) and isinstance(item.get("source"), str) and \
                isinstance(item.get("destination"), str):
            out.append(Redirect(item["source"], item["destination"]))
        else:
            notes.append((f"{file}: redirect {item!r} needs `source` and `destination`", True))
    return out


def _read_docs_json(read: Reader, file: str) -> UpstreamSite | None:
    raw = read(file)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return UpstreamSite(file, file, None, notes=[(f"{file} is not valid JSON ({exc}); the "
                                                      "folder tree is used", True)])
    if not isinstance(data, dict):
        return UpstreamSite(file, file, None, notes=[(f"{file} must hold an object", True)])
    mint = _Mint(read, file)
    notes = mint.notes
    redirects = _redirects(data, file, notes)
    nav: list[NavItem] | None = None
    try:
        navigation = data.get("navigation")
        if file == "mint.json" and isinstance(navigation, list):
            nav = _mint_json_nav(data, mint)
        elif navigation is not None:
            nav = mint.node(navigation, file)
    except _Invalid as exc:
        notes.append((f"{file}: {exc}; the folder tree is used", True))
        nav = None
    made = mint._endpoints
    if made is None or nav is None:
        return UpstreamSite(file, file, nav, redirects, notes)
    return UpstreamSite(file, file, nav, redirects, notes, endpoints=made.pages,
                        specs=made.specs)


def _mint_json_nav(data: dict[str, Any], mint: _Mint) -> list[NavItem]:
    """mint.json: groups in order; tabs and anchors take the groups below their ``url``."""
    versions = [v for v in data.get("versions") or [] if isinstance(v, str)]
    default = versions[0] if versions else None
    if len(versions) > 1:
        mint.notes.append((f"mint.json: version {default!r} is used; "
                           f"{', '.join(repr(v) for v in versions[1:])} left out", False))
    sections: list[tuple[str, str]] = []
    for key in ("tabs", "anchors"):
        for item in data.get(key) or []:
            if isinstance(item, dict) and isinstance(item.get("url"), str) and \
                    isinstance(item.get("name"), str) and not URL_RE.match(item["url"]):
                sections.append((item["name"], item["url"].strip("/")))
    primary: list[NavItem] = []
    by_section: dict[str, list[NavItem]] = {url: [] for _, url in sections}
    for group in data["navigation"]:
        if isinstance(group, dict) and group.get("version") not in (None, default):
            continue
        items = mint.entry(group, "mint.json")
        first = next((p.path for p in _pages(items)), "")
        home = next((url for _, url in sections if first == url or first.startswith(url + "/")),
                    None)
        (by_section[home] if home is not None else primary).extend(items)
    out = primary
    for name, url in sections:
        if by_section[url]:
            out.append(NavGroup(name, by_section[url]))
    return out


def _pages(items: list[NavItem]) -> list[NavPage]:
    out: list[NavPage] = []
    for item in items:
        if isinstance(item, NavPage):
            out.append(item)
        elif isinstance(item, NavGroup):
            out += _pages(item.children)
    return out


# -- MkDocs mkdocs.yml ---------------------------------------------------------------------


class _TolerantLoader(yaml.SafeLoader):
    """Safe loading that reads MkDocs' custom tags (``!ENV``, ``!!python/name:``) as None."""


def _ignore_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


class RelativeTo(str):
    """MkDocs' ``!relative`` tag (``base_path: [!relative]``): a folder from the current
    page's (its value is ``""``), or from ``$config_dir`` or ``$docs_dir``."""


def _relative(loader: yaml.SafeLoader, node: yaml.Node) -> RelativeTo:
    value = loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else ""
    return RelativeTo(str(value or "").strip())


_TolerantLoader.add_constructor("!relative", _relative)
_TolerantLoader.add_multi_constructor("!", _ignore_tag)
_TolerantLoader.add_multi_constructor("tag:yaml.org,2002:python/", _ignore_tag)


def _mkdocs_nav(items: Any, file: str) -> list[NavItem]:
    out: list[NavItem] = []
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, str):
            out.append(NavLink(item, item) if URL_RE.match(item) else NavPage(item))
        elif isinstance(item, dict) and len(item) == 1:
            (title, value), = item.items()
            if isinstance(value, list):
                out.append(NavGroup(str(title), _mkdocs_nav(value, file)))
            elif isinstance(value, str):
                out.append(NavLink(str(title), value) if URL_RE.match(value)
                           else NavPage(value, str(title)))
            else:
                raise _Invalid(f"nav entry {title!r} must be a path, a URL or a list")
        else:
            raise _Invalid(f"nav entry {item!r} must be a path or a one-key mapping")
    return out


def markdown_extensions(value: Any) -> dict[str, dict[str, Any]]:
    """An ``mkdocs.yml`` ``markdown_extensions`` value (a list of names and one-key mappings
    of a name to its options, or a mapping) as name -> options (``{}`` for none)."""
    entries = list(value.items()) if isinstance(value, dict) else [
        (entry, None) if isinstance(entry, str) else next(iter(entry.items()))
        for entry in (value if isinstance(value, list) else [])
        if isinstance(entry, str) or (isinstance(entry, dict) and len(entry) == 1)]
    return {str(name): dict(options) if isinstance(options, dict) else {}
            for name, options in entries}


def _custom_fences(extensions: dict[str, dict[str, Any]]) -> list[str]:
    """The names of superfences' ``custom_fences``, but mermaid."""
    fences = extensions.get("pymdownx.superfences", {}).get("custom_fences")
    return sorted({str(f["name"]) for f in fences if isinstance(f, dict) and f.get("name")} -
                  {"mermaid"}) if isinstance(fences, list) else []


def _read_mkdocs_yml(read_repo: Reader, docs_dir: str) -> UpstreamSite | None:
    parent = posixpath.dirname(docs_dir) if docs_dir not in ("", ".") else None
    if parent is None:
        return None
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        repo_path = posixpath.join(parent, name)
        raw = read_repo(repo_path)
        if raw is None:
            continue
        file = f"../{name}"
        try:
            data = yaml.load(raw, Loader=_TolerantLoader)
        except yaml.YAMLError as exc:
            return UpstreamSite(name, file, None, notes=[(f"{repo_path} is not valid YAML "
                                                          f"({exc}); the folder tree is used",
                                                          True)])
        if not isinstance(data, dict):
            return None
        own = str(data.get("docs_dir") or "docs").strip("/")
        if posixpath.normpath(posixpath.join(parent, own)) != docs_dir:
            return None  # the MkDocs site of another folder
        # MkDocs builds no file its defaults, `exclude_docs` or (outside `serve`) `draft_docs`
        # name
        exclude = [".*", "/templates/"] + [
            line for key in ("exclude_docs", "draft_docs")
            if isinstance(data.get(key), str) for line in data[key].splitlines()]
        markdown = markdown_extensions(data.get("markdown_extensions"))
        site: dict[str, Any] = {"exclude": exclude, "extensions": list(markdown),
                                "snippets": markdown.get("pymdownx.snippets"),
                                "directory_urls": data.get("use_directory_urls") is not False,
                                "custom_fences": _custom_fences(markdown),
                                "blocks": {name: options for name, options in markdown.items()
                                           if name.startswith("pymdownx.blocks.")}}
        if "nav" not in data or data["nav"] is None:
            return UpstreamSite(name, file, None, **site)
        try:
            return UpstreamSite(name, file, _mkdocs_nav(data["nav"], repo_path), **site)
        except _Invalid as exc:
            return UpstreamSite(name, file, None, notes=[(f"{repo_path}: {exc}; the folder tree "
                                                          "is used", True)], **site)
    return None


def read_upstream(read_docs: Reader, read_repo: Reader, docs_dir: str) -> UpstreamSite | None:
    """The upstream's site configuration, or None when it has none.

    ``read_docs`` reads a file relative to the docs folder, ``read_repo`` one relative to the
    repository root (for ``mkdocs.yml`` next to the docs folder).
    """
    for file in ("docs.json", "mint.json"):
        site = _read_docs_json(read_docs, file)
        if site is not None:
            return site
    return _read_mkdocs_yml(read_repo, docs_dir)


# -- redirects -----------------------------------------------------------------------------


def _segment_regex(segment: str, wild: list[str], last: bool) -> str:
    m = re.fullmatch(r":([A-Za-z_]\w*)", segment)
    if m:
        return f"(?P<{m.group(1)}>[^/]+)"
    parts = segment.split("*")
    out = re.escape(parts[0])
    for k, part in enumerate(parts[1:], 1):
        name = f"_w{len(wild)}"
        wild.append(name)
        # a * that ends the source takes the rest of the path, segments too, as mint matches
        # it; any other stays in its segment (several ``.*`` would backtrack)
        rest = last and k == len(parts) - 1 and not part
        out += f"(?P<{name}>{'.*' if rest else '[^/]*'})" + re.escape(part)
    return out


#: Wildcards a redirect source may hold, and segments a path tried against it may have (each
#: wildcard more multiplies the ways a long path can be split); beyond, it does not match.
MAX_WILDCARDS = 4
MAX_SEGMENTS = 32


def compile_redirect(source: str) -> tuple[re.Pattern[str], list[str]]:
    """A regex for a redirect ``source`` (``:name``, ``:name*``, ``*`` in a segment)."""
    wild: list[str] = []
    pattern = ""
    segments = [s for s in source.split("/") if s]
    if source.count("*") + source.count("+") > MAX_WILDCARDS:
        return re.compile(r"(?!)"), wild
    for k, segment in enumerate(segments):
        m = re.fullmatch(r":([A-Za-z_]\w*)([*+?])", segment)
        if m:
            name, mod = m.groups()
            body = "(?:/[^/]+)+" if mod in "*+" else "/[^/]+"
            pattern += f"(?P<{name}>{body})" + ("?" if mod in "*?" else "")
        else:
            pattern += "/" + _segment_regex(segment, wild, k == len(segments) - 1)
    return re.compile(f"^{pattern or '/'}/?$"), wild


def apply_redirect(redirect: Redirect, path: str) -> str | None:
    """The destination of ``path`` (``/a/b``, no anchor) through ``redirect``, or None."""
    if path.count("/") > MAX_SEGMENTS:
        return None
    regex, wild = compile_redirect(redirect.source)
    m = regex.match("/" + path.strip("/") if path.strip("/") else "/")
    if not m:
        return None
    values = {k: (v or "") for k, v in m.groupdict().items()}

    def param(mm: re.Match[str]) -> str:
        name = mm.group(1)
        value = values.get(name, "")
        # `:slug*` captured its leading slash; a bare `:slug` did not
        return value.lstrip("/") if name in values else mm.group(0)

    dest = re.sub(r":([A-Za-z_]\w*)[*+?]?", param, redirect.destination) \
        if not URL_RE.match(redirect.destination) else redirect.destination
    for name in wild:
        dest = dest.replace("*", values.get(name, ""), 1)
    if not URL_RE.match(dest):
        dest = re.sub(r"/{2,}", "/", dest)
    return dest
