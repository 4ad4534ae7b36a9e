"""``init``: a commented ``miles-docs.yml`` next to the site's config, then its pin."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from ..core.config import CONFIG_FILE
from .common import EXIT_OK, Out, UsageError
from .pins import cmd_lock

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

    from ..core.config import parse_config

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


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser("init", parents=[common], help="write a commented miles-docs.yml and lock",
                       description="Write a commented miles-docs.yml next to mkdocs.yml or "
                       "conf.py, then pin the source in miles-docs.lock.")
    s.add_argument("--repo", help="git URL of the upstream repository (asked when missing)")
    s.add_argument("--name", help="source name and URL prefix (default: from the repo name)")
    s.add_argument("--ref", default="main", help="branch or tag to follow (default: main)")
    s.add_argument("--no-lock", action="store_true", help="do not resolve and pin the ref now")
    s.add_argument("--force", action="store_true", help="overwrite an existing config")
    s.set_defaults(func=cmd_init)
