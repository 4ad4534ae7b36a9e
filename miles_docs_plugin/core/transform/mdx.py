"""MDX as Mintlify reads it: fenced code, JSX tags, module syntax, code-fence meta.

Mintlify pages are MDX: Markdown in which JSX tags nest freely, indentation inside components
is cosmetic (MDX has no indented code blocks and no HTML blocks), ``import``/``export`` lines
are JavaScript modules and ``{/* … */}`` is a comment. CommonMark reads the same text
differently (a tag followed by a fence is one raw HTML block, children indented four spaces are
code), so the page model is built here, on MDX's own rules:

- :func:`fences` finds fenced code at any indentation (the only code MDX has);
- :func:`read_tag` reads one JSX opening or closing tag from a position, across lines, with
  quoted, ``{expression}`` and spread attributes, and reports where it ends;
- :func:`strip_module_syntax` blanks ESM statements and comments outside code, keeping lines;
- :func:`fence_meta` splits a code fence's info string into language, title and options.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Iterator

from ..patterns import lazy_re
from ..records import Record
from .blocks import FENCE_RE as BLOCK_FENCE_RE
from .blocks import escape_text

CONTAINER_RE = lazy_re(r"^\{(?!code|mermaid|eval|literalinclude)[\w-]+\}")
FENCE_RE = lazy_re(r"^(?P<indent>[ \t>]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
NAME_RE = lazy_re(r"[A-Za-z][\w.:-]*")
#: ``import X from '…'``, ``import {a, b} from "…"``, ``import '…'`` (MDX module syntax)
IMPORT_RE = lazy_re(r"""^import\s+(?:[\w*{}\s,]+\s+from\s+)?["'][^"']+["'];?\s*$""")
IMPORT_DEFAULT_RE = lazy_re(r"""^import\s+([A-Z]\w*)\s+from\s+["']([^"']+)["'];?\s*$""")
EXPORT_RE = lazy_re(r"^export\s+(?:const|let|var|function|default|async|class|\{)")
COMMENT_RE = lazy_re(r"\{\s*/\*.*?\*/\s*\}", re.S)
#: Boolean code-block options of Mintlify (a bare word that is not part of the title).
FENCE_FLAGS = {"lines", "wrap", "expandable", "twoslash", "diff", "showLineNumbers"}


class CodeSpans:
    """The code spans of a line as CommonMark finds them (MDX reads them as text): a run of
    backticks up to the next run of as many on the same line; a run without one is text. The
    methods used of a ``re`` pattern (``finditer``, ``match``, ``sub``), in time linear in the
    text: the pattern ``(`+)(?:(?!\1).)+?\1`` took time as the cube of a run of backticks
    (2,000 of them: minutes)."""

    _RUN = lazy_re(r"`+|\n")
    _WHOLE = lazy_re(r".+", re.S)

    def _spans(self, text: str, pos: int = 0) -> list[tuple[int, int]]:
        runs: list[tuple[int, int, int]] = []  #: (start, end, line) of each backtick run
        line = 0
        for m in self._RUN.finditer(text, pos):
            if m.group(0) == "\n":
                line += 1
            else:
                runs.append((m.start(), m.end(), line))
        following: dict[int, int] = {}  #: a run -> the next run of its length on its line
        last: dict[tuple[int, int], int] = {}
        for k in range(len(runs) - 1, -1, -1):
            start, end, line = runs[k]
            key = (line, end - start)
            if key in last:
                following[k] = last[key]
            last[key] = k
        spans = []
        k = 0
        while k < len(runs):
            closing = following.get(k)
            if closing is None:
                k += 1
                continue
            spans.append((runs[k][0], runs[closing][1]))
            k = closing + 1
        return spans

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for start, end in self._spans(text):
            found = self._WHOLE.match(text, start, end)
            assert found is not None
            yield found

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        spans = self._spans(text, pos)
        if spans and spans[0][0] == pos:
            return self._WHOLE.match(text, pos, spans[0][1])
        return None

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        out: list[str] = []
        done = 0
        for m in self.finditer(text):
            out += [text[done:m.start()], repl(m)]
            done = m.end()
        out.append(text[done:])
        return "".join(out)


#: An inline code span on one line (MDX reads it as text).
CODE_SPAN_RE = CodeSpans()


def outside_code_spans(line: str, change: Callable[[str], str]) -> str:
    """``line`` with ``change`` applied to each part that is not in a code span."""
    pieces: list[str] = []
    done = 0
    for m in CODE_SPAN_RE.finditer(line):
        pieces += [change(line[done:m.start()]), m.group(0)]
        done = m.end()
    pieces.append(change(line[done:]))
    return "".join(pieces)


#: A JSX string literal in text (``{" "}``, Prettier's way of keeping a space): its text holds
#: nothing MDX reads as syntax.
TEXT_STRING_RE = lazy_re(r"""\{\s*(?:"([^"\\{}<>\n]*)"|'([^'\\{}<>\n]*)')\s*\}""")
HIGHLIGHT_WORD_RE = lazy_re(r"(?<!\S)\{[\d,\s-]*\d[\d,\s-]*\}(?!\S)")
FENCE_OPTION_RE = lazy_re(r"""(?P<key>[A-Za-z][\w-]*)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|"""
                             r"""(?P<br>\{(?:[^{}]|\{[^{}]*\})*\})|(?P<bare>\S+))""")


class Fence(Record):
    """A fenced code block of a page, by its lines."""

    __slots__ = _fields = ("start", "end", "indent", "marker", "info", "closed")
    start: int  #: line of the opening fence
    end: int  #: line of the closing fence (the last line when it is never closed)
    indent: str
    marker: str
    info: str
    closed: bool

    def __init__(self, start: int, end: int, indent: str, marker: str, info: str,
                 closed: bool = True) -> None:
        self.start = start
        self.end = end
        self.indent = indent
        self.marker = marker
        self.info = info
        self.closed = closed


def fences(lines: list[str], *, directives: bool = True,
           commonmark: bool = False) -> list[Fence]:
    """Fenced code blocks, at any indentation (MDX reads indentation as cosmetic).

    ``directives=False`` looks inside MyST container directives (```` ```{note} ````) written
    by the engine, for the code fences they hold. ``commonmark``: a page that is no MDX (an
    MkDocs site's), where a fence closes only at less than four columns more than it opened
    (CommonMark, superfences): a fence indented under it is code (an example of a fence)."""
    out: list[Fence] = []
    containers: list[str] = []
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        if not directives:
            if CONTAINER_RE.match(m.group("info").strip()):
                containers.append(m.group("fence"))
                i += 1
                continue
            if containers and m.group("fence") == containers[-1] and not m.group("info").strip():
                containers.pop()
                i += 1
                continue
        marker = m.group("fence")
        deepest = len(m.group("indent").expandtabs(4)) + 3 if commonmark else None
        j = i + 1
        while j < len(lines):
            close = FENCE_RE.match(lines[j])
            if close and close.group("fence").startswith(marker) and \
                    close.group("fence")[0] == marker[0] and not close.group("info").strip() \
                    and (deepest is None or len(close.group("indent").expandtabs(4)) <= deepest):
                break
            j += 1
        out.append(Fence(i, min(j, len(lines) - 1), m.group("indent"), marker,
                         m.group("info").strip(), j < len(lines)))
        i = j + 1
    return out


def code_lines(found: list[Fence]) -> set[int]:
    lines: set[int] = set()
    for f in found:
        lines.update(range(f.start, f.end + 1))
    return lines


#: ``page.extra`` key: the (first, last) body lines of the tags that the components plugin
#: wrote on one line for the link scan, for an engine that reads MDX itself to write back.
JOINED_TAGS = "joined_tags"
#: ``page.extra`` key: the body lines that start with an HTML tag and hold Markdown, which the
#: components plugin opened with :data:`OPENER` for the link scan (``html_markdown_lines``).
HTML_MARKDOWN_LINES = "mdx_html_markdown_lines"
#: Text before a line's first tag (an entity), which makes CommonMark read a paragraph.
OPENER = "&#8203;"


class Tag(Record):
    """One JSX tag as written: ``<Name attr="v" flag expr={…}>``."""

    __slots__ = _fields = ("name", "closing", "self_closing", "attrs", "end", "expressions",
                           "spans")
    name: str
    closing: bool
    self_closing: bool
    attrs: dict[str, str]
    end: int  #: offset just after ``>`` in the text that was read
    #: attributes written as JavaScript expressions (``{…}``) that are not string literals
    expressions: set[str]
    #: where the value of each quoted attribute is in the text that was read (quotes out)
    spans: dict[str, tuple[int, int]]

    def __init__(self, name: str, closing: bool, self_closing: bool,
                 attrs: dict[str, str] | None = None, end: int = 0,
                 expressions: set[str] | None = None,
                 spans: dict[str, tuple[int, int]] | None = None) -> None:
        self.name = name
        self.closing = closing
        self.self_closing = self_closing
        self.attrs = {} if attrs is None else attrs
        self.end = end
        self.expressions = set() if expressions is None else expressions
        self.spans = {} if spans is None else spans


def skip_braces(text: str, pos: int) -> int:
    """Offset after the ``}`` matching the ``{`` at ``pos`` (strings respected), or -1."""
    depth = 0
    quote = ""
    i = pos
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def expression_value(expr: str) -> str:
    """The value of a simple JSX attribute expression: ``{"x"}``, ``{'x'}``, ``{`x`}``,
    ``{2}``, ``{true}``; other expressions keep their source (without the braces)."""
    inner = expr[1:-1].strip()
    m = re.fullmatch(r"""(["'`])(.*)\1""", inner, re.S)
    if m:
        return m.group(2)
    return inner


def read_tag(text: str, pos: int) -> Tag | None:
    """Read the tag starting at ``text[pos] == "<"``; None when it is not a JSX tag."""
    if pos >= len(text) or text[pos] != "<":
        return None
    i = pos + 1
    closing = i < len(text) and text[i] == "/"
    if closing:
        i += 1
    m = NAME_RE.match(text, i)
    if not m:
        return None
    tag = Tag(m.group(0), closing, False)
    i = m.end()
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == ">":
            tag.end = i + 1
            return tag
        if ch == "/" and i + 1 < n and text[i + 1] == ">":
            tag.self_closing = True
            tag.end = i + 2
            return tag
        if closing:
            return None
        if ch == "{":  # {...spread}
            end = skip_braces(text, i)
            if end < 0:
                return None
            i = end
            continue
        am = re.compile(r"[^\s=/>{}\"'<]+").match(text, i)
        if not am:
            return None
        key = am.group(0)
        i = am.end()
        j = i
        while j < n and text[j] in " \t\r\n":
            j += 1
        if j < n and text[j] == "=":
            j += 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n:
                return None
            q = text[j]
            if q in "\"'":
                end = text.find(q, j + 1)
                if end < 0:
                    return None
                tag.attrs[key] = html.unescape(text[j + 1:end])
                tag.spans[key] = (j + 1, end)
                i = end + 1
            elif q == "{":
                end = skip_braces(text, j)
                if end < 0:
                    return None
                tag.attrs[key] = expression_value(text[j:end])
                if not re.fullmatch(r"""\{\s*(["'`]).*\1\s*\}""", text[j:end], re.S):
                    tag.expressions.add(key)
                i = end
            else:
                vm = re.compile(r"[^\s>]+").match(text, j)
                if not vm:
                    return None
                tag.attrs[key] = vm.group(0)
                i = vm.end()
        else:
            tag.attrs[key] = "true"
    return None


def strip_module_syntax(lines: list[str], code: set[int]) -> dict[str, str]:
    """Blank MDX module syntax outside code, in place, keeping the number of lines.

    ``import``/``export`` statements (an ``export`` runs until its brackets close) and
    ``{/* … */}`` comments go. Returns the default imports of ``.md``/``.mdx`` files
    (component name -> path as written): those are snippets, inlined where they are used.
    """
    imports: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if i in code:
            i += 1
            continue
        if IMPORT_RE.match(line):
            _snippet_import(line, imports)
            lines[i] = ""
            i += 1
            continue
        if EXPORT_RE.match(line):
            depth = 0
            j = i
            while j < len(lines) and j not in code:
                stripped = re.sub(r"""(["'`])(?:\\.|(?!\1).)*\1""", "", lines[j])
                depth += stripped.count("{") + stripped.count("(") + stripped.count("[")
                depth -= stripped.count("}") + stripped.count(")") + stripped.count("]")
                lines[j] = ""
                j += 1
                if depth <= 0:
                    break
            i = j
            continue
        i += 1
    blank_comments(lines, code)
    return imports


#: A line that starts an ``import``/``export`` block (MDX's ESM).
ESM_START_RE = lazy_re(r"^(?:import|export)\b")


def esm_blocks(lines: list[str], code: set[int]) -> list[tuple[int, int]]:
    """MDX's ``import``/``export`` blocks outside code: (first line, end line exclusive); a
    block runs from a line that starts with ``import``/``export`` to a blank line."""
    blocks: list[tuple[int, int]] = []
    n = 0
    while n < len(lines):
        if n in code or not ESM_START_RE.match(lines[n]):
            n += 1
            continue
        end = n + 1
        while end < len(lines) and end not in code and lines[end].strip():
            end += 1
        blocks.append((n, end))
        n = end
    return blocks


def _snippet_import(line: str, imports: dict[str, str]) -> bool:
    """Whether ``line`` is a default import of an ``.md``/``.mdx`` file (a snippet), noted in
    ``imports`` (component name -> path as written)."""
    m = IMPORT_DEFAULT_RE.match(line)
    if m and m.group(2).endswith((".mdx", ".md")):
        imports[m.group(1)] = m.group(2)
        return True
    return False


def take_snippet_imports(lines: list[str], code: set[int],
                         take: Callable[[str], bool]) -> dict[str, str]:
    """Blank the snippet imports outside code (see :func:`strip_module_syntax`) whose
    component ``take`` accepts, in place, and return them; other module syntax stays (an
    engine that reads MDX runs it)."""
    imports: dict[str, str] = {}
    for i, line in enumerate(lines):
        found: dict[str, str] = {}
        if i not in code and line.startswith("import") and _snippet_import(line, found) and \
                all(take(name) for name in found):
            imports.update(found)
            lines[i] = ""
    return imports


def string_text(m: re.Match[str]) -> str:
    """The text of a :data:`TEXT_STRING_RE` match, as Markdown shows it literally."""
    return escape_text(m.group(1) if m.group(1) is not None else m.group(2))


def string_expressions(lines: list[str], code: set[int]) -> bool:
    """Write the JSX string literals in text (``{" "}``) as their text, in place, outside
    code, code spans and attribute values (``alt={"x"}``); whether any was."""
    changed = False
    for i, line in enumerate(lines):
        if i in code or "{" not in line or not TEXT_STRING_RE.search(line):
            continue

        def text(m: re.Match[str], line: str = line) -> str:
            if line[:m.start()].rstrip().endswith("="):
                return m.group(0)  # an attribute's value
            return string_text(m)

        def strings(part: str, text: Callable[[re.Match[str]], str] = text) -> str:
            return TEXT_STRING_RE.sub(text, part)

        new = outside_code_spans(line, strings)
        if new != line:
            lines[i] = new
            changed = True
    return changed


def blank_comments(lines: list[str], code: set[int]) -> None:
    """Remove the ``{/* … */}`` comments outside code, in place; a comment may span lines,
    whose number is kept (a line that held only a comment is left blank). One that would take
    a line of code with it is left as it is (the lines of code were found before, and what
    reads the page after relies on them)."""
    text = "\n".join(lines)
    if "{/*" not in text and "{ /*" not in text:
        return
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def blank(m: re.Match[str]) -> str:
        first = bisect.bisect_right(starts, m.start()) - 1
        last = first + m.group(0).count("\n")
        if any(k in code for k in range(first, last + 1)):
            return m.group(0)
        return "\n" * (last - first)

    lines[:] = COMMENT_RE.sub(blank, text).split("\n")
    for k, line in enumerate(lines):
        if not line.strip():
            lines[k] = ""


class FenceMeta(Record):
    """What a fence's info string says: language, title and options."""

    __slots__ = _fields = ("lang", "title", "options")
    lang: str
    title: str
    options: dict[str, str]

    def __init__(self, lang: str, title: str, options: dict[str, str]) -> None:
        self.lang = lang
        self.title = title
        self.options = options

    def highlighted(self, count: int = 1 << 30) -> list[tuple[int, int]]:
        """The lines to highlight, as ranges (first, last), 1-based, cut to a block of
        ``count`` lines: Mintlify's ``highlight={1,3-5}`` (or its older bare ``{1,3-5}``),
        pymdownx.highlight's ``hl_lines="1 3-5"``."""
        raw = self.options.get("highlight") or self.options.get("hl_lines") or ""
        out: list[tuple[int, int]] = []
        for part in re.split(r"[\s,]+", raw.strip("{} ")):
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
            if m:
                first = int(m.group(1))
                last = min(int(m.group(2) or first), count)
                if 0 < first <= last:
                    out.append((first, last))
        return out

    def line_numbers(self) -> int | None:
        """The first line number when the block shows line numbers (Mintlify's ``lines`` or
        ``showLineNumbers``, pymdownx.highlight's ``linenums="N"``), else None."""
        if "lines" in self.options or "showLineNumbers" in self.options:
            return 1
        value = self.options.get("linenums", "").strip()
        return int(value) if value.isdigit() and int(value) > 0 else None


def fence_meta(info: str) -> FenceMeta:
    """Mintlify's code-fence info string: ``lang Title words key=value flag``.

    The first word is the language; ``key=value`` pairs (quoted, bare or ``{expression}``) and
    the boolean flags (``lines``, ``wrap``, ``expandable``…) are options; the remaining words,
    in order, are the title (``title="…"`` also sets it).
    """
    info = info.strip()
    if not info:
        return FenceMeta("", "", {})
    parts = info.split(None, 1)
    lang = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    if FENCE_OPTION_RE.match(lang) is not None:  # ```title="A b" (superfences): no language
        lang, rest = "", info
    options: dict[str, str] = {}

    def take(m: re.Match[str]) -> str:
        value = next((m.group(g) for g in ("dq", "sq", "br", "bare") if m.group(g) is not None),
                     "")
        options[m.group("key")] = value
        return " "

    rest = FENCE_OPTION_RE.sub(take, rest)
    def highlight(m: re.Match[str]) -> str:
        options.setdefault("highlight", m.group(0))
        return " "

    rest = HIGHLIGHT_WORD_RE.sub(highlight, rest)  # Mintlify's older form: a bare {1,3-5}
    words = [w for w in rest.split() if w not in FENCE_FLAGS]
    for w in rest.split():
        if w in FENCE_FLAGS:
            options[w] = "true"
    title = options.pop("title", "") or options.pop("filename", "") or " ".join(words)
    if "{" in lang:  # ```{directive} is MyST's own syntax: leave it alone
        return FenceMeta(info, "", {})
    return FenceMeta(lang, title.strip(), options)


#: CSS properties whose numbers have no unit (React adds ``px`` to the others).
UNITLESS = {"opacity", "z-index", "font-weight", "line-height", "flex", "flex-grow",
            "flex-shrink", "order", "zoom"}


def style_object(expr: str) -> str | None:
    """A JSX style object (``{ width: 200, maxWidth: "50%" }``) as CSS, or None."""
    inner = expr.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        return None
    out = []
    for m in re.finditer(r"""([A-Za-z-]+)\s*:\s*("[^"]*"|'[^']*'|-?[\d.]+|[\w#%.-]+)""",
                         inner[1:-1]):
        prop = re.sub(r"[A-Z]", lambda c: "-" + c.group(0).lower(), m.group(1))
        value = m.group(2).strip("\"'")
        if re.fullmatch(r"-?[\d.]+", value) and prop not in UNITLESS and value != "0":
            value += "px"
        out.append(f"{prop}: {value}")
    return "; ".join(out) if out else None


def html_tag(tag: Tag) -> str:
    """An HTML tag written back from a JSX one: ``className`` is ``class``, a style object is
    CSS, string expressions are strings; other expressions (``href={url}``, values only the
    page's JavaScript knows) are left out."""
    parts = [tag.name]
    for key, value in tag.attrs.items():
        name = {"className": "class", "htmlFor": "for"}.get(key, key)
        if key in tag.expressions:
            css = style_object(value) if key == "style" else None
            if css is None:
                continue
            value = css
        parts.append(f'{name}="{html.escape(value, quote=True)}"')
    return "<" + " ".join(parts) + (" />" if tag.self_closing else ">")


def code_group_parts(body: list[str]) -> list[tuple[str, list[str]]]:
    """Split a ``<CodeGroup>`` body into (title, fenced block lines).

    Mintlify titles a code block with the words after its language (```` ```bash npm ````,
    see :func:`fence_meta`); without one the language is the title.
    The title becomes the tab's label; the fence keeps its language and options (highlighted
    lines, line numbers), which the engine writes in its own form (``Engine.code_fence``), and
    closes as it opened (an unclosed one at the end of the group).
    """
    parts: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(body):
        m = BLOCK_FENCE_RE.match(body[i])
        if not m:
            i += 1
            continue
        fence = m.group("fence")
        meta = fence_meta(m.group("info"))
        title = meta.title or meta.lang or "Code"
        j = i + 1
        while j < len(body):
            close = BLOCK_FENCE_RE.match(body[j])
            if close and close.group("fence").startswith(fence[0] * len(fence)) and \
                    not close.group("info").strip():
                break
            j += 1
        options = "".join(f" {key}" if key in FENCE_FLAGS and value == "true" else
                          f' {key}="{value}"' for key, value in meta.options.items()
                          if '"' not in value)
        opening = f"{m.group('indent')}{fence}{meta.lang}{options}"
        # closed by a fence as long as the opening one: CommonMark and MDX close it with a
        # longer one too, pymdownx.superfences does not
        parts.append((title, [opening, *body[i + 1:j], f"{m.group('indent')}{fence}"]))
        i = j + 1
    return parts
