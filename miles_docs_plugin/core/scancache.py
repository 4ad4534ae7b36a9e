"""A persistent cache of page scans, keyed by the page content.

Scanning is a pure function of the page text (and :data:`SCANNER_VERSION`), so a warm build can
reuse the scan of every unchanged page instead of parsing it again. The cache is one JSON
file per source in the cache root, rewritten atomically only when a scan was added.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import astuple, fields
from pathlib import Path
from typing import Any

from .markdown import SCANNER_VERSION, Heading, HtmlId, LinkRef, ScanResult

Scanner = Callable[..., ScanResult]


class ScanCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, ScanResult] = {}
        self.used: set[str] = set()
        self.dirty = False
        if path is not None:
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                if isinstance(data, dict) and data.get("version") == SCANNER_VERSION:
                    self.entries = {k: _load(v) for k, v in data["entries"].items()}
            except (OSError, KeyError, TypeError, ValueError):
                self.entries = {}

    def get(self, body: str, line_offset: int, scanner: Scanner) -> ScanResult:
        key = hashlib.sha1(f"{line_offset}\0{body}".encode("utf-8", "surrogatepass"),
                           usedforsecurity=False).hexdigest()
        self.used.add(key)
        hit = self.entries.get(key)
        if hit is None:
            hit = scanner(body, line_offset=line_offset)
            self.entries[key] = hit
            self.dirty = True
        return hit

    def save(self) -> None:
        """Write the scans used by this build (stale ones are dropped)."""
        if self.path is None or not (self.dirty or len(self.used) != len(self.entries)):
            return
        keep = {k: v for k, v in self.entries.items() if k in self.used}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".scan-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": SCANNER_VERSION,
                           "entries": {k: _dump(v) for k, v in keep.items()}}, fh,
                          separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            # A cache that cannot be written only costs speed.
            return


def _dump(result: ScanResult) -> list[Any]:
    return [[astuple(x) for x in result.links], [astuple(x) for x in result.headings],
            [astuple(x) for x in result.ids], [list(x) for x in result.unmapped]]


_LINK_FIELDS = len(fields(LinkRef))


def _load(data: list[Any]) -> ScanResult:
    links, headings, ids, unmapped = data
    if any(len(x) != _LINK_FIELDS for x in links):
        raise ValueError("scan cache entry of another layout")
    return ScanResult([LinkRef(*x) for x in links], [Heading(*x) for x in headings],
                      [HtmlId(*x) for x in ids], [(int(a), str(b)) for a, b in unmapped])
