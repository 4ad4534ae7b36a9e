"""A git repository's docs folder at the pinned commit, into a new cache entry.

The built-in source (:mod:`...builtin.git_source`) calls :func:`fill` on a cold build: a warm
build reads the cache entry, runs no git and does not load this module. A cold build fetches
only the pinned commit (``--depth 1``) and only the blobs of the docs folder
(``--filter=blob:none`` plus a sparse checkout); servers that refuse to serve a commit by id
get a second, branch-and-tag fetch, still without blobs outside the docs folder (but the files
an MkDocs upstream's ``--8<--`` includes name there, :func:`_add_included`). A pin move, when
the cache holds another pin of the source, fetches the new commit's trees and then only the
blobs whose id changed (:func:`checkout_from`).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import ROOT_DOCS, docs_prefix, mkdocs_config_paths
from ..errors import ContentError, FetchError
from ..model import EntryKind, safe_path
from .cache import Cache, Manifest

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import SourceConfig

log = logging.getLogger("miles_docs")

REFUSED_WANT = ("not our ref", "unadvertised object", "allowReachableSHA1InWant",
                "allow-reachable-sha1-in-want", "does not allow request",
                "couldn't find remote ref")


def pinned_name(source: SourceConfig, commit: str) -> str:
    """``url@commit``, as messages name a source's pin."""
    return f"{source.url.display}@{commit}"


def fetch_commit(repo: Path, source: SourceConfig, commit: str) -> None:
    """Fetch ``commit`` (no blobs) into the empty repository ``repo``."""
    from .git import GitError, run_git  # a warm build runs no git: on first use

    what = f"fetching {pinned_name(source, commit)}"
    try:
        # no FETCH_HEAD and no `git maintenance run --auto` child: the repository lives for
        # one fetch
        run_git(["-c", "maintenance.auto=false", "fetch", "--quiet", "--depth", "1",
                 "--filter=blob:none", "--no-tags", "--no-write-fetch-head", "origin", commit],
                cwd=repo, what=what)
        return
    except GitError as exc:
        if not any(s in exc.stderr for s in REFUSED_WANT):
            raise
    # The server does not serve commits by id: fetch its branches and tags, then look.
    log.debug("miles-docs: %s refuses commit ids; fetching branches and tags", source.url.display)
    run_git(["fetch", "--quiet", "--filter=blob:none", "origin",
             "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"], cwd=repo,
            what=what)
    try:
        run_git(["cat-file", "-e", f"{commit}^{{commit}}"], cwd=repo, what="looking up the commit")
    except GitError:
        raise FetchError(f"commit {commit} does not exist in {source.url.display}",
                         hint=f"fix the pin: `miles-docs update {source.name}`") from None


def _parse_tree(output: str) -> tuple[dict[str, EntryKind], dict[str, str], dict[str, str],
                                      dict[str, tuple[str, str]]]:
    tree: dict[str, EntryKind] = {}
    blobs: dict[str, str] = {}
    modes: dict[str, str] = {}
    objects: dict[str, tuple[str, str]] = {}
    for record in output.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, oid = meta.split()
        objects[path] = (mode, oid)  # every entry: the tree is verified against the pin
        if not safe_path(path):
            continue  # never a file of the checkout
        modes[path] = mode
        if kind == "commit":  # a submodule: not fetched, not followed
            continue
        tree[path] = "link" if mode == "120000" else ("tree" if kind == "tree" else "blob")
        if kind == "blob":
            blobs[path] = oid
    return tree, blobs, modes, objects


def _start(tmp: Path, source: SourceConfig, commit: str) -> Path:
    """A new repository in ``tmp/repo`` with ``commit`` fetched into it (no blobs)."""
    from .git import run_git

    repo = tmp / "repo"
    run_git(["init", "--quiet", "--template=", str(repo)], what="git init")
    run_git(["remote", "add", "origin", source.url.fetch_url], cwd=repo, what="git remote add")
    fetch_commit(repo, source, commit)
    return repo


def _read_commit(repo: Path, source: SourceConfig, commit: str) -> Manifest:
    """The manifest of ``commit``: its whole tree listing and its raw commit object, which
    must hash to the pin (so no separate check of what the server sent is needed)."""
    from .git import commit_date, read_objects, run_git
    from .integrity import object_id

    listing = run_git(["ls-tree", "-r", "-t", "-z", "--full-tree", commit], cwd=repo,
                      what="listing the tree").stdout
    kind, commit_object = read_objects(repo, [commit])[commit]
    if kind != "commit" or object_id("commit", commit_object) != commit:
        raise FetchError(f"{source.url.display} returned {kind} {commit} for {commit}",
                         hint="the pin must be a full commit id")
    tree, blobs, modes, objects = _parse_tree(listing)
    if source.docs_dir != ROOT_DOCS and tree.get(source.docs_dir) != "tree":
        raise ContentError(
            f"docs_dir {source.docs_dir!r} does not exist at commit {commit} of "
            f"{source.url.display}", hint="set `docs_dir:` to the docs folder of that repository")
    return Manifest(source.url.display, commit, source.docs_dir, commit_date(commit_object),
                    tree, blobs, modes, objects, commit_object)


#: How many processes git writes a checkout's files with (``checkout.workers``; git does so
#: from 100 files on, and an older git than 2.32 ignores it): one per core, up to 8. Writing
#: the files was most of git's share of a cold build; on two cores a docs folder of 1,000
#: pages is checked out in about a third less time.
CHECKOUT_WORKERS = max(1, min(os.cpu_count() or 1, 8))


def _checkout(repo: Path, tmp: Path, source: SourceConfig, manifest: Manifest) -> Manifest:
    """Check out the docs folder (sparse, its blobs fetched in one batch) into ``tmp/files``."""
    from .git import run_git

    commit = manifest.commit
    beside = mkdocs_config_paths(source.docs_dir)
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "sparse-checkout").write_text(
        "".join(f"/{p}\n" for p in [docs_prefix(source.docs_dir) or "*", *beside]), "utf-8")
    # (the blobs come in a fetch of their own, which git runs with this command's ``-c``
    # settings: no `git maintenance run --auto` child after it, as after fetch_commit)
    run_git(["-c", "core.sparseCheckout=true", "-c", "advice.detachedHead=false",
             "-c", f"checkout.workers={CHECKOUT_WORKERS}", "-c", "maintenance.auto=false",
             "checkout", "--quiet", "--detach", commit], cwd=repo,
            what=f"checking out {pinned_name(source, commit)}")
    files = tmp / "files"
    if files.exists():
        shutil.rmtree(files)
    if source.docs_dir == ROOT_DOCS:  # the whole repository is the docs folder
        shutil.rmtree(repo / ".git")
        repo.rename(files)
        return manifest
    target = files / source.docs_dir
    target.parent.mkdir(parents=True, exist_ok=True)
    (repo / source.docs_dir).rename(target)
    for path in beside:  # the upstream's MkDocs config: its nav is the section's nav
        if manifest.tree.get(path) == "blob" and (repo / path).is_file():
            (repo / path).rename(files / path)
    _add_included(repo, files, source, commit, manifest)
    shutil.rmtree(repo)
    return manifest


#: Files outside the docs folder that an MkDocs upstream's includes may bring along.
MAX_INCLUDED_FILES = 64
#: Included text a page's scan for those files follows (the default ``max_page_size``: the
#: build itself takes no more).
SCAN_BYTES = 2 << 20


def _add_included(repo: Path, files: Path, source: SourceConfig, commit: str,
                  manifest: Manifest) -> None:
    """Fetch into ``files`` the files outside the docs folder that an MkDocs upstream's
    ``--8<--`` includes name (``--8<-- "README.md"`` in ``docs/index.md``), and those their
    own includes name: the build reads them from the pinned tree, checked against their blob
    ids, as it reads the docs folder. Regular files only, at most
    :data:`MAX_INCLUDED_FILES`; none when the upstream's ``mkdocs.yml`` does not turn on
    pymdownx.snippets."""
    from ..collect.collect import is_page
    from ..collect.includes import named_files, text_of
    from ..collect.upstream import read_upstream

    docs = source.docs_dir.rstrip("/")
    if source.docs_dir == ROOT_DOCS or not (files / docs).is_dir():
        return

    def read_bytes(repo_path: str) -> bytes | None:
        try:
            return (files / repo_path).read_bytes() if manifest.tree.get(repo_path) == "blob" \
                else None
        except OSError:
            return None

    site = read_upstream(lambda rel: None, read_bytes, source.docs_dir)
    if site is None or not site.mkdocs or site.snippets is None:
        return

    def read(repo_path: str) -> tuple[str | None, str]:
        data = read_bytes(repo_path)
        if data is None:
            return None, "outside" if manifest.tree.get(repo_path) == "blob" else ""
        return text_of(data.decode("utf-8", "replace")), ""

    prefix = docs + "/"
    pages = {}
    for repo_path in manifest.tree:
        if repo_path.startswith(prefix) and is_page(repo_path):
            text = read(repo_path)[0] or ""
            if "8<" in text:
                pages[repo_path[len(prefix):]] = text

    config_dir = docs.rpartition("/")[0]
    taken: set[str] = set()
    while len(taken) < MAX_INCLUDED_FILES:  # includes in what was fetched, level by level
        named = sorted(p for p in named_files(pages, site.snippets, config_dir, docs, read,
                                              SCAN_BYTES) - taken if safe_path(p))
        named = named[:MAX_INCLUDED_FILES - len(taken)]
        if not named:
            return
        taken.update(named)
        wanted: dict[str, list[tuple[str, str]]] = {}  #: blob id -> (path, mode) to write
        for name in named:
            mode, oid = manifest.objects[name]
            wanted.setdefault(oid, []).append((name, mode))
        # a failure fails the fetch: an entry without a file its pages include would be kept
        _fetch_blobs(repo, source, commit, list(wanted))()
        _write_objects(repo, source, files, wanted, skip_unwritable=True)
        # the next round reads the pages again, with these files at hand: their includes


def _write_objects(repo: Path, source: SourceConfig, files: Path,
                   need: dict[str, list[tuple[str, str]]], verified: Verified | None = None,
                   *, skip_unwritable: bool = False) -> None:
    """Write the blobs ``need`` names (blob id -> (path, mode) each) from ``repo`` into
    ``files``, each checked against its id; the bytes of each file written go into
    ``verified`` (pages' kept). ``skip_unwritable``: a name the file system refuses is left
    out (an included file), instead of failing the fetch."""
    from ..collect.collect import is_page
    from .git import read_objects
    from .integrity import blob_id

    for oid, (object_kind, data) in read_objects(repo, list(need)).items():
        if object_kind != "blob" or blob_id(data) != oid:
            raise FetchError(f"{source.url.display} returned a wrong object for {oid}")
        for path, mode in need[oid]:
            try:
                _write_blob(files / path, mode, data)
            except OSError as exc:
                if not skip_unwritable:
                    raise
                log.debug("miles-docs: %s: %s not written (%s)", source.url.display, path, exc)
                continue
            if verified is not None and mode != "120000":
                verified[path] = (oid, data if is_page(path) else None)


def checkout_into(tmp: Path, source: SourceConfig, commit: str) -> Manifest:
    """Fetch ``commit`` of ``source`` and leave its docs folder in ``tmp/files``."""
    repo = _start(tmp, source, commit)
    return _checkout(repo, tmp, source, _read_commit(repo, source, commit))


#: Above this many files to fetch, a pin move checks out the docs folder as a cold fetch does.
MAX_CHANGED_FILES = 2000


#: Verified files of a new checkout: repository path -> (blob id, the bytes that hashed to it,
#: kept for pages only), for the build that fetched it (see ``Checkout.verified``).
Verified = dict[str, tuple[str, "bytes | None"]]
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# The files of a pin move are handled as strings with os functions: a Path per file and call
# was most of the time of reusing 1,000 unchanged files.
def _parent(path: str, made: set[str]) -> None:
    folder = path.rpartition("/")[0]
    if folder not in made:
        os.makedirs(folder, exist_ok=True)  # noqa: PTH103 - strings, see above
        made.add(folder)


def _reuse(old: str, new: str, mode: str, oid: str, made: set[str]) -> bytes | None:
    """Put the file ``old`` of an earlier checkout at ``new`` when it hashes to ``oid`` (a
    hard link, or a copy where links are not possible), and return its bytes (a symlink's:
    its target); None when it does not (changed, missing or tampered with: the caller fetches
    it). The file is hashed as it stands at ``new``, after it was placed there."""
    from .integrity import blob_id

    try:
        if mode == "120000":
            target = os.readlink(old)
            if blob_id(os.fsencode(target)) != oid:
                return None
            _parent(new, made)
            os.symlink(target, new)  # noqa: PTH211 - strings, see _parent
            return os.fsencode(target)
        _parent(new, made)
        try:
            os.link(old, new, follow_symlinks=False)
        except OSError:
            shutil.copy2(old, new, follow_symlinks=False)
        try:
            fd = os.open(new, os.O_RDONLY | _NOFOLLOW)  # a symlink is refused (ELOOP)
            with open(fd, "rb") as fh:
                data = fh.read()
        except OSError:
            data = None
        if data is None or blob_id(data) != oid:
            os.unlink(new)  # noqa: PTH108 - strings, see _parent
            return None
        return data
    except OSError:
        return None


def _write_blob(dest: Path, mode: str, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        dest.symlink_to(os.fsdecode(data))
        return
    dest.write_bytes(data)
    if mode == "100755":
        dest.chmod(0o755)


def checkout_from(tmp: Path, source: SourceConfig, commit: str, base_files: Path,
                  base: Manifest, verified: Verified | None = None) -> Manifest:
    """Fetch ``commit`` of ``source`` into ``tmp/files`` as a change from an earlier checkout
    (``base_files``, at ``base.commit``): only the new commit's trees and the blobs whose id
    changed come over the network, and only they are written; every other file is the earlier
    checkout's, reused only if it hashes to the new commit's blob id.

    The result is what :func:`checkout_into` leaves, checked the same way by every build:
    the tree hashes to the pin, every file to its blob id. Every file this hashed (reused or
    fetched) goes into ``verified``, so the build that fetched it need not hash it again.
    """
    from ..collect.collect import is_page
    from .git import GitError

    verified = {} if verified is None else verified
    repo = _start(tmp, source, commit)
    manifest = _read_commit(repo, source, commit)
    files = tmp / "files"
    need: dict[str, list[tuple[str, str]]] = {}  #: blob id -> (path, mode) to write it to
    same: list[tuple[str, str, str]] = []  #: (path, mode, blob id) unchanged since ``base``
    beside = mkdocs_config_paths(source.docs_dir)
    prefix = docs_prefix(source.docs_dir)
    for path, (mode, oid) in manifest.objects.items():
        if not safe_path(path):
            continue  # see safe_path: never written
        kind = manifest.tree.get(path)
        published = path.startswith(prefix) or path in beside  # kept by a checkout
        if not published or kind not in ("blob", "link") or (path in beside and kind != "blob"):
            if mode == "160000" and published:
                (files / path).mkdir(parents=True, exist_ok=True)  # as checkout leaves it
            continue
        if base.objects.get(path) == (mode, oid):
            same.append((path, mode, oid))
        else:
            need.setdefault(oid, []).append((path, mode))
    if len(need) > MAX_CHANGED_FILES:
        log.debug("miles-docs: %s: %d file(s) changed: checking out", pinned_name(source, commit),
                  len(need))
        return _checkout(repo, tmp, source, manifest)
    # The changed blobs come over the network while the unchanged files are put in place
    # (fetching is mostly waiting for the server; reusing is hashing).
    fetching = _fetch_blobs(repo, source, commit, list(need)) if need else None
    old_root, new_root = os.fspath(base_files), os.fspath(files)
    made: set[str] = set()
    late: dict[str, list[tuple[str, str]]] = {}  #: changed or missing in the old checkout
    for path, mode, oid in same:
        data = _reuse(f"{old_root}/{path}", f"{new_root}/{path}", mode, oid, made)
        if data is None:
            late.setdefault(oid, []).append((path, mode))
        elif mode != "120000":
            verified[path] = (oid, data if is_page(path) else None)
    try:
        if fetching is not None:
            fetching()
        if any(oid not in need for oid in late):
            _fetch_blobs(repo, source, commit, [oid for oid in late if oid not in need])()
    except GitError as exc:
        if exc.no_space:
            raise
        log.debug("miles-docs: %s: no blobs by id (%s); checking out", source.url.display,
                  exc.message)
        verified.clear()  # git writes the files: the build hashes them
        return _checkout(repo, tmp, source, manifest)
    for oid, paths in late.items():
        need.setdefault(oid, []).extend(paths)
    _write_objects(repo, source, files, need, verified)
    files.mkdir(exist_ok=True)
    _add_included(repo, files, source, commit, manifest)
    shutil.rmtree(repo)
    log.debug("miles-docs: %s: %d file(s) fetched, the rest reused from %s",
              pinned_name(source, commit), sum(len(p) for p in need.values()), base.commit[:7])
    return manifest


def _fetch_blobs(repo: Path, source: SourceConfig, commit: str,
                 oids: list[str]) -> Callable[[], object]:
    """Fetch the blobs ``oids`` by id into ``repo`` in a thread (git does the work; the thread
    waits for it), as git's own partial-clone fetch asks for them; the function returned
    waits for it (and raises its GitError)."""
    from ..background import in_background
    from .git import run_git

    args = ["-c", "fetch.negotiationAlgorithm=noop", "-c", "maintenance.auto=false",
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
            "--recurse-submodules=no", "--filter=blob:none", "origin", *oids]
    what = f"fetching {pinned_name(source, commit)}"
    return in_background(lambda: run_git(args, cwd=repo, what=what), "miles-docs-fetch")


def fill(tmp: Path, source: SourceConfig, commit: str, cache: Cache,
          verified: Verified) -> Manifest:
    """A new cache entry: a change from another pin of the source when the cache has one (a
    pin move), else a fresh checkout."""
    base = cache.nearest(source.url, commit, source.docs_dir)
    if base is None:
        return checkout_into(tmp, source, commit)
    return checkout_from(tmp, source, commit, *base, verified)
