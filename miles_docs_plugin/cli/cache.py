"""``cache list`` / ``cache prune``: the cached checkouts."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from ..core.config import Config
from ..core.source.cache import Cache, Manifest, disk_size
from ..core.source.lock import load_lock
from .common import EXIT_OK, Out, UsageError, read_config, short


def _pinned_entries(config: Config | None, cache: Cache) -> set[Path]:
    if config is None:
        return set()
    lock = load_lock(config.lock_file, missing_ok=True)
    keep = set()
    for source in config.sources:
        entry = lock.entries.get(source.name)
        if entry is not None:
            keep.add(cache.entry_dir(source.url, entry.commit, source.docs_dir))
    return keep


def cmd_cache(args: argparse.Namespace, out: Out) -> int:
    config: Config | None = None
    try:
        config = read_config(args)
    except UsageError:
        config = None
    cache = Cache.at(config.cache_dir if config else None)
    if args.action == "list":
        out.say(f"cache: {cache.root}")
        total = listed = 0
        seen: set[tuple[int, int]] = set()  #: files counted in the total (hard links once)
        for entry, manifest in cache.entries():
            size = disk_size(entry)
            listed += size
            total += disk_size(entry, seen)
            what = (f"{manifest.repo}@{short(manifest.commit)} {manifest.docs_dir}/"
                    if isinstance(manifest, Manifest) else "(invalid entry)")
            out.say(f"  {what:<60} {size / 1e6:8.1f} MB  {entry.parent.name}/{entry.name}")
        leftovers = cache.leftovers()
        if leftovers:
            out.say("  left by killed fetches (`miles-docs cache prune` removes them):")
        for left in leftovers:
            total += left.size
            listed += left.size
            running = (f", git still running (pid {', '.join(map(str, left.pids))})"
                       if left.pids else "")
            out.say(f"  {'tmp/' + left.path.name + running:<60} {left.size / 1e6:8.1f} MB")
        shared = (f" ({(listed - total) / 1e6:.1f} MB of it in files that entries share: a "
                  "pin move links the files it reuses)" if listed > total else "")
        out.say(f"  total {total / 1e6:.1f} MB on disk{shared}")
        return EXIT_OK
    keep = set() if args.all else _pinned_entries(config, cache)
    if config is None and not args.all:
        raise UsageError("no config here to tell which entries are pinned: pass -f PATH, "
                         "or --all to remove every entry")
    removed = 0
    for left in cache.leftovers():
        cache.remove_leftover(left)
        stopped = f", stopped git (pid {', '.join(map(str, left.pids))})" if left.pids else ""
        out.say(f"removed tmp/{left.path.name} (left by a killed fetch{stopped})")
    for entry, _manifest in list(cache.entries()):
        if entry not in keep:
            cache.discard(entry)
            removed += 1
            out.say(f"removed {entry.parent.name}/{entry.name}")
    if args.all:
        shutil.rmtree(cache.root / "scans", ignore_errors=True)
    out.say(f"{removed} entr{'y' if removed == 1 else 'ies'} removed, {len(keep)} pinned kept")
    return EXIT_OK


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("cache", parents=[common], help="list or prune cached checkouts",
                       description="`list` shows the cached checkouts; `prune` removes those "
                       "the lock file does not pin (`--all`: every one).")
    s.add_argument("action", choices=("list", "prune"))
    s.add_argument("--all", action="store_true", help="with prune: remove every entry")
    s.set_defaults(func=cmd_cache)
