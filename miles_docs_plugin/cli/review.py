"""A pin move as a Markdown block for a pull request body (``miles-docs update --format markdown``).

For each moved source: the pages added, removed and changed (with line counts), the assets,
how the section's navigation changed, and the warnings the new pin brings that the old one did
not have. Both pins are built by the same pipeline a build uses (from the cache when they are
there), so the warnings are the ones ``mkdocs build`` / ``sphinx-build`` would print.

Everything that comes from upstream (paths, titles, messages) is escaped: the block is pasted
into a pull request, where Markdown and HTML from an untrusted repository must stay text.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..core.config import Config, SourceConfig
from ..core.engine import Engine
from ..core.errors import Diagnostic
from ..core.model import NavGroup, NavItem, NavLink, NavPage, Page, Section
from ..core.pipeline import build
from ..core.records import replace
from ..core.source.lock import LockEntry, set_entry
from ..core.urls import forge_of
from .changes import Changelog, changelog


@dataclass
class NavChanges:
    added: list[str] = field(default_factory=list)  #: "Group / Title (`path`)"
    removed: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)  #: "`path`: old place → new place"


@dataclass
class Review:
    source: SourceConfig
    old: str | None  #: the previous pin, None for a first pin
    new: str
    ref: str
    pages: int  #: pages at the new pin
    log: Changelog | None  #: None for a first pin
    nav: NavChanges
    new_warnings: list[Diagnostic]
    fixed_warnings: int


def _pinned_section(config: Config, source: SourceConfig, commit: str, engine: Engine,
                    tmp: Path) -> Section:
    """The source built at ``commit`` by the build pipeline, through a throwaway lock file."""
    lock = tmp / f"{commit}.lock"
    set_entry(lock, LockEntry(source.name, source.repo, source.ref, commit))
    pinned = replace(source, local=None)
    one = replace(config, sources=(pinned,), lock_file=lock)
    return build(one, engine, use_scan_cache=False).sections[source.name]


_H1 = re.compile(r"^# +(.+?)(?: +#+)? *$", re.MULTILINE)


def _title(page: Page) -> str | None:
    """The title the engines show: the nav's, the front matter's, else the first heading."""
    meta = page.meta.get("title") if isinstance(page.meta, dict) else None
    if page.title or isinstance(meta, str):
        return page.title or str(meta)
    found = _H1.search(page.text, page.body_start)
    return found.group(1) if found else None


def _places(section: Section) -> dict[str, str]:
    """Page path -> where the nav shows it ("Group / Title")."""
    found: dict[str, str] = {}

    def walk(items: list[NavItem], trail: tuple[str, ...]) -> None:
        for item in items:
            if isinstance(item, NavPage):
                page = section.pages.get(item.path)
                title = item.title or (_title(page) if page else None) or item.path
                found.setdefault(item.path, " / ".join((*trail, title)))
            elif isinstance(item, NavGroup):
                walk(item.children, (*trail, item.title))
            elif isinstance(item, NavLink):
                continue

    walk(section.nav, (section.source.title,))
    return found


def nav_changes(old: Section | None, new: Section) -> NavChanges:
    before = _places(old) if old is not None else {}
    after = _places(new)
    changes = NavChanges()
    for path in sorted(set(before) | set(after)):
        if path not in before:
            changes.added.append(f"{escape(after[path])} ({code(path)})")
        elif path not in after:
            changes.removed.append(f"{escape(before[path])} ({code(path)})")
        elif before[path] != after[path]:
            changes.moved.append(f"{code(path)}: {escape(before[path])} → "
                                 f"{escape(after[path])}")
    return changes


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return d.code, d.path, d.message  # not the line: an edit above a finding moves it


def review(config: Config, source: SourceConfig, old: str | None, new: str, ref: str,
           engine: Engine) -> Review:
    with tempfile.TemporaryDirectory(prefix="miles-docs-review-") as tmp:
        after = _pinned_section(config, source, new, engine, Path(tmp))
        before = (_pinned_section(config, source, old, engine, Path(tmp))
                  if old is not None else None)
    old_keys = {_key(d) for d in before.diagnostics} if before is not None else set()
    new_keys = {_key(d) for d in after.diagnostics}
    return Review(
        source=source, old=old, new=new, ref=ref, pages=len(after.pages),
        log=changelog(before.checkout, after.checkout) if before is not None else None,
        nav=nav_changes(before, after),
        new_warnings=[d for d in after.diagnostics if _key(d) not in old_keys],
        fixed_warnings=len(old_keys - new_keys))


# -- Markdown ----------------------------------------------------------------------------------

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|~])")


def escape(text: str) -> str:
    """Text that GitHub's Markdown shows as written (no links, no HTML, no table breaks)."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def code(text: str) -> str:
    """A code span holding ``text`` verbatim, whatever backticks it contains."""
    text = " ".join(text.replace("|", "\\|").split())
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _compare_url(r: Review) -> str | None:
    web = r.source.web_url
    if not web or r.old is None:
        return None
    base = web.rstrip("/")
    if forge_of(web) == "gitlab":
        return f"{base}/-/compare/{r.old}...{r.new}"
    if forge_of(web) == "github":
        return f"{base}/compare/{r.old}...{r.new}"
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def format_markdown(reviews: list[Review]) -> str:
    """One Markdown block for every moved source, ready for a pull request body."""
    lines = ["## Docs update (miles-docs)", ""]
    if not reviews:
        return "\n".join([*lines, "No pin moved: every source is at its `ref` already.", ""])
    for r in reviews:
        old = f"`{r.old[:7]}`" if r.old else "(no pin)"
        lines += [f"### {escape(r.source.title)} (`{escape(r.source.name)}`): {old} → "
                  f"`{r.new[:7]}`", ""]
        repo = r.source.web_url or r.source.display
        compare = _compare_url(r)
        lines.append(f"{escape(repo)}, {code(r.ref)} at `{r.new}`"
                     + (f" ([compare]({compare}))" if compare else "") + f"; {r.pages} pages.")
        lines.append("")
        log = r.log
        if log is None:
            lines += ["First pin of this source: every page is new.", ""]
        else:
            rows = ([("added", c.path, f"+{c.added}") for c in log.pages_added]
                    + [("removed", c.path, f"-{c.removed}") for c in log.pages_removed]
                    + [("changed", c.path, f"+{c.added} -{c.removed}")
                       for c in log.pages_changed])
            added = sum(c.added for c in log.pages_added + log.pages_changed)
            removed = sum(c.removed for c in log.pages_removed + log.pages_changed)
            lines.append(f"**Pages:** {len(log.pages_added)} added, {len(log.pages_removed)} "
                         f"removed, {len(log.pages_changed)} changed (+{added} -{removed} lines)")
            lines.append("")
            if rows:
                lines += ["| page | change | lines |", "| --- | --- | --- |"]
                lines += [f"| {code(path)} | {what} | {count} |" for what, path, count in rows]
                lines.append("")
            assets = ([f"added {code(p)}" for p in log.assets_added]
                      + [f"removed {code(p)}" for p in log.assets_removed]
                      + [f"changed {code(p)}" for p in log.assets_changed])
            if assets:
                lines += [f"**Assets:** {len(log.assets_added)} added, "
                          f"{len(log.assets_removed)} removed, {len(log.assets_changed)} "
                          "changed", ""]
                lines += [f"- {a}" for a in assets] + [""]
        nav = r.nav
        if r.log is not None:
            if nav.added or nav.removed or nav.moved:
                lines += ["**Navigation:**", ""]
                lines += [f"- added: {a}" for a in nav.added]
                lines += [f"- removed: {a}" for a in nav.removed]
                lines += [f"- moved: {a}" for a in nav.moved]
                lines.append("")
            else:
                lines += ["**Navigation:** unchanged.", ""]
        if r.new_warnings:
            lines += [f"**New warnings ({len(r.new_warnings)}):**", ""]
            lines += [f"- {code(d.location)} \\[{escape(d.code)}\\] {escape(d.message)}"
                      for d in r.new_warnings]
            lines.append("")
        else:
            lines += ["**New warnings:** none.", ""]
        if r.fixed_warnings:
            lines += [f"**Fixed:** {_plural(r.fixed_warnings, 'warning')} of the old pin.", ""]
    return "\n".join(lines)
