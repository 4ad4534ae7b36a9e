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

The parts of a page that provably hold no link, heading or HTML id are left out of the parse
(see "the parts of a page that cannot yield anything" below). So are the parts that are one
plain paragraph, a list of one-paragraph items or a table whose rows start with "|": their
inline content is cut as markdown-it's block rules cut it and read by :mod:`.inline_links`, a
reader of markdown-it's own link rules, which hands back to markdown-it whatever it does not
read exactly (raw HTML, autolinks, possible reference links); in the parts still parsed, the
same reader takes the inline content first. ``scan(text, reference=True)`` parses the whole
page with markdown-it alone, and the tests hold the two results equal.

:func:`rewrite` then replaces spans, leaving every other character of the page as it was.
"""

from __future__ import annotations

import bisect
import html
import itertools
import re
from collections.abc import Callable, Iterable
from html.parser import HTMLParser
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..patterns import lazy_re
from ..section.sanitize import URL_ATTRS as SANITIZED_URL_ATTRS
from .scanned import LINK_ATTRS as LINK_ATTRS  # (the "as": where plugins took them from)
from .scanned import SCANNER_VERSION as SCANNER_VERSION
from .scanned import Heading as Heading
from .scanned import HtmlId as HtmlId
from .scanned import LinkRef as LinkRef
from .scanned import ScanResult as ScanResult
from .scanned import escape_destination as escape_destination
from .scanned import rewrite as rewrite

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

#: HTML comments, and what a browser reads as one: ``<![`` up to the next ``>`` (the standard
#: library's parser reads marked sections instead, and stops with an error on most of them).
HTML_COMMENT_RE = lazy_re(r"<!--.*?(?:-->|\Z)|<!\[[^>]*(?:>|\Z)", re.S)
RAW_BLOCK_RE = lazy_re(r"^\s*<(pre|script|style|textarea)[\s>]", re.I)
#: The attributes of a start tag, as the standard library's HTML parser reads them (its own
#: pattern), with the span of each value.
TAG_ATTR_RE = lazy_re(
    r"((?<=[\'\"\s/])[^\s/>][^\s/=>]*)(?:\s*=+\s*(?:'(?P<sq>[^']*)'|\"(?P<dq>[^\"]*)\"|"
    r"(?![\'\"])(?P<uq>[^>\s]*)))?(?:\s|/(?!>))*")
#: Attributes whose value is a URL: ``href``/``src`` are resolved as links (:data:`LINK_ATTRS`);
#: the others are only checked for dangerous schemes (the list is :mod:`.sanitize`'s; ``srcset``
#: holds several URLs and is left to the sanitiser).
URL_ATTRS = set(SANITIZED_URL_ATTRS - {"srcset", "imagesrcset"})
ID_ATTRS = {"id", "name"}


#: A link destination with no parenthesis, escape, entity or "<" (markdown-it reads it as it is).
_PLAIN_DESTINATION_RE = lazy_re(r"[^\x00-\x20()\\&<\x7f]+")


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._last = (0, 0)  #: (offset, its line): lines are counted on from there

    @property
    def starts(self) -> list[int]:
        """The offset where each line starts (made when first needed: most pages are read
        without markdown-it, and only need the lines of their links, in order)."""
        if self._starts is None:
            self._starts = [0]
            for m in re.finditer("\n", self.text):
                self._starts.append(m.end())
        return self._starts

    def line_of(self, offset: int) -> int:
        """0-based line of an offset."""
        if self._starts is not None:
            return bisect.bisect_right(self._starts, offset) - 1
        last, line = self._last
        if offset < last:
            last = line = 0
        line += self.text.count("\n", last, offset)
        self._last = (offset, line)
        return line

    def bounds(self, line: int) -> tuple[int, int]:
        """Start and end (before the newline and any ``\\r``) of a 0-based line."""
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r":
            end -= 1
        return start, end


class _InlineMap:
    """Maps offsets in an inline token's content back to offsets in the page text."""

    def __init__(self, page: _LineIndex, token: Any, cursors: dict[int, int],
                 cell: bool = False) -> None:
        self.content: str = token.content
        self.page = page
        first_line = token.map[0] if token.map else 0
        lines = self.content.split("\n")
        self.content_starts: list[int] = []
        self.bases: list[int | None] = []
        #: per line of a table cell written with ``\|``: the cell text's pipes (GFM takes the
        #: backslash off), each one column further in the page
        self.pipes: dict[int, list[int]] = {}
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
            # the line's end holds its content after any markers ("> 1. x", "- x"), except in
            # a table row, whose first cell's text can also end the row ("|[x](y)|[x](y)")
            if cl and not cell and stripped.endswith(cl) and ln not in cursors:
                base = lstart + len(stripped) - len(cl)
            else:
                idx = text.find(cl, lstart, lend) if cl else -1
                if idx < 0 and cell and "|" in cl:
                    idx = text.find(cl.replace("|", "\\|"), lstart, lend)
                    if idx >= 0:
                        self.pipes[j] = [k for k, ch in enumerate(cl) if ch == "|"]
                base = idx if idx >= 0 else None
                core = cl.lstrip(" ")
                if base is None and core and core != cl:
                    # the parser turned part of a tab into spaces ("- a\n\t[x](y)"): find the
                    # rest; offsets in those spaces are never a link's
                    idx = text.find(core, lstart, lend)
                    base = idx - (len(cl) - len(core)) if idx >= 0 else None
            if base is not None:
                cursors[ln] = base + len(cl) + len(self.pipes.get(j, ()))
            self.bases.append(base)

    def to_page(self, offset: int, length: int, expect: str) -> int | None:
        j = bisect.bisect_right(self.content_starts, offset) - 1
        base = self.bases[j] if 0 <= j < len(self.bases) else None
        if base is not None:
            at = offset - self.content_starts[j]
            pipes = self.pipes.get(j)
            start = base + at + (bisect.bisect_left(pipes, at) if pipes else 0)
            if self.page.text[start:start + length] == expect:
                return start
        return None


class _Collector:
    def __init__(self, text: str, line_offset: int) -> None:
        self.page = _LineIndex(text)
        self.line_offset = line_offset
        self.result = ScanResult()
        self.reference = False  #: parse every inline token (no shortcut)
        self.current: _InlineMap | None = None
        self.cursors: dict[int, int] = {}

    def line(self, offset: int) -> int:
        return self.page.line_of(offset) + 1 + self.line_offset

    def begin_inline(self, token: Any, cell: bool = False) -> None:
        self.current = _InlineMap(self.page, token, self.cursors, cell)

    def _map(self, src_start: int, raw: str) -> int | None:
        assert self.current is not None
        return self.current.to_page(src_start, len(raw), raw)

    # -- inline rules ----------------------------------------------------------------------

    def inline_link(self, state: Any, start: int, end: int, image: bool) -> None:
        src: str = state.src
        bracket = start + 1 if image else start
        # An inline link ends with ")" and its label with "](": when the link holds only one
        # "](", that is where its label ends; otherwise the label is parsed again.
        label_end = -1 if self.reference else src.find("](", bracket, end)
        if (label_end < 0 or src[end - 1] != ")"
                or src.find("](", label_end + 1, end) >= 0):
            label_end = state.md.helpers.parseLinkLabel(state, bracket, not image)
        if (label_end < 0 or label_end + 1 >= end or src[label_end + 1] != "("
                or src[end - 1] != ")"):
            # a reference usage: its definition carries the destination (also when a "("
            # follows the label but no inline link could be read: "[r](x 't'X[ref]")
            return
        pos = label_end + 2
        while pos < end and src[pos] in " \t\n":
            pos += 1
        plain = None if self.reference else _PLAIN_DESTINATION_RE.match(src, pos, end)
        if plain is not None and (plain.end() == end or src[plain.end()] == ")"
                                  or src[plain.end()] <= " " or src[plain.end()] == "\x7f"):
            # what parseLinkDestination reads (up to a space, a control character or ")"),
            # with nothing to unescape
            raw = dest = plain.group()
        else:
            res = state.md.helpers.parseLinkDestination(src, pos, end)
            if not res.ok or res.pos == pos:
                return
            raw, dest = src[pos:res.pos], res.str
        self.found_link(image, pos, raw, dest)

    def found_link(self, image: bool, src_start: int, raw: str, dest: str) -> None:
        """Report an inline link or image whose destination ``raw`` starts at ``src_start``
        in the inline source."""
        page_start = self._map(src_start, raw)
        if page_start is None:
            self.result.unmapped.append((self._guess_line(), raw))
            return
        self.result.links.append(LinkRef(
            "image" if image else "inline", page_start, page_start + len(raw), dest,
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
        if not self.reference and not _html_yields(raw, 0, len(raw)):
            return  # no attribute that is reported, no "href" or "src"
        page_start = self._map(start, raw)
        if page_start is None:
            if "href" in raw or "src" in raw:
                self.result.unmapped.append((self._guess_line(), raw))
            return
        self._html(raw, page_start)

    def tag(self, start: int, end: int) -> None:
        """Report what the HTML tag ``text[start:end]`` of the page yields, as an
        ``html_inline`` token at that place would."""
        if self.reference or _html_yields(self.page.text, start, end):
            self._html(self.page.text[start:end], start)

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
        self.html_lines(start, end)

    def html_lines(self, start: int, end: int) -> None:
        """Report the links and ids of the HTML block that is ``text[start:end]``."""
        block = self.page.text[start:end]
        if RAW_BLOCK_RE.match(block) or (
                not self.reference and not _html_yields(block, 0, len(block))):
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


class _StartTags(HTMLParser):
    """Collects the start tags of a fragment: (line, column, tag name, raw text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, int, str, str]] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        line, col = self.getpos()
        self.found.append((line, col, tag, self.get_starttag_text() or ""))

    handle_startendtag = handle_starttag


def _start_tags(fragment: str) -> list[tuple[int, str, str]]:
    """(offset, tag name, raw text) of every start tag of an HTML fragment, found by the
    standard library's HTML parser (as a browser tokenizes, not by a pattern)."""
    finder = _StartTags()
    finder.feed(fragment)
    finder.close()
    if not finder.found:
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", fragment)]
    return [(starts[line - 1] + col, tag, raw) for line, col, tag, raw in finder.found]


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
            # Only headings (their text names their anchor) and content that could hold a
            # link, an autolink or HTML that yields something need the inline parse.
            content = token.content
            heading = previous is not None and previous.type == "heading_open"
            if collector is None or collector.reference or heading or _inline_yields(content):
                if collector is not None:
                    collector.begin_inline(token, previous is not None
                                           and previous.type in ("td_open", "th_open"))
                if collector is None or collector.reference or heading:
                    state.md.inline.parse(content, state.md, state.env, token.children)
                else:
                    _inline_links(state, content, collector)
        elif token.type == "html_block" and collector is not None:
            collector.html_block(token)
        previous = token
    if collector is not None:
        collector.current = None


def _inline_links(state: Any, content: str, collector: _Collector) -> None:
    """Report the links of ``content`` (not a heading's): read by :mod:`.inline_links` when
    it can, else by markdown-it's own rules (:func:`_links_only`)."""
    from .inline_links import find_links

    found = find_links(content, "references" in state.env)
    if found is None:
        _links_only(state, content, collector)
        return
    for image, start, end, dest in found:
        collector.found_link(image, start, content[start:end], dest)


#: The characters where an inline rule may consume a "[" or a "!" (that the link and image rules
#: would otherwise see): the link and image rules themselves, a code span, an escape, an
#: autolink or HTML. Every other rule (text, line break, emphasis, entity) consumes none.
_TRIGGER_RE = lazy_re(r"[\[!`\\<]")


def _links_only(state: Any, content: str, collector: _Collector) -> bool:
    """Run markdown-it's inline rules on ``content`` only where one of them could report
    something or consume a bracket (:data:`_TRIGGER_RE`), in the tokenizer's order and with
    its rules, so that every link, image, autolink and tag is reported as the full tokenizer
    reports it; the characters in between (text, emphasis, entities, line breaks) are not
    tokenized. The tokens made are thrown away: only headings need them (for their text)."""
    from markdown_it.rules_inline import StateInline

    inline = StateInline(content, state.md, state.env, [])
    rules = state.md.inline.ruler.getRules("")
    search = _TRIGGER_RE.search
    pos = 0
    while (found := search(content, pos)) is not None:
        inline.pos = found.start()
        for rule in rules:
            if rule(inline, False):
                break
        else:
            inline.pos += 1
        pos = inline.pos
    return True


#: Block rules that can be left out of a page's parse when nothing in the page could start
#: them. Each pattern is a necessary condition, tested on every line after any indentation,
#: blockquote markers and list markers (so a construct nested in a list item is seen too).
#: Leaving out a rule that cannot match anywhere changes nothing but the time.
#:
#: Patterns that look at the start of a line begin with its newline (the text searched starts
#: with one): a literal first character lets the regular expression engine skip ahead instead
#: of trying every position, which makes these searches several times faster than ``^``.
_PREFIX = r"(?m)\n[ \t>*+\-\d.)]*"
OPTIONAL_RULES: dict[str, re.Pattern[str]] = {
    "table": lazy_re(_PREFIX + r"\|?[ \t]*:?-[-:| \t]*$"),
    "code": lazy_re(r"\n(?: {4}|[ >*+\-\d.)]*\t)"),
    "fence": lazy_re(r"```|~~~"),
    "blockquote": lazy_re(_PREFIX + r">"),
    "hr": lazy_re(r"([-*_])[ \t]*\1[ \t]*\1"),
    "reference": lazy_re(r"\]:"),
    "html_block": lazy_re(_PREFIX + r"<"),
    "heading": lazy_re(_PREFIX + r"#"),
    "lheading": lazy_re(r"(?m)\n[ \t>]*(?:=+|-+)[ \t]*$"),
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
    if text is not None and "\r" in text:  # what markdown-it parses: its line breaks
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    probe = None if text is None else "\n" + text
    disabled = frozenset(name for name, pattern in OPTIONAL_RULES.items()
                         if probe is not None and not pattern.search(probe))
    md = _PARSERS.get(disabled)
    if md is None:
        md = _PARSERS[disabled] = _build_parser(disabled)
    return md


# -- the parts of a page that cannot yield anything ------------------------------------------
#
# Most of a page is prose and code that hold no link, heading or HTML. Such a part is left out
# of the parse (its lines are emptied, so line numbers do not move) when two things are proven
# with nothing but patterns:
#
# * it yields nothing wherever it stands: no ``](`` (an inline link or image), no ``]:`` (a
#   reference definition), no autolink, no HTML attribute that is a link or an id, no line
#   that could be a heading, outside the fenced code blocks it holds;
# * it is a run of whole top-level blocks: it starts and ends at *rest points*, lines where
#   the top level of the page has nothing open. The parse of what comes before a rest point
#   does not depend on what follows it, and the parse from a rest point on depends only on the
#   lines from there (and on reference definitions, which a left-out part has none of).
#
# A part that is a single ATX heading whose text no inline rule changes is left out too: its
# heading is read directly, as markdown-it's heading rule does.
#
# A rest point is the line after a heading that starts at a rest point, or a line at column 0
# after a blank line, unless it could be the next item of a list still open: a blank line ends
# every paragraph, table and HTML block of types 6 and 7, and an unindented line after it ends
# every block quote, and every list it is not an item of. What can still be open there is a
# fenced code block or an HTML block of types 1 to 5 (comments, ``<pre>``, ...) at the top
# level; those are followed from their opening line to their closing line exactly as
# markdown-it does. A line that opens one ends a paragraph or a table before it (both rules
# end at a line ``fence`` or ``html_block`` could start). As soon as a line could open one of
# them and it is not certain that it does (it follows HTML that may have opened a block in its
# paragraph, it may be a table's header row, or it is indented in what may be a list item and
# the two readings could end differently), no later line is a rest point: the rest of the page
# is parsed whole. Lines after one that opens an HTML block of type 6 or 7 at a block start
# are in that block up to the next blank line, and open nothing.

# Patterns about lines begin with the newline before the line (see OPTIONAL_RULES), and are
# searched in the page text with a newline put in front (``nl``): there, the line that starts
# at offset x of the text starts with the newline at offset x.

#: Lines after a blank line that start at column 0 (searched in the text itself: the match
#: ends where the line starts).
_REST_CANDIDATE_RE = lazy_re(r"\n[ \t]*\n(?=[^ \t\n])")
#: Lines that may open (or close) a fenced code block or an HTML block of types 1 to 5 at the
#: top level: indented by at most three spaces (a tab makes four).
_OPENER_RE = lazy_re(
    r"(?m)\n( {0,3})(?:(`{3,}|~{3,})([^\n]*)"
    r"|<(?:[!?]|(?i:script|pre|style|textarea)(?=[\s>]|$)))")
#: An ATX heading at a rest point (with no "|": a table's header row has one) followed by a
#: line that is not blank: the heading ends on its line, so the next line is a rest point too.
_HEADING_THEN_LINE_RE = lazy_re(r"#{1,6}(?:[ \t][^\n|]*)?\n(?=[^ \t\n])")
#: Lines that may start an HTML block at the top level.
_TOP_HTML_START_RE = lazy_re(r"\n {0,3}<")
#: Lines that may start an HTML block, in a container or not.
_HTML_START_RE = lazy_re(r"\n[ \t>*+\-\d.)]*<")
#: Lines that may start a list item, inside block quotes or not.
_LIST_LINE_RE = lazy_re(r"(?m)\n[ \t>]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
#: A list item's marker at the start of a line (searched in the text itself).
_ITEM_START_RE = lazy_re(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t\n]|\Z)")
#: The start of an autolink (markdown-it's patterns for a URL scheme or an e-mail address).
_AUTOLINK_START_RE = lazy_re(
    r"<(?:[a-zA-Z][a-zA-Z0-9+.\-]{1,31}:|[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~\-]+@)")
#: The attributes whose value the scan reports (as links or as ids).
_REPORTED_ATTRS = tuple(sorted(URL_ATTRS | ID_ATTRS))
_LONGEST_ATTR = max(len(name) for name in _REPORTED_ATTRS)
#: What else a part that yields something may contain (besides "]:", a reference definition):
#: a line that may be a heading.
_HEADING_LINE_RE = lazy_re(r"(?m)\n[ \t>*+\-\d.)]*(?:#{1,6}(?:[ \t]|$)|(?:=+|-+)[ \t]*$)")


def _inline_yields(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether inline parsing ``text[start:end]`` could find a link or an image (``](``), an
    autolink or HTML that yields something."""
    end = len(text) if end is None else end
    if text.find("](", start, end) >= 0:
        return True
    lt = text.find("<", start, end)
    return lt >= 0 and (_AUTOLINK_START_RE.search(text, lt, end) is not None
                        or _html_yields(text, lt, end))


def _html_yields(text: str, start: int, end: int) -> bool:
    """Whether HTML in ``text[start:end]`` could yield something: an attribute whose value is
    reported (its name, lowercased, then "=", as the collector reads tags), or "href" or "src"
    (a tag whose position is lost is reported when it holds them). Found with ``str.find``: a
    pattern for the names is tried at every character and costs ten times more."""
    if text.find("href", start, end) >= 0 or text.find("src", start, end) >= 0:
        return True
    eq = text.find("=", start, end)
    while eq >= 0:
        name_end = eq
        while name_end > start and text[name_end - 1].isspace():
            name_end -= 1
        if text[max(start, name_end - _LONGEST_ATTR):name_end].lower().endswith(_REPORTED_ATTRS):
            return True
        eq = text.find("=", eq + 1, end)
    return False


def _yields(text: str, nl: str, start: int, end: int) -> bool:
    """Whether parsing the lines ``text[start:end]`` could find anything, wherever they stand
    (``nl`` is ``text`` after a newline)."""
    if text.find("](", start, end) >= 0 or text.find("]:", start, end) >= 0:
        return True
    lt = text.find("<", start, end)
    if lt >= 0 and (_AUTOLINK_START_RE.search(text, lt, end) is not None
                    or _html_yields(text, lt, end)):
        return True  # what _inline_yields finds
    return _HEADING_LINE_RE.search(nl, start, end + 1) is not None


def _rest_points(text: str, nl: str, origin: int = 0) -> tuple[list[int], list[tuple[int, int]]]:
    """The offsets of the rest points of ``text`` that are certain, in order (``origin``, the
    start of a line where nothing is open, first), and the spans of the fenced code blocks
    followed on the way (code: they yield nothing)."""
    from markdown_it.rules_block.html_block import HTML_SEQUENCES

    candidates = [m.end() for m in _REST_CANDIDATE_RE.finditer(text, origin)]
    points: list[int] = []
    fences: list[tuple[int, int]] = []

    def add(point: int) -> int:
        """Add a rest point, and the lines after it that follow headings."""
        while True:
            points.append(point)
            heading = _HEADING_THEN_LINE_RE.match(text, point)
            if heading is None:
                return point
            point = heading.end()

    add(origin)
    pos = origin  # nothing is open at the top level at pos
    last_rest = origin
    ci = 0
    for m in _OPENER_RE.finditer(nl, origin):
        start = m.start()  # where the line starts in text
        if start < pos:
            continue  # inside a block already followed to its end
        while ci < len(candidates) and candidates[ci] <= start:
            if candidates[ci] >= pos and _rests(text, nl, candidates[ci], last_rest):
                last_rest = add(candidates[ci])
            ci += 1
        indent = len(m.group(1))
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        marker = m.group(2)
        if marker:
            if marker[0] == "`" and "`" in m.group(3):
                continue  # not a fence: text
            close: re.Pattern[str] = _closing_fence(marker)
        else:
            line_text = text[start + indent:line_end]
            for open_re, close_re, _ in HTML_SEQUENCES[:5]:
                if open_re.search(line_text):
                    close = close_re
                    break
            else:
                continue  # an HTML block of type 6 or 7 ends at the next blank line
        # the lines since the last blank line or the end of the last block followed
        chunk = _after_blank(text, start, pos)
        next_end = text.find("\n", line_end + 1)
        in_list = indent > 0 and _LIST_LINE_RE.search(nl, last_rest, start) is not None
        next_stop = len(nl) if next_end < 0 else next_end + 1  # the next line's end, in nl
        if in_list:
            if (_HTML_START_RE.search(nl, chunk, start)
                    or OPTIONAL_RULES["table"].search(nl, chunk, next_stop)):
                return points, fences  # the line may be inside an HTML block or a table
        else:
            if chunk < start and _opens_html_block(text, chunk):
                continue  # the line is in that HTML block, which ends at the next blank line
            if _top_html_block(text, nl, chunk, start) or (
                    text.find("|", start, line_end) >= 0 and line_end < len(text)
                    and OPTIONAL_RULES["table"].search(nl, line_end + 1, next_stop)):
                # the line may be inside an HTML block, or a table's header row (the table
                # rule is tried first); after a paragraph or table rows it ends them and
                # opens its block (fence and html_block end both)
                return points, fences
        if marker:
            found = close.search(nl, line_end + 1)  # the closing line (from its newline)
            found_end = -1 if found is None else found.end() - 1
        else:
            found = close.search(text, start + indent)
            found_end = -1 if found is None else found.end()
        if found is None:
            return points, fences  # open to the end of the page
        if in_list and not _ends_alike(text, nl, m, line_end, found, last_rest):
            return points, fences
        end = text.find("\n", found_end)
        pos = len(text) if end < 0 else end + 1
        if marker:
            fences.append((start, pos))
        if not in_list:
            # a block at the top level: it ended the paragraph, table or list before it, and
            # nothing is open after its last line. At column 0, the line that opened it is a
            # rest point, and so is the next line if it starts at column 0.
            if indent == 0 and start > points[-1]:
                add(start)
            last_rest = pos
            if indent == 0 and pos < len(text) and text[pos] not in " \t\n":
                last_rest = add(pos)
    for c in candidates[ci:]:
        if c >= pos and _rests(text, nl, c, last_rest):
            last_rest = add(c)
    return points, fences


def _after_blank(text: str, start: int, floor: int) -> int:
    """The start of the last line at or before the line start ``start`` that follows a blank
    line (spaces and tabs only; the first line of ``text`` is not one), if it is after
    ``floor``; else ``floor``. Read back line by line from ``start`` down to ``floor``."""
    line = start
    while line > floor:
        before = text.rfind("\n", 0, line - 1)  # text[line - 1] ends the line before
        if before >= 0 and not text[before + 1:line - 1].strip(" \t"):
            return line
        line = before + 1
    return floor


def _rests(text: str, nl: str, line: int, last_rest: int) -> bool:
    """Whether a line after a blank line, at column 0, with no fenced code or HTML block of
    types 1 to 5 open, is a rest point: it is unless it could be the next item of a list that
    may be open (one started since the last rest point)."""
    return (text[line] not in "-+*0123456789" or _ITEM_START_RE.match(text, line) is None
            or _LIST_LINE_RE.search(nl, last_rest, line) is None)


def _opens_html_block(text: str, line: int) -> bool:
    """Whether the line that starts at ``line``, a block start at the top level (after a
    blank line or a block followed to its end, at column 0), opens an HTML block of type 6 or
    7: the lines after it, up to the next blank line, are in that block (an opener among them
    opens nothing). Its line holds no "|": the ``table`` rule, tried before ``html_block``,
    needs one there."""
    if text[line] != "<":
        return False
    end = text.find("\n", line)
    first = text[line:] if end < 0 else text[line:end]
    return "|" not in first and _html_block_type(first) in (6, 7)


def _top_html_block(text: str, nl: str, start: int, end: int) -> bool:
    """Whether a line in ``text[start:end]`` may start an HTML block at the top level (one of
    type 6 or 7: the others are followed; an HTML block in a block quote or a list item ends
    at the next line that is at the top level)."""
    for m in _TOP_HTML_START_RE.finditer(nl, start, end):
        if _opens_html(text, m.end() - 2, len(text)):  # the "<", in text (nl has one more
            return True                                # character in front)
    return False


def _closing_fence(marker: str) -> re.Pattern[str]:
    """The closing line of a fence opened with ``marker`` (searched in ``nl``)."""
    key = marker[0] * len(marker)
    found = _CLOSING_FENCES.get(key)
    if found is None:
        found = re.compile(
            r"(?m)\n {0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$")
        if len(marker) <= 8:
            _CLOSING_FENCES[key] = found
    return found


#: :func:`_closing_fence`'s patterns for the usual markers (up to 8 backticks or tildes)
_CLOSING_FENCES: dict[str, re.Pattern[str]] = {}


def _ends_alike(text: str, nl: str, opener: re.Match[str], line_end: int,
                closer: re.Match[str], last_rest: int) -> bool:
    """Whether a fence opened by an indented line ends at ``closer`` whether the line is in a
    list item (with content offset at most its indent) or at the top level.

    It does when no line up to the closer is less indented than the opener (none leaves the
    item), the closer is not either, and no other line could close the fence in the item
    (where more indented lines can). HTML since the last rest point could hold the opener.
    """
    indent = len(opener.group(1))
    if not opener.group(2) or _HTML_START_RE.search(nl, last_rest, opener.start()):
        return False
    closing_line = closer.group(0)[1:]
    if len(closing_line) - len(closing_line.lstrip(" ")) < indent:
        return False
    between = (line_end + 1, closer.start())  # the lines between, in nl
    if re.compile(r"\n {0," + str(indent - 1) + r"}\S").search(nl, *between):
        return False
    marker = opener.group(2)
    like_closer = re.compile(r"(?m)\n[ \t]*" + re.escape(marker[0]) + "{" + str(len(marker))
                             + r",}[ \t]*$")
    return like_closer.search(nl, *between) is None


#: A part that is one ATX heading line, followed by blank lines.
_HEADING_PART_RE = lazy_re(r"(#{1,6})(?:[ \t]([^\n]*))?\n?[ \t\n]*\Z")
#: Heading text (outside code spans) that an inline rule could change: an escape, emphasis (a
#: "_" run between letters or digits can neither open nor close it), a link or an image, an
#: autolink or HTML, an entity; NUL (markdown-it replaces it).
_NOT_PLAIN_RE = lazy_re(
    r"[\\*\[<\x00]|(?<![A-Za-z0-9_])_|_(?![A-Za-z0-9_])|&(?![ \t]|$)")


def _plain_heading(match: re.Match[str], line: int) -> Heading | None:
    """The heading of a part matched by :data:`_HEADING_PART_RE` as markdown-it reads it (its
    ``heading`` rule: closing ``#`` sequence and surrounding spaces removed; then its inline
    rules, when the text holds nothing but plain text and code spans), or None."""
    content = match.group(2) or ""
    end = len(content.rstrip(" \t"))
    if end and content[end - 1] != "#":
        inline = content.strip()  # no closing sequence (most headings)
    else:
        closing = len(content[:end].rstrip("#"))
        if closing and content[closing - 1] in " \t":
            end = closing
        elif closing == 0:
            end = 0  # only a closing sequence: "## ##" is an empty heading
        inline = content[:end].strip()
    text = _plain_inline(inline)
    return None if text is None else Heading(len(match.group(1)), text, line, inline)


def _plain_inline(content: str) -> str | None:
    """The plain text of one line of inline content that holds only text and code spans (as
    markdown-it's ``backticks`` rule reads them), or None if it may hold anything else."""
    if "`" not in content:  # no code span (most headings)
        return None if _NOT_PLAIN_RE.search(content) else content.strip()
    out: list[str] = []
    pos = 0
    n = len(content)
    while True:
        tick = content.find("`", pos)
        text = content[pos:] if tick < 0 else content[pos:tick]
        if _NOT_PLAIN_RE.search(text):
            return None
        out.append(text)
        if tick < 0:
            return "".join(out).strip()
        after = tick
        while after < n and content[after] == "`":
            after += 1
        length = after - tick
        closer = after
        while True:  # the next run of exactly as many backticks closes the span
            closer = content.find("`", closer)
            if closer < 0:
                break
            run_end = closer
            while run_end < n and content[run_end] == "`":
                run_end += 1
            if run_end - closer == length:
                break
            closer = run_end
        if closer < 0:  # no closer: the backticks are text
            out.append(content[tick:after])
            pos = after
            continue
        code = content[after:closer]
        if "\x00" in code:
            return None
        if code.startswith(" ") and code.endswith(" "):
            if code.strip():
                code = code[1:-1]
            elif code.strip(" "):
                return None  # only spaces and tabs: markdown-it versions differ

        out.append(code)
        pos = closer + length


def _quiet_parts(text: str, line_offset: int = 0) -> tuple[list[tuple[int, int]], list[Heading]]:
    """The spans of ``text`` that can be left out of its parse (see above), and the headings
    of those that are a plain heading."""
    quiet, headings, _ = _parts(text, line_offset)
    return quiet, headings


def _parts(text: str, line_offset: int = 0, nl: str | None = None) -> tuple[
        list[tuple[int, int]], list[Heading], list[tuple[int, int]]]:
    """:func:`_quiet_parts`, and the other parts between two rest points (in order). ``nl``:
    ``"\n" + text``, when the caller has it."""
    busy: list[tuple[int, int]] = []
    if "\r" in text:  # markdown-it reads a lone CR as a line break
        return [], [], busy
    if nl is None:
        nl = "\n" + text
    # the blank lines a page starts with (after its front matter) yield nothing and leave
    # nothing open: the parts are those of the rest, which starts at a rest point
    lead = _LEADING_BLANK_RE.match(text).end()  # type: ignore[union-attr]
    points, fences = _rest_points(text, nl, lead)
    points.append(len(text))  # what follows the last rest point can be left out too
    parts: list[tuple[int, int]] = []
    headings: list[Heading] = []
    f = 0
    line = line_offset + 1
    counted = 0
    for a, b in itertools.pairwise(points):
        # quiet if nothing outside its fenced code could yield anything
        quiet = True
        pos = a
        while f < len(fences) and fences[f][0] < b:
            if quiet and _yields(text, nl, pos, fences[f][0]):
                quiet = False
            pos = fences[f][1]
            f += 1
        if quiet:
            heading_line = (_HEADING_PART_RE.match(text, a, b) if text.startswith("#", a, b)
                            else None)
            if heading_line is not None:
                # one heading line (it yields its heading): quiet if read here
                line += text.count("\n", counted, a)
                counted = a
                heading = _plain_heading(heading_line, line)
                if heading is not None:
                    headings.append(heading)
                else:
                    quiet = False
            elif _yields(text, nl, pos, b):
                quiet = False
        if quiet:
            if parts and parts[-1][1] == a:
                parts[-1] = (parts[-1][0], b)
            else:
                parts.append((a, b))
        else:
            busy.append((a, b))
    return parts, headings, busy


#: What may start a block other than a paragraph (an indented line; a heading, quote, list
#: item, rule, fence, HTML, table row or setext underline), at the start of a line.
_BLOCK_START = r"[ \t#>=|:<_\-]|[+*](?:[ \t\n]|\Z)|\*[ \t]*\*[ \t]*\*|`{3}|~{3}|\d{1,9}[.)]"
_BLOCK_START_RE = lazy_re(_BLOCK_START)
#: The same after a newline, searched in ``nl``: a part of a page starting at a rest point
#: whose lines all start otherwise, with no blank line between them, is one paragraph.
_NOT_PARAGRAPH_LINE_RE = lazy_re(r"\n(?:" + _BLOCK_START + ")")
#: The first line of a list item: its marker, one space, then its text.
_ITEM_RE = lazy_re(r"(?:[-+*]|\d{1,9}[.)]) (?=[^ \t\n])")
#: A thematic break, alone on its line.
_RULE_RE = lazy_re(r"([-*_])(?:[ \t]*\1){2,}[ \t]*\Z")
#: A table's delimiter row, and one of its columns.
_DELIMITER_ROW_RE = lazy_re(r"[|:\-][|:\- \t]+\Z")
_ALIGN_RE = lazy_re(r":?-+:?\Z")
#: The blank lines at the start of a text.
_LEADING_BLANK_RE = lazy_re(r"(?:[ \t]*\n)*")


def _paragraph(text: str, nl: str, a: int, b: int, references: bool,
               collector: _Collector) -> bool:
    """If the part ``text[a:b]`` (between two rest points) is one paragraph, a thematic
    break, a list whose items are one paragraph each, or a paragraph that such a list ends,
    and :mod:`.inline_links` reads their links, report them and return True; else report
    nothing."""
    end = a + len(text[a:b].rstrip(" \t\n"))
    if end == a or text.find("\x00", a, b) >= 0:
        return False
    if text[a] == "<":
        kind = _html_block_type(_line_at(text, a, end))
        if kind is not None:  # an HTML block: read here if of type 6, else by markdown-it
            return kind == 6 and _html_part(text, a, end, collector)
        # else a paragraph that starts with inline HTML
    if text.find("\n\n", a, end) >= 0:
        return False
    #: the lines of each paragraph: (start, end) of the text markdown-it gives it
    paragraphs: list[list[tuple[int, int]]] | None
    if _ITEM_RE.match(text, a, end) is not None:
        paragraphs = _items(text, a, end)
    elif (text[a] in "-*_" and text.find("\n", a, end) < 0
            and _RULE_RE.match(text, a, end) is not None):
        return True
    elif text[a] == "|":
        cells = _table_cells(text, a, end)
        paragraphs = None if cells is None else [[cell] for cell in cells]
    elif text[a] == "[" and text.find("]:", a, end) >= 0:  # may be a definition
        return False
    else:
        # (a first line that starts with "<" opens no HTML block: see above)
        other = _NOT_PARAGRAPH_LINE_RE.search(nl, a + 1 if text[a] == "<" else a, end + 1)
        if other is None:
            paragraphs = [[(a, end)]]  # its lines, as they are in the page
        else:
            # a list may end the paragraph (``other`` starts where its line does in text)
            line = other.start()
            item = _ITEM_RE.match(text, line, end) if line > a else None
            if item is None or (text[line] not in "-+*" and int(item.group(0)[:-2]) != 1):
                return False  # another block, or a list that cannot interrupt a paragraph
            paragraphs = _items(text, line, end)
            if paragraphs is not None:
                paragraphs.insert(0, [(a, line - 1)])
    if paragraphs is None:
        return False
    found: list[LinkRef] = []
    tags: list[tuple[int, int]] = []
    for lines in paragraphs:
        if not (_read_span(text, lines[0][0], lines[0][1], references, found, tags)
                if len(lines) == 1 else _read_inline(text, lines, references, found, tags)):
            return False
    line_of, first = collector.page.line_of, 1 + collector.line_offset
    for link in found:
        link.line = line_of(link.start) + first  # collector.line
    collector.result.links.extend(found)
    for start, stop in tags:
        collector.tag(start, stop)
    return True


def _items(text: str, a: int, end: int) -> list[list[tuple[int, int]]] | None:
    """The lines of each item's paragraph if ``text[a:end]`` (no blank line) is a list whose
    items are one paragraph each (continued on lines indented to the item's text), else
    None."""
    paragraphs: list[list[tuple[int, int]]] = []
    pos = a
    indent = 0
    while pos < end:
        line_end = text.find("\n", pos, end)
        if line_end < 0:
            line_end = end
        item = _ITEM_RE.match(text, pos, line_end)
        if item is not None:  # the next item
            indent = item.end() - pos
            start = item.end()
            paragraphs.append([(start, line_end)])
        elif (text.startswith(" " * indent, pos)
              and text[pos + indent:pos + indent + 1] not in (" ", "\t")):
            start = pos + indent  # the item's paragraph goes on
            paragraphs[-1].append((start, line_end))
        else:
            return None
        if ((_BLOCK_START_RE.match(text, start, line_end) is not None
                and (text[start] != "<" or item is None or _opens_html(text, start, line_end)))
                or (text[start] == "[" and text.find("]:", start, end) >= 0)):
            return None  # another block in the item; a reference definition
        pos = line_end + 1
    return paragraphs


#: A line of spaces and tabs only, from the newline before it (markdown-it's ``isEmpty``).
_BLANK_LINE_RE = lazy_re(r"\n[ \t]*\n")


def _html_block_type(line: str) -> int | None:
    """The type (1 to 7) of the HTML block that ``line``, at a block start after its
    indentation, opens, as markdown-it's ``html_block`` rule tries its ``HTML_SEQUENCES`` in
    order; None if it opens none."""
    from markdown_it.rules_block.html_block import HTML_SEQUENCES

    for kind, (open_re, _, _) in enumerate(HTML_SEQUENCES, 1):
        if open_re.search(line):
            return kind
    return None


def _line_at(text: str, start: int, end: int) -> str:
    """The line of ``text`` that starts at ``start``, up to ``end`` at most."""
    line_end = text.find("\n", start, end)
    return text[start:end] if line_end < 0 else text[start:line_end]


def _opens_html(text: str, start: int, end: int) -> bool:
    """Whether the line at ``start`` (up to ``end``), at a block start, opens an HTML block
    of any type."""
    return _html_block_type(_line_at(text, start, end)) is not None


def _html_part(text: str, a: int, end: int, collector: _Collector) -> bool:
    """If the part ``text[a:end]`` (between two rest points, so at column 0 with nothing open),
    whose first line opens an HTML block of type 6 (a block-level tag), is that one block (it
    ends at the next blank line, and the part has none), report what markdown-it's
    ``html_block`` token would yield and return True; else report nothing. Its first line
    holds no "|": the ``table`` rule, tried before ``html_block``, needs one there. (Blocks of
    types 1 to 5 end at a closing sequence; type 7, any other tag alone on its line, is left
    to markdown-it.)"""
    if "|" in _line_at(text, a, end) or _BLANK_LINE_RE.search(text, a, end) is not None:
        return False
    stop = text.find("\n", end)  # the block takes its last line's newline
    collector.html_lines(a, len(text) if stop < 0 else stop + 1)
    return True


def _table_cells(text: str, a: int, end: int) -> list[tuple[int, int]] | None:
    """The spans of the cells' contents (as markdown-it's ``table`` rule cuts them) if
    ``text[a:end]`` is a table whose every line starts with "|", else None."""
    lines: list[tuple[int, int]] = []
    pos = a
    while pos < end:
        line_end = text.find("\n", pos, end)
        if line_end < 0:
            line_end = end
        line = text[pos:line_end]
        # every line a row (nothing else starts with "|"); the cells are slices of it
        if line[:1] != "|" or "\\|" in line or line.strip() != line.strip(" \t"):
            return None
        lines.append((pos, line_end))
        pos = line_end + 1
    if len(lines) < 2:
        return None
    delimiter = text[lines[1][0]:lines[1][1]]
    if _DELIMITER_ROW_RE.match(delimiter) is None:
        return None
    columns = delimiter.split("|")
    aligns = 0
    for i, column in enumerate(columns):
        column = column.strip(" \t")
        if not column:
            if i == 0 or i == len(columns) - 1:
                continue
            return None
        if _ALIGN_RE.match(column) is None:
            return None
        aligns += 1
    if aligns * len(lines) > 0x10000:
        return None  # markdown-it 4 stops a table that would fill in that many empty cells
    cells: list[tuple[int, int]] = []
    for row, (start, stop) in enumerate(lines):
        if row == 1:
            continue
        stop = start + len(text[start:stop].rstrip(" \t"))
        # the first segment is empty (the line starts with "|"), so is the last when the
        # line ends with one
        bounds = [start]
        pipe = text.find("|", start + 1, stop)
        while pipe >= 0:
            bounds.append(pipe)
            pipe = text.find("|", pipe + 1, stop)
        bounds.append(stop)
        if text[stop - 1] == "|":
            bounds.pop()
        segments = [(bounds[i] + 1, bounds[i + 1]) for i in range(len(bounds) - 1)]
        if row == 0 and len(segments) != aligns:
            return None  # no table: a paragraph
        for cell_start, cell_stop in segments[:aligns]:
            while cell_start < cell_stop and text[cell_start] in " \t":
                cell_start += 1
            while cell_stop > cell_start and text[cell_stop - 1] in " \t":
                cell_stop -= 1
            if text[cell_start:cell_stop].strip() != text[cell_start:cell_stop]:
                return None  # other white space: markdown-it versions trim it differently
            if cell_start < cell_stop:
                cells.append((cell_start, cell_stop))
    return cells


def _read_span(text: str, first: int, last: int, references: bool,
               found: list[LinkRef], tags: list[tuple[int, int]]) -> bool:
    """:func:`_read_inline` of a paragraph that is one span of ``text``."""
    if not _inline_yields(text, first, last):
        return True  # most table cells
    reader = _INLINE_LINKS[0] if _INLINE_LINKS else _load_inline_links()
    joined = text[first:last]
    content = joined.strip()  # as markdown-it's paragraph rule makes its content
    spans: list[tuple[int, int]] | None = [] if "<" in content else None
    links = reader.find_links(content, references, spans)
    if links is None:
        return False
    # one span of the page: the links and tags are where they are in it
    base = first + len(joined) - len(joined.lstrip())
    for image, start, stop, dest in links:
        found.append(LinkRef("image" if image else "inline", base + start, base + stop, dest,
                             0, content.startswith("<", start)))
    if spans:
        for start, stop in spans:
            tags.append((base + start, base + stop))
    return True


#: :mod:`.inline_links`, once imported (only a page that is scanned needs it)
_INLINE_LINKS: list[ModuleType] = []


def _load_inline_links() -> ModuleType:
    from . import inline_links

    _INLINE_LINKS.append(inline_links)
    return inline_links


def _read_inline(text: str, lines: list[tuple[int, int]], references: bool,
                 found: list[LinkRef], tags: list[tuple[int, int]]) -> bool:
    """Add the links of the paragraph made of ``lines`` (spans of ``text``) to ``found`` (with
    line 0) and the spans of its HTML tags to ``tags``, if :mod:`.inline_links` reads it."""
    from .inline_links import find_links

    if len(lines) == 1:
        return _read_span(text, lines[0][0], lines[0][1], references, found, tags)
    joined = "\n".join(text[start:stop] for start, stop in lines)
    content = joined.strip()  # as markdown-it's paragraph rule makes its content
    if not _inline_yields(content):
        return True
    spans: list[tuple[int, int]] = []
    links = find_links(content, references, spans)
    if links is None:
        return False
    lead = len(joined) - len(joined.lstrip())
    starts: list[int] = []  # where each line starts in ``joined``
    pos = 0
    for start, stop in lines:
        starts.append(pos)
        pos += stop - start + 1

    def in_page(start: int, stop: int) -> int:
        """Where ``content[start:stop]`` is in the page, or -1 if not on one line."""
        offset = start + lead
        i = bisect.bisect_right(starts, offset) - 1
        page_start = lines[i][0] + offset - starts[i]
        raw = content[start:stop]
        return page_start if text[page_start:page_start + len(raw)] == raw else -1

    for image, start, stop, dest in links:
        page_start = in_page(start, stop)
        if page_start < 0:
            return False  # not on one line: markdown-it's mapping decides
        found.append(LinkRef("image" if image else "inline", page_start,
                             page_start + stop - start, dest, 0,
                             angle=content.startswith("<", start)))
    for start, stop in spans:
        page_start = in_page(start, stop)
        if page_start < 0:
            return False
        tags.append((page_start, page_start + stop - start))
    return True


def _left(text: str, parts: list[tuple[int, int]]) -> bool:
    """Whether ``text`` holds more than white space outside ``parts`` (in order)."""
    last = 0
    for a, b in parts:
        if a > last and not text[last:a].isspace():
            return True
        last = b
    return last < len(text) and not text[last:].isspace()


def _without(text: str, parts: list[tuple[int, int]]) -> str:
    """``text`` with the lines of ``parts`` emptied."""
    out: list[str] = []
    last = 0
    for a, b in parts:
        out.append(text[last:a])
        out.append("\n" * text.count("\n", a, b))
        last = b
    out.append(text[last:])
    return "".join(out)


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


def scan(text: str, *, line_offset: int = 0, reference: bool = False) -> ScanResult:
    """Find every link destination, heading and HTML id of a Markdown page body.

    ``line_offset`` is added to reported lines (the number of front matter lines cut off).
    ``reference=True`` parses the whole page with every rule and no shortcut: the result is
    the same (the tests hold the two equal on every corpus page), only slower.
    """
    collector = _Collector(text, line_offset)
    env: dict[str, Any] = {"_mdp_collector": collector}
    if reference:
        collector.reference = True
        tokens = parser().parse(text, env)
    else:
        nl = "\n" + text
        parts, headings, busy = _parts(text, line_offset, nl)
        if busy:
            # parts that are one paragraph are read here, without markdown-it
            references = "]:" in text
            read = [(a, b) for a, b in busy
                    if _paragraph(text, nl, a, b, references, collector)]
            if read:
                parts = sorted(parts + read)
        if parts and not _left(text, parts):
            tokens = []  # every part left out or read: nothing for markdown-it
        else:
            parsed = _without(text, parts) if parts else text
            tokens = parser(parsed).parse(parsed, env) if parsed.strip() else []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            inline = tokens[i + 1]
            line = (token.map[0] if token.map else 0) + 1 + line_offset
            collector.result.headings.append(Heading(
                int(token.tag[1]), _plain_text(inline.children or ()).strip(), line,
                inline.content))
    if not reference and headings:
        collector.result.headings.extend(headings)
        collector.result.headings.sort(key=lambda heading: heading.line)
    if not reference and len(collector.result.ids) > 1:
        # ids of the HTML blocks read here come before the parsed ones: page order again
        collector.result.ids.sort(key=lambda found: found.line)
    collector.result.links.sort(key=lambda link: link.start)
    return collector.result


def unescape(raw: str) -> str:
    from markdown_it.common.utils import unescapeAll

    return str(unescapeAll(raw))


def with_heading(heading: str, newline: str, scanned: ScanResult,
                 line_offset: int) -> ScanResult:
    """The scan of ``heading + newline + body`` at ``line_offset - 1``, made from ``scanned``,
    the scan of ``body`` at ``line_offset``, without reading the body again.

    ``heading`` is one ATX heading line whose text holds no link syntax (the title heading
    a page gets from its front matter). Such a line closes at once, so what follows it is read
    as it is at the start of a page (reference definitions are the page's either way), and the
    body's lines keep their numbers: the offset moves back by the one line inserted. Only the
    links' spans move, by the heading's length. The tests hold this equal to a scan of the
    whole text on every corpus page and on generated ones.
    """
    head = scan(heading + newline, line_offset=line_offset - 1)
    shift = len(heading) + len(newline)
    links = head.links + [
        LinkRef(link.kind, link.start + shift, link.end + shift, link.dest, link.line,
                link.angle, link.tag, link.attr, link.quote, link.label, link.text)
        for link in scanned.links]
    return ScanResult(links, head.headings + scanned.headings, head.ids + scanned.ids,
                      head.unmapped + scanned.unmapped)
