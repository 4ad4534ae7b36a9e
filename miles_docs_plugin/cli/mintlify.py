"""``mintlify build`` / ``mintlify dev``: a Mintlify host's site with its sections, or the
sections kept in sync beside the host's pages while ``mint dev`` runs."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ..core.config import CONFIG_FILE, Config, load_config
from ..core.errors import MilesDocsError, Severity
from ..core.pipeline import BuildResult
from ..mintlify_host import build_site, dev_sync, ref_hint
from .common import Out, UsageError, file_stamps, progress_to


def _load(args: argparse.Namespace, docs: Path) -> Config:
    path = Path(args.file) if args.file else docs / CONFIG_FILE
    if not path.exists():
        raise UsageError(f"no {path.name} in {path.parent} (pass -f PATH, or create one next "
                         "to docs.json)")
    return load_config(path)


def _report(result: BuildResult, out: Out) -> int:
    count = 0
    for d in result.diagnostics:
        if d.severity is Severity.INFO:
            continue
        count += 1
        where = f"{d.path}:{d.line}" if d.line else d.path
        out.note(f"{d.severity.value}: {d.source}: {where}: {d.message} [{d.code}]")
    return count


def cmd_mintlify(args: argparse.Namespace, out: Out) -> int:
    docs = Path(args.docs)
    config = _load(args, docs)

    progress = progress_to(out)

    if args.action == "build":
        if not args.out:
                raise UsageError("mintlify build needs --out OUT (the folder to deploy)")
        result = build_site(config, docs, Path(args.out), progress)
        _report(result, out)
        pages = sum(len(s.pages) for s in result.sections.values())
        out.say(f"wrote {args.out}: the host docs, {pages} injected pages and docs.json")
        return 0
    return dev(config, docs, out, once=args.once, interval=args.interval)


def _watched(config: Config, docs: Path) -> list[Path]:
    paths = [p for p in (config.config_file, config.lock_file) if p is not None]
    paths.append(docs / "docs.json")
    for source in config.sources:
        if source.local is not None:
            paths.append(source.local / source.docs_dir)
    return paths


def _stamp(paths: list[Path]) -> dict[Path, tuple[int, int]]:
    return file_stamps(paths, lambda root: sorted(root.rglob("*")))


def dev(config: Config, docs: Path, out: Out, *, once: bool = False,
        interval: float = 0.2) -> int:
    """Sync once, say how to run ``mint dev``, then keep the folder in sync until interrupted."""
    # stamped before the first sync: an edit made while it runs is synced by the next poll
    watched = [] if once else _watched(config, docs)
    stamp = _stamp(watched)
    result, written = dev_sync(config, docs)
    _report(result, out)
    out.say(f"miles-docs: wrote {len(written)} files into "
            + ", ".join(f"{docs}/{s.mount}/" for s in config.sources))
    for hint in ref_hint(config, docs):
        out.say(hint)
    out.say(f"run beside it:  cd {docs} && npx mint@4.2.941 dev")
    out.out.flush()
    if once:
        return 0
    while True:
        time.sleep(interval)
        now = _stamp(watched)
        if now == stamp:
            continue
        stamp = now
        try:
            if config.config_file is not None:
                config = load_config(config.config_file)
                watched = _watched(config, docs)  # `local:` may have moved
            result, written = dev_sync(config, docs)
            _report(result, out)
            out.say(f"miles-docs: synced, {len(written)} files changed")
        except (MilesDocsError, OSError) as exc:  # e.g. a file saved half-way: next change
            out.note(f"error: {exc}")
        out.out.flush()


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("mintlify", parents=[common],
                       help="build a Mintlify site with its sections, or preview them",
                       description="`build --out OUT`: the host's docs root, the sections under "
                       "OUT/<mount>/ and docs.json with their navigation (what CI deploys). "
                       "`dev`: the sections written into <docs>/<mount>/ and kept in sync, for "
                       "`mint dev`.")
    s.add_argument("action", choices=("build", "dev"))
    s.add_argument("--docs", default=".", metavar="DIR",
                   help="the Mintlify docs root, with docs.json (default: .)")
    s.add_argument("--out", metavar="OUT", help="build: the folder to write the site to")
    s.add_argument("--once", action="store_true", help="dev: sync once and exit")
    s.add_argument("--interval", type=float, default=0.2, help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_mintlify)
