"""The lock file ``miles-docs.lock``: the exact commit each source is built from.

Builds read it and never write it. ``miles-docs lock`` adds missing entries and
``miles-docs update`` moves one pin, rewriting only that entry's lines so the rest of the file
(comments, order, other pins) stays byte for byte what the user committed.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..config import Config, SourceConfig, load_yaml_file
from ..errors import ConfigError, LockError
from ..files import atomic_write
from ..records import FrozenRecord

LOCK_VERSION = 1
SHA_RE = re.compile(r"^[0-9a-f]{40}$")


class LockEntry(FrozenRecord):
    """One source's pin in the lock file."""

    __slots__ = _fields = ("name", "repo", "ref", "commit")
    name: str
    repo: str
    ref: str
    commit: str

    def __init__(self, name: str, repo: str, ref: str, commit: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "repo", repo)
        object.__setattr__(self, "ref", ref)
        object.__setattr__(self, "commit", commit)


class Lock(FrozenRecord):
    """The lock file: every source's pin."""

    __slots__ = _fields = ("path", "entries")
    path: Path
    entries: dict[str, LockEntry]

    def __init__(self, path: Path, entries: dict[str, LockEntry]) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "entries", entries)

    def stale(self, config: Config) -> list[str]:
        """Entries for sources that are no longer configured."""
        names = {s.name for s in config.sources}
        return sorted(n for n in self.entries if n not in names)


def _lock_hint(name: str | None = None) -> str:
    target = f" {name}" if name else ""
    return f"run `miles-docs lock` (or `miles-docs update{target}`) and commit the lock file"


def load_lock(path: Path, *, missing_ok: bool = False) -> Lock:
    if not path.exists():
        if missing_ok:
            return Lock(path, {})
        raise LockError("lock file not found", where=str(path), hint=_lock_hint())
    try:
        data = load_yaml_file(path, "lock file", strings=True)
    except ConfigError as exc:
        raise LockError(exc.message, where=exc.where, hint=exc.hint) from None
    if data is None or data == "":
        data = {"version": str(LOCK_VERSION), "sources": {}}
    if not isinstance(data, dict) or not isinstance(data.get("sources") or {}, dict):
        raise LockError("the lock file must be a mapping with `version: 1` and `sources:`",
                        where=str(path), hint=_lock_hint())
    if data.get("version") != str(LOCK_VERSION):
        raise LockError(f"unsupported lock file version {data.get('version')!r}",
                        where=str(path), hint=f"this miles-docs writes version {LOCK_VERSION}")
    entries: dict[str, LockEntry] = {}
    for name, raw in (data.get("sources") or {}).items():
        where = f"{path}: sources.{name}"
        if not isinstance(raw, dict):
            raise LockError("entry must be a mapping with repo, ref and commit", where=where,
                            hint=_lock_hint(str(name)))
        commit = raw.get("commit")
        if not isinstance(commit, str) or not SHA_RE.match(commit):
            raise LockError(f"commit {commit!r} is not a full 40-hex commit id", where=where,
                            hint=f"pins are exact; {_lock_hint(str(name))}")
        repo = raw.get("repo")
        if not isinstance(repo, str) or not repo:
            raise LockError("entry has no `repo`", where=where, hint=_lock_hint(str(name)))
        entries[str(name)] = LockEntry(str(name), repo, str(raw.get("ref") or ""), commit)
    return Lock(path, entries)


def pin_for(lock: Lock, source: SourceConfig) -> LockEntry:
    """The lock entry of ``source``, checked against its config."""
    entry = lock.entries.get(source.name)
    if entry is None:
        raise LockError(f"no pin for source {source.name!r}", where=str(lock.path),
                        hint=_lock_hint(source.name))
    if entry.repo != source.repo:
        raise LockError(
            f"source {source.name!r} is pinned for repo {entry.repo!r} but the config says "
            f"{source.repo!r}", where=f"{lock.path}: sources.{source.name}.repo",
            hint=f"run `miles-docs update {source.name}` to pin the configured repo")
    return entry


def render_entry(entry: LockEntry) -> str:
    return (f"  {entry.name}:\n"
            f"    repo: {_yaml_scalar(entry.repo)}\n"
            f"    ref: {_yaml_scalar(entry.ref)}\n"
            f"    commit: {entry.commit}\n")


def _yaml_scalar(value: str) -> str:
    import yaml

    dumped: str = yaml.safe_dump(value, default_flow_style=True, width=10_000)
    return dumped.strip().removesuffix("...").strip()


def render_lock(entries: list[LockEntry]) -> str:
    body = "".join(render_entry(e) for e in entries)
    return (f"# Written by miles-docs; commit it. Builds use these exact commits.\n"
            f"version: {LOCK_VERSION}\nsources:\n{body}")


def write_lock(path: Path, entries: list[LockEntry]) -> None:
    atomic_write(path, render_lock(entries).encode("utf-8"), durable=True)


def set_entry(path: Path, entry: LockEntry) -> str:
    """Add or replace one entry in the lock file text, leaving every other byte unchanged.

    Returns the new text (also written to ``path``).
    """
    if not path.exists():
        text = render_lock([entry])
        atomic_write(path, text.encode("utf-8"), durable=True)
        return text
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = _find_entry(lines, entry.name)
    if start is None:
        if not text.endswith("\n") and text:
            text += "\n"
        if not re.search(r"(?m)^sources:\s*$", text):
            text += "sources:\n"
        text += render_entry(entry)
    else:
        end = start + 1
        while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
            end += 1
        block = lines[start:end]
        new_block = []
        keys = {"repo": _yaml_scalar(entry.repo), "ref": _yaml_scalar(entry.ref),
                "commit": entry.commit}
        for line in block:
            m = re.match(r"^(    )(repo|ref|commit):(\s*)(.*?)(\r?\n)?$", line)
            if m and keys.get(m.group(2)) is not None:
                old = m.group(4)
                new = keys.pop(m.group(2))
                if _same_scalar(old, new):
                    new_block.append(line)
                else:
                    new_block.append(f"{m.group(1)}{m.group(2)}:{m.group(3) or ' '}{new}"
                                     f"{m.group(5) or ''}")
            else:
                new_block.append(line)
        insert_at = len(new_block)
        while insert_at > 1 and not new_block[insert_at - 1].strip():
            insert_at -= 1
        for key, value in keys.items():
            new_block.insert(insert_at, f"    {key}: {value}\n")
            insert_at += 1
        text = "".join(lines[:start] + new_block + lines[end:])
    atomic_write(path, text.encode("utf-8"), durable=True)
    return text


def _same_scalar(old: str, new: str) -> bool:
    import yaml

    try:
        return bool(yaml.safe_load(old) == yaml.safe_load(new))
    except yaml.YAMLError:
        return False


def _find_entry(lines: list[str], name: str) -> int | None:
    in_sources = False
    for i, line in enumerate(lines):
        if re.match(r"^sources:\s*(#.*)?$", line.rstrip("\r\n")):
            in_sources = True
            continue
        if in_sources and re.match(r"^\S", line):
            in_sources = False
        if in_sources:
            m = re.match(r"^  (['\"]?)(.+?)\1:\s*(#.*)?$", line.rstrip("\r\n"))
            if m and m.group(2) == name:
                return i
    return None
