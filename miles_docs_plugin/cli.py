"""The ``miles-docs`` command: init, lock, update, status, check, cache, serve.

Every command reads ``miles-docs.yml`` from the current folder (or ``-f PATH``). User errors are
one line on stderr and exit code 2; ``check`` exits 1 when it has findings.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .builtin.git_source import mkdocs_config_paths
from .core.changes import add_nav_changes, changelog, format_changelog
from .core.collect.collect import is_page
from .core.config import (
    CONFIG_FILE,
    Config,
    SourceConfig,
    docs_prefix,
    load_config,
    local_env_var,
)
from .core.engine import Engine
from .core.errors import Diagnostic, LockError, MilesDocsError, Severity
from .core.pipeline import build, fetch_pin, section_nav
from .core.section.mounts import collision_error, mount_collisions
from .core.source.cache import Cache, Manifest
from .core.source.git import GitError, history, resolve_ref
from .core.source.lock import LockEntry, load_lock, set_entry

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, as everywhere else
        self.print_usage(sys.stderr)
        raise UsageError(message)


@dataclass
class Out:
    out: TextIO
    err: TextIO

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def note(self, text: str) -> None:
        print(f"miles-docs: {text}", file=self.err, flush=True)


def _progress(out: Out) -> Callable[[str], None]:
    return lambda message: out.note(message + " …")


def _config(args: argparse.Namespace) -> Config:
    path = Path(args.file) if args.file else Path.cwd() / CONFIG_FILE
    if not path.exists():
        raise UsageError(f"no {path.name} in {path.parent} (pass -f PATH, or create one with "
                         "`miles-docs init`)")
    return load_config(path)


def _select(config: Config, names: Sequence[str]) -> list[SourceConfig]:
    if not names:
        return list(config.sources)
    return [config.source(name) for name in names]


def _short(commit: str | None) -> str:
    return commit[:7] if commit else "-------"


# -- lock / update ---------------------------------------------------------------------------


def cmd_lock(args: argparse.Namespace, out: Out) -> int:
    config = _config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    added = 0
    for source in config.sources:
        entry = lock.entries.get(source.name)
        if entry is not None and entry.repo == source.repo:
            out.say(f"{source.name}: pinned at {_short(entry.commit)} (kept)")
            continue
        commit = resolve_ref(source.url.fetch_url, source.ref, display=source.display)
        set_entry(config.lock_file, LockEntry(source.name, source.repo, source.ref, commit))
        if entry is not None:  # the pin was for another repository: it pins nothing now
            out.say(f"{source.name}: the config's repo changed ({entry.repo} → {source.repo});"
                    f" pinned {source.ref} of the configured repo at {_short(commit)}")
        else:
            out.say(f"{source.name}: pinned {source.ref} at {_short(commit)}")
        added += 1
    for name in load_lock(config.lock_file, missing_ok=True).stale(config):
        out.say(f"{name}: pinned in the lock file but not configured (remove its entry)")
    if added:
        out.say(f"wrote {config.lock_file.name}")
    return EXIT_OK


def cmd_update(args: argparse.Namespace, out: Out) -> int:
    config = _config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    markdown = out
    moves: list[tuple[SourceConfig, str | None, str, str]] = []  # for --format markdown
    if args.format == "markdown":  # the Markdown block alone on stdout, the report on stderr
        out = Out(out.err, out.err)
    progress = _progress(out)
    for source in _select(config, args.names):
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
                out.say(f"{source.name}: already at {_short(new)} ({ref})")
                continue
            out.say(f"{source.name}: already at {_short(new)}, now following {ref} "
                    f"(was {old_entry.ref or 'not recorded'})")
        elif old_entry is None:
            new_section = fetch_pin(config, source, new, progress=progress)
            moves.append((source, None, new, ref))
            out.say(f"{source.name}: new pin {_short(new)} ({ref}), "
                    f"{len(new_section.pages)} pages")
        elif old_entry.commit != new:
            new_section = fetch_pin(config, source, new, progress=progress)
            # a changed repo: the old pin is not in it, so the review treats this as a first pin
            moves.append((source, None if repo_changed else old_entry.commit, new, ref))
            out.say(f"{source.name}: {_short(old_entry.commit)} → {_short(new)} "
                    f"({source.display}, {ref})")
            try:
                old_section = fetch_pin(config, source, old_entry.commit, progress=progress)
            except MilesDocsError as exc:
                if not repo_changed:
                    raise
                out.say(f"  (no changelog: the old pin is not in the configured repo: "
                        f"{exc.message})")
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
        from .core.review import format_markdown, review

        engine = Engine(_host_pages(config)[0])
        markdown.say(format_markdown([review(config, *move, engine=engine) for move in moves]))
    return EXIT_OK


# -- status ------------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace, out: Out) -> int:
    config = _config(args)
    lock = load_lock(config.lock_file, missing_ok=True)
    cache = Cache.at(config.cache_dir)
    for source in _select(config, args.names):
        out.say(f"{source.name}  {source.display}  (docs: {source.docs_dir}/, mount: "
                f"{source.mount}/)")
        entry = lock.entries.get(source.name)
        if entry is None:
            out.say("  pin     none (run `miles-docs lock`)")
        elif entry.repo != source.repo:
            out.say(f"  pin     {_short(entry.commit)} of {entry.repo}, but the config says "
                    f"{source.repo}: MISMATCH, builds stop (run `miles-docs update "
                    f"{source.name}` to pin the configured repo)")
        else:
            ref = entry.ref or source.ref
            found = cache.load(source.url, entry.commit, source.docs_dir)
            date = found[1].commit_date[:10] if found else None
            state = "cached" if found else "not cached"
            out.say(f"  pin     {_short(entry.commit)}" + (f"  {date}" if date else "")
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
            f"(at {_short(tip)}); pages: {pages['A']} added, {pages['M']} changed, "
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


# -- check -------------------------------------------------------------------------------------


def _host_pages(config: Config) -> tuple[set[str] | None, list[Diagnostic]]:
    """The host's own pages (for host links) and mount collisions, from the host's layout."""
    base = config.base_dir
    findings: list[Diagnostic] = []
    docs: Path | None = None
    suffixes: tuple[str, ...] = (".md",)
    if (base / "mkdocs.yml").exists():
        docs = base / str(_mkdocs_yml(base / "mkdocs.yml").get("docs_dir") or "docs")
    elif (base / "conf.py").exists():
        docs, suffixes = base, (".md", ".rst")
    if docs is None or not docs.is_dir():
        return None, findings
    pages: set[str] = set()
    for source in config.sources:
        folder = docs / source.mount
        if folder.exists() and not (folder / ".miles-docs-generated").exists():
            findings.append(Diagnostic(
                source.name, str(config.config_file or "config"), None, "mount",
                f"mount {source.mount!r} collides with the host folder {folder}",
                Severity.ERROR))
    mounts = tuple(s.mount + "/" for s in config.sources)
    for path in docs.rglob("*"):
        rel = path.relative_to(docs).as_posix()
        if path.suffix in suffixes and not rel.startswith(("_build/", *mounts)):
            pages.add(rel)
    for source in config.sources:
        clash = mount_collisions(source.mount, pages)
        if clash:
            error = collision_error(source.name, source.mount, clash, "")
            findings.append(Diagnostic(source.name, str(config.config_file or "config"), None,
                                       "mount", error.message, Severity.ERROR))
    return pages, findings


def _mkdocs_yml(path: Path) -> dict[str, Any]:
    """``mkdocs.yml`` read safely, MkDocs' own tags (``!ENV``, ``!!python/name``) ignored."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def ignore(loader: Any, suffix: str, node: Any) -> None:
        return None

    Loader.add_multi_constructor("!", ignore)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", ignore)
    try:
        data = yaml.load(path.read_text("utf-8"), Loader=Loader)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _conf_int(conf: Path, name: str) -> int | None:
    """``name = <int>`` at the top level of a Sphinx ``conf.py``, read without running it."""
    import ast

    try:
        tree = ast.parse(conf.read_text("utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    value = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value.value if isinstance(node.value, ast.Constant) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cmd_check(args: argparse.Namespace, out: Out) -> int:
    config = _config(args)
    findings: list[Diagnostic] = []
    host_pages, collisions = _host_pages(config)
    findings += collisions
    sections: dict[str, Any] = {}
    engine = Engine(host_pages)
    depth = _conf_int(config.base_dir / "conf.py", "myst_heading_anchors")
    if depth:  # a Sphinx host's depth: deeper headings have no anchor there
        engine.heading_depth, engine.heading_depth_setting = depth, "myst_heading_anchors"
    try:
        result = build(config, engine, progress=_progress(out), use_scan_cache=True)
        findings += result.diagnostics
        for name, section in result.sections.items():
            sections[name] = {"commit": section.checkout.commit, "pages": len(section.pages),
                              "assets": len(section.assets), "local": section.checkout.local}
    except LockError as exc:
        findings.append(Diagnostic("*", exc.where or str(config.lock_file), None, "lock",
                                   exc.message + (f" ({exc.hint})" if exc.hint else ""),
                                   Severity.ERROR))
    shown = [d for d in findings if args.all or d.code != "unlisted" or args.unlisted]
    if args.format == "json":
        json.dump({"ok": not shown, "findings": [d.as_dict() for d in shown],
                   "sources": sections}, out.out, indent=2)
        out.say()
    else:
        for d in shown:
            out.say(f"{d.location}: [{d.code}] {d.message}  ({d.source})")
        summary = ", ".join(f"{name}: {s['pages']} pages, {s['assets']} assets"
                            for name, s in sections.items())
        out.say(f"{len(shown)} finding{'s' if len(shown) != 1 else ''}"
                + (f" ({summary})" if summary else ""))
    return EXIT_FINDINGS if shown else EXIT_OK


# -- cache -------------------------------------------------------------------------------------


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


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
        config = _config(args)
    except UsageError:
        config = None
    cache = Cache.at(config.cache_dir if config else None)
    if args.action == "list":
        out.say(f"cache: {cache.root}")
        total = 0
        for entry, manifest in cache.entries():
            size = _size(entry)
            total += size
            what = (f"{manifest.repo}@{_short(manifest.commit)} {manifest.docs_dir}/"
                    if isinstance(manifest, Manifest) else "(invalid entry)")
            out.say(f"  {what:<60} {size / 1e6:8.1f} MB  {entry.parent.name}/{entry.name}")
        leftovers = cache.leftovers()
        if leftovers:
            out.say("  left by killed fetches (`miles-docs cache prune` removes them):")
        for left in leftovers:
            total += left.size
            running = (f", git still running (pid {', '.join(map(str, left.pids))})"
                       if left.pids else "")
            out.say(f"  {'tmp/' + left.path.name + running:<60} {left.size / 1e6:8.1f} MB")
        out.say(f"  total {total / 1e6:.1f} MB")
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


# -- init --------------------------------------------------------------------------------------


INIT_TEMPLATE = """\
# miles-docs: sections of this site whose pages live in other git repositories.
# Each is injected at build time at the commit pinned in {lock} (run `miles-docs update`
# to move a pin). Every key is listed in the README's config reference.
sources:
  - name: {name}{name_pad}# the URL prefix (/{name}/...) and the lock key
    repo: {repo}
    ref: {ref}{ref_pad}# what `miles-docs update` follows; builds use the lock
    # docs_dir: docs               # the docs folder in that repository (`.`: its root)
    # title: {title}{title_pad}# the nav title of the section
    # nav: auto                    # the upstream's own nav (docs.json, mkdocs.yml), `tree`,
    #                              # or a list in MkDocs nav syntax, relative to docs_dir
# host_urls:                       # links to your own site become internal links
#   - https://example.org/docs
"""


def _pad(text: str, width: int) -> str:
    return " " * max(1, width - len(text))


def _default_name(repo: str) -> str:
    base = re.sub(r"\.git$", "", repo.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", base).strip("-").lower() or "docs"


def cmd_init(args: argparse.Namespace, out: Out) -> int:
    here = Path.cwd()
    if args.file:
        target = Path(args.file)
        engine = "mkdocs" if (target.parent / "mkdocs.yml").exists() else "sphinx"
    elif (here / "mkdocs.yml").exists():
        target, engine = here / CONFIG_FILE, "mkdocs"
    elif (here / "conf.py").exists():
        target, engine = here / CONFIG_FILE, "sphinx"
    elif (here / "docs" / "conf.py").exists():
        target, engine = here / "docs" / CONFIG_FILE, "sphinx"
    else:
        raise UsageError("no mkdocs.yml or conf.py here: run `miles-docs init` in the folder of "
                         "your site's mkdocs.yml or conf.py")
    if target.exists() and not args.force:
        raise UsageError(f"{target} exists already (pass --force to overwrite it)")
    repo = args.repo
    if not repo:
        if not sys.stdin.isatty():
            raise UsageError("pass --repo URL (there is no terminal to ask)")
        repo = input("Upstream repository URL (git): ").strip()
        if not repo:
            raise UsageError("a repository URL is needed")
    name = args.name or _default_name(repo)
    title = name.replace("-", " ").replace("_", " ").title()
    text = INIT_TEMPLATE.format(
        name=name, name_pad=_pad(name, 25), repo=repo, ref=args.ref, ref_pad=_pad(args.ref, 26),
        title=title, title_pad=_pad(title, 22), lock="miles-docs.lock")
    import yaml

    from .core.config import parse_config

    parse_config(yaml.safe_load(text), base_dir=target.parent, config_file=target)  # validate
    target.write_text(text, encoding="utf-8")
    out.say(f"wrote {target}")
    if not args.no_lock:
        args.file = str(target)
        cmd_lock(args, out)
    site_file = target.parent / ("mkdocs.yml" if engine == "mkdocs" else "conf.py")
    already = site_file.exists() and (
        "miles-docs" in site_file.read_text("utf-8") if engine == "mkdocs"
        else "miles_docs_plugin.sphinx_ext" in site_file.read_text("utf-8"))
    if already:
        out.say(f"next: {site_file.name} already uses miles-docs: build the site")
    elif engine == "mkdocs":
        out.say("next: add `- miles-docs` under `plugins:` in mkdocs.yml, then `mkdocs build`")
    else:
        out.say('next: add "miles_docs_plugin.sphinx_ext" to `extensions` in conf.py '
                '(with "myst_parser"), then `sphinx-build`')
    return EXIT_OK


# -- serve (Sphinx preview) --------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace, out: Out) -> int:
    from .serve import serve_sphinx

    return serve_sphinx(Path(args.srcdir), Path(args.outdir) if args.outdir else None,
                        host=args.host, port=args.port, out=out, once=args.once)


# -- main --------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="miles-docs", description="Inject docs sections from other git "
                "repositories, pinned to exact commits (MkDocs, Sphinx).")
    p.add_argument("--version", action="version", version=f"miles-docs {__version__}")
    common = _Parser(add_help=False)
    common.add_argument("-f", "--file", metavar="PATH",
                        help=f"config file (default: ./{CONFIG_FILE})")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("init", parents=[common], help="write a commented miles-docs.yml and lock",
                       description="Write a commented miles-docs.yml next to mkdocs.yml or "
                       "conf.py, then pin the source in miles-docs.lock.")
    s.add_argument("--repo", help="git URL of the upstream repository (asked when missing)")
    s.add_argument("--name", help="source name and URL prefix (default: from the repo name)")
    s.add_argument("--ref", default="main", help="branch or tag to follow (default: main)")
    s.add_argument("--no-lock", action="store_true", help="do not resolve and pin the ref now")
    s.add_argument("--force", action="store_true", help="overwrite an existing config")
    s.set_defaults(func=cmd_init)

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

    s = sub.add_parser("check", parents=[common], help="report what a build would, no engine",
                       description="Everything a build would report, without an engine: "
                       "unresolved links and anchors, mount collisions, lock problems. Exit "
                       "0 when clean, 1 with findings, 2 on usage or config errors.")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--unlisted", action="store_true",
                   help="also report pages the configured nav does not list")
    s.add_argument("--all", action="store_true", help="report every finding, info included")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("cache", parents=[common], help="list or prune cached checkouts",
                       description="`list` shows the cached checkouts; `prune` removes those "
                       "the lock file does not pin (`--all`: every one).")
    s.add_argument("action", choices=("list", "prune"))
    s.add_argument("--all", action="store_true", help="with prune: remove every entry")
    s.set_defaults(func=cmd_cache)

    s = sub.add_parser("serve", help="preview a Sphinx site, rebuilt on every edit",
                       description="Build a Sphinx site, serve it on HOST:PORT and rebuild it "
                       "(incrementally) when its sources, the config, the lock or a local "
                       "working copy change. For MkDocs use `mkdocs serve`.")
    s.add_argument("srcdir", nargs="?", default=".", help="Sphinx source folder (with conf.py)")
    s.add_argument("outdir", nargs="?", help="output folder (default: SRCDIR/_build/html)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_serve)

    from .mintlify_host import add_parser as add_mintlify

    add_mintlify(sub, common)
    return p


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    out = Out(stdout or sys.stdout, stderr or sys.stderr)
    try:
        with contextlib.redirect_stdout(out.out), contextlib.redirect_stderr(out.err):
            args = parser().parse_args(argv)  # --help and usage go to our streams
        return int(args.func(args, out))
    except UsageError as exc:
        out.note(f"error: {exc}")
        return EXIT_USAGE
    except MilesDocsError as exc:
        out.note(f"error: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        out.note("interrupted")
        return 130
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0)


if __name__ == "__main__":
    sys.exit(main())
