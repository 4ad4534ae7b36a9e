"""What a scan of a page reports (:func:`.markdown.scan`), and writing back at its spans: the
records, the scanner's version that keys the scan cache, :func:`rewrite` and
:func:`escape_destination`.

They live apart from the scanner so that a build whose pages are all remembered (the scan
cache, the transform memo) reads them back without loading the scanner.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..records import Record

#: Bumped whenever scan results change for the same input (it keys the scan cache).
SCANNER_VERSION = "6"
#: The attributes of raw HTML whose value is resolved as a link.
LINK_ATTRS = {"href", "src"}


class LinkRef(Record):
    """One link destination found in a page."""

    __slots__ = _fields = ("kind", "start", "end", "dest", "line", "angle", "tag", "attr",
                           "quote", "label", "text")
    kind: str  #: inline, image, definition, autolink, html
    start: int  #: span in the page text that holds the destination
    end: int
    dest: str  #: the destination as the author meant it (escapes and entities decoded)
    line: int  #: 1-based line in the page text
    angle: bool  #: written as ``<dest>``
    tag: str | None  #: for html: the tag name (lowercase)
    attr: str | None  #: for html: the attribute name (lowercase)
    quote: str  #: for html: the quote character around the value
    label: str | None  #: for definitions: the normalized label
    text: str  #: for autolinks: the visible text

    def __init__(self, kind: str, start: int, end: int, dest: str, line: int,
                 angle: bool = False, tag: str | None = None, attr: str | None = None,
                 quote: str = "", label: str | None = None, text: str = "") -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.dest = dest
        self.line = line
        self.angle = angle
        self.tag = tag
        self.attr = attr
        self.quote = quote
        self.label = label
        self.text = text


class Heading(Record):
    __slots__ = _fields = ("level", "text", "line", "raw")
    level: int
    text: str  #: plain text of the heading, as a reader sees it
    line: int
    raw: str  #: the inline source of the heading

    def __init__(self, level: int, text: str, line: int, raw: str) -> None:
        self.level = level
        self.text = text
        self.line = line
        self.raw = raw


class HtmlId(Record):
    __slots__ = _fields = ("value", "line")
    value: str
    line: int

    def __init__(self, value: str, line: int) -> None:
        self.value = value
        self.line = line


class ScanResult(Record):
    __slots__ = _fields = ("links", "headings", "ids", "unmapped")
    links: list[LinkRef]
    headings: list[Heading]
    ids: list[HtmlId]
    unmapped: list[tuple[int, str]]  #: (line, destination)

    def __init__(self, links: list[LinkRef] | None = None, headings: list[Heading] | None = None,
                 ids: list[HtmlId] | None = None,
                 unmapped: list[tuple[int, str]] | None = None) -> None:
        self.links = [] if links is None else links
        self.headings = [] if headings is None else headings
        self.ids = [] if ids is None else ids
        self.unmapped = [] if unmapped is None else unmapped


def rewrite(text: str, replacements: Iterable[tuple[int, int, str]]) -> str:
    """Replace ``(start, end, new)`` spans of ``text``; spans must not overlap."""
    out: list[str] = []
    last = 0
    for start, end, new in sorted(replacements):
        if start < last:
            raise ValueError(f"overlapping replacement at {start}")
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def escape_destination(url: str, *, angle: bool) -> str:
    """Write a destination so that CommonMark reads back exactly ``url``."""
    if angle:
        return "<" + re.sub(r"([<>\\])", r"\\\1", url) + ">"
    if re.search(r"[\s<>]", url) or url.count("(") != url.count(")"):
        return "<" + re.sub(r"([<>\\])", r"\\\1", url) + ">"
    return re.sub(r"\\(?=[!-/:-@\[-`{-~])", r"\\\\", url) if "\\" in url else url
