"""The engine-neutral data model: checkouts, pages, assets, targets, nav and sections."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .config import SourceConfig, docs_prefix
from .errors import Diagnostic
from .transform.markdown import ScanResult

if TYPE_CHECKING:
    from .collect.upstream import UpstreamSite

PAGE_SUFFIXES = (".md", ".mdx", ".markdown")

EntryKind = Literal["blob", "tree", "link"]


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


@dataclass
class Checkout:
    """The files of a source at its pin (or a local working copy)."""

    source: SourceConfig
    root: Path  #: folder that holds the repository files (the docs folder is below it)
    tree: RepoTree
    commit: str | None  #: the verified 40-hex pin; None for a local working copy
    commit_date: str | None = None
    cached: bool = False  #: True when no fetch was needed
    local: bool = False  #: a local working copy (preview), not a pin

    @property
    def short(self) -> str:
        return self.commit[:7] if self.commit else "local"


@dataclass
class Page:
    """One Markdown document of a section."""

    source: str  #: name of the source the page comes from
    path: str  #: relative to docs_dir, as upstream names it (``user-guide/rewards.md``)
    dest: str  #: relative to the mount, as the host sees it (``.mdx`` becomes ``.md``)
    text: str  #: raw upstream text
    meta: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0  #: offset of the body (after front matter) in ``text``
    body_line: int = 0  #: number of lines before the body
    line_delta: int = 0  #: lines that preparation inserted at the top of the body
    content: str = ""  #: transformed text handed to the engine
    scan: ScanResult | None = None
    title: str | None = None
    blob: str | None = None  #: git blob id of ``text`` (keys the scan cache)
    extra: dict[str, Any] = field(default_factory=dict)  #: for plugins


@dataclass
class Asset:
    """A non-Markdown file of the docs folder (image, download) a page references."""
    path: str  #: relative to docs_dir
    abs_path: Path


# -- targets -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageTarget:
    """A page of a section (this one or another configured source)."""

    source: str
    path: str  #: page path relative to that source's docs_dir
    anchor: str | None = None


@dataclass(frozen=True)
class AssetTarget:
    """A link to an asset of a section."""
    source: str
    path: str  #: relative to docs_dir


@dataclass(frozen=True)
class AnchorTarget:
    """A heading or id in the same page."""

    anchor: str


@dataclass(frozen=True)
class RepoFileTarget:
    """A file or folder of the upstream repository outside docs_dir, at the pinned commit."""

    path: str  #: repository-relative
    is_dir: bool
    url: str  #: permalink at the pinned commit
    anchor: str | None = None


@dataclass(frozen=True)
class HostTarget:
    """A page of the host site (a link to one of ``host_urls``)."""

    path: str  #: host docs path (``index.md``); "" when the host page set is unknown
    anchor: str | None = None
    url: str = ""


@dataclass(frozen=True)
class ExternalTarget:
    """A link that leaves the site (``https://…``, ``mailto:``), kept as written."""
    url: str


@dataclass(frozen=True)
class UnresolvedTarget:
    """A link that cannot be resolved. It is reported, and written so that the engine does not
    report it a second time: to ``keep`` (an absolute URL), else to the upstream file at the
    pin (``repo_path``, when the repository has a web address), else made inert (``#``)."""

    reason: str  #: what the diagnostic says
    hint: str = ""
    unsafe: bool = False  #: never keep the destination (javascript:, file:, escapes)
    repo_path: str | None = None  #: where the author pointed, inside the repository
    keep: bool = False  #: the destination is an absolute URL: leave it as written


Target = (PageTarget | AssetTarget | AnchorTarget | RepoFileTarget | HostTarget | ExternalTarget
          | UnresolvedTarget)


# -- navigation --------------------------------------------------------------------------------


@dataclass
class NavPage:
    """A page in the nav."""
    path: str  #: page path relative to docs_dir
    title: str | None = None  #: None: the engine uses the page title


@dataclass
class NavLink:
    """An external link in the nav."""
    title: str
    url: str


@dataclass
class NavGroup:
    """A titled group of nav items."""
    title: str
    children: list[NavItem] = field(default_factory=list)


NavItem = NavPage | NavLink | NavGroup


def nav_pages(items: list[NavItem]) -> Iterator[NavPage]:
    for item in items:
        if isinstance(item, NavPage):
            yield item
        elif isinstance(item, NavGroup):
            yield from nav_pages(item.children)


@dataclass
class Section:
    """A source's pages as mounted in the host: what an adapter hands to its engine."""

    source: SourceConfig
    checkout: Checkout
    pages: dict[str, Page]  #: by upstream path (relative to docs_dir)
    assets: dict[str, Asset]
    nav: list[NavItem]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: symlinks inside docs_dir that were followed: path -> repository path of the target
    aliases: dict[str, str] = field(default_factory=dict)
    #: snippet files (never pages; inlined where pages use them), by path relative to docs_dir
    snippets: dict[str, Page] = field(default_factory=dict)
    #: pages that lost their URL to another file (``README.md`` next to ``index.md``) -> winner
    superseded: dict[str, str] = field(default_factory=dict)
    #: the upstream's own site configuration (navigation, redirects), when it has one
    upstream: UpstreamSite | None = None
    #: the host engine's Markdown extensions its pages use (recorded by the adapter, which
    #: turns on exactly these: MkDocs for the pages that use them)
    extensions: set[str] = field(default_factory=set)

    @property
    def mount(self) -> str:
        return self.source.mount

    def host_path(self, path: str) -> str:
        """Path of an upstream page or asset in the host docs tree (``diffusion/x.md``)."""
        page = self.pages.get(path)
        return posixpath.join(self.mount, page.dest if page else path)

    def repo_path(self, path: str) -> str:
        return docs_prefix(self.source.docs_dir) + path if path else self.source.docs_dir
