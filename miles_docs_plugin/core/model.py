"""The engine-neutral data model: checkouts, pages, assets, targets, nav and sections."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .config import SourceConfig, docs_prefix
from .errors import Diagnostic
from .records import FrozenRecord, Record
from .transform.scanned import ScanResult

if TYPE_CHECKING:
    from .collect.upstream import UpstreamSite

PAGE_SUFFIXES = (".md", ".mdx", ".markdown")
#: ``Page.extra`` key of a page made from another file of the docs folder (an API endpoint's
#: page, from its OpenAPI spec): that file's docs-relative path
GENERATED_FROM = "generated_from"

_set = object.__setattr__  # frozen records set their fields once, in __init__

EntryKind = Literal["blob", "tree", "link"]


def safe_path(path: str) -> bool:
    """Whether a repository path stays inside the repository where it is put: no empty, ``.``
    or ``..`` part, no ``.git`` part, not absolute. git's checkout refuses other paths, but a
    tree may hold them, and files written from object ids (a pin move, included files), or
    read for an include, must not follow them out of the checkout."""
    return bool(path) and not any(part in ("", ".", "..") or part.lower() == ".git"
                                  for part in path.split("/"))


class RepoTree:
    """What exists in the repository at the pinned commit (or in a local working copy).

    Paths are repository-relative POSIX paths. It answers "is this a file, a folder, a
    symlink?" for link resolution without touching git or the network.
    """

    def __init__(self, entries: dict[str, EntryKind], blobs: dict[str, str] | None = None,
                 modes: dict[str, str] | None = None, *,
                 objects: dict[str, tuple[str, str]] | None = None,
                 commit_object: bytes = b"") -> None:
        self.entries = entries
        self.blobs = blobs or {}  #: path -> git blob id, where known
        self.modes = modes or {}
        #: every tree entry (submodules too): path -> (mode, object id), for integrity checks
        self.objects = objects or {}
        self.commit_object = commit_object  #: the raw commit object, where known

    def kind(self, path: str) -> EntryKind | None:
        if path in ("", "."):
            return "tree"
        return self.entries.get(path)

    def is_file(self, path: str) -> bool:
        return self.entries.get(path) == "blob"

    def is_dir(self, path: str) -> bool:
        return self.kind(path) == "tree"

    def files_under(self, folder: str) -> Iterator[str]:
        prefix = folder.rstrip("/") + "/" if folder not in ("", ".") else ""
        for path, kind in self.entries.items():
            if kind != "tree" and path.startswith(prefix):
                yield path


class LocalTree(RepoTree):
    """The tree of a local working copy, read from the file system on demand (no git)."""

    def __init__(self, root: Path) -> None:
        super().__init__({})
        self.root = root

    def kind(self, path: str) -> EntryKind | None:
        if path in ("", "."):
            return "tree"
        if path == ".git" or path.startswith(".git/"):
            return None
        cached = self.entries.get(path)
        if cached is not None:
            return cached
        target = self.root / path
        if target.is_symlink():
            kind: EntryKind = "link"
        elif target.is_dir():
            kind = "tree"
        elif target.is_file():
            kind = "blob"
        else:
            return None
        self.entries[path] = kind
        return kind

    def is_file(self, path: str) -> bool:
        return self.kind(path) == "blob"

    def files_under(self, folder: str) -> Iterator[str]:
        base = self.root / folder
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            rel = Path(dirpath).relative_to(self.root).as_posix()
            prefix = "" if rel == "." else rel + "/"
            for d in list(dirnames):
                if (Path(dirpath) / d).is_symlink():
                    self.entries[f"{prefix}{d}"] = "link"
                    yield f"{prefix}{d}"
            for name in sorted(filenames):
                path = f"{prefix}{name}"
                self.entries[path] = "link" if (Path(dirpath) / name).is_symlink() else "blob"
                yield path


class Checkout(Record):
    """The files of a source at its pin (or a local working copy)."""

    __slots__ = _fields = ("source", "root", "tree", "commit", "commit_date", "cached", "local",
                           "verified")
    _norepr = _nocompare = frozenset({"verified"})
    source: SourceConfig
    root: Path  #: folder that holds the repository files (the docs folder is below it)
    tree: RepoTree
    commit: str | None  #: the verified 40-hex pin; None for a local working copy
    commit_date: str | None
    cached: bool  #: True when no fetch was needed
    local: bool  #: a local working copy (preview), not a pin
    #: files this build hashed while fetching them: repository path -> (the blob id they hash
    #: to, the bytes that hashed for pages, None for other files); not read or hashed again
    verified: dict[str, tuple[str, bytes | None]]

    def __init__(self, source: SourceConfig, root: Path, tree: RepoTree, commit: str | None,
                 commit_date: str | None = None, cached: bool = False,
                 local: bool = False,
                 verified: dict[str, tuple[str, bytes | None]] | None = None) -> None:
        self.source = source
        self.root = root
        self.tree = tree
        self.commit = commit
        self.commit_date = commit_date
        self.cached = cached
        self.local = local
        self.verified = {} if verified is None else verified

    @property
    def short(self) -> str:
        return self.commit[:7] if self.commit else "local"


class Page(Record):
    """One Markdown document of a section."""

    __slots__ = _fields = ("source", "path", "dest", "text", "meta", "body_start", "body_line",
                           "line_delta", "content", "scan", "title", "blob", "extra")
    source: str  #: name of the source the page comes from
    path: str  #: relative to docs_dir, as upstream names it (``user-guide/rewards.md``)
    dest: str  #: relative to the mount, as the host sees it (``.mdx`` becomes ``.md``)
    text: str  #: raw upstream text
    meta: dict[str, Any]
    body_start: int  #: offset of the body (after front matter) in ``text``
    body_line: int  #: number of lines before the body
    line_delta: int  #: lines that preparation inserted at the top of the body
    content: str  #: transformed text handed to the engine
    scan: ScanResult | None
    title: str | None
    blob: str | None  #: git blob id of ``text`` (keys the scan cache)
    extra: dict[str, Any]  #: for plugins

    def __init__(self, source: str, path: str, dest: str, text: str,
                 meta: dict[str, Any] | None = None, body_start: int = 0, body_line: int = 0,
                 line_delta: int = 0, content: str = "", scan: ScanResult | None = None,
                 title: str | None = None, blob: str | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        self.source = source
        self.path = path
        self.dest = dest
        self.text = text
        self.meta = {} if meta is None else meta
        self.body_start = body_start
        self.body_line = body_line
        self.line_delta = line_delta
        self.content = content
        self.scan = scan
        self.title = title
        self.blob = blob
        self.extra = {} if extra is None else extra


class Asset(Record):
    """A non-Markdown file of the docs folder (image, download) a page references."""

    __slots__ = _fields = ("path", "abs_path")
    path: str  #: relative to docs_dir
    abs_path: Path

    def __init__(self, path: str, abs_path: Path) -> None:
        self.path = path
        self.abs_path = abs_path


# -- targets -----------------------------------------------------------------------------------


class PageTarget(FrozenRecord):
    """A page of a section (this one or another configured source)."""

    __slots__ = _fields = ("source", "path", "anchor")
    source: str
    path: str  #: page path relative to that source's docs_dir
    anchor: str | None

    def __init__(self, source: str, path: str, anchor: str | None = None) -> None:
        _set(self, "source", source)
        _set(self, "path", path)
        _set(self, "anchor", anchor)


class AssetTarget(FrozenRecord):
    """A link to an asset of a section."""

    __slots__ = _fields = ("source", "path")
    source: str
    path: str  #: relative to docs_dir

    def __init__(self, source: str, path: str) -> None:
        _set(self, "source", source)
        _set(self, "path", path)


class AnchorTarget(FrozenRecord):
    """A heading or id in the same page."""

    __slots__ = _fields = ("anchor",)
    anchor: str

    def __init__(self, anchor: str) -> None:
        _set(self, "anchor", anchor)


class RepoFileTarget(FrozenRecord):
    """A file or folder of the upstream repository outside docs_dir, at the pinned commit."""

    __slots__ = _fields = ("path", "is_dir", "url", "anchor")
    path: str  #: repository-relative
    is_dir: bool
    url: str  #: permalink at the pinned commit
    anchor: str | None

    def __init__(self, path: str, is_dir: bool, url: str, anchor: str | None = None) -> None:
        _set(self, "path", path)
        _set(self, "is_dir", is_dir)
        _set(self, "url", url)
        _set(self, "anchor", anchor)


class HostTarget(FrozenRecord):
    """A page of the host site (a link to one of ``host_urls``)."""

    __slots__ = _fields = ("path", "anchor", "url")
    path: str  #: host docs path (``index.md``); "" when the host page set is unknown
    anchor: str | None
    url: str

    def __init__(self, path: str, anchor: str | None = None, url: str = "") -> None:
        _set(self, "path", path)
        _set(self, "anchor", anchor)
        _set(self, "url", url)


class ExternalTarget(FrozenRecord):
    """A link that leaves the site (``https://…``, ``mailto:``), kept as written."""

    __slots__ = _fields = ("url",)
    url: str

    def __init__(self, url: str) -> None:
        _set(self, "url", url)


class UnresolvedTarget(FrozenRecord):
    """A link that cannot be resolved. It is reported, and written so that the engine does not
    report it a second time: to ``keep`` (an absolute URL), else to the upstream file at the
    pin (``repo_path``, when the repository has a web address), else made inert (``#``)."""

    __slots__ = _fields = ("reason", "hint", "unsafe", "repo_path", "keep")
    reason: str  #: what the diagnostic says
    hint: str
    unsafe: bool  #: never keep the destination (javascript:, file:, escapes)
    repo_path: str | None  #: where the author pointed, inside the repository
    keep: bool  #: the destination is an absolute URL: leave it as written

    def __init__(self, reason: str, hint: str = "", unsafe: bool = False,
                 repo_path: str | None = None, keep: bool = False) -> None:
        _set(self, "reason", reason)
        _set(self, "hint", hint)
        _set(self, "unsafe", unsafe)
        _set(self, "repo_path", repo_path)
        _set(self, "keep", keep)


Target = (PageTarget | AssetTarget | AnchorTarget | RepoFileTarget | HostTarget | ExternalTarget
          | UnresolvedTarget)


# -- navigation --------------------------------------------------------------------------------


class NavPage(Record):
    """A page in the nav."""

    __slots__ = _fields = ("path", "title")
    path: str  #: page path relative to docs_dir
    title: str | None  #: None: the engine uses the page title

    def __init__(self, path: str, title: str | None = None) -> None:
        self.path = path
        self.title = title


class NavLink(Record):
    """An external link in the nav."""

    __slots__ = _fields = ("title", "url")
    title: str
    url: str

    def __init__(self, title: str, url: str) -> None:
        self.title = title
        self.url = url


class NavGroup(Record):
    """A titled group of nav items."""

    __slots__ = _fields = ("title", "children")
    title: str
    children: list[NavItem]

    def __init__(self, title: str, children: list[NavItem] | None = None) -> None:
        self.title = title
        self.children = [] if children is None else children


NavItem = NavPage | NavLink | NavGroup


def name_title(name: str) -> str:
    """The title MkDocs makes from a file or folder name (``mkdocs.utils.dirname_to_title``,
    ``Page.title``): ``-`` and ``_`` as spaces, capitalized when all lowercase
    (``getting-started`` -> "Getting started"); ``FAQ``, ``LoRA-training`` stay as written."""
    title = name.replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title


def nav_pages(items: list[NavItem]) -> Iterator[NavPage]:
    for item in items:
        if isinstance(item, NavPage):
            yield item
        elif isinstance(item, NavGroup):
            yield from nav_pages(item.children)


class Section(Record):
    """A source's pages as mounted in the host: what an adapter hands to its engine."""

    _fields = ("source", "checkout", "pages", "assets", "nav", "diagnostics", "aliases",
               "snippets", "superseded", "upstream", "extensions")
    __slots__ = (*_fields, "touched")
    source: SourceConfig
    checkout: Checkout
    pages: dict[str, Page]  #: by upstream path (relative to docs_dir)
    assets: dict[str, Asset]
    nav: list[NavItem]
    diagnostics: list[Diagnostic]
    #: symlinks inside docs_dir that were followed: path -> repository path of the target
    aliases: dict[str, str]
    #: snippet files (never pages; inlined where pages use them), by path relative to docs_dir
    snippets: dict[str, Page]
    #: pages that lost their URL to another file (``README.md`` next to ``index.md``) -> winner
    superseded: dict[str, str]
    #: the upstream's own site configuration (navigation, redirects), when it has one
    upstream: UpstreamSite | None
    #: the host engine's Markdown extensions its pages use (recorded by the adapter, which
    #: turns on exactly these: MkDocs for the pages that use them)
    extensions: set[str]
    #: while a step runs, the assets it publishes, already published ones too (None: not
    #: listed); the transform memo records them (``core/transform/memo.py``)
    touched: list[str] | None

    def __init__(self, source: SourceConfig, checkout: Checkout, pages: dict[str, Page],
                 assets: dict[str, Asset], nav: list[NavItem],
                 diagnostics: list[Diagnostic] | None = None,
                 aliases: dict[str, str] | None = None, snippets: dict[str, Page] | None = None,
                 superseded: dict[str, str] | None = None, upstream: UpstreamSite | None = None,
                 extensions: set[str] | None = None) -> None:
        self.source = source
        self.checkout = checkout
        self.pages = pages
        self.assets = assets
        self.nav = nav
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.aliases = {} if aliases is None else aliases
        self.snippets = {} if snippets is None else snippets
        self.superseded = {} if superseded is None else superseded
        self.upstream = upstream
        self.extensions = set() if extensions is None else extensions
        self.touched = None

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        super().__setstate__(state)
        self.touched = None  # not a field: a copy lists nothing
    @property
    def mount(self) -> str:
        return self.source.mount

    def host_path(self, path: str, page: Page | None = None) -> str:
        """Path of an upstream page or asset in the host docs tree (``diffusion/x.md``);
        ``page``: the page at ``path``, when the caller has it."""
        if page is None:
            page = self.pages.get(path)
        rel = page.dest if page else path
        mount = self.source.mount
        # posixpath.join(mount, rel), without its type checks (called for every link)
        if not mount or rel.startswith("/"):
            return rel
        return mount + rel if mount.endswith("/") else f"{mount}/{rel}"

    def repo_path(self, path: str) -> str:
        return docs_prefix(self.source.docs_dir) + path if path else self.source.docs_dir

    def asset(self, rel: str) -> Asset:
        """The docs file ``rel`` as an asset of the section (not registered)."""
        repo_path = self.aliases.get(rel) or self.repo_path(rel)
        return Asset(rel, self.checkout.root / repo_path)

    def add_asset(self, rel: str) -> None:
        """Publish the docs file ``rel`` with the section (a link's target, an imported
        module)."""
        if self.touched is not None:
            self.touched.append(rel)
        if rel not in self.assets:
            self.assets[rel] = self.asset(rel)
