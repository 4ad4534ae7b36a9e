"""The checkout cache: one immutable, verified entry per repository URL, commit and docs folder.

Layout below the cache root (``MILES_DOCS_CACHE``, the ``cache_dir`` key, or the user cache
dir)::

    checkouts/<repo-slug>-<hash>/<commit>[~<docs_dir>]/
        manifest.json     commit, docs_dir, the repository tree (path, kind, blob id)
        files/<docs_dir>/ the docs folder at that commit
    locks/                one lock file per entry (concurrent builds fetch once)
    tmp/                  entries being written; moved into place with one rename

An entry is written in ``tmp/`` and renamed into place only once complete, so a build that is
killed half-way leaves nothing a later build would trust. The manifest itself is not trusted
either: every build checks that its tree hashes to the pinned commit (:mod:`.integrity`) and
that every file it reads hashes to its blob id; a mismatch makes the entry invalid (it is moved
aside and fetched again, or refused offline).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .errors import FetchError
from .model import EntryKind, RepoTree
from .urls import RepoUrl

MANIFEST = "manifest.json"
FORMAT = 2  #: 2: object ids of every entry and the commit object (integrity)
CACHE_ENV = "MILES_DOCS_CACHE"
STALE_TMP_SECONDS = 6 * 3600


def default_cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("miles-docs", appauthor=False))


@dataclass
class Manifest:
    repo: str
    commit: str
    docs_dir: str
    commit_date: str
    tree: dict[str, EntryKind]
    blobs: dict[str, str]
    modes: dict[str, str]
    #: every entry of the commit's tree, submodules included: path -> (mode, object id)
    objects: dict[str, tuple[str, str]] = field(default_factory=dict)
    commit_object: bytes = b""  #: the raw commit object (it must hash to ``commit``)

    def to_json(self) -> str:
        return json.dumps({
            "format": FORMAT, "repo": self.repo, "commit": self.commit, "docs_dir": self.docs_dir,
            "commit_date": self.commit_date,
            "commit_object": base64.b64encode(self.commit_object).decode("ascii"),
            "tree": [[p, self.tree.get(p, "commit"), oid, mode]
                     for p, (mode, oid) in sorted(self.objects.items())],
        }, indent=0, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"unsupported manifest format {data.get('format')!r}")
        tree: dict[str, EntryKind] = {}
        blobs: dict[str, str] = {}
        modes: dict[str, str] = {}
        objects: dict[str, tuple[str, str]] = {}
        for path, kind, oid, mode in data["tree"]:
            objects[path] = (mode, oid)
            modes[path] = mode
            if kind == "commit":  # a submodule: hashed, never followed
                continue
            tree[path] = kind
            if kind != "tree":
                blobs[path] = oid
        return cls(data["repo"], data["commit"], data["docs_dir"], data.get("commit_date", ""),
                   tree, blobs, modes, objects, base64.b64decode(data["commit_object"]))


class CacheEntryInvalid(Exception):
    """A cache entry does not match what was fetched; it must not be trusted."""


def _slug(url: RepoUrl) -> str:
    base = url.path.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "repo"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base)[:40]


class Cache:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def at(cls, configured: Path | None) -> Cache:
        env = os.environ.get(CACHE_ENV)
        if env:
            return cls(Path(env).expanduser().resolve())
        return cls(configured or default_cache_root())

    # -- layout -----------------------------------------------------------------------------

    def repo_dir(self, url: RepoUrl) -> Path:
        key = hashlib.sha256(url.fetch_url.encode()).hexdigest()[:12]
        return self.root / "checkouts" / f"{_slug(url)}-{key}"

    def entry_dir(self, url: RepoUrl, commit: str, docs_dir: str) -> Path:
        name = commit if docs_dir == "docs" else f"{commit}~{docs_dir.replace('/', '~')}"
        return self.repo_dir(url) / name

    def entries(self) -> Iterator[tuple[Path, Manifest | None]]:
        base = self.root / "checkouts"
        if not base.is_dir():
            return
        for repo in sorted(base.iterdir()):
            if not repo.is_dir():
                continue
            for entry in sorted(repo.iterdir()):
                try:
                    yield entry, Manifest.from_json((entry / MANIFEST).read_text("utf-8"))
                except (OSError, ValueError, KeyError):
                    yield entry, None

    # -- reading ----------------------------------------------------------------------------

    def load(self, url: RepoUrl, commit: str, docs_dir: str) -> tuple[Path, Manifest] | None:
        """The entry for this pin, or None when there is none (or it is not valid)."""
        entry = self.entry_dir(url, commit, docs_dir)
        try:
            manifest = Manifest.from_json((entry / MANIFEST).read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError):
            self.discard(entry)
            return None
        if manifest.commit != commit or manifest.docs_dir != docs_dir:
            self.discard(entry)
            return None
        return entry / "files", manifest

    def discard(self, entry: Path) -> None:
        """Move an untrusted entry out of the way (so no build uses it again)."""
        if not entry.exists():
            return
        trash = self.root / "tmp" / f"invalid-{entry.name}-{os.getpid()}-{time.monotonic_ns()}"
        try:
            trash.parent.mkdir(parents=True, exist_ok=True)
            os.replace(entry, trash)
            shutil.rmtree(trash, ignore_errors=True)
        except OSError as exc:
            raise FetchError(f"cannot remove the invalid cache entry {entry}: {exc}",
                             hint=f"delete it by hand, or point {CACHE_ENV} elsewhere") from None

    # -- writing ----------------------------------------------------------------------------

    def _writable(self) -> None:
        try:
            (self.root / "tmp").mkdir(parents=True, exist_ok=True)
            (self.root / "locks").mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.root / "tmp"):
                pass
        except OSError as exc:
            raise FetchError(f"the cache directory {self.root} is not writable ({exc.strerror})",
                             hint=f"set {CACHE_ENV} or `cache_dir:` to a writable folder") from None

    @contextmanager
    def locked(self, url: RepoUrl, commit: str, docs_dir: str) -> Iterator[None]:
        """Hold the entry's lock: one process fetches, the others wait and then reuse it."""
        self._writable()
        entry = self.entry_dir(url, commit, docs_dir)
        import filelock  # only a fetch needs it

        name = f"{entry.parent.name}-{entry.name}.lock"
        lock = filelock.FileLock(str(self.root / "locks" / name))
        with lock:
            yield

    def populate(self, url: RepoUrl, commit: str, docs_dir: str,
                 fill: Callable[[Path], Manifest]) -> None:
        """Create the entry: ``fill(tmp)`` writes ``tmp/files`` and returns the manifest.

        Call with :meth:`locked` held.
        """
        self._writable()
        self._sweep_tmp()
        tmp = Path(tempfile.mkdtemp(prefix=f"fetch-{commit[:12]}-", dir=self.root / "tmp"))
        try:
            manifest = fill(tmp)
            (tmp / "files").mkdir(exist_ok=True)
            _write_file(tmp / MANIFEST, manifest.to_json())
            final = self.entry_dir(url, commit, docs_dir)
            final.parent.mkdir(parents=True, exist_ok=True)
            if final.exists():
                self.discard(final)
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _sweep_tmp(self) -> None:
        """Remove leftovers of killed fetches (old enough that no live fetch owns them)."""
        now = time.time()
        for child in (self.root / "tmp").iterdir():
            try:
                if now - child.stat().st_mtime > STALE_TMP_SECONDS:
                    shutil.rmtree(child, ignore_errors=True)
            except OSError:
                continue


def _write_file(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def tree_from_manifest(manifest: Manifest) -> RepoTree:
    return RepoTree(manifest.tree, manifest.blobs, manifest.modes, objects=manifest.objects,
                    commit_object=manifest.commit_object)
