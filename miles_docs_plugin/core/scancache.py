"""A persistent cache of what parsing a page finds, keyed by the page content.

Scanning a page for links and headings, and finding where its code blocks are, are pure
functions of the page text (and :data:`SCANNER_VERSION`), so a warm build reuses them for every
unchanged page instead of parsing it again: this is what keeps a warm build's overhead small.
The cache is one JSON file per engine and site in the cache root, read once, decoded entry by
entry on use, and rewritten atomically only when something was added or dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import astuple, fields
from pathlib import Path
from typing import Any, TypeVar

from .markdown import SCANNER_VERSION, Heading, HtmlId, LinkRef, ScanResult

T = TypeVar("T")
Scanner = Callable[..., ScanResult]


class ScanCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.raw: dict[str, Any] = {}  #: key -> JSON form, as read
        self.decoded: dict[str, Any] = {}  #: key -> object, for the keys used in this build
        self.fresh: dict[str, Callable[[Any], Any]] = {}  #: computed now: key -> its dumper
        self.dirty = False
        if path is not None:
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                if isinstance(data, dict) and data.get("version") == SCANNER_VERSION:
                    self.raw = dict(data["entries"])
            except (OSError, KeyError, TypeError, ValueError):
                self.raw = {}

    def _get(self, key: str, compute: Callable[[], T], load: Callable[[Any], T],
             dump: Callable[[T], Any]) -> T:
        hit = self.decoded.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        raw = self.raw.get(key)
        value: T | None = None
        if raw is not None:
            try:
                value = load(raw)
            except (TypeError, ValueError, KeyError, IndexError):
                value = None
        if value is None:
            value = compute()
            self.fresh[key] = dump
            self.dirty = True
        self.decoded[key] = value
        return value

    def get(self, body: str, line_offset: int, scanner: Scanner) -> ScanResult:
        """The scan of a page body (links, headings, ids)."""
        return self._get("s" + _digest(f"{line_offset}\0{body}"),
                         lambda: scanner(body, line_offset=line_offset), _load_scan, _dump_scan)

    def cached(self, kind: str, text: str, compute: Callable[[], T],
               dump: Callable[[T], Any], load: Callable[[Any], T]) -> T:
        """Any other pure function of a text (``kind``, one letter other than ``s``, keeps the
        kinds apart)."""
        return self._get(kind + _digest(text), compute, load, dump)

    def save(self) -> None:
        """Write the entries used by this build (stale ones are dropped)."""
        if self.path is None or not (self.dirty or set(self.raw) != set(self.decoded)):
            return
        entries = {key: self.fresh[key](value) if key in self.fresh else self.raw[key]
                   for key, value in self.decoded.items()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": SCANNER_VERSION, "entries": entries}, fh,
                          separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            # A cache that cannot be written only costs speed.
            return


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def _dump_scan(result: ScanResult) -> list[Any]:
    return [[astuple(x) for x in result.links], [astuple(x) for x in result.headings],
            [astuple(x) for x in result.ids], [list(x) for x in result.unmapped]]


_LINK_FIELDS = len(fields(LinkRef))


def _load_scan(data: list[Any]) -> ScanResult:
    links, headings, ids, unmapped = data
    if any(len(x) != _LINK_FIELDS for x in links):
        raise ValueError("scan cache entry of another layout")
    return ScanResult([LinkRef(*x) for x in links], [Heading(*x) for x in headings],
                      [HtmlId(*x) for x in ids], [(int(a), str(b)) for a, b in unmapped])
