"""Built-in source: a git repository at the pinned commit, through the cache.

A warm build reads the cache entry and never runs git. A cold build fetches only the pinned
commit (``--depth 1``) and only the blobs of the docs folder (``--filter=blob:none`` plus a
sparse checkout); servers that refuse to serve a commit by id get a second, branch-and-tag
fetch, still without blobs outside the docs folder.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from .. import hookimpl
from ..core.config import ROOT_DOCS, docs_prefix, mkdocs_config_paths
from ..core.errors import ContentError, FetchError
from ..core.model import Checkout, EntryKind
from ..core.source.cache import Manifest, tree_from_manifest

if TYPE_CHECKING:
    from ..core.config import SourceConfig
    from ..core.context import BuildContext
    from ..core.source.lock import LockEntry

log = logging.getLogger("miles_docs")

REFUSED_WANT = ("not our ref", "unadvertised object", "allowReachableSHA1InWant",
                "allow-reachable-sha1-in-want", "does not allow request",
                "couldn't find remote ref")


def _name(source: SourceConfig, commit: str) -> str:
    return f"{source.url.display}@{commit}"


def fetch_commit(repo: Path, source: SourceConfig, commit: str) -> None:
    """Fetch ``commit`` (no blobs) into the empty repository ``repo``."""
    from ..core.source.git import GitError, run_git  # a warm build runs no git: on first use

    what = f"fetching {_name(source, commit)}"
    try:
        run_git(["fetch", "--quiet", "--depth", "1", "--filter=blob:none", "--no-tags",
                 "origin", commit], cwd=repo, what=what)
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
        modes[path] = mode
        if kind == "commit":  # a submodule: not fetched, not followed
            continue
        tree[path] = "link" if mode == "120000" else ("tree" if kind == "tree" else "blob")
        if kind == "blob":
            blobs[path] = oid
    return tree, blobs, modes, objects


def checkout_into(tmp: Path, source: SourceConfig, commit: str) -> Manifest:
    """Fetch ``commit`` of ``source`` and leave its docs folder in ``tmp/files``."""
    from ..core.source.git import git_object, run_git

    repo = tmp / "repo"
    run_git(["init", "--quiet", "--template=", str(repo)], what="git init")
    run_git(["remote", "add", "origin", source.url.fetch_url], cwd=repo, what="git remote add")
    run_git(["config", "core.sparseCheckout", "true"], cwd=repo, what="git config")
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    beside = mkdocs_config_paths(source.docs_dir)
    (repo / ".git" / "info" / "sparse-checkout").write_text(
        "".join(f"/{p}\n" for p in [docs_prefix(source.docs_dir) or "*", *beside]), "utf-8")
    fetch_commit(repo, source, commit)
    head = run_git(["rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], cwd=repo,
                   what="verifying the commit").stdout.strip()
    if head != commit:
        raise FetchError(f"{source.url.display} returned {head or 'nothing'} for {commit}",
                         hint="the pin must be a full commit id")
    listing = run_git(["ls-tree", "-r", "-t", "-z", "--full-tree", commit], cwd=repo,
                      what="listing the tree").stdout
    tree, blobs, modes, objects = _parse_tree(listing)
    commit_object = git_object(repo, "commit", commit)
    if source.docs_dir != ROOT_DOCS and tree.get(source.docs_dir) != "tree":
        raise ContentError(
            f"docs_dir {source.docs_dir!r} does not exist at commit {commit} of "
            f"{source.url.display}", hint="set `docs_dir:` to the docs folder of that repository")
    run_git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit],
            cwd=repo, what=f"checking out {_name(source, commit)}")
    verified = run_git(["rev-parse", "HEAD"], cwd=repo, what="verifying HEAD").stdout.strip()
    if verified != commit:
        raise FetchError(f"checkout of {_name(source, commit)} ended at {verified}")
    date = run_git(["show", "-s", "--format=%cI", commit], cwd=repo,
                   what="reading the commit date").stdout.strip()
    files = tmp / "files"
    if source.docs_dir == ROOT_DOCS:  # the whole repository is the docs folder
        shutil.rmtree(repo / ".git")
        repo.rename(files)
        return Manifest(source.url.display, commit, source.docs_dir, date, tree, blobs, modes,
                        objects, commit_object)
    target = files / source.docs_dir
    target.parent.mkdir(parents=True, exist_ok=True)
    (repo / source.docs_dir).rename(target)
    for path in beside:  # the upstream's MkDocs config: its nav is the section's nav
        if tree.get(path) == "blob" and (repo / path).is_file():
            (repo / path).rename(files / path)
    shutil.rmtree(repo)
    return Manifest(source.url.display, commit, source.docs_dir, date, tree, blobs, modes,
                    objects, commit_object)


@hookimpl
def mdp_fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout | None:
    if pin is None:
        return None
    cache = ctx.cache
    commit = pin.commit
    found = cache.load(source.url, commit, source.docs_dir)
    cached = found is not None
    if found is None:
        if ctx.config.offline and not source.url.is_local:
            raise FetchError(
                f"{_name(source, commit)} is not in the cache and offline mode is on",
                hint="run once with network access (unset MILES_DOCS_OFFLINE / `offline:`)")
        with cache.locked(source.url, commit, source.docs_dir):
            found = cache.load(source.url, commit, source.docs_dir)
            if found is None:
                from ..core.source.git import GitError

                ctx.progress(f"fetching {_name(source, commit)}")
                try:
                    cache.populate(source.url, commit, source.docs_dir,
                                   lambda tmp: checkout_into(tmp, source, commit))
                except GitError as exc:
                    raise FetchError(
                        f"cannot fetch {_name(source, commit)}: {exc.message}",
                        hint=exc.hint if exc.no_space else
                        "check that the repository is reachable and the commit exists "
                        f"(`miles-docs update {source.name}` moves the pin)") from None
                found = cache.load(source.url, commit, source.docs_dir)
        if found is None:  # pragma: no cover - populate() either succeeds or raises
            raise FetchError(f"the cache entry for {_name(source, commit)} vanished")
    files, manifest = found
    return Checkout(source=source, root=files, tree=tree_from_manifest(manifest), commit=commit,
                    commit_date=manifest.commit_date, cached=cached, local=False)
