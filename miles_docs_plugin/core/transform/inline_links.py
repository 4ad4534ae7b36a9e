"""Inline links and images of one paragraph, found as markdown-it-py's inline rules find them.

:func:`find_links` reads the inline content of a block (a paragraph, a table cell) the way
markdown-it-py's tokenizer does for the rules that decide where a link is: ``link`` and
``image`` (labels with their bracket levels and no nested links, inline destinations with their
parentheses and escapes, titles in the three quote styles), ``backticks`` (a code span takes its
brackets with it), ``escape`` (an escaped bracket is text) and the lookahead that markdown-it
runs inside labels (``skipToken``, with its per-position memo). The other rules (text,
emphasis, entities, line breaks) never consume a bracket, a backtick or a backslash, so they
are stepped over.

It does not handle the rest, and says so by returning None, so that the caller parses the
content with markdown-it itself:

* a ``<`` that may start an autolink or raw HTML (both are reported, and both take brackets);
* a page with reference definitions, once a bracket could be a reference link;
* brackets nested deeper than markdown-it's recursion limit could reach, or content that would
  take this reader more than a bounded number of steps.

The tests compare the result with markdown-it's on every corpus page and on generated pages.
"""

from __future__ import annotations

import re

#: What the tokenizer stops at: a link or an image, a code span, an escape, HTML or an autolink.
_TOP_RE = re.compile(r"[\[!`\\<]")
#: The same inside a label, where a "]" may close it.
_LABEL_RE = re.compile(r"[\[\]!`\\<]")
#: A destination markdown-it reads as it is: no parenthesis, escape, entity, "<", space or
#: control character.
_PLAIN_DESTINATION_RE = re.compile(r"[^\x00-\x20()\\&<\x7f]+")
#: After "<": what may start an autolink (a scheme, an e-mail address) or an HTML tag.
_MAY_BE_TAG_RE = re.compile(r"<(?:[A-Za-z!?/]|[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~\-]+@)")
#: The characters markdown-it's ``escape`` rule takes with the backslash (and a line break).
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\n")
#: An inline link or image whose label holds no bracket and whose destination markdown-it
#: reads as it is, right up to the ")" (no space, no title).
_SIMPLE_LINK_RE = re.compile(r"\[[^\[\]]*\]\(([^\x00-\x20()\\&<\x7f]+)\)")
#: Deeper than this many nested link attempts, markdown-it's ``maxNesting`` (20) comes near.
_MAX_DEPTH = 8
_WHITESPACE = " \t\n"


class _Fallback(Exception):
    """The content holds something this reader leaves to markdown-it."""


#: (image, destination start, destination end, destination) for each inline link or image.
Found = tuple[bool, int, int, str]


def find_links(content: str, references: bool,
               tags: list[tuple[int, int]] | None = None) -> list[Found] | None:
    """The inline links and images of ``content`` in the order markdown-it's wrapped rules
    report them (a link after the images in its text), or None when markdown-it must read it.

    ``references``: the page has reference definitions (a bracket may then be a reference
    link, which this reader leaves to markdown-it). ``tags``: where the spans of the HTML
    tags markdown-it's ``html_inline`` rule reads (outside the text of images) are added, in
    its order (what it holds means nothing when None is returned); without it, content with a
    tag is left to markdown-it. An autolink always is.
    """
    if "`" not in content and "\\" not in content and "<" not in content:
        # (three ``in`` tests: a character class searched with ``re`` is ten times slower)
        # No code span, escape, HTML or autolink: when every bracket belongs to a simple
        # link (no bracket in its label, a plain destination right before ")"), markdown-it
        # reads each of them as that link, and nothing else as one.
        simple: list[Found] = []
        for m in _SIMPLE_LINK_RE.finditer(content):
            start = m.start()
            dest_start, dest_end = m.span(1)
            simple.append((start > 0 and content[start - 1] == "!", dest_start, dest_end,
                           m.group(1)))
        if len(simple) == content.count("[") == content.count("]"):
            return simple
    global _LEGACY_BACKTICKS
    if _LEGACY_BACKTICKS is None:
        from markdown_it.rules_inline import backticks

        # markdown-it-py before 4.3 looks for a closing run with a cache whose answers depend
        # on the order the runs were visited in; 4.3 scans for it (``_build_last_runs``)
        _LEGACY_BACKTICKS = not hasattr(backticks, "_build_last_runs")
    reader = _Reader(content, references, _LEGACY_BACKTICKS)
    reader.tags = tags
    try:
        reader.tokenize(0, len(content), 0)
    except _Fallback:
        return None
    return reader.found


#: Whether the installed markdown-it-py reads code spans with its older backtick cache
#: (worked out on first use).
_LEGACY_BACKTICKS: bool | None = None


class _Reader:
    __slots__ = ("budget", "cache", "found", "legacy", "references", "runs", "scanned", "src",
                 "tags")

    def __init__(self, src: str, references: bool, legacy_backticks: bool) -> None:
        self.src = src
        self.references = references
        self.cache: dict[int, int] = {}  #: skipToken's memo: position -> position after
        self.found: list[Found] = []
        self.budget = 64 * len(src) + 256
        self.runs: dict[int, int] = {}  #: the older backtick cache: length -> position
        self.scanned = False  #: ... and whether it was filled to the end
        #: which of markdown-it's ``backticks`` rules reads a "`" (a flag, not a bound method
        #: kept on the reader: that would be a reference cycle, left to the garbage collector)
        self.legacy = legacy_backticks
        #: where the spans of the HTML tags read are added (None: a tag is left to markdown-it)
        self.tags: list[tuple[int, int]] | None = None

    def tokenize(self, pos: int, end: int, depth: int) -> None:
        """markdown-it's ``tokenize`` over ``src[pos:end]``: reports what it finds."""
        src = self.src
        search = _TOP_RE.search
        while pos < end:
            m = search(src, pos, end)
            if m is None:
                return
            pos = self.step(m.start(), end, depth, True)

    def step(self, pos: int, end: int, depth: int, report: bool) -> int:
        """Read the construct at ``pos`` (a character of :data:`_TOP_RE` or :data:`_LABEL_RE`);
        the position after it (``pos + 1`` when it is plain text). ``report``: a link found is
        reported (``tokenize``), not only skipped (``skipToken`` in a label)."""
        c = self.src[pos]
        if c == "[" or c == "!":
            after = self.link(pos, end, depth, c == "!", report)
            return after if after > 0 else pos + 1
        if c == "`":  # the position after the code span, or after the run if nothing closes it
            if self.legacy:
                return self.legacy_backticks(pos, end)
            return self.current_backticks(pos, end)
        if c == "\\":
            return self.escape(pos, end)
        return self.less_than(pos, end, report)

    def skip(self, pos: int, end: int, depth: int) -> int:
        """markdown-it's ``skipToken`` at a character of :data:`_LABEL_RE` (not "]")."""
        cached = self.cache.get(pos)
        if cached is not None:
            return cached
        after = self.step(pos, end, depth, False)
        self.cache[pos] = after
        return after

    def less_than(self, pos: int, end: int, report: bool) -> int:
        """markdown-it's ``autolink`` and ``html_inline`` rules at a "<": the position after
        the tag read (reported with ``report``), or ``pos + 1`` when it is text."""
        src = self.src
        if pos + 1 >= end or not _MAY_BE_TAG_RE.match(src, pos, end):
            return pos + 1
        if self.tags is None:
            raise _Fallback
        # an autolink (its rule comes first): a "<" closed by a ">" with no "<" between
        close = src.find(">", pos + 1, end)
        if close > 0 and src.find("<", pos + 1, close) < 0 and _is_autolink(src[pos + 1:close]):
            raise _Fallback
        if pos + 2 >= end or not (src[pos + 1] in "!?/" or (src[pos + 1].isascii()
                                   and src[pos + 1].isalpha())):
            return pos + 1
        after = _tag_end(src, pos)
        if after < 0:
            return pos + 1
        if after > end:
            raise _Fallback  # a tag past the end of a link's text
        if report:
            self.tags.append((pos, after))
        return after

    def escape(self, pos: int, end: int) -> int:
        # markdown-it 4 takes any character after a backslash; 3 only the escapable ones:
        # the others are text either way
        return pos + 2 if pos + 1 < end and self.src[pos + 1] in _ESCAPABLE else pos + 1

    def legacy_backticks(self, start: int, end: int) -> int:
        """:meth:`current_backticks` as markdown-it-py 3.0 to 4.2 reads them: a closing run is
        searched to the end of the source (not only to ``end``), and what the search saw is
        cached, as they do."""
        src = self.src
        pos = start + 1
        while pos < end and src[pos] == "`":
            pos += 1
        length = pos - start
        if self.scanned and self.runs.get(length, 0) <= start:
            return pos
        match_end = pos
        while True:
            match_start = src.find("`", match_end)
            if match_start < 0:
                break
            match_end = match_start + 1
            while match_end < end and src[match_end] == "`":
                match_end += 1
            if match_end - match_start == length:
                return match_end
            self.runs[match_end - match_start] = match_start
        self.scanned = True
        return pos

    def current_backticks(self, start: int, end: int) -> int:
        """A code span from ``start``: the position after it, or after the run of backticks
        when no run of the same length closes it before ``end`` (they are text then)."""
        src = self.src
        pos = start + 1
        while pos < end and src[pos] == "`":
            pos += 1
        length = pos - start
        size = len(src)
        match_end = pos
        while True:
            match_start = src.find("`", match_end, end)
            if match_start < 0:
                return pos
            match_end = match_start + 1
            while match_end < size and src[match_end] == "`":
                match_end += 1
            if match_end > end:
                return pos
            if match_end - match_start == length:
                return match_end

    def label(self, start: int, end: int, nested: bool, depth: int) -> int:
        """markdown-it's ``parseLinkLabel`` from the "[" at ``start``: the position of the "]"
        that closes it, or -1."""
        if depth > _MAX_DEPTH:
            raise _Fallback
        src = self.src
        search = _LABEL_RE.search
        pos = start + 1
        level = 1
        while pos < end:
            self.budget -= 1
            if self.budget < 0:
                raise _Fallback
            m = search(src, pos, end)
            if m is None:
                return -1
            pos = m.start()
            c = src[pos]
            if c == "]":
                level -= 1
                if level == 0:
                    return pos
                pos += 1
                continue
            before = pos
            pos = self.skip(pos, end, depth)
            if c == "[":
                if pos == before + 1:
                    level += 1
                elif not nested:
                    return -1
        return -1

    def link(self, start: int, end: int, depth: int, image: bool, report: bool) -> int:
        """markdown-it's ``link`` (or ``image``) rule at ``start``: the position after the
        link, or -1. ``report``: the rule runs for real (not as a lookahead), so the link and
        the images in its text are reported."""
        src = self.src
        if image:
            if start + 1 < end and src[start + 1] != "[":
                return -1
            bracket = start + 1
        else:
            bracket = start
        label_end = self.label(bracket, end, image, depth + 1)
        if label_end < 0:
            return -1
        pos = label_end + 1
        if pos >= end or src[pos] != "(":
            if self.references:
                raise _Fallback  # may be a reference link
            return -1
        pos += 1
        while pos < end and src[pos] in _WHITESPACE:
            pos += 1
        if pos >= end:
            return -1
        dest_start = pos
        dest_end, dest = self.destination(pos, end)
        if dest_end >= 0:
            pos = dest_end
            before = pos
            while pos < end and src[pos] in _WHITESPACE:
                pos += 1
            if pos < end and before != pos:
                title_end = self.title(pos, end)
                if title_end >= 0:
                    pos = title_end
                    while pos < end and src[pos] in _WHITESPACE:
                        pos += 1
        if pos >= end or src[pos] != ")":
            if self.references:
                raise _Fallback  # may be a reference link
            return -1
        if report:
            if not image:
                # the link's text is tokenized (its images are reported) before the link
                self.tokenize(bracket + 1, label_end, depth + 1)
            if dest_end >= 0:
                self.found.append((image, dest_start, dest_end, dest))
        return pos + 1

    def destination(self, pos: int, end: int) -> tuple[int, str]:
        """markdown-it's ``parseLinkDestination``: (end, unescaped destination), end -1 if
        there is none."""
        src = self.src
        plain = _PLAIN_DESTINATION_RE.match(src, pos, end)
        if plain is not None:
            stop = plain.end()
            if stop == end or src[stop] == ")" or src[stop] <= " " or src[stop] == "\x7f":
                return stop, plain.group()
        start = pos
        if src[pos] == "<":
            pos += 1
            while pos < end:
                c = src[pos]
                if c == "\n" or c == "<":
                    return -1, ""
                if c == ">":
                    return pos + 1, _unescape(src[start + 1:pos])
                if c == "\\" and pos + 1 < end:
                    pos += 2
                    continue
                pos += 1
            return -1, ""
        level = 0
        while pos < end:
            c = src[pos]
            if c <= " " or c == "\x7f":
                break
            if c == "\\" and pos + 1 < end:
                if src[pos + 1] == " ":
                    break
                pos += 2
                continue
            if c == "(":
                level += 1
                if level > 32:
                    return -1, ""
            elif c == ")":
                if level == 0:
                    break
                level -= 1
            pos += 1
        if pos == start or level != 0:
            return -1, ""
        return pos, _unescape(src[start:pos])

    def title(self, pos: int, end: int) -> int:
        """markdown-it's ``parseLinkTitle``: the position after the title, or -1."""
        src = self.src
        marker = src[pos]
        if marker == "(":
            marker = ")"
        elif marker != '"' and marker != "'":
            return -1
        pos += 1
        while pos < end:
            c = src[pos]
            if c == marker:
                return pos + 1
            if c == "(" and marker == ")":
                return -1
            if c == "\\" and pos + 1 < end:
                pos += 1
            pos += 1
        return -1


def _is_autolink(url: str) -> bool:
    """markdown-it's ``autolink`` rule on what is between "<" and ">" (a URL with a scheme, or
    an e-mail address)."""
    from markdown_it.rules_inline.autolink import AUTOLINK_RE, EMAIL_RE

    return AUTOLINK_RE.search(url) is not None or EMAIL_RE.search(url) is not None


def _tag_end(src: str, pos: int) -> int:
    """markdown-it's ``html_inline`` match at the "<" at ``pos``: the position after the tag,
    or -1. Its pattern is matched to the end of ``src``, as the rule does."""
    from markdown_it.common.html_re import HTML_TAG_RE

    if HTML_TAG_RE.pattern.startswith("^"):  # markdown-it-py 3: searched in src[pos:]
        m = HTML_TAG_RE.match(src[pos:])
        return -1 if m is None else pos + m.end()
    m = HTML_TAG_RE.match(src, pos)
    return -1 if m is None else m.end()


def _unescape(raw: str) -> str:
    if "\\" not in raw and "&" not in raw:
        return raw
    from markdown_it.common.utils import unescapeAll

    return str(unescapeAll(raw))
