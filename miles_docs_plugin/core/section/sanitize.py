"""The last line of defence for untrusted pages: their rendered HTML, sanitised.

Link rules already make dangerous destinations inert in the page source, with the upstream
``path:line`` (:mod:`..transform.links`). What reaches the engine's output can still carry markup
that no link rule sees: attributes added by Markdown extensions (``attr_list``), raw HTML that a
host extension renders, attributes other than ``href``/``src``. So the adapters pass the
rendered HTML of every injected page of an untrusted source through :func:`sanitize_html`.

It parses with the standard library's HTML parser and writes the document back from what it
parsed, so what a browser reads is what was checked:

- every start tag is written from its parsed attributes (quoted, escaped);
- ``on*`` event attributes are dropped;
- ``javascript:``, ``vbscript:``, ``file:`` and (except for images) ``data:`` URLs are replaced
  by ``#`` in every URL-bearing attribute, and an attribute of any other name whose value is
  such a URL is dropped;
- ``<script>``, ``<style>``, ``<base>``, ``<meta>``, ``<link>``, ``<object>``, ``<embed>``,
  ``<applet>``, ``<frame>``/``<frameset>`` and ``srcdoc`` are removed;
- comments, processing instructions and declarations are removed (browsers and parsers
  disagree about where some of them end), and a stray ``<`` in text is written as ``&lt;``.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from ..patterns import lazy_re
from ..records import Record

#: Attributes whose value is a URL (or a list of them) in HTML, SVG and MathML.
URL_ATTRS = frozenset({
    "href", "src", "action", "formaction", "xlink:href", "data", "poster", "background",
    "cite", "longdesc", "usemap", "codebase", "classid", "profile", "manifest", "icon",
    "lowsrc", "dynsrc", "ping", "archive", "xml:base", "srcset", "imagesrcset",
})
#: Where ``data:image/...`` is an image, not a document...
IMAGE_ATTRS = frozenset({"src", "poster", "srcset", "background", "lowsrc"})
#: ...except in these elements, whose source is a document: a ``data:image/svg+xml`` one runs
#: its scripts there.
DOCUMENT_TAGS = frozenset({"iframe", "frame", "object", "embed"})
UNSAFE_SCHEMES = ("javascript", "vbscript", "data", "file")
#: Elements removed with their content.
DROP_WITH_CONTENT = frozenset({"script", "style"})
#: Elements removed (their content, if any, is kept).
#: SVG's animation elements are among them: they set any attribute of the element they are in,
#: a link's ``href`` to ``javascript:`` too (``values="https://x;javascript:…"``).
DROP_TAGS = frozenset({"base", "meta", "link", "object", "embed", "applet", "frame", "frameset",
                       "param", "animate", "animatemotion", "animatetransform", "set"})
DROP_ATTRS = frozenset({"srcdoc"})

#: what reads a URL's scheme: only for a URL a link rule or the parse looks at (compiled then)
_SCHEME_RE = lazy_re(r"^([a-z][a-z0-9+.\-]*):")
_STRIP_RE = lazy_re(r"[\t\n\r]")
_LEADING_RE = lazy_re(r"^[\x00-\x20]+")
#: What every construct the sanitiser removes must contain, as the browser reads it: an element
#: it drops, an attribute named on* (after white space, "/" or a quote, where attribute names
#: start), a character reference (which may spell a scheme), a scheme at the start of an
#: attribute value (after its quote or "=", and the spaces and control characters browsers
#: strip there; tabs and newlines may separate the letters), or srcdoc. A page without any is
#: returned unparsed: most rendered pages have none (``data:`` in a code block is text), and
#: the full parse costs about 1 s per MB.
#:
#: They are searched for in the page lower-cased (``str.lower``, as the parser and
#: :func:`url_scheme` read names and schemes; browsers lower-case ASCII only), one pattern per
#: construct, each starting with what it must start with, so that ``re`` skips ahead to it
#: instead of trying every alternative at every position (one case-insensitive pattern of all
#: of them took ~45 ms per MB, about a third of what the plugin adds to a 1,000-page build).
#: For ASCII text this finds exactly what that one pattern found (``tests/test_sanitize.py``).
_DROPPED_TAG_RE = re.compile(r"<(?:script|style|base|meta|link|object|embed|applet|frame|param|"
                             r"animate|set)")
_EVENT_ATTR_RE = re.compile(r"on[a-z]+[\s\x00]*=")  #: preceded by white space, "/", a quote, NUL
_CHAR_REF_RE = re.compile(r"&(?:#|colon|tab|newline)")
#: after tabs, carriage returns and newlines are taken out (browsers drop them in a URL)
_SCHEME_AT_VALUE_RE = lazy_re(r"[\"'=][\x00-\x20]*(?:javascript|vbscript|data|file):")
_SCHEME_WORDS = ("javascript:", "vbscript:", "data:", "file:")
#: the schemes' names, as what precedes a ":" (the longest has 10 letters)
_SCHEME_NAMES = tuple(word[:-1] for word in _SCHEME_WORDS)
_LONGEST_NAME = max(map(len, _SCHEME_NAMES))
#: how far back from a ":" the quick look reads for a scheme's name (blanks included)
_NAME_WINDOW = 64
#: A comment's end, and an empty comment's, as browsers read them (:meth:`_Sanitizer.parse_comment`)
_COMMENT_END_RE = lazy_re(r"--!?>")
_ABRUPT_COMMENT_RE = lazy_re(r"-?>")


def _attribute_start(text: str, at: int) -> bool:
    return at > 0 and (text[at - 1].isspace() or text[at - 1] in "/\"'\x00")


def suspect(fragment: str) -> bool:
    """Could ``fragment`` hold anything :func:`sanitize_html` removes? (False: it holds none.)"""
    low = fragment.lower()
    if "srcdoc" in low or _DROPPED_TAG_RE.search(low) or _CHAR_REF_RE.search(low):
        return True
    if any(_attribute_start(low, m.start()) for m in _EVENT_ATTR_RE.finditer(low)):
        return True
    if not _named_scheme(low):
        return False
    joined = low.replace("\n", "")  # str.replace: translate() is slow beyond ASCII
    for blank in "\t\r":
        if blank in joined:
            joined = joined.replace(blank, "")
    return any(word in joined for word in _SCHEME_WORDS) and \
        _SCHEME_AT_VALUE_RE.search(joined) is not None


def _named_scheme(low: str) -> bool:
    """Could one of :data:`_SCHEME_WORDS` stand in ``low`` once its tabs, newlines and carriage
    returns are taken out? False only when no ":" of it has a scheme's name before it.

    A page has few colons (the 1,000 synthetic pages: five each), so this looks behind each
    one instead of taking the blanks out of the whole page and searching it for every word.
    A colon whose last 64 characters hold fewer letters than the longest name, blanks aside,
    could end a name spelled with more blanks than that: the answer is then True."""
    colon = low.find(":")
    while colon >= 0:
        window = low[max(0, colon - _NAME_WINDOW):colon]
        tail = window.replace("\n", "").replace("\t", "").replace("\r", "")
        if tail.endswith(_SCHEME_NAMES) or (len(tail) < _LONGEST_NAME
                                            and colon > _NAME_WINDOW):
            return True
        colon = low.find(":", colon + 1)
    return False


def url_scheme(value: str) -> str | None:
    """The scheme a browser sees in ``value`` (entities decoded, tabs and newlines removed)."""
    cleaned = _LEADING_RE.sub("", _STRIP_RE.sub("", html.unescape(value))).lower()
    m = _SCHEME_RE.match(cleaned)
    return m.group(1) if m else None


def unsafe_url(value: str, attr: str = "href") -> bool:
    """Is ``value`` a URL that runs script or reads local files when followed or loaded?"""
    scheme = url_scheme(value)
    if scheme not in UNSAFE_SCHEMES:
        return False
    if scheme == "data" and attr in IMAGE_ATTRS:
        rest = _STRIP_RE.sub("", html.unescape(value)).strip().lower()[5:]
        return not rest.startswith("image/")
    return True


class Removed(Record):
    """What the sanitiser took out of a page (for the report)."""

    __slots__ = _fields = ("what", "needle")
    what: str  #: e.g. ``onerror attribute of <img>``
    needle: str  #: text to look for in the page source to find the line

    def __init__(self, what: str, needle: str) -> None:
        self.what = what
        self.needle = needle


class _State:
    """What the sanitizer has written and removed so far."""

    __slots__ = ("out", "removed", "skipping")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.removed: list[Removed] = []
        self.skipping: str | None = None  #: inside an element dropped with its content


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.s = _State()

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], close: bool) -> None:
        if self.s.skipping:
            return
        if tag in DROP_WITH_CONTENT:
            self.s.removed.append(Removed(f"<{tag}> element", f"<{tag}"))
            if not close:
                self.s.skipping = tag
            return
        if tag in DROP_TAGS:
            # Mintlify's <Link> component reads as an HTML <link> without rel: nothing to say
            if not (tag == "link" and not any(name == "rel" for name, _ in attrs)):
                self.s.removed.append(Removed(f"<{tag}> element", f"<{tag}"))
            return
        parts = [f"<{tag}"]
        for name, value in attrs:
            if name.startswith("on"):
                self.s.removed.append(Removed(f"{name} attribute of <{tag}>", name))
                continue
            if name in DROP_ATTRS:
                self.s.removed.append(Removed(f"{name} attribute of <{tag}>", name))
                continue
            if value is not None:
                scheme = url_scheme(value)
                if scheme in UNSAFE_SCHEMES and (name not in URL_ATTRS or unsafe_url(
                        value, "href" if tag in DOCUMENT_TAGS else name)):
                    self.s.removed.append(Removed(f"{scheme}: URL in {name} of <{tag}>",
                                                  value.strip()[:40]))
                    if name not in URL_ATTRS:
                        continue
                    value = "#"
            if value is None:
                parts.append(f" {name}")
            else:
                parts.append(f' {name}="{html.escape(value, quote=True)}"')
        parts.append(" />" if close else ">")
        self.s.out.append("".join(parts))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, close=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, close=True)

    def handle_endtag(self, tag: str) -> None:
        if self.s.skipping:
            if tag == self.s.skipping:
                self.s.skipping = None
            return
        if tag in DROP_TAGS or tag in DROP_WITH_CONTENT:
            return
        self.s.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.s.skipping:
            self.s.out.append(data.replace("<", "&lt;"))

    def handle_entityref(self, name: str) -> None:
        if not self.s.skipping:
            self.s.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        if not self.s.skipping:
            self.s.out.append(f"&#{name};")

    def parse_comment(self, i: int, report: bool = True) -> int:
        """Where the comment at ``i`` ends as a browser reads it (the HTML standard's
        tokenizer): at ``-->`` or ``--!>``; ``<!-->`` and ``<!--->`` are empty comments. The
        standard library's parser (before Python 3.13.4) ends one at ``-->`` only, so
        ``<!--><img onerror=…>-->`` was a comment to it and live markup to a browser.

        This overrides an undocumented method, the one ``HTMLParser.goahead`` calls for a
        comment; ``tests/test_sanitize.py`` fails if it is no longer called. Comments are
        dropped, so nothing is reported."""
        data = self.rawdata
        abrupt = _ABRUPT_COMMENT_RE.match(data, i + 4)
        if abrupt is not None:
            return abrupt.end()
        end = _COMMENT_END_RE.search(data, i + 4)
        return -1 if end is None else end.end()  # -1: unclosed (the parser's own handling)

    # Comments, declarations and processing instructions: removed (see the module docs).
    def handle_comment(self, data: str) -> None:
        pass

    def handle_decl(self, decl: str) -> None:
        pass

    def handle_pi(self, data: str) -> None:
        pass

    def unknown_decl(self, data: str) -> None:
        pass


def sanitize_html(fragment: str, *, whole: bool = True) -> tuple[str, list[Removed]]:
    """``fragment`` without script, event handlers and dangerous URLs; and what was removed.

    A fragment with nothing suspect in it is returned unchanged without being parsed, when
    it is the ``whole`` of what a browser reads in that place. A piece of a page (a raw
    node) is always written back from what was parsed: it may leave a tag or an attribute
    open (``<div title="x``) that a later piece, unsuspect alone, would fill."""
    if whole and not suspect(fragment):
        return fragment, []
    parser = _Sanitizer()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.s.out), parser.s.removed


def line_of(text: str, needle: str, start_line: int = 1) -> int | None:
    """The 1-based line of the first occurrence of ``needle`` in ``text`` (for reports)."""
    if not needle:
        return None
    at = text.find(needle)
    if at < 0:
        at = text.lower().find(needle.lower())
    if at < 0:
        return None
    return text.count("\n", 0, at) + start_line
