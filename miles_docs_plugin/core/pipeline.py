"""The engine-neutral pipeline: config + lock → checkouts → sections.

:func:`build` is all an adapter calls. It fetches every source (through ``mdp_fetch``),
collects its pages (``mdp_collect``), prepares and transforms them (``mdp_prepare_page``,
``mdp_transform_page``), builds the nav (``mdp_build_nav``) and gathers diagnostics
(``mdp_collect_diagnostics``). Sources are fetched in parallel threads: fetching is git
subprocesses and disk I/O, and a cold build of several sources should not wait on each in turn.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from .background import Deferred
from .collect.collect import verify_entry
from .collect.landing import add_placeholder, finish
from .config import Config, SourceConfig
from .context import BuildContext
from .engine import Engine
from .errors import ContentError, Diagnostic, FetchError, Severity
from .model import Checkout, Section
from .plugins import Hooks, make_plugin_manager
from .records import Record, replace
from .source.cache import Cache, CacheEntryInvalid
from .source.lock import Lock, LockEntry, load_lock, pin_for
from .transform.scancache import ScanCache

log = logging.getLogger("miles_docs")
T = TypeVar("T")


class BuildResult(Record):
    """The sections of one build, with its context and timings."""

    __slots__ = _fields = ("ctx", "sections", "timings")
    ctx: BuildContext
    sections: dict[str, Section]
    timings: dict[str, float]

    def __init__(self, ctx: BuildContext, sections: dict[str, Section],
                 timings: dict[str, float] | None = None) -> None:
        self.ctx = ctx
        self.sections = sections
        self.timings = {} if timings is None else timings

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for s in self.sections.values() for d in s.diagnostics]


def _pins(config: Config, lock: Lock) -> dict[str, LockEntry | None]:
    pins: dict[str, LockEntry | None] = {}
    for source in config.sources:
        if source.local is not None and source.name not in lock.entries:
            pins[source.name] = None
        else:
            pins[source.name] = pin_for(lock, source)
    return pins


def _hooks(config: Config, hooks: Hooks | None, plugins: Iterable[Any] = ()) -> Hooks:
    """The plugin manager of a build: the one given, else the config's (unless there are extra
    ``plugins``), else a new one; with the built-ins that ``disable:`` names turned off."""
    plugins = list(plugins)
    hooks = hooks or (config.hooks if not plugins else None) or make_plugin_manager(plugins)
    hooks.disable(config.disable)
    return hooks


def _collect(checkout: Checkout, ctx: BuildContext) -> Section:
    section = ctx.hooks.collect(checkout, ctx)
    if section is None:
        raise ContentError(f"no plugin collected the pages of source {checkout.source.name!r}",
                           where=str(ctx.config.config_file or "config"),
                           hint="is the built-in collector turned off (`disable: [collect]`)?")
    return section


def _checkout(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout:
    """One source's checkout, from the first plugin that fetches it (a cache entry, or git)."""
    checkout = ctx.hooks.fetch(source, pin, ctx)
    if checkout is None:
        raise FetchError(f"no plugin could fetch source {source.name!r}",
                         hint="the built-in git source is turned off (`disable: [git]`)"
                         if "git" in ctx.config.disable else
                         "is a source plugin installed for this repo URL?")
    return checkout


def _fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext,
           work: Callable[[Checkout], T], fetched: Checkout | None = None) -> tuple[Checkout, T]:
    """Fetch one source (unless it is ``fetched`` already) and run ``work`` on its checkout
    (verification, collection).

    A cache entry that fails verification is discarded and fetched again, once; offline, or
    a second time, it is an error that names the folder to delete.
    """
    for attempt in (1, 2):
        checkout = fetched if attempt == 1 and fetched is not None else \
            _checkout(source, pin, ctx)
        try:
            return checkout, work(checkout)
        except CacheEntryInvalid as exc:
            entry = checkout.root.parent
            if attempt == 2 or ctx.config.offline:
                raise FetchError(
                    f"the cache entry for {source.url.display}@{checkout.commit} was modified "
                    f"after it was fetched ({exc})",
                    hint=f"delete {entry} (or run online to fetch it again)") from None
            log.warning("miles-docs: cache entry %s was modified after fetch (%s); fetching "
                        "it again", entry, exc)
            ctx.cache.discard(entry)
    raise AssertionError("unreachable")  # pragma: no cover


def _fetch_all(config: Config, pins: dict[str, LockEntry | None], ctx: BuildContext,
               work: Callable[[Checkout], T]) -> dict[str, T]:
    """``work`` on the checkout of every source, in the config's order.

    With several sources they are fetched in threads (git subprocesses and disk I/O: a cold
    build should not wait on each source in turn). A source that was fetched now gets its
    ``work`` in its thread, while the others are still fetched; one found in the cache gets it
    here, after the threads: ``work`` is Python reading and parsing pages, which threads only
    run in turn, contending for the interpreter (the warm ``on_files`` of 20 cached sources of
    100 pages took 458-656 ms with the work in threads, 328-389 ms with it here)."""
    sources = config.sources
    workers = min(8, len(sources))
    if workers <= 1:
        return {s.name: _fetch(s, pins[s.name], ctx, work)[1] for s in sources}
    from concurrent.futures import ThreadPoolExecutor  # one source (the usual case) needs none

    def fetch(source: SourceConfig) -> tuple[Checkout, list[T]]:
        """The checkout, and (in a list, empty when it came from the cache) its work."""
        checkout = _checkout(source, pins[source.name], ctx)
        if checkout.cached:
            return checkout, []
        return checkout, [_fetch(source, pins[source.name], ctx, work, checkout)[1]]

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="miles-docs") as pool:
        fetches = [(s, pool.submit(fetch, s)) for s in sources]
        found = [(s, *f.result()) for s, f in fetches]
    return {s.name: worked[0] if worked else _fetch(s, pins[s.name], ctx, work, checkout)[1]
            for s, checkout, worked in found}


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold Python's cycle collector off while pages are prepared, scanned and transformed.

    That step allocates tens of thousands of small containers (found links, headings, parts)
    that live to the end of the build and form no reference cycles: the collector would find
    nothing, yet each of its passes walks every object the host engine holds (a MkDocs or
    Sphinx build's whole heap), which costs more than the scan of a typical page. It runs
    again as usual afterwards, and what the step made starts in the oldest generation (young
    collections would walk it all once more, to keep it); collection stays off if it was off.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:  # (the host froze nothing that this would unfreeze)
            # What the step made lives to the end of the build: it goes to the oldest
            # generation at once (freezing then unfreezing moves every tracked object there),
            # not through young collections that would each walk all of it for nothing.
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def build(config: Config, engine: Engine, *, hooks: Hooks | None = None,
          plugins: Iterable[Any] = (), progress: Callable[[str], None] | None = None,
          use_scan_cache: bool = True) -> BuildResult:
    """Build every section of ``config`` for ``engine``."""
    t0 = time.perf_counter()
    hooks = _hooks(config, hooks, plugins)
    all_local = all(s.local is not None for s in config.sources)
    lock = load_lock(config.lock_file, missing_ok=all_local)
    cache = Cache.at(config.cache_dir, keep=config.cache)
    ctx = BuildContext(config=config, hooks=hooks, cache=cache, engine=engine, lock=lock)
    if progress is not None:
        ctx.progress = progress
    pins = _pins(config, lock)
    timings: dict[str, float] = {}

    # Fetch (or find in the cache), verify against the pin and collect every source.
    def verify_and_collect(checkout: Checkout) -> Section:
        verify_entry(checkout)
        return _collect(checkout, ctx)

    writable = use_scan_cache and config.scan_cache and _cache_writable(cache)
    site = hashlib.sha256(str(config.config_file or config.base_dir).encode()).hexdigest()[:12]
    scans = None
    if writable:  # read (and checked) while a source is fetched, which is mostly waiting;
        # after the sources, when none is (a warm build)
        scans = Deferred(lambda: ScanCache(cache.root / "scans" / f"{engine.name}-{site}.json"))
        ctx.on_wait.append(scans.start)
    sections = _fetch_all(config, pins, ctx, verify_and_collect)
    timings["fetch"] = time.perf_counter() - t0
    ctx.sections = sections
    # without a kept cache (use_scan_cache=False, a throwaway or read-only cache folder) the
    # build still keeps its own scans in memory: a page whose preparation read its scan is
    # not scanned again by the link step
    ctx.scans = scans() if scans is not None else ScanCache(None)
    t1 = time.perf_counter()
    for section in sections.values():
        add_placeholder(section)
    upstream_pages = [(section, page) for section in sections.values()
                      for page in section.pages.values() if not page.extra.get("generated")]
    memo = None
    if ctx.scans is not None:  # only a kept, authenticated scan cache keeps its records
        from .transform.memo import TransformMemo

        memo = TransformMemo.open(ctx, sections)
    with gc_paused():
        if memo is not None:  # pages that provably prepare and transform as in the last
            memo.prepare(upstream_pages)  # build are not prepared or transformed again
            memo.transform(upstream_pages)
        else:
            for _section, page in upstream_pages:
                hooks.prepare_page(page, ctx)
            ctx.scan_all(page for _section, page in upstream_pages)
            for _section, page in upstream_pages:
                hooks.transform_page(page, ctx)
    for section, page in upstream_pages:
        engine.finish_page(section, page, ctx)
    timings["transform"] = time.perf_counter() - t1
    for section in sections.values():
        nav = hooks.build_nav(section, ctx)
        section.nav = nav if nav is not None else []
        finish(section, engine)
        section.diagnostics.extend(hooks.collect_diagnostics(section, ctx))
    if ctx.scans is not None:
        ctx.scans.save()
    for name in lock.stale(config):
        first = next(iter(sections.values()))
        first.diagnostics.append(Diagnostic(
            name, str(config.lock_file), None, "lock",
            f"the lock file pins {name!r}, which is no longer configured; remove its entry",
            Severity.INFO))
    timings["total"] = time.perf_counter() - t0
    return BuildResult(ctx, sections, timings)


def _cache_writable(cache: Cache) -> bool:
    try:
        (cache.root / "scans").mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return True


def section_nav(config: Config, section: Section, *, hooks: Hooks | None = None) -> list[Any]:
    """The nav a build would give ``section`` (a fetched pin), without building pages."""
    hooks = _hooks(config, hooks)
    ctx = BuildContext(config=config, hooks=hooks,
                       cache=Cache.at(config.cache_dir, keep=config.cache), engine=Engine())
    ctx.sections = {section.source.name: section}
    return hooks.build_nav(section, ctx) or []


def fetch_pin(config: Config, source: SourceConfig, commit: str, *, hooks: Hooks | None = None,
              progress: Callable[[str], None] | None = None) -> Section:
    """Fetch (or reuse from the cache) one source at ``commit``, without building anything.

    The local override is ignored: this is about pins (``miles-docs update``, ``check``).
    """
    pinned = replace(source, local=None)
    hooks = _hooks(config, hooks)
    ctx = BuildContext(config=config, hooks=hooks,
                       cache=Cache.at(config.cache_dir, keep=config.cache), engine=Engine())
    if progress is not None:
        ctx.progress = progress
    entry = LockEntry(source.name, source.repo, source.ref, commit)
    return _fetch(pinned, entry, ctx, lambda c: _collect(c, ctx))[1]
