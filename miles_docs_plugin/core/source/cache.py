"""The checkout cache: one immutable, verified entry per repository URL, commit and docs folder.

Layout below the cache root (``MILES_DOCS_CACHE``, the ``cache_dir`` key, or the user cache
dir)::

    checkouts/<repo-slug>-<hash>/<commit>[~<docs_dir>]/
        manifest.json     commit, docs_dir, the repository tree (path, kind, blob id)
        files/<docs_dir>/ the docs folder at that commit
    locks/                one lock file per entry (concurrent builds fetch once)
    tmp/                  entries being written; moved into place with one rename
        fetch-<commit>-xxx/       one fetch in progress (or left by a killed one)
        fetch-<commit>-xxx.owner  locked by the fetching process while it runs

An entry is written in ``tmp/`` and renamed into place only once complete, so a build that is
killed half-way leaves nothing a later build would trust. What it does leave (a folder, and a
git it started, which outlives a ``kill -9``) is found by its owner lock being free:
``cache list`` shows it, ``cache prune`` and the next fetch remove it and stop that git.
A throwaway cache (``cache: false``, or a CI job that keeps no cache) has the same layout in a
temporary folder of its own, one per process, removed when the process ends: the checkout is
fetched and verified exactly as above, and nothing is left behind for builds that never come.
The manifest itself is not trusted either: every build checks that its tree hashes to the
pinned commit (:mod:`.integrity`) and that every file it reads hashes to its blob id; a
mismatch makes the entry invalid (it is moved aside and fetched again, or refused offline).
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..env import user_folder
from ..errors import FetchError
from ..model import EntryKind, RepoTree
from ..records import Record
from ..urls import RepoUrl

fcntl: Any
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: leftovers are found by age only
    fcntl = None

MANIFEST = "manifest.json"
FORMAT = 2  #: 2: object ids of every entry and the commit object (integrity)
CACHE_ENV = "MILES_DOCS_CACHE"
STALE_TMP_SECONDS = 6 * 3600


def default_cache_root() -> Path:
    return Path(user_folder("cache"))


_throwaway: tuple[int, Path] | None = None  #: (pid, folder) of this process's throwaway cache
THROWAWAY_PREFIX = "miles-docs-cache-"


def throwaway_root() -> Path:
    """This process's throwaway cache folder, created on first use and removed at exit.

    One per process (not one per build), so the rebuilds of a long-running ``serve`` reuse its
    checkouts instead of piling up folders; a forked child neither reuses nor removes it. The
    folder's owner file next to it stays locked while the process lives, so a process killed
    before its exit handlers ran leaves a folder the next one removes
    (:func:`remove_stale_throwaways`).
    """
    global _throwaway
    pid = os.getpid()
    if _throwaway is None or _throwaway[0] != pid or not _throwaway[1].is_dir():
        remove_stale_throwaways()
        folder = Path(tempfile.mkdtemp(prefix=THROWAWAY_PREFIX))
        fd = _own(folder)
        _throwaway = (pid, folder)
        atexit.register(_remove_throwaway, pid, folder, fd)
    return _throwaway[1]


def _remove_throwaway(pid: int, folder: Path, fd: int | None) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)
        _disown(folder, fd)


def remove_stale_throwaways(tmp: Path | None = None) -> list[Path]:
    """Remove the throwaway cache folders of processes that ended without removing them
    (killed): those whose owner file no live process holds. A folder without an owner file
    is left alone (it cannot be told from one being made)."""
    removed: list[Path] = []
    if fcntl is None:  # pragma: no cover - Windows: no lock to tell a live folder by
        return removed
    base = Path(tempfile.gettempdir()) if tmp is None else tmp
    try:
        names = [e.name for e in os.scandir(base)
                 if e.name.startswith(THROWAWAY_PREFIX) and e.name.endswith(OWNER_SUFFIX)]
    except OSError:
        return removed
    for name in names:
        owner = base / name
        folder = base / name[:-len(OWNER_SUFFIX)]
        if _owned(owner) is False:
            shutil.rmtree(folder, ignore_errors=True)
            owner.unlink(missing_ok=True)
            removed.append(folder)
    return removed


class Manifest(Record):
    """What a cache entry holds: the pinned tree of the docs folder and its blob ids."""

    __slots__ = _fields = ("repo", "commit", "docs_dir", "commit_date", "tree", "blobs", "modes",
                           "objects", "commit_object")
    repo: str
    commit: str
    docs_dir: str
    commit_date: str
    tree: dict[str, EntryKind]
    blobs: dict[str, str]
    modes: dict[str, str]
    #: every entry of the commit's tree, submodules included: path -> (mode, object id)
    objects: dict[str, tuple[str, str]]
    commit_object: bytes  #: the raw commit object (it must hash to ``commit``)

    def __init__(self, repo: str, commit: str, docs_dir: str, commit_date: str,
                 tree: dict[str, EntryKind], blobs: dict[str, str], modes: dict[str, str],
                 objects: dict[str, tuple[str, str]] | None = None,
                 commit_object: bytes = b"") -> None:
        self.repo = repo
        self.commit = commit
        self.docs_dir = docs_dir
        self.commit_date = commit_date
        self.tree = tree
        self.blobs = blobs
        self.modes = modes
        self.objects = {} if objects is None else objects
        self.commit_object = commit_object

    def to_json(self) -> str:
        return json.dumps({
            "format": FORMAT, "repo": self.repo, "commit": self.commit, "docs_dir": self.docs_dir,
            "commit_date": self.commit_date,
            "commit_object": base64.b64encode(self.commit_object).decode("ascii"),
            "tree": [[p, self.tree.get(p, "commit"), oid, mode]
                     for p, (mode, oid) in sorted(self.objects.items())],
        }, separators=(",", ":"))  # no indent: json's C encoder (indent=0 was 3x slower)

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
    def __init__(self, root: Path, *, throwaway: bool = False) -> None:
        self.root = root
        self.throwaway = throwaway  #: removed when the process ends (nothing is kept)

    @classmethod
    def at(cls, configured: Path | None, *, keep: bool = True) -> Cache:
        """The cache a build uses; ``keep=False`` (config ``cache``): a throwaway one."""
        if not keep:
            return cls(throwaway_root(), throwaway=True)
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

    def nearest(self, url: RepoUrl, commit: str, docs_dir: str) -> tuple[Path, Manifest] | None:
        """Another pin of the same repository and docs folder (the most recently written),
        for fetching ``commit`` as a change from it; None when there is none.

        Nothing of it is trusted: a file is reused only where the new commit's tree has the
        same blob id and the file hashes to it (:mod:`.integrity`).
        """
        folder = self.repo_dir(url)
        try:
            candidates = sorted(((c / MANIFEST).stat().st_mtime_ns, c.name)
                                for c in folder.iterdir() if (c / MANIFEST).is_file())
        except OSError:
            return None
        for _mtime, name in reversed(candidates):
            found_commit = name.split("~", 1)[0]
            if found_commit == commit or self.entry_dir(url, found_commit, docs_dir).name != name:
                continue
            try:
                manifest = Manifest.from_json((folder / name / MANIFEST).read_text("utf-8"))
            except (OSError, ValueError, KeyError):
                continue
            if manifest.commit == found_commit and manifest.docs_dir == docs_dir:
                return folder / name / "files", manifest
        return None

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
        path = self.root / "locks" / f"{entry.parent.name}-{entry.name}.lock"
        if fcntl is None:  # pragma: no cover - Windows
            import filelock

            with filelock.FileLock(str(path)):
                yield
            return
        # flock, as filelock's Unix lock takes it (importing filelock cost a fetch 10 ms);
        # held by the open file, so threads of one build exclude each other too
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def populate(self, url: RepoUrl, commit: str, docs_dir: str,
                 fill: Callable[[Path], Manifest]) -> tuple[Path, Manifest]:
        """Create the entry: ``fill(tmp)`` writes ``tmp/files`` and returns the manifest;
        returns what :meth:`load` would then read (the entry's files and its manifest).

        Call with :meth:`locked` held.
        """
        self._writable()
        self._sweep_tmp()
        tmp = Path(tempfile.mkdtemp(prefix=f"fetch-{commit[:12]}-", dir=self.root / "tmp"))
        owner = _own(tmp)
        try:
            manifest = fill(tmp)
            (tmp / "files").mkdir(exist_ok=True)
            _write_file(tmp / MANIFEST, manifest.to_json())
            final = self.entry_dir(url, commit, docs_dir)
            final.parent.mkdir(parents=True, exist_ok=True)
            if final.exists():
                self.discard(final)
            os.replace(tmp, final)
            return final / "files", manifest
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        finally:
            _disown(tmp, owner)

    def leftovers(self) -> list[Leftover]:
        """What killed fetches left in ``tmp/``: folders no live process owns, and the git
        processes still working in them."""
        base = self.root / "tmp"
        if not base.is_dir():
            return []
        now = time.time()
        found = []
        for child in sorted(base.iterdir()):
            if child.suffix == OWNER_SUFFIX:
                if not child.with_suffix("").exists() and _owned(child) is False:
                    found.append(Leftover(child, 0, []))  # its folder is gone already
                continue
            alive = _owned(_owner_file(child))
            try:
                old = now - child.lstat().st_mtime > STALE_TMP_SECONDS
            except OSError:
                continue
            trash = child.name.startswith("invalid-")  # being deleted, or left half-deleted
            if alive is False or (alive is None and (old or trash)):
                found.append(Leftover(child, disk_size(child), processes_in(child)))
        return found

    def remove_leftover(self, leftover: Leftover) -> None:
        """Stop the processes still working in a leftover, then delete it."""
        import signal  # only after a killed build: not on every import

        for pid in leftover.pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if leftover.path.is_dir():
            shutil.rmtree(leftover.path, ignore_errors=True)
        else:
            leftover.path.unlink(missing_ok=True)
        _owner_file(leftover.path).unlink(missing_ok=True)

    def _sweep_tmp(self) -> None:
        """Remove leftovers of killed fetches (and stop the git they left running)."""
        for leftover in self.leftovers():
            self.remove_leftover(leftover)


OWNER_SUFFIX = ".owner"


class Leftover(Record):
    """What a killed build left below the cache's ``tmp/`` (and who still works in it)."""

    __slots__ = _fields = ("path", "size", "pids")
    path: Path  #: a folder (or an owner file) below ``tmp/``
    size: int  #: bytes
    pids: list[int]  #: processes still working in it (a git a killed build started)

    def __init__(self, path: Path, size: int, pids: list[int]) -> None:
        self.path = path
        self.size = size
        self.pids = pids


def _owner_file(tmp: Path) -> Path:
    return tmp.with_name(tmp.name + OWNER_SUFFIX)


def _own(tmp: Path) -> int | None:
    """Lock ``tmp``'s owner file for as long as this process works in it (the lock goes
    with the process, however it ends; git does not inherit it)."""
    if fcntl is None:
        return None
    # Locked before it has its name: another build sweeping tmp/ must never see it unlocked
    # (it would take the folder for a leftover and delete a fetch in progress).
    owner = _owner_file(tmp)
    staging = owner.with_name(f".{owner.name}.{os.getpid()}.tmp")
    fd = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.replace(staging, owner)
    return fd


def _disown(tmp: Path, fd: int | None) -> None:
    if fd is not None:
        _owner_file(tmp).unlink(missing_ok=True)
        os.close(fd)


def _owned(owner: Path) -> bool | None:
    """Does a live process hold this owner file? None when it cannot be told (no file)."""
    if fcntl is None:
        return None
    try:
        fd = os.open(owner, os.O_RDWR)
    except FileNotFoundError:
        return None
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def processes_in(folder: Path) -> list[int]:
    """git processes of this user working inside ``folder`` (Linux /proc; elsewhere none are
    found). Only git: a shell someone opened in the folder is not ours to stop."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    inside = str(folder.resolve())
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if (cwd == inside or cwd.startswith(inside + os.sep)) and name.startswith("git"):
            pids.append(int(entry.name))
    return sorted(pids)


def disk_size(path: Path, seen: set[tuple[int, int]] | None = None) -> int:
    """Bytes of the regular files at or under ``path``, each file once: a pin move hard-links
    the files it reuses from the previous checkout, so two entries share them. ``seen`` (device,
    inode) pairs already counted, shared across calls to count a whole cache once."""
    seen = set() if seen is None else seen
    total = 0
    for p in path.rglob("*") if path.is_dir() else [path]:
        with contextlib.suppress(OSError):
            st = p.lstat()
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


def _write_file(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def tree_from_manifest(manifest: Manifest) -> RepoTree:
    return RepoTree(manifest.tree, manifest.blobs, manifest.modes, objects=manifest.objects,
                    commit_object=manifest.commit_object)
