"""Built-in source: a git repository at the pinned commit, through the cache.

A warm build reads the cache entry and never runs git. A cold build fills a new entry with
:mod:`..core.source.checkout` (only the pinned commit, only the blobs of the docs folder; a
pin move fetches only the blobs whose id changed), loaded then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.errors import FetchError
from ..core.model import Checkout
from ..core.source.cache import tree_from_manifest

if TYPE_CHECKING:
    from ..core.config import SourceConfig
    from ..core.context import BuildContext
    from ..core.source.checkout import Verified
    from ..core.source.lock import LockEntry


@hookimpl
def mdp_fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout | None:
    if pin is None:
        return None
    cache = ctx.cache
    commit = pin.commit
    found = cache.load(source.url, commit, source.docs_dir)
    cached = found is not None
    verified: Verified = {}
    if found is None:
        from ..core.source.checkout import fill, pinned_name

        if ctx.config.offline and not source.url.is_local:
            raise FetchError(
                f"{pinned_name(source, commit)} is not in the cache and offline mode is on",
                hint="run once with network access (unset MILES_DOCS_OFFLINE / `offline:`)")
        with cache.locked(source.url, commit, source.docs_dir):
            found = cache.load(source.url, commit, source.docs_dir)
            if found is None:
                from ..core.source.git import GitError

                ctx.progress(f"fetching {pinned_name(source, commit)}")
                ctx.fetching()
                try:
                    found = cache.populate(
                        source.url, commit, source.docs_dir,
                        lambda tmp: fill(tmp, source, commit, cache, verified))
                except GitError as exc:
                    raise FetchError(
                        f"cannot fetch {pinned_name(source, commit)}: {exc.message}",
                        hint=exc.hint if exc.no_space else
                        "check that the repository is reachable and the commit exists "
                        f"(`miles-docs update {source.name}` moves the pin)") from None
    files, manifest = found
    return Checkout(source=source, root=files, tree=tree_from_manifest(manifest), commit=commit,
                    commit_date=manifest.commit_date, cached=cached, local=False,
                    verified=verified)


def __getattr__(name: str) -> Any:
    """The checkout's names (``checkout_into``, ``CHECKOUT_WORKERS``…), for code written when
    they lived here: loaded on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..core.source import checkout

    return getattr(checkout, name)
