"""``check``: what a build would report, with no engine."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..core.config import Config
from ..core.engine import Engine
from ..core.errors import Diagnostic, LockError, Severity
from ..core.hostpages import host_pages as find_host_pages
from ..core.pipeline import build
from ..core.section.generated import is_generated
from ..core.section.mounts import collisions
from .common import EXIT_FINDINGS, EXIT_OK, Out, progress_to, read_config


def host_pages(config: Config) -> tuple[set[str] | None, list[Diagnostic]]:
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
    for source in config.sources:
        folder = docs / source.mount
        if folder.exists() and not is_generated(folder):
            findings.append(Diagnostic(
                source.name, str(config.config_file or "config"), None, "mount",
                f"mount {source.mount!r} collides with the host folder {folder}",
                Severity.ERROR))
    pages = find_host_pages(docs, suffixes, [s.mount for s in config.sources])
    findings += [Diagnostic(source.name, str(config.config_file or "config"), None, "mount",
                            error.message, Severity.ERROR)
                 for source, error in collisions(config, pages)]
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
    config = read_config(args)
    findings: list[Diagnostic] = []
    pages, clashes = host_pages(config)
    findings += clashes
    sections: dict[str, Any] = {}
    engine = Engine(pages)
    depth = _conf_int(config.base_dir / "conf.py", "myst_heading_anchors")
    if depth:  # a Sphinx host's depth: deeper headings have no anchor there
        engine.heading_depth, engine.heading_depth_setting = depth, "myst_heading_anchors"
    try:
        result = build(config, engine, progress=progress_to(out), use_scan_cache=True)
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


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("check", parents=[common], help="report what a build would, no engine",
                       description="Everything a build would report, without an engine: "
                       "unresolved links and anchors, mount collisions, lock problems. Exit "
                       "0 when clean, 1 with findings, 2 on usage or config errors.")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--unlisted", action="store_true",
                   help="also report pages the configured nav does not list")
    s.add_argument("--all", action="store_true", help="report every finding, info included")
    s.set_defaults(func=cmd_check)
