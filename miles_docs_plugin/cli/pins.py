"""``lock``, ``update`` and ``status``: the pins and how far their refs have moved."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.collect.collect import is_page
from ..core.config import (
    Config,
    SourceConfig,
    docs_prefix,
    local_env_var,
    mkdocs_config_paths,
)
from ..core.engine import Engine
from ..core.errors import MilesDocsError
from ..core.pipeline import fetch_pin, section_nav
from ..core.source.cache import Cache
from ..core.source.git import GitError, history, resolve_ref
from ..core.source.lock import LockEntry, load_lock, set_entry
from .changes import add_nav_changes, changelog, format_changelog
from .check import host_pages
from .common import EXIT_OK, Out, progress_to, read_config, selected, short


def cmd_lock(args: argparse.Namespace, out: Out) -> int:
    config = read_config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    added = 0
    for source in config.sources:
        entry = lock.entries.get(source.name)
        if entry is not None and entry.repo == source.repo:
            out.say(f"{source.name}: pinned at {short(entry.commit)} (kept)")
            continue
        commit = resolve_ref(source.url.fetch_url, source.ref, display=source.display)
        set_entry(config.lock_file, LockEntry(source.name, source.repo, source.ref, commit))
        if entry is not None:  # the pin was for another repository: it pins nothing now
            out.say(f"{source.name}: the config's repo changed ({entry.repo} → {source.repo});"
                    f" pinned {source.ref} of the configured repo at {short(commit)}")
        else:
            out.say(f"{source.name}: pinned {source.ref} at {short(commit)}")
        added += 1
    for name in load_lock(config.lock_file, missing_ok=True).stale(config):
        out.say(f"{name}: pinned in the lock file but not configured (remove its entry)")
    if added:
        out.say(f"wrote {config.lock_file.name}")
    return EXIT_OK


def cmd_update(args: argparse.Namespace, out: Out) -> int:
    config = read_config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    markdown = out
    moves: list[tuple[SourceConfig, str | None, str, str]] = []  # for --format markdown
    if args.format == "markdown":  # the Markdown block alone on stdout, the report on stderr
        out = Out(out.err, out.err)
    progress = progress_to(out)
    for source in selected(config, args.names):
        ref = args.ref or source.ref
        old_entry = lock.entries.get(source.name)
        if old_entry is not None and not args.ref and old_entry.ref \
                and old_entry.ref != source.ref:
            out.say(f"{source.name}: the lock follows {old_entry.ref}, the config says "
                    f"{source.ref}: following the config (pass --ref {old_entry.ref} to stay "
                    "on it)")
        new = resolve_ref(source.url.fetch_url, ref, display=source.display)
        repo_changed = old_entry is not None and old_entry.repo != source.repo
        if repo_changed and old_entry is not None:
            out.say(f"{source.name}: the config's repo changed ({old_entry.repo} → "
                    f"{source.repo}): pinning the configured repo")
        if old_entry is not None and old_entry.commit == new and not repo_changed:
            if old_entry.ref == ref:
                out.say(f"{source.name}: already at {short(new)} ({ref})")
                continue
            out.say(f"{source.name}: already at {short(new)}, now following {ref} "
                    f"(was {old_entry.ref or 'not recorded'})")
        elif old_entry is None:
            new_section = fetch_pin(config, source, new, progress=progress)
            moves.append((source, None, new, ref))
            out.say(f"{source.name}: new pin {short(new)} ({ref}), "
                    f"{len(new_section.pages)} pages")
        elif old_entry.commit != new:
            new_section = fetch_pin(config, source, new, progress=progress)
            # a changed repo: the old pin is not in it, so the review treats this as a first pin
            moves.append((source, None if repo_changed else old_entry.commit, new, ref))
            out.say(f"{source.name}: {short(old_entry.commit)} → {short(new)} "
                    f"({source.display}, {ref})")
            try:
                old_section = fetch_pin(config, source, old_entry.commit, progress=progress)
            except MilesDocsError as exc:
                # the update moves off a pin that cannot be read (not in the configured repo,
                # or broken: invalid front matter...): it is what the move is for
                moves[-1] = (source, None, new, ref)  # reviewed as a first pin
                why = "is not in the configured repo" if repo_changed else "cannot be read"
                out.say(f"  (no changelog: the old pin {why}: {exc.message})")
            else:
                log = changelog(old_section.checkout, new_section.checkout)
                add_nav_changes(log, section_nav(config, old_section),
                                section_nav(config, new_section))
                for line in format_changelog(log):
                    out.say(line)
        if args.dry_run:
            out.say("  (dry run: the lock file was not changed)")
            continue
        # the ref that was resolved: `status` and the next `update` compare with it
        set_entry(config.lock_file, LockEntry(source.name, source.repo, ref, new))
        out.say(f"  {config.lock_file.name}: {source.name} pinned at {new}"
                + (f" ({source.repo})" if repo_changed else ""))
    if args.format == "markdown":
        from .review import format_markdown, review

        engine = Engine(host_pages(config)[0])
        markdown.say(format_markdown([review(config, *move, engine=engine) for move in moves]))
    return EXIT_OK


# -- status ------------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace, out: Out) -> int:
    config = read_config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    cache = Cache.at(config.cache_dir, keep=config.cache)  # where the builds look, too
    for source in selected(config, args.names):
        out.say(f"{source.name}  {source.display}  (docs: {source.docs_dir}/, mount: "
                f"{source.mount}/)")
        entry = lock.entries.get(source.name)
        if entry is None:
            out.say("  pin     none (run `miles-docs lock`)")
        elif entry.repo != source.repo:
            out.say(f"  pin     {short(entry.commit)} of {entry.repo}, but the config says "
                    f"{source.repo}: MISMATCH, builds stop (run `miles-docs update "
                    f"{source.name}` to pin the configured repo)")
        else:
            ref = entry.ref or source.ref
            found = cache.load(source.url, entry.commit, source.docs_dir)
            date = found[1].commit_date[:10] if found else None
            state = "cached" if found else "not cached"
            out.say(f"  pin     {short(entry.commit)}" + (f"  {date}" if date else "")
                    + f"  ({state})")
            if ref != source.ref:
                out.say(f"  ref     the pin follows {ref}, the config says {source.ref} (the "
                        f"next `update` follows the config; `update --ref {ref}` stays)")
            if config.offline and not source.url.is_local:
                out.say(f"  ref     {ref}: not checked (offline)")
            else:
                out.say("  ref     " + _remote_status(config, source, entry.commit, cache, ref))
        if source.local is not None:
            how = (f"{local_env_var(source.name)}" if os.environ.get(local_env_var(source.name))
                   else "`local:`")
            out.say(f"  local   ACTIVE: builds use the working copy {source.local} ({how})")
        else:
            out.say("  local   not active")
    return EXIT_OK


def _remote_status(config: Config, source: SourceConfig, pin: str, cache: Cache,
                   ref: str) -> str:
    try:
        cache.root.mkdir(parents=True, exist_ok=True)
        tmp_base = cache.root / "tmp"
        tmp_base.mkdir(exist_ok=True)
        base: str | None = str(tmp_base)
    except OSError:
        base = None
    with tempfile.TemporaryDirectory(prefix="status-", dir=base) as tmp:
        try:
            tip, ahead, changes = history(Path(tmp) / "repo", source.url.fetch_url, pin,
                                          ref, source.docs_dir, display=source.display,
                                          also=mkdocs_config_paths(source.docs_dir))
        except GitError as exc:
            return f"{ref}: remote not reachable ({exc.message})"
    if ahead == 0 and tip == pin:
        return f"{ref}: up to date"
    prefix = docs_prefix(source.docs_dir)
    pages = {"A": 0, "M": 0, "D": 0}
    assets = {"A": 0, "M": 0, "D": 0}
    listed = []
    for status, path in changes:
        if not path.startswith(prefix):
            continue  # the upstream's mkdocs.yml: only its nav matters (below)
        rel = path.removeprefix(prefix)
        bucket = pages if is_page(rel) else assets
        bucket[status] = bucket.get(status, 0) + 1
        if is_page(rel):
            listed.append(f"\n          {status} {rel}")
    text = (f"{ref}: {ahead} commit{'s' if ahead != 1 else ''} ahead of the pin "
            f"(at {short(tip)}); pages: {pages['A']} added, {pages['M']} changed, "
            f"{pages['D']} removed; assets: {assets['A']} added, {assets['M']} changed, "
            f"{assets['D']} removed")
    return text + "".join(listed) + _nav_status(config, source, pin, tip, changes)


def _nav_status(config: Config, source: SourceConfig, pin: str, tip: str,
                changes: list[tuple[str, str]]) -> str:
    """Nav changes between the pin and the tip, when a navigation file changed (it takes a
    fetch of the tip into the cache, as `update` would)."""
    prefix = docs_prefix(source.docs_dir)
    nav_files = {prefix + "docs.json", prefix + "mint.json"} | set(
        mkdocs_config_paths(source.docs_dir))
    if not any(path in nav_files or path.endswith(".json") for _status, path in changes):
        return ""
    try:
        old, new = fetch_pin(config, source, pin), fetch_pin(config, source, tip)
    except MilesDocsError as exc:
        return f"\n          nav: not compared ({exc})"
    log = changelog(old.checkout, new.checkout)
    add_nav_changes(log, section_nav(config, old), section_nav(config, new))
    lines = [f"moved {p}: {a or 'top'} → {b or 'top'}" for p, a, b in log.nav_moved]
    lines += [f"left the nav: {p}" for p in log.nav_left]
    lines += [f"new in the nav: {p}" for p in log.nav_entered]
    return "".join(f"\n          nav: {line}" for line in lines)


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("lock", parents=[common], help="pin sources that have no pin yet",
                       description="Add lock entries for sources without one (resolving their "
                       "`ref`); existing pins are kept as they are.")
    s.set_defaults(func=cmd_lock)

    s = sub.add_parser("update", parents=[common], help="move pins and show the docs changelog",
                       description="Resolve `ref` (or --ref) to a commit, rewrite only that "
                       "pin in the lock file, and print what changed in the docs.")
    s.add_argument("names", nargs="*", metavar="NAME", help="sources to update (default: all)")
    s.add_argument("--ref", help="branch, tag or commit to pin instead of the configured ref")
    s.add_argument("--dry-run", action="store_true", help="print the changelog, write nothing")
    s.add_argument("--format", choices=("text", "markdown"), default="text",
                   help="markdown: the changelog (pages, nav, new warnings) as a block for a "
                   "pull request body, alone on stdout")
    s.set_defaults(func=cmd_update)

    s = sub.add_parser("status", parents=[common], help="pins, cache, drift, local overrides",
                       description="Per source: the pinned commit, whether it is cached, how "
                       "far `ref` has moved since, and whether a local override is active.")
    s.add_argument("names", nargs="*", metavar="NAME")
    s.set_defaults(func=cmd_status)
