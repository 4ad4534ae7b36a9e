"""Skipping the transform of pages whose output is provably what an earlier build made.

After a pin move that changes one page of 1,000, the link rules and components would run on
every page again, each giving the same result. A page's transform (``mdp_transform_page`` of the
built-in plugins) is a function of:

- its own prepared text, front matter and ``extra`` (the page's fingerprint);
- the build: the code (the scan cache is tied to this package's source), the engine and its
  settings (:meth:`Engine.memo_key`), the config, and for every section its tree (paths and
  modes; the blob ids of every file that is not one of its pages), its pages' paths, URLs and
  titles, its aliases, superseded pages, snippets and assets so far (the build key);
- the anchors of the pages its links point to.

So a page's recorded output (its text, the ``extra`` keys the transform set or removed, its
diagnostics, the assets its links registered) is replayed only when the build key and its own
fingerprint are those it was recorded under, and every page whose text changed since the last
build still has the anchors recorded then (else every page is transformed again). Output that
names the pinned commit (a diagnostic "… at abc1234") is replayed only at that commit.

Preparation (``mdp_prepare_page``) is skipped the same way: it is a function of the page as
collected (its text, front matter, ``extra``) and of the build key taken before any page is
prepared, so a page whose collected state and that key are those of a recorded preparation gets
the recorded result (text, title, line counts, front matter, ``extra``, diagnostics). Its
transform is then keyed by that collected state and the build key after preparation, which
determine the prepared page, so the prepared text need not be hashed again.

It is used only where it can be sure of this: every source is a pinned checkout (whose tree
lists an id for every file), every implementation of the hooks a transform
runs (prepare, transform, resolve_link, render_component) is a built-in, the provenance plugin
(the one transform that depends on the pin) runs last and is never skipped, the engine gives a
:meth:`~miles_docs_plugin.core.engine.Engine.memo_key`, and the scan cache (authenticated, tied
to the code) keeps the records. Anything it cannot put into a key turns it off.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import Diagnostic, Severity

if TYPE_CHECKING:
    from ..context import BuildContext
    from ..model import Page, Section
    from .scancache import ScanCache

FORMAT = "4"
#: The one transform that is never skipped (it names the pin: provenance, banner).
ALWAYS = "miles_docs.provenance"
#: Hooks a page's transform calls: a plugin other than the built-ins on any of them turns the
#: memo off (its output could depend on anything).
HOOKS = ("mdp_prepare_page", "mdp_transform_page", "mdp_resolve_link", "mdp_render_component")
BUILTIN = "miles_docs."


class Unkeyable(Exception):
    """A value that cannot be part of a key (a function, an object of unknown state)."""


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data, the same for the same state (no object ids); raises
    :class:`Unkeyable` for what has no such form (or is nested too deep: a cycle)."""
    if depth > 40:
        raise Unkeyable("nested too deep")
    depth += 1
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Enum):
        return plain(value.value, depth)
    if isinstance(value, dict):
        return [[plain(k, depth), plain(v, depth)]
                for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (list, tuple)):
        return [plain(v, depth) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, depth) for v in value), key=json.dumps)
    if callable(value):
        raise Unkeyable(type(value).__qualname__)
    kind = type(value)
    names: list[str] = []
    for klass in kind.__mro__:  # slots of every class, as well as the instance dict
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    state = getattr(value, "__dict__", None)
    if not isinstance(state, dict) and not names:
        raise Unkeyable(kind.__qualname__)
    fields = {k: v for k, v in (state or {}).items() if k != "hooks"}  # the plugin manager
    for name in names:
        if name not in ("__dict__", "__weakref__", "hooks") and hasattr(value, name):
            fields[name] = getattr(value, name)
    return [f"{kind.__module__}.{kind.__qualname__}", plain(fields, depth)]


#: How a component block (``page.extra["components"]``, a :class:`Block`) is kept in a record.
BLOCK = "\0block"


def _encode(value: Any) -> Any:
    """``json.dumps``' ``default``: a :class:`Block` as its fields; anything else is not JSON."""
    from .blocks import Block  # (a page with components: loaded by its transform)

    if type(value) is Block:
        return {BLOCK: [getattr(value, name) for name in Block._fields]}
    raise TypeError(type(value).__qualname__)


def _revive(value: Any) -> Any:
    """JSON data of a record as the page had it: new lists and dicts (a replayed page shares
    nothing with the record), blocks made again."""
    if isinstance(value, list):
        return [_revive(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and BLOCK in value:
            from .blocks import Block  # only a page with components has one

            return Block(*[_revive(v) for v in value[BLOCK]])
        return {k: _revive(v) for k, v in value.items()}
    return value


def _json_extra(changed: dict[str, Any]) -> Any:
    """``changed`` (keys of ``page.extra``) as JSON data that :func:`_revive` makes equal to
    it again; raises TypeError or ValueError when there is none (a tuple, an object)."""
    data = json.loads(json.dumps(changed, default=_encode))
    if _revive(data) != changed:
        raise ValueError("not JSON data")
    return data


def _encode_edit(old: str, new: str) -> list[Any]:
    """``new`` as an edit of ``old``, for a record: preparation and transform change a few
    places of a page (a title heading, the tags of a component, link destinations), so a record
    keeps those, not the page (the scan cache, read and written on every build, is then a third
    of the size). ``["lines", [[index, line], ...]]`` when the line count stays (the lines that
    differ), else ``["span", head, tail, middle]`` (see :func:`_edit`)."""
    a, b = old.split("\n"), new.split("\n")
    if len(a) == len(b):
        return ["lines", [[i, y] for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]]
    return ["span", *_edit(old, new)]


def _apply_edit(old: str, edit: list[Any]) -> str:
    """The text :func:`_encode_edit` made ``edit`` of, from ``old``."""
    if edit[0] == "lines":
        lines = old.split("\n")
        for i, line in edit[1]:
            lines[i] = line
        return "\n".join(lines)
    _kind, head, tail, middle = edit
    return old[:head] + str(middle) + old[len(old) - tail:]


def _edit(old: str, new: str) -> list[Any]:
    """``new`` as an edit of ``old``: [length of the common start, length of the common end,
    what ``new`` has between them]."""
    lo, hi = 0, min(len(old), len(new))
    while lo < hi:  # the longest common start, by halving (slices compare in C)
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    head = lo
    lo, hi = 0, min(len(old), len(new)) - head
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return [head, lo, new[head:len(new) - lo]]


def _digest(data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"),
                        usedforsecurity=False).hexdigest()


def _tree_key(section: Section) -> Any:
    """What of a section no preparation or transform changes: its source and its tree."""
    tree = section.checkout.tree
    pages = {section.repo_path(p) for p in section.pages}
    entries = []
    for path, (mode, oid) in sorted(tree.objects.items()):
        kind = tree.entries.get(path)
        # a page's own text is in its fingerprint; a folder's id changes with any file in it
        keep = not (kind == "tree" or (kind == "blob" and path in pages))
        entries.append([path, mode, oid if keep else ""])
    return [section.source.name, plain(section.source), section.mount, entries,
            section.checkout.local]


def _state_key(section: Section) -> Any:
    """What of a section a page's preparation or transform may change or read: its pages'
    URLs and titles, aliases, superseded pages, snippets and assets so far."""
    return [[[p, page.dest, page.title] for p, page in sorted(section.pages.items())],
            plain(section.aliases), plain(section.superseded), sorted(section.snippets),
            sorted(section.assets)]


def anchors_digest(ctx: BuildContext, section: Section, page: Page) -> str:
    from .anchors import TITLE_IDS  # loaded with the anchor map already

    # the map's basis, not its spellings: making those for every page of a cold build cost
    # more than its link rules (1,000 pages: ~0.15 s of ~0.6 s)
    return _digest([ctx.anchors(section, page).basis(), list(page.extra.get(TITLE_IDS, ()))])


class TransformMemo:
    """The transform of one build's pages, replaying what provably did not change."""

    def __init__(self, ctx: BuildContext, store: ScanCache, base_key: str,
                 memoized: Callable[..., Any], always: Callable[..., Any]) -> None:
        self.ctx = ctx
        self.store = store
        #: the engine, config and every section's source and tree (the rest of the build key
        #: is read when it is needed: preparing a page may change it)
        self.base_key = base_key
        self.build_key = ""  #: the build key of the transform (after preparation)
        self.memoized = memoized  #: the transform hook without the provenance plugin
        self.always = always  #: the provenance plugin's transform alone
        #: per page (source, path): the fingerprint of the page as collected, under the build
        #: key before preparation (None: it has none)
        self.collected: dict[tuple[str, str], str | None] = {}

    @classmethod
    def open(cls, ctx: BuildContext, sections: dict[str, Section]) -> TransformMemo | None:
        """The memo of this build, or None when it cannot be sure of a replay."""
        store = ctx.scans
        if store is None or store.path is None:
            return None
        if any(s.checkout.local or not s.checkout.tree.objects for s in sections.values()):
            return None  # a working copy's files have no ids to key them with
        engine_key = ctx.engine.memo_key()
        if engine_key is None:
            return None
        pm = ctx.hooks.pm
        for name in HOOKS:
            if any(not (impl.plugin_name or "").startswith(BUILTIN)
                   for impl in getattr(pm.hook, name).get_hookimpls()):
                return None
        impls = pm.hook.mdp_transform_page.get_hookimpls()
        # pluggy calls the last of the list first: provenance must be the last one called
        if not impls or impls[0].plugin_name != ALWAYS:
            return None
        provenance = pm.get_plugin(ALWAYS)
        others = [impl.plugin for impl in impls[1:]]
        try:
            key = _digest([FORMAT, engine_key, plain(ctx.config),
                           [_tree_key(s) for _, s in sorted(sections.items())]])
            state = [_state_key(s) for _, s in sorted(sections.items())]
        except Unkeyable:
            return None
        memo = cls(ctx, store, key,
                   pm.subset_hook_caller("mdp_transform_page", remove_plugins=[provenance]),
                   pm.subset_hook_caller("mdp_transform_page", remove_plugins=others))
        memo.state_key = _digest(state)
        return memo

    state_key = ""  #: the part of the build key the sections' pages give, when it was opened

    def _key(self) -> str:
        """The build key now: the base key and the sections' pages, aliases, assets…"""
        state = _digest([_state_key(s) for _, s in sorted(self.ctx.sections.items())])
        return _digest([self.base_key, state])

    @staticmethod
    def _fingerprint(key: str, page: Page) -> str:
        """The page's state (text, front matter, line counts, title, ``extra``) under ``key``;
        raises :class:`Unkeyable`."""
        head = json.dumps([key, page.source, page.path, page.dest, page.body_start,
                           page.body_line, page.line_delta, page.title, plain(page.meta),
                           plain(page.extra)], separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha1(head.encode("utf-8", "surrogatepass"), usedforsecurity=False)
        digest.update(b"\0" + page.content.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def prepare(self, pages: list[tuple[Section, Page]]) -> None:
        """Prepare every page, in order; a page whose collected state and build key are those
        of a recorded preparation gets its recorded result instead."""
        ctx = self.ctx
        key = _digest([self.base_key, self.state_key])
        replayed = 0
        for section, page in pages:
            try:
                fingerprint: str | None = self._fingerprint(key, page)
            except Unkeyable:
                fingerprint = None
            self.collected[(page.source, page.path)] = fingerprint
            found = self.store.peek("p", fingerprint) if fingerprint is not None else None
            if isinstance(found, dict) and found.get("pin") in (None, _pin(section)):
                self._replay_prepared(section, page, found)
                replayed += 1
            else:
                self._prepare(section, page, fingerprint)
        if replayed:
            ctx.progress(f"{replayed} of {len(pages)} page(s) prepare as in the last build: "
                         "not prepared again")

    def _recorded(self, page: Page, call: Callable[[], Any], keyed: bool
                  ) -> tuple[list[Diagnostic], list[tuple[str, str]], dict[str, Any] | None]:
        """Run ``call`` (a hook on ``page``) and say what it did: the diagnostics and the
        assets it published, and, when ``keyed``, the part of a record every step has (keys of
        ``extra`` removed and changed, diagnostics, assets); None for that part when the
        page's ``extra`` is not JSON data (a tuple, an object: not replayable as is)."""
        ctx = self.ctx
        try:
            before = {k: plain(v) for k, v in page.extra.items()} if keyed else {}
        except Unkeyable:
            keyed, before = False, {}
        counts = {name: len(s.diagnostics) for name, s in ctx.sections.items()}
        # every asset the step publishes, also one an earlier page published first: when
        # that page later stops linking it, this page's replay still publishes it
        for s in ctx.sections.values():
            s.touched = []
        try:
            call()
        finally:
            touched = {name: s.touched or [] for name, s in ctx.sections.items()}
            for s in ctx.sections.values():
                s.touched = None
        diags = [d for name, s in ctx.sections.items() for d in s.diagnostics[counts[name]:]]
        added = [(name, rel) for name, rels in touched.items() for rel in dict.fromkeys(rels)]
        if not keyed:
            return diags, added, None
        try:
            changed = {k: v for k, v in page.extra.items()
                       if k not in before or plain(v) != before[k]}
            extra = _json_extra(changed)
        except (Unkeyable, TypeError, ValueError):
            return diags, added, None
        return diags, added, {
            "removed": [k for k in before if k not in page.extra], "extra": extra,
            "diagnostics": [[d.source, d.path, d.line, d.code, d.message, d.severity.value]
                            for d in diags],
            "assets": added}

    def _prepare(self, section: Section, page: Page, fingerprint: str | None) -> None:
        ctx = self.ctx
        content, meta = page.content, None
        try:
            meta = plain(page.meta)
        except Unkeyable:
            fingerprint = None
        diags, _added, common = self._recorded(page, lambda: ctx.hooks.prepare_page(page, ctx),
                                               fingerprint is not None)
        if fingerprint is None or common is None:
            return
        try:
            new_meta = None if plain(page.meta) == meta else json.loads(json.dumps(page.meta))
        except (Unkeyable, TypeError, ValueError):
            return  # not JSON data: not replayable as is
        if new_meta is not None and new_meta != page.meta:
            return
        text = None if page.content == content else page.content
        pin = _named_pin(section, [text or "", json.dumps([common["extra"], new_meta])], diags)
        self.store.put("p", fingerprint, {
            "content": None if text is None else _encode_edit(content, text),
            "body_start": page.body_start, "body_line": page.body_line,
            "line_delta": page.line_delta, "title": page.title, "meta": new_meta,
            "pin": pin, **common})

    def _replay_prepared(self, section: Section, page: Page, record: dict[str, Any]) -> None:
        ctx = self.ctx
        if record["content"] is not None:
            page.content = _apply_edit(page.content, record["content"])
        page.body_start = record["body_start"]
        page.body_line = record["body_line"]
        page.line_delta = record["line_delta"]
        page.title = record["title"]
        if record["meta"] is not None:
            page.meta = _revive(record["meta"])
        for diagnostic in _restore(page, record):
            ctx.sections[diagnostic.source].diagnostics.append(diagnostic)
        for name, rel in record["assets"]:
            where = ctx.sections[name]
            if rel not in where.assets:
                where.assets[rel] = where.asset(rel)

    def transform(self, pages: list[tuple[Section, Page]]) -> None:
        ctx = self.ctx
        self.build_key = self._key()
        records: dict[int, Any] = {}
        fingerprints: dict[int, str | None] = {}
        for i, (section, page) in enumerate(pages):
            collected = self.collected.get((page.source, page.path))
            try:
                if collected is not None:
                    # the collected page and the key before preparation determine the
                    # prepared page: with the key after it, they key its transform
                    fingerprint = hashlib.sha1(f"{self.build_key}\0{collected}".encode(),
                                               usedforsecurity=False).hexdigest()
                else:
                    fingerprint = self._fingerprint(self.build_key, page)
            except Unkeyable:
                fingerprints[i] = None
                continue
            fingerprints[i] = fingerprint
            found = self.store.peek("t", fingerprint)
            if isinstance(found, dict) and found.get("pin") in (None, _pin(section)):
                records[i] = found
        previous = self.store.peek("r", self.build_key)
        anchors: dict[str, str] = {}
        if records:
            for i, (section, page) in enumerate(pages):
                if i in records:
                    continue
                key = f"{section.source.name}\0{page.path}"
                anchors[key] = anchors_digest(ctx, section, page)
                if not isinstance(previous, dict) or previous.get(key) != anchors[key]:
                    records.clear()  # another page's anchors changed: its links may differ
                    break
        base_diags = {name: list(s.diagnostics) for name, s in ctx.sections.items()}
        base_assets = {name: dict(s.assets) for name, s in ctx.sections.items()}
        diags: list[list[Diagnostic]] = [[] for _ in pages]
        assets: list[list[tuple[str, str]]] = [[] for _ in pages]
        # pages that changed first, while the others still hold the text their anchors come from
        ctx.scan_all(page for i, (_section, page) in enumerate(pages) if i not in records)
        for i, (section, page) in enumerate(pages):
            if i not in records:
                diags[i], assets[i] = self._run(section, page, fingerprints[i])
        for i, (_section, page) in enumerate(pages):
            if i in records:
                diags[i], assets[i] = self._replay(page, records[i])
        for name, section in ctx.sections.items():
            section.diagnostics[:] = base_diags[name] + [
                d for found in diags for d in found if d.source == name]
            added = dict(base_assets[name])
            for found in assets:
                for where, rel in found:
                    if where == name and rel not in added:
                        added[rel] = section.assets.get(rel) or section.asset(rel)
            section.assets.clear()
            section.assets.update(added)
        for _section, page in pages:
            self.always(page=page, ctx=ctx)
        for i, (section, page) in enumerate(pages):
            key = f"{section.source.name}\0{page.path}"
            if key not in anchors:
                kept = previous.get(key) if i in records and isinstance(previous, dict) else None
                anchors[key] = kept if isinstance(kept, str) else anchors_digest(ctx, section, page)
        if anchors != previous:  # as in the last build: the cache file is not written again
            self.store.put("r", self.build_key, anchors)
        if records:
            ctx.progress(f"{len(records)} of {len(pages)} page(s) transform as in the last "
                         "build: not transformed again")

    def _run(self, section: Section, page: Page, fingerprint: str | None
             ) -> tuple[list[Diagnostic], list[tuple[str, str]]]:
        ctx = self.ctx
        prepared = page.content
        diags, added, common = self._recorded(page, lambda: self.memoized(page=page, ctx=ctx),
                                              fingerprint is not None)
        if fingerprint is None or common is None:
            return diags, added
        pin = _named_pin(section, [page.content, json.dumps(common["extra"])], diags)
        self.store.put("t", fingerprint, {
            "content": _encode_edit(prepared, page.content), "body_start": page.body_start,
            "title": page.title, "pin": pin, **common})
        return diags, added

    def _replay(self, page: Page, record: dict[str, Any]
                ) -> tuple[list[Diagnostic], list[tuple[str, str]]]:
        page.content = _apply_edit(page.content, record["content"])
        page.body_start = record["body_start"]
        page.title = record["title"]
        return _restore(page, record), [(name, rel) for name, rel in record["assets"]]


def _restore(page: Page, record: dict[str, Any]) -> list[Diagnostic]:
    """Put back the part of a record every step has (see ``TransformMemo._recorded``): the
    page's ``extra`` as the step left it; returns the step's diagnostics."""
    for key in record["removed"]:
        page.extra.pop(key, None)
    page.extra.update(_revive(record["extra"]))
    return [Diagnostic(source, path, line, code, message, Severity(severity))
            for source, path, line, code, message, severity in record["diagnostics"]]


def _named_pin(section: Section, texts: list[str], diags: list[Diagnostic]) -> str | None:
    """The pinned commit when a step's output names it (an engine that writes permalinks into
    the text, as MkDocs' does, or a diagnostic "... at abc1234"): its record is replayed at
    that pin only; else None."""
    commit = _pin(section)
    if commit is not None and (any(commit[:7] in text for text in texts)
                               or any(commit[:7] in d.message for d in diags)):
        return commit
    return None


def _pin(section: Section) -> str | None:
    return section.checkout.commit

