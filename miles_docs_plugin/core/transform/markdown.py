"""Find where links are in a Markdown page, on the real CommonMark structure.

:func:`scan` parses a page with markdown-it-py and reports every link destination with its exact
span in the page text: inline links and images, reference definitions, autolinks and the
``href``/``src`` attributes of raw HTML. Code spans, fenced and indented code blocks are never
reported (markdown-it consumes them before any link rule runs), and neither are HTML comments
or ``<pre>``/``<script>``/``<style>``/``<textarea>`` blocks.

markdown-it does not record inline positions, so the scanner wraps the link rules of its own
parser instance: each rule runs as usual and, on success, the destination is located in the
inline source (with markdown-it's own ``parseLinkDestination``) and mapped back to the page
through the block token's line map. Every mapped span is verified against the page text; a link
whose span cannot be verified is reported as ``unmapped`` rather than guessed.

:func:`rewrite` then replaces spans, leaving every other character of the page as it was.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..section.sanitize import URL_ATTRS as SANITIZED_URL_ATTRS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

#: Bumped whenever scan results change for the same input (it keys the scan cache).
SCANNER_VERSION = "2"

HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
RAW_BLOCK_RE = re.compile(r"^\s*<(pre|script|style|textarea)[\s>]", re.I)
#: The attributes of a start tag, as the standard library's HTML parser reads them (its own
#: pattern), with the span of each value.
TAG_ATTR_RE = re.compile(
    r"((?<=[\'\"\s/])[^\s/>][^\s/=>]*)(?:\s*=+\s*(?:'(?P<sq>[^']*)'|\"(?P<dq>[^\"]*)\"|"
    r"(?![\'\"])(?P<uq>[^>\s]*)))?(?:\s|/(?!>))*")
#: Attributes whose value is a URL: ``href``/``src`` are resolved as links; the others are
#: only checked for dangerous schemes (the list is :mod:`.sanitize`'s; ``srcset`` holds several
#: URLs and is left to the sanitiser).
LINK_ATTRS = {"href", "src"}
URL_ATTRS = set(SANITIZED_URL_ATTRS - {"srcset", "imagesrcset"})
ID_ATTRS = {"id", "name"}


@dataclass(slots=True)
class LinkRef:
    """One link destination found in a page."""

    kind: str  #: inline, image, definition, autolink, html
    start: int  #: span in the page text that holds the destination
    end: int
    dest: str  #: the destination as the author meant it (escapes and entities decoded)
    line: int  #: 1-based line in the page text
    angle: bool = False  #: written as ``<dest>``
    tag: str | None = None  #: for html: the tag name (lowercase)
    attr: str | None = None  #: for html: the attribute name (lowercase)
    quote: str = ""  #: for html: the quote character around the value
    label: str | None = None  #: for definitions: the normalized label
    text: str = ""  #: for autolinks: the visible text


@dataclass(slots=True)
class Heading:
    level: int
    text: str  #: plain text of the heading, as a reader sees it
    line: int
    raw: str  #: the inline source of the heading


@dataclass(slots=True)
class HtmlId:
    value: str
    line: int


@dataclass(slots=True)
class ScanResult:
    links: list[LinkRef] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    ids: list[HtmlId] = field(default_factory=list)
    unmapped: list[tuple[int, str]] = field(default_factory=list)  #: (line, destination)


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def line_of(self, offset: int) -> int:
        """0-based line of an offset."""
        return bisect.bisect_right(self.starts, offset) - 1

    def bounds(self, line: int) -> tuple[int, int]:
        """Start and end (before the newline and any ``\\r``) of a 0-based line."""
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return start, end


class _InlineMap:
    """Maps offsets in an inline token's content back to offsets in the page text."""

    def __init__(self, page: _LineIndex, token: Any, cursors: dict[int, int]) -> None:
        self.content: str = token.content
        self.page = page
        first_line = token.map[0] if token.map else 0
        lines = self.content.split("\n")
        self.content_starts: list[int] = []
        self.bases: list[int | None] = []
        pos = 0
        text = page.text
        for j, cl in enumerate(lines):
            self.content_starts.append(pos)
            pos += len(cl) + 1
            ln = first_line + j
            if ln >= len(page.starts):
                self.bases.append(None)
                continue
            lstart, lend = page.bounds(ln)
            lstart = max(lstart, cursors.get(ln, lstart))
            segment = text[lstart:lend]
            base: int | None = None
            stripped = segment.rstrip()
            if cl and stripped.endswith(cl) and ln not in cursors:
                base = lstart + len(stripped) - len(cl)
            else:
                idx = text.find(cl, lstart, lend) if cl else -1
                base = idx if idx >= 0 else None
                core = cl.lstrip(" ")
                if base is None and core and core != cl:
                    # the parser turned part of a tab into spaces ("- a\n\t[x](y)"): find the
                    # rest; offsets in those spaces are never a link's
                    idx = text.find(core, lstart, lend)
                    base = idx - (len(cl) - len(core)) if idx >= 0 else None
            if base is not None:
                cursors[ln] = base + len(cl)
            self.bases.append(base)

    def to_page(self, offset: int, length: int, expect: str) -> int | None:
        j = bisect.bisect_right(self.content_starts, offset) - 1
        base = self.bases[j] if 0 <= j < len(self.bases) else None
        if base is not None:
            start = base + offset - self.content_starts[j]
            if self.page.text[start:start + length] == expect:
                return start
        return None


class _Collector:
    def __init__(self, text: str, line_offset: int) -> None:
        self.page = _LineIndex(text)
        self.line_offset = line_offset
        self.result = ScanResult()
        self.current: _InlineMap | None = None
        self.cursors: dict[int, int] = {}

    def line(self, offset: int) -> int:
        return self.page.line_of(offset) + 1 + self.line_offset

    def begin_inline(self, token: Any) -> None:
        self.current = _InlineMap(self.page, token, self.cursors)

    def _map(self, src_start: int, raw: str) -> int | None:
        assert self.current is not None
        return self.current.to_page(src_start, len(raw), raw)

    # -- inline rules ----------------------------------------------------------------------

    def inline_link(self, state: Any, start: int, end: int, image: bool) -> None:
        src: str = state.src
        bracket = start + 1 if image else start
        label_end = state.md.helpers.parseLinkLabel(state, bracket, not image)
        if label_end < 0 or label_end + 1 >= end or src[label_end + 1] != "(":
            return  # a reference usage: its definition carries the destination
        pos = label_end + 2
        while pos < end and src[pos] in " \t\n":
            pos += 1
        res = state.md.helpers.parseLinkDestination(src, pos, end)
        if not res.ok or res.pos == pos:
            return
        raw = src[pos:res.pos]
        page_start = self._map(pos, raw)
        if page_start is None:
            self.result.unmapped.append((self._guess_line(), raw))
            return
        self.result.links.append(LinkRef(
            "image" if image else "inline", page_start, page_start + len(raw), res.str,
            self.line(page_start), angle=raw.startswith("<")))

    def autolink(self, state: Any, start: int, end: int) -> None:
        raw = state.src[start:end]
        page_start = self._map(start, raw)
        if page_start is None:
            self.result.unmapped.append((self._guess_line(), raw))
            return
        url = raw[1:-1]
        dest = url if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]{1,31}:", url) else "mailto:" + url
        self.result.links.append(LinkRef("autolink", page_start, page_start + len(raw), dest,
                                         self.line(page_start), angle=True, text=url))

    def html_inline(self, state: Any, start: int, end: int) -> None:
        raw = state.src[start:end]
        page_start = self._map(start, raw)
        if page_start is None:
            if "href" in raw or "src" in raw:
                self.result.unmapped.append((self._guess_line(), raw))
            return
        self._html(raw, page_start)

    def _guess_line(self) -> int:
        if self.current is None:
            return 0
        for base in self.current.bases:
            if base is not None:
                return self.line(base)
        return 0

    # -- blocks ----------------------------------------------------------------------------

    def html_block(self, token: Any) -> None:
        first, last = token.map
        start = self.page.starts[first]
        end = self.page.starts[last] if last < len(self.page.starts) else len(self.page.text)
        block = self.page.text[start:end]
        if RAW_BLOCK_RE.match(block):
            return
        self._html(block, start)

    def _html(self, fragment: str, base: int) -> None:
        masked = HTML_COMMENT_RE.sub(lambda m: " " * len(m.group(0)), fragment)
        for offset, name, raw in _start_tags(masked):
            for attr in TAG_ATTR_RE.finditer(raw):
                key = attr.group(1).lower()
                group = next((g for g in ("dq", "sq", "uq") if attr.group(g) is not None), None)
                if group is None:
                    continue
                a = base + offset + attr.start(group)
                value = attr.group(group)
                if key in URL_ATTRS:
                    quote = {"dq": '"', "sq": "'", "uq": ""}[group]
                    self.result.links.append(LinkRef(
                        "html", a, a + len(value), html.unescape(value), self.line(a),
                        tag=name, attr=key, quote=quote))
                elif key in ID_ATTRS:
                    self.result.ids.append(HtmlId(html.unescape(value), self.line(a)))

    def definition(self, state: Any, start_line: int) -> None:
        text = self.page.text
        lstart, _ = self.page.bounds(start_line)
        pos = lstart + state.tShift[start_line]
        if pos >= len(text) or text[pos] != "[":
            return
        i = pos + 1
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "]":
                break
            i += 1
        if i + 1 >= len(text) or text[i + 1] != ":":
            return
        from markdown_it.common.utils import normalizeReference

        label = normalizeReference(text[pos + 1:i])
        j = i + 2
        newline_seen = False
        while j < len(text) and text[j] in " \t\n\r>":
            if text[j] == "\n":
                if newline_seen:
                    return
                newline_seen = True
            j += 1
        res = state.md.helpers.parseLinkDestination(text, j, len(text))
        if not res.ok:
            return
        raw = text[j:res.pos]
        ref = state.env.get("references", {}).get(label)
        if ref is None or ref.get("href") != state.md.normalizeLink(res.str):
            self.result.unmapped.append((self.line(j), raw))
            return
        self.result.links.append(LinkRef("definition", j, res.pos, res.str, self.line(j),
                                         angle=raw.startswith("<"), label=label))


def _start_tags(fragment: str) -> list[tuple[int, str, str]]:
    """(offset, tag name, raw text) of every start tag of an HTML fragment, found by the
    standard library's HTML parser (as a browser tokenizes, not by a pattern)."""
    from html.parser import HTMLParser

    starts = [0] + [m.end() for m in re.finditer("\n", fragment)]
    found: list[tuple[int, str, str]] = []

    class Finder(HTMLParser):
        def handle_starttag(self, tag: str, attrs: Any) -> None:
            raw = self.get_starttag_text() or ""
            line, col = self.getpos()
            found.append((starts[line - 1] + col, tag, raw))

        handle_startendtag = handle_starttag

    finder = Finder(convert_charrefs=True)
    finder.feed(fragment)
    finder.close()
    return found


def _wrap_inline(rule: Callable[..., bool], kind: str) -> Callable[..., bool]:
    def wrapped(state: Any, silent: bool) -> bool:
        start = state.pos
        ok = rule(state, silent)
        if ok and not silent:
            collector: _Collector | None = state.env.get("_mdp_collector")
            # A nested parse (the alt text of an image) has its own source: what it finds
            # renders as plain text, not as links.
            if (collector is not None and collector.current is not None
                    and state.src is collector.current.content):
                end = state.pos
                if kind == "link":
                    collector.inline_link(state, start, end, image=False)
                elif kind == "image":
                    collector.inline_link(state, start, end, image=True)
                elif kind == "autolink":
                    collector.autolink(state, start, end)
                else:
                    collector.html_inline(state, start, end)
        return ok

    return wrapped


def _wrap_reference(rule: Callable[..., bool]) -> Callable[..., bool]:
    def wrapped(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
        ok = rule(state, start_line, end_line, silent)
        if ok and not silent:
            collector: _Collector | None = state.env.get("_mdp_collector")
            if collector is not None:
                collector.definition(state, start_line)
        return ok

    return wrapped


def _core_inline(state: Any) -> None:
    collector: _Collector | None = state.env.get("_mdp_collector")
    previous = None
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            # Without "[" or "<" no inline rule can make a link, an image, an autolink or a
            # tag, so only headings (their text names their anchor) need the inline parse.
            content = token.content
            if "[" in content or "<" in content or (
                    previous is not None and previous.type == "heading_open"):
                if collector is not None:
                    collector.begin_inline(token)
                state.md.inline.parse(content, state.md, state.env, token.children)
        elif token.type == "html_block" and collector is not None:
            collector.html_block(token)
        previous = token
    if collector is not None:
        collector.current = None


#: Block rules that can be left out of a page's parse when nothing in the page could start
#: them. Each pattern is a necessary condition, tested on every line after any indentation,
#: blockquote markers and list markers (so a construct nested in a list item is seen too).
#: Leaving out a rule that cannot match anywhere changes nothing but the time.
_PREFIX = r"(?m)^[ \t>*+\-\d.)]*"
OPTIONAL_RULES: dict[str, re.Pattern[str]] = {
    "table": re.compile(_PREFIX + r"\|?[ \t]*:?-[-:| \t]*$"),
    "code": re.compile(r"(?m)^(?: {4}|[ >*+\-\d.)]*\t)"),
    "fence": re.compile(r"```|~~~"),
    "blockquote": re.compile(_PREFIX + r">"),
    "hr": re.compile(r"([-*_])[ \t]*\1[ \t]*\1"),
    "reference": re.compile(r"\]:"),
    "html_block": re.compile(_PREFIX + r"<"),
    "heading": re.compile(_PREFIX + r"#"),
    "lheading": re.compile(r"(?m)^[ \t>]*(?:=+|-+)[ \t]*$"),
}

def _build_parser(disabled: frozenset[str] = frozenset()) -> MarkdownIt:
    # Imported here, not at the top: a warm build takes every scan from the cache and never
    # needs the parser (nor the time to import it).
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import reference
    from markdown_it.rules_inline import autolink, html_inline, image, link

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    if disabled:
        md.block.ruler.disable(sorted(disabled))
    # See every destination, including ones markdown-it would refuse to render (javascript:):
    # the link rules decide what is safe, not the renderer.
    setattr(md, "validateLink", lambda url: True)  # noqa: B010 - replacing a method
    # The rules that find destinations, wrapped with the public ruler API (``at`` keeps a
    # rule's place; these rules have no ``alt`` chains to keep).
    for name, rule, kind in (("link", link, "link"), ("image", image, "image"),
                             ("autolink", autolink, "autolink"),
                             ("html_inline", html_inline, "html")):
        md.inline.ruler.at(name, _wrap_inline(rule, kind))
    md.block.ruler.at("reference", _wrap_reference(reference))
    md.core.ruler.at("inline", _core_inline)
    return md


_PARSERS: dict[frozenset[str], MarkdownIt] = {}


def parser(text: str | None = None) -> MarkdownIt:
    """A shared parser instance (it keeps no state between parses).

    Given the page ``text``, the instance leaves out the block rules nothing in it could start.
    """
    disabled = frozenset(name for name, pattern in OPTIONAL_RULES.items()
                         if text is not None and not pattern.search(text))
    md = _PARSERS.get(disabled)
    if md is None:
        md = _PARSERS[disabled] = _build_parser(disabled)
    return md


def _plain_text(children: Iterable[Any]) -> str:
    out: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(_plain_text(child.children or ()))
    return "".join(out)


def scan(text: str, *, line_offset: int = 0) -> ScanResult:
    """Find every link destination, heading and HTML id of a Markdown page body.

    ``line_offset`` is added to reported lines (the number of front matter lines cut off).
    """
    collector = _Collector(text, line_offset)
    env: dict[str, Any] = {"_mdp_collector": collector}
    tokens = parser(text).parse(text, env)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            inline = tokens[i + 1]
            line = (token.map[0] if token.map else 0) + 1 + line_offset
            collector.result.headings.append(Heading(
                int(token.tag[1]), _plain_text(inline.children or ()).strip(), line,
                inline.content))
    collector.result.links.sort(key=lambda link: link.start)
    return collector.result


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


def unescape(raw: str) -> str:
    from markdown_it.common.utils import unescapeAll

    return str(unescapeAll(raw))
