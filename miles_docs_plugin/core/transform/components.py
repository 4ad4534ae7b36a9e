"""Components and front matter: upstream markup the host engine does not speak (the steps of
the built-in components plugin, :mod:`miles_docs_plugin.builtin.components`, loaded by the first
page that needs them).

Mintlify MDX components become the host engine's own constructs.

A component is a line holding only an opening tag with a capitalised name (``<Note>``,
``<Card title="…" href="…">``) up to the line holding its closing tag, outside code. Each one
is handed to the engine (:meth:`Engine.block`), which writes it in its own syntax — admonitions,
details, tabs, MyST directives — or a readable fallback when the extension is not available.
The number of lines is kept wherever possible, so diagnostics still report upstream lines.
Unknown components are reported and their content is kept.

Front matter: a page whose ``title`` is only in its front matter (Mintlify shows it as the page
heading) gets that title as its ``#`` heading, so every engine shows and indexes it. Fenced
``mermaid`` blocks get the info string the engine wants (``Engine.fence_info``).
"""

from __future__ import annotations

import html
import itertools
import re
from typing import TYPE_CHECKING, Any

from ..context import BLOCK_MARKS, MARKDOWN_ATTR_RE
from ..model import name_title
from ..patterns import lazy_re
from ..records import Record
from .blocks import (
    ANCHOR_RE,
    IMAGE_ATTRS,
    INLINE,
    INLINE_MARK,
    KNOWN,
    Block,
    Component,
    image_attrs,
    image_links,
    read_image_links,
)
from .mdx import (
    CODE_SPAN_RE,
    HIGHLIGHT_WORD_RE,
    HTML_MARKDOWN_LINES,
    JOINED_TAGS,
    OPENER,
    Tag,
    blank_comments,
    code_lines,
    esm_blocks,
    fence_meta,
    fences,
    html_tag,
    outside_code_spans,
    read_tag,
    skip_braces,
    string_expressions,
    strip_module_syntax,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..collect.upstream import UpstreamSite
    from ..context import BuildContext
    from ..model import Page, Section
    from .mdx import Fence
    from .scanned import ScanResult


class LinePattern:
    """``re.compile(f"(?m)^(?:{at_line_start})|{anywhere}")``, searched for faster.

    ``re`` tries a pattern that starts with ``^`` at every position of a page; here it is
    searched for after a newline, which ``re`` skips to (the patterns below took 25-80 ms per
    1,000 pages each, searched the plain way), and matched on the first line with a newline
    put before it. ``at_line_start`` matches within one line. Only whether there is a match
    is the same: a match begins at its newline. Compiled on first use (one pattern, and the
    ``anywhere`` one only once the other found nothing): a build compiles only the ones its
    pages need.
    """

    __slots__ = ("_anywhere", "_at_line_start", "_elsewhere", "_rest")

    def __init__(self, at_line_start: str, anywhere: str = "") -> None:
        self._at_line_start = at_line_start
        self._anywhere = anywhere
        self._rest: re.Pattern[str] | None = None
        self._elsewhere: re.Pattern[str] | None = None

    def search(self, text: str) -> re.Match[str] | None:
        rest = self._rest
        if rest is None:
            rest = self._rest = re.compile(f"\n(?:{self._at_line_start})", re.M)
        end = text.find("\n")
        found = rest.match("\n" + (text if end < 0 else text[:end + 1])) or rest.search(text)
        if found is not None or not self._anywhere:
            return found
        if self._elsewhere is None:
            self._elsewhere = re.compile(self._anywhere)
        return self._elsewhere.search(text)


HAS_COMPONENT_RE = LinePattern(r"[ \t]*</?[A-Z]", r"<(?:Badge|Tooltip|Icon|Link|Kbd)\b|"
                               r"<[a-z][^>]*\s(?:[\w-]+=\{|className=)")
HAS_MDX_RE = LinePattern(r"(?:import|export)\s|[ \t]*<(?:div|Snippet)\b", r"\{\s*/\*")
#: Deeper nesting than this is reported and left as text (it also bounds the recursion).
MAX_DEPTH = 32
#: An opening tag may span this many lines (``<Card\n  title="…"\n  href="…"\n>``).
MAX_TAG_LINES = 40
#: Lower-case tags that wrap Markdown in MDX (their content is Markdown, not raw HTML).
BLOCK_HTML = {"div"}
#: HTML elements whose content MDX reads as Markdown too (MDX has no HTML blocks: every tag is
#: JSX, and the lines between an opening tag alone on its line and its closing tag are Markdown;
#: ``<p>text</p>`` on one line is Markdown text in the element). CommonMark would read the
#: whole as raw HTML, so these are blocks: their content is scanned and rendered as Markdown,
#: and the element is written back around it (:func:`_html_element`). Elements that hold
#: structure (lists, tables), code or media, and ``<a>``, stay HTML as written.
FLOW_HTML = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "aside",
                       "header", "footer", "main", "nav", "center", "blockquote", "details",
                       "summary", "figure", "figcaption"})
#: On a host that reads MDX itself (Mintlify), which gets the page back as it was written with
#: only its links rewritten, the content of tables and lists is scanned as MDX reads it too:
#: ``<td>`` alone on its line, then ``[a link](/page)``, is a link there.
NATIVE_FLOW_HTML = FLOW_HTML | {"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
                                "ul", "ol", "li", "dl", "dt", "dd"}
#: Text with what Markdown may read in it (a link, emphasis, code, an escape).
MARKDOWN_TEXT_RE = lazy_re(r"[\[*_`\\!~]")
#: An HTML tag (taken out of a line before it is looked at for Markdown).
TAG_RE = lazy_re(r"<[^<>]*>")
#: A line that starts a Markdown block other than a paragraph (a list item, a quote, a
#: heading, a fence, a table row).
MARKDOWN_BLOCK_RE = lazy_re(r"[ \t]*(?:[-+*>#|]|\d+[.)]|```|~~~)")
#: A line that opens an inline HTML element and leaves it open (``<a href="…">`` alone).
INLINE_FLOW_RE = lazy_re(r"[ \t]*<(?:a|span|button|label|b|i|em|strong|small|mark|u|s|abbr)"
                         r"(?:\s(?:(?!</)[^<>])*)?>?[ \t]*$")
#: A line that is one tag, with text under it (:func:`open_html_lines`), roughly.
OPEN_HTML_RE = lazy_re(r"^[ \t]*<[A-Za-z/][^<>\n]*>[ \t]*\r?\n[ \t]*[^<\s]", re.M)
#: The lines an HTML element of MDX may span (past them it stays HTML).
MAX_ELEMENT_LINES = 2000
#: Closing tags (of components too) and a line of closing tags only.
CLOSING_HTML_RE = lazy_re(r"</([A-Za-z][\w.:-]*)>")
CLOSINGS_ONLY_RE = lazy_re(r"[ \t]*(?:</[A-Za-z][\w.:-]*>[ \t]*)+")
#: A line that opens one of them (an MDX page with one has blocks to find).
FLOW_HTML_RE = LinePattern(r"[ \t]*<(?:" + "|".join(sorted(FLOW_HTML, key=len, reverse=True))
                           + r")(?=[\s>])")
NATIVE_FLOW_HTML_RE = LinePattern(r"[ \t]*<(?:" + "|".join(sorted(NATIVE_FLOW_HTML, key=len,
                                                                reverse=True)) + r")(?=[\s>])")
#: Where a component stood, once its tags are neutralized: positions that survive edits of
#: other plugins (``mdp_prepare_page``) between preparation and rendering.
MARK_RE = lazy_re(r"<!--(?P<close>/)?mdp:(?P<n>\d+)(?::(?P<kind>[a-z]))?-->")


def parse_attrs(raw: str) -> dict[str, str]:
    tag = read_tag("<X " + raw + ">", 0)
    return tag.attrs if tag else {}


_BLOCK_PARSER: Any = None
H1_CANDIDATE_RE = LinePattern(r" {0,3}(?:#(?:[ \t]|$)|=+[ \t]*$)")
#: A page with a heading whose attr_list names an id other than as ``{#id}``.
HEADING_IDS_RE = LinePattern(r" {0,3}#{1,6}[ \t][^\n]*\{:?[ \t]*(?:[.\w-][^\s{}]*[ \t]+)*#")
#: A heading ending in attr_list's list with an id (the heading, the id).
HEADING_ATTR_RE = lazy_re(
    r"^( {0,3}#{1,6}[ \t].*?)[ \t]*\{:?[ \t]*(?:[.\w-][^\s{}]*[ \t]+)*#([A-Za-z][\w:.-]*)"
    r"[^{}]*\}[ \t]*$")
DIALECT_RE = LinePattern(r"[ \t]*(?:!!!|\?\?\?|===|:::)[+!]{0,2}[ \t]+\S")
#: A fence's info string that is pymdownx.superfences' attribute list, from its first class:
#: (the language, what follows it).
ATTR_FENCE_RE = lazy_re(r"\{\s*\.([\w#+.-]+)([^}]*)\}$")
#: The same list after the language (``python {lint="skip" .x}``): (the language, the list).
LANG_ATTRS_FENCE_RE = lazy_re(r"([\w#+.-]+)[ \t]*\{([^{}]*)\}$")
FENCE_META_RE = LinePattern(r"[ \t]*(?:`{3,}|~{3,})[ \t]*[^\s`{][^\s`]*[ \t]+[^\s`]")
MERMAID_RE = LinePattern(r"[ \t>]*(?:`{3,}|~{3,})[ \t]*mermaid\b")


class Blocks(Record):
    """What a block-level parse of a page body says (no inline parsing: it is cheap)."""

    __slots__ = _fields = ("code", "fences", "has_h1")
    code: set[int]  #: 0-based lines inside fenced/indented code
    fences: list[tuple[int, str]]  #: (opening line, info)
    has_h1: bool

    def __init__(self, code: set[int] | None = None,
                 fences: list[tuple[int, str]] | None = None, has_h1: bool = False) -> None:
        self.code = set() if code is None else code
        self.fences = [] if fences is None else fences
        self.has_h1 = has_h1


def block_structure(text: str) -> Blocks:
    global _BLOCK_PARSER
    if _BLOCK_PARSER is None:
        from markdown_it import MarkdownIt  # only when a page is parsed: warm builds skip it

        _BLOCK_PARSER = MarkdownIt("commonmark", {"html": True}).disable("inline")
    out = Blocks()
    for token in _BLOCK_PARSER.parse(text):
        if token.type in ("fence", "code_block") and token.map:
            out.code.update(range(token.map[0], token.map[1]))
            if token.type == "fence":
                out.fences.append((token.map[0], token.info))
        elif token.type == "heading_open" and token.tag == "h1":
            out.has_h1 = True
    return out


def _structure(ctx: BuildContext, body: str) -> Blocks:
    """:func:`block_structure`, through the build's cache (a pure function of the text)."""
    if ctx.scans is None:
        return block_structure(body)
    return ctx.scans.cached(
        "b", body, lambda: block_structure(body),
        lambda b: [sorted(b.code), [list(f) for f in b.fences], b.has_h1],
        lambda raw: Blocks(set(raw[0]), [(int(n), str(i)) for n, i in raw[1]], bool(raw[2])))


def _mkdocs_title(page: Page, section: Section, ctx: BuildContext) -> str | None:
    """The title MkDocs gives a page without a title heading, for an engine that needs one
    (:attr:`Engine.needs_h1 <miles_docs_plugin.core.engine.Engine.needs_h1>`): its title in
    the upstream's navigation (``- Title: page.md``), else made from its file name (``-`` and
    ``_`` as spaces, capitalized when all lowercase); a folder's index is named after the
    folder, the section's own after the section."""
    if not ctx.engine.needs_h1:
        return None
    key = f"{_NAV_TITLES}{section.source.name}"
    titles = ctx.memo.get(key)
    if not isinstance(titles, dict):
        titles = ctx.memo[key] = _nav_titles(section)
    title = titles.get(page.path)
    if title:
        return str(title)
    folder, _, name = page.path.rpartition("/")
    stem = name.rpartition(".")[0] or name
    if stem in ("index", "README"):
        if not folder:
            return section.source.title
        stem = folder.rpartition("/")[2]
    return name_title(stem)


_NAV_TITLES = "components.nav_titles:"
#: An ATX heading's marker (at most three spaces before it).
ATX_RE = lazy_re(r" {0,3}(#{1,6})(?=[ \t]|$)")


def _close_heading_gaps(lines: list[str]) -> bool:
    """Write each heading more than one level below its parent section's (``#`` then
    ``###``, common in Mintlify pages under their front matter title) at the level Sphinx gives
    it anyway, one below (a section's depth makes its ``<hN>``): MyST warns about the gap
    ("Non-consecutive header level increase"), which fails ``-W``. Whether any was."""
    found = [(i, m) for i, line in enumerate(lines)
             if line[:4].lstrip(" ")[:1] == "#" and (m := ATX_RE.match(line))]
    levels = [len(m.group(1)) for _, m in found]
    if all(b <= a + 1 for a, b in itertools.pairwise([0, *levels])):
        return False  # no heading deeper than the one before it plus one
    code = code_lines(fences(lines))
    stack: list[int] = []  # the levels written of the sections open
    changed = False
    for i, m in found:
        if i in code:
            continue
        level = len(m.group(1))
        while stack and stack[-1] >= level:
            stack.pop()
        stack.append(level)
        if len(stack) < level:
            lines[i] = lines[i][:m.start(1)] + "#" * len(stack) + lines[i][m.end(1):]
            changed = True
    return changed


def _nav_titles(section: Section) -> dict[str, str]:
    """Each page's title in the upstream's navigation (the first entry that names it)."""
    from ..model import nav_pages
    from .lookup import find_page

    titles: dict[str, str] = {}
    upstream = section.upstream
    if upstream is not None and upstream.nav:
        for item in nav_pages(upstream.nav):
            path = find_page(section, item.path.split("#", 1)[0])
            if item.title and path is not None:
                titles.setdefault(path, item.title)
    return titles


def _heading_text(title: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#])", r"\\\1", " ".join(title.split()))


def _is_h1(line: str) -> bool:
    """``re.match(r"^[ \\t]*#(?:[ \\t]|$)", line)``, without a pattern (asked of every line of
    an MDX page)."""
    rest = line.lstrip(" \t")
    return rest[:1] == "#" and (rest[1:2] in ("", " ", "\t") or rest[1:] == "\n")


def _is_block_name(name: str, flow: frozenset[str] = FLOW_HTML) -> bool:
    """A component, or an HTML element whose content is Markdown (none when ``flow`` is
    empty: the HTML of a page that is no MDX is HTML)."""
    return name[:1].isupper() or (bool(flow) and name in BLOCK_HTML) or name in flow


def _reported(name: str, flow: frozenset[str]) -> bool:
    """Whether a closing tag of ``name`` that closes nothing is worth a warning: an HTML
    element's is not (its opening tag may be HTML that stays HTML, ``<p>text`` then ``</p>``)."""
    return name[:1].isupper() or (bool(flow) and name in BLOCK_HTML)


def find_blocks(lines: list[str], code: set[int], flow: frozenset[str] = FLOW_HTML,
                ) -> tuple[list[Block], list[tuple[int, str]]]:
    """Nest component blocks; returns (top-level blocks, problems as (line, message)).

    A block starts on a line that begins with a JSX opening tag (which may span lines) of a
    component (a capitalised name, or a ``<div>`` alone on its line) and ends on the line whose
    closing tag matches it; content may stand on the tag lines (``<Note>text</Note>``,
    ``text</Note>``). Inline components (``<Badge>``, ``<Link>``…) inside text are not blocks.
    ``flow``: the HTML elements whose content is Markdown (:data:`FLOW_HTML`,
    :data:`NATIVE_FLOW_HTML`; empty for a page that is no MDX, whose HTML stays HTML).
    """
    top: list[Block] = []
    stack: list[Block] = []
    problems: list[tuple[int, str]] = []
    too_deep = 0  #: open tags past MAX_DEPTH, whose closing tags are text too
    budget = [MAX_ELEMENT_LINES * 10]  #: lines the look-ahead may read on this page

    def closed_later(name: str, line: int) -> bool:
        """Whether the element ``name`` opened alone on ``line`` is closed where this parse
        closes it (closing tags alone on a line, or one that ends a line), counting the
        elements of its name opened in it. ``<p>`` then ``</p></li>`` is HTML's. (Within
        :data:`MAX_ELEMENT_LINES`, and as many lines per page ten times over: a page of
        unclosed elements costs no more than that.)"""
        opening = re.compile(rf"<{re.escape(name)}(?=[\s>/])")
        depth = 1
        for k in range(line + 1, min(len(lines), line + MAX_ELEMENT_LINES)):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            text = lines[k]
            if k in code or "<" not in text:
                continue
            closes = text.count(f"</{name}>")
            depth += len(opening.findall(text)) - closes
            if depth <= 0:
                names = CLOSING_HTML_RE.findall(text)
                if CLOSINGS_ONLY_RE.fullmatch(text):
                    return all(_is_block_name(closed, flow) for closed in names)
                return depth == 0 and text.rstrip().endswith(f"</{name}>")
        return False

    def close(name: str, i: int, tail: str) -> bool:
        if too_deep:
            return False
        if stack and stack[-1].name == name:
            block = stack.pop()
        elif any(b.name == name for b in stack):
            while stack and stack[-1].name != name:
                open_block = stack.pop()
                problems.append((open_block.start, f"<{open_block.name}> is never closed"))
                open_block.end = i
            block = stack.pop()
        else:
            if not tail and _reported(name, flow):
                problems.append((i, f"</{name}> closes nothing"))
            return False
        block.end = i
        block.tail = tail
        return True

    i = 0
    n = len(lines)
    while i < n:
        if i in code:
            i += 1
            continue
        line = lines[i]
        s = line.lstrip()
        indent = line[:len(line) - len(s)]
        if s.startswith("</"):
            # one or more closing tags alone on the line (``</Tab></Tabs>``)
            tags = []
            pos = len(indent)
            while pos < len(line) and line.startswith("</", pos):
                tag = read_tag(line, pos)
                if tag is None or not _is_block_name(tag.name, flow):
                    break
                tags.append(tag)
                pos = tag.end
                while pos < len(line) and line[pos] in " \t":
                    pos += 1
            if tags and not line[pos:].strip():
                for tag in tags:
                    if too_deep and tag.name[:1].isupper():
                        too_deep -= 1
                    else:
                        close(tag.name, i, "")
            i += 1
            continue
        if s.startswith("<") and not s.startswith("<!"):
            chunk = [line]
            for k in range(i + 1, min(n, i + MAX_TAG_LINES)):
                if k in code:
                    break
                chunk.append(lines[k])
            text = "\n".join(chunk)
            tag = read_tag(text, len(indent))
            if tag is not None and not tag.closing and _is_block_name(tag.name, flow):
                consumed = text[:tag.end]
                j = i + consumed.count("\n")
                rest = text[tag.end:].split("\n", 1)[0]
                name = tag.name
                lowercase = not name[:1].isupper()
                inline_use = (name in INLINE or lowercase) and (rest.strip() or tag.self_closing)
                if name in flow and not tag.self_closing:
                    # an element alone on its lines (closed further down), or whole on one
                    # line (nothing of its own kind inside): its content is Markdown; else it
                    # stays HTML
                    one = rest.rstrip()
                    inline_use = not (one.endswith(f"</{name}>") and f"<{name}" not in one
                                      if one else closed_later(name, j))
                if not inline_use:
                    if len(stack) >= MAX_DEPTH or too_deep:
                        if not too_deep:
                            problems.append((i, f"components nested deeper than {MAX_DEPTH} "
                                                "levels are kept as text"))
                        if not tag.self_closing and f"</{name}>" not in rest:
                            too_deep += 1
                        i = j + 1
                        continue
                    # (an icon or picture given by an expression, ``img={logos.x}``, names
                    # no file: it is not one of the images `neutralize` writes)
                    attrs = {k: v for k, v in tag.attrs.items()
                             if k not in tag.expressions or k not in IMAGE_ATTRS}
                    block = Block(name, attrs, indent, i, j, open_end=j,
                                  html=html_tag(tag) if name in flow else "")
                    (stack[-1].children if stack else top).append(block)
                    if tag.self_closing:
                        block.inline = rest.strip()
                        i = j + 1
                        continue
                    closing = f"</{name}>"
                    stripped = rest.rstrip()
                    if stripped.endswith(closing) and f"<{name}" not in stripped:
                        block.inline = stripped[:-len(closing)].strip()
                        i = j + 1
                        continue
                    block.inline = rest.strip()
                    stack.append(block)
                    i = j + 1
                    continue
        if stack and not too_deep:
            m = re.search(r"</(?P<name>[A-Za-z][\w.:-]*)>[ \t]*$", line)
            if m and any(b.name == m.group("name") for b in stack):
                before = line[:m.start()]
                name = m.group("name")
                # ``<div class="k">x</div>`` in a <div>: the line closes its own tag
                opened = len(re.findall(rf"<{re.escape(name)}(?=[\s/>])", before))
                if before.strip() and opened <= before.count(f"</{name}>"):
                    close(name, i, before.strip())
        i += 1
    for block in stack:
        problems.append((block.start, f"<{block.name}> is never closed"))
        block.end = len(lines) - 1
    return top, problems


def normalize_indent(lines: list[str], blocks: list[Block]) -> None:
    """Make the indentation inside components cosmetic, as MDX does.

    Mintlify authors indent JSX children for readability (MDX has no indented code blocks).
    Each component's content is shifted left so that its least indented line lines up with the
    component's tag (a tag more indented than its content moves left to it instead); relative
    indentation (lists, code) is kept.
    """
    for block in blocks:
        inner = range(block.open_end + 1, block.end)
        # the closing tags inside are left out: MDX gives them no place (an author may write
        # </AccordionGroup> less indented than the group's content)
        closings = _closing_lines(block.children)
        widths = [len(lines[i]) - len(lines[i].lstrip()) for i in inner
                  if lines[i].strip() and i not in closings]
        at = len(block.indent)
        least = min(widths, default=at)
        if least < at and block.open_end == block.start:
            # a tag indented deeper than its content: MDX gives the tag's indentation no
            # meaning, and the content's places the block (written where the tag stood, it
            # could be code: indented four spaces after a list)
            block.indent = block.indent[:least]
            lines[block.start] = block.indent + lines[block.start].lstrip()
            at = least
        extra = min(widths, default=0) - at
        if extra > 0:
            for i in inner:
                if lines[i].strip():
                    cut = min(extra, len(lines[i]) - len(lines[i].lstrip()) - at)
                    if cut > 0:
                        lines[i] = lines[i][:at] + lines[i][at + cut:]
        for child in block.children:
            child.indent = lines[child.start][:len(lines[child.start]) -
                                              len(lines[child.start].lstrip())]
        normalize_indent(lines, block.children)


def _anchor_html(block: Block) -> str:
    """The anchor that keeps a component's id a link target (:func:`component_id`)."""
    anchor = component_id(block) or ""
    return f'<a id="{html.escape(anchor, quote=True)}"></a>' if anchor else ""


def _closing_lines(blocks: list[Block]) -> set[int]:
    """The lines of the closing tags of ``blocks`` and of the blocks in them."""
    out: set[int] = set()
    for block in blocks:
        if block.end > block.open_end:
            out.add(block.end)
        out |= _closing_lines(block.children)
    return out


def neutralize(lines: list[str], blocks: list[Block], found: list[Block], *,
               markers: bool = True) -> None:
    """Turn the tag lines of components into plain Markdown, in place, line for line.

    The content between the tags becomes ordinary Markdown that the link scanner reads (with
    the tags in place, CommonMark would see one raw HTML block). Each tag leaves a marker
    (an HTML comment, ``<!--mdp:N-->`` / ``<!--/mdp:N-->``) that says where the component is
    when it is rendered, whatever other plugins changed meanwhile. Content that stood on a tag
    line stays there; a component with ``href`` gets a Markdown link there, so the link rules
    rewrite it like any other.
    """
    if not markers:  # for an engine that puts the tags back itself (reads_mdx)
        for block in blocks:
            found.append(block)
            neutralize(lines, block.children, [], markers=False)
            href = block.attrs.get("href")
            component = block.name[:1].isupper()
            # its icon and picture files, which the engine publishes too
            images = image_links(block.attrs, image_attrs(block.attrs)) if component else ""
            if href and component:
                text = block.attrs.get("title") or href
                lines[block.start] = (f"{block.indent}{images}"
                                      f"[{text.replace(']', '')}](<{href}>)" +
                                      (INLINE_MARK + block.inline if block.inline else ""))
            else:
                # its id (an HTML element's, a field's) stays a link target of the scan (the
                # engine takes it back)
                anchor = _anchor_html(block)
                lines[block.start] = block.indent + anchor + images + block.inline \
                    if block.inline or images or anchor else ""
            if block.end > block.open_end:
                lines[block.end] = ""
        return
    for block in blocks:
        block.number = len(found)
        found.append(block)
        neutralize(lines, block.children, found)
        mark = f"<!--mdp:{block.number}-->"
        href = block.attrs.get("href")
        component = block.name[:1].isupper()
        # a card's picture, shown in it (read back by `render`)
        indent = block.indent + (image_links(block.attrs, image_attrs(block.attrs, ("img",)))
                                 if component else "")
        if href and component:
            text = block.attrs.get("title") or href
            label = re.sub(r"([\\`*_\[\]<>])", r"\\\1", " ".join(text.split()))
            lines[block.start] = f"{indent}[{label}](<{href}>){mark}{block.inline}"
        elif block.inline:
            # an HTML element's id stays a link target (`render` takes it back)
            anchor = _anchor_html(block) if block.html else ""
            lines[block.start] = f"{indent}{anchor}{block.inline}<!--mdp:{block.number}:i-->"
        else:
            lines[block.start] = indent + _anchor_html(block) + mark
        for k in range(block.start + 1, block.open_end + 1):
            lines[k] = ""
        closing = f"<!--/mdp:{block.number}-->"
        if block.end > block.open_end:
            if "<!--/mdp:" in lines[block.end]:  # an inner block closed on this line too
                lines[block.end] += closing
            else:
                lines[block.end] = f"{block.indent}{block.tail}{closing}"
        else:
            lines[block.start] += closing


#: An emoji or icon shortcode (``:smile:``, ``:material-check:``), with the attribute list
#: that may follow it (``{ .lg .middle }``).
SHORTCODE_RE = lazy_re(r":([a-z0-9_+-]+):(\{[^{}\n]*\})?( ?)")
#: Material's icon sets: drawn from its own files, nothing a reader misses without them.
ICON_SETS = ("material-", "octicons-", "fontawesome-", "simple-")


def _emoji_text(m: re.Match[str]) -> str:
    """A shortcode as the character it stands for (from pymdownx.emoji's index, where it is
    installed), or nothing for one of Material's icons, with the space after it (a card's
    ``-   :icon: Title`` would otherwise leave its text indented as code); else as written."""
    name = m.group(1)
    if name.startswith(ICON_SETS):
        return ""
    found = _emoji_index().get(name)
    return found + m.group(3) if found is not None else m.group(0)


_EMOJI: dict[str, str] | None = None


def _emoji_index() -> dict[str, str]:
    """Shortcode name -> character, from pymdownx.emoji's twemoji index (empty without it)."""
    global _EMOJI
    if _EMOJI is None:
        try:
            from pymdownx import emoji
        except ImportError:
            _EMOJI = {}
        else:
            index = emoji.twemoji({}, None)
            chars = {name.strip(":"): "".join(chr(int(code, 16))
                                              for code in value["unicode"].split("-"))
                     for name, value in index["emoji"].items() if value.get("unicode")}
            chars.update({alias.strip(":"): chars[target.strip(":")]
                          for alias, target in index["aliases"].items()
                          if target.strip(":") in chars})
            _EMOJI = chars
    return _EMOJI


#: An abbreviation's definition (Python-Markdown's abbr).
ABBR_RE = lazy_re(r"^[ \t]{0,3}\*\[[^\]\n]+\]:")


def _abbreviations(upstream: UpstreamSite | None) -> bool:
    """Whether the upstream's own site reads abbr's definitions (MkDocs: ``abbr``, or the
    ``extra`` bundles that turn it on); elsewhere they are text, as written."""
    return upstream is not None and upstream.mkdocs and "abbr" in upstream.extension_names()


#: An empty link whose attribute list gives it an id: an anchor (``[](){#old-name}``).
EMPTY_ANCHOR_RE = lazy_re(r"\[\]\(\)\{:?[ \t]*#([A-Za-z][\w:.-]*)[ \t]*\}")
#: attr_list's ``{ … }`` right after a link or an image (its ``)``).
INLINE_ATTRS_RE = lazy_re(r"""\)\{:?[ \t]*(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=(?:"[^"\n]*"|'[^'\n]*'|"""
                          r"""[^\s{}]+))(?:[ \t]+(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=(?:"[^"\n]*"|"""
                          r"""'[^'\n]*'|[^\s{}]+)))*[ \t]*\}""")
#: A line that opens an HTML tag (lowercase: ``<img``) and does not close it.
_OPEN_TAG_RE = lazy_re(r"^[ \t]*<([a-z][\w-]*)(?:\s[^<>]*)?$")
#: A page with such a line (a tag that may go on over the next lines).
ACROSS_LINES_RE = lazy_re(r"^[ \t]*<[a-z][\w-]*(?:[ \t][^<>\n]*)?$", re.M)

#: Lines a tag written across lines may take.
MAX_TAG_LINES = 30


def _tag_spans(lines: list[str], code: set[int]) -> Iterator[tuple[int, int, str, Tag]]:
    """HTML tags written across lines, alone on them (``<img`` then ``className="…"``,
    ``src=…`` and ``/>`` on lines of their own, as Mintlify's pages write them): first and
    last line, indentation and the tag."""
    for i, line in enumerate(lines):
        if i in code or "<" not in line or _OPEN_TAG_RE.match(line) is None:
            continue
        indent = line[:len(line) - len(line.lstrip())]
        for j in range(i + 1, min(i + MAX_TAG_LINES, len(lines))):
            if j in code or not lines[j].strip():
                break
            text = "\n".join(lines[i:j + 1])
            tag = read_tag(text, len(indent))
            if tag is None:
                continue
            if not text[tag.end:].strip():  # more on its last line: as it is
                yield i, j, indent, tag
            break


def _tags_across_lines(lines: list[str], code: set[int]) -> bool:
    """HTML tags with JSX attributes written across lines (:func:`_tag_spans`), written as
    HTML on their first line (:func:`_html_img`); their other lines are left blank, so the
    page keeps its line numbers. Plain HTML is left as it is."""
    changed = False
    for i, j, indent, tag in list(_tag_spans(lines, code)):
        if tag.expressions or "className" in tag.attrs:
            lines[i] = indent + _html_img(tag)
            lines[i + 1:j + 1] = [""] * (j - i)
            changed = True
    return changed


def join_tags(lines: list[str], code: set[int]) -> list[tuple[int, int]]:
    """For an engine that reads MDX itself: every tag written across lines
    (:func:`_tag_spans`) on one line, as HTML, for the link scan (CommonMark reads a line
    ``>`` of such a tag as a block quote, and the tag as text). The engine writes the tag
    back as it was, with the links the link rules rewrote; the spans (first and last line)
    are returned for that. The other lines of the tag hold an empty comment, not nothing: a
    blank line would end the HTML block, and make what follows, indented, code."""
    spans = []
    for i, j, indent, tag in list(_tag_spans(lines, code)):
        if any("\n" in value for value in tag.attrs.values()):
            continue  # a value over lines: on one line it would take them
        lines[i] = indent + html_tag(tag)
        lines[i + 1:j + 1] = [indent + "<!---->"] * (j - i)
        spans.append((i, j))
    return spans


def open_html_lines(lines: list[str], code: set[int], skip: set[int]) -> list[int]:
    """Lines of an MDX page that are one HTML tag (``<img … />``, ``<br />``, ``<a href>``)
    with text under them: MDX reads the tag as an element of its own and the text as
    Markdown, CommonMark starts an HTML block (condition 7) that takes the text along, so its
    links went unseen while an engine that reads inline HTML showed them. Each gets an empty
    comment after its tag, so that CommonMark reads a paragraph of inline HTML and the text
    under it, as Python-Markdown does. Returns the lines changed (``skip``: lines not to)."""
    # CommonMark's conditions 1 and 6: these start an HTML block whatever follows the tag
    from markdown_it.common.html_blocks import block_names

    changed = []
    text_below = False  #: a line of text further down in this run of non-blank lines
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        text = line.lstrip()
        if not text or i in code:
            text_below = False
            continue
        if not text.startswith("<"):
            text_below = True
            continue
        if text_below and not text.startswith("<!") and i not in skip:
            tag = read_tag(line, len(line) - len(text))
            if tag is not None and not line[tag.end:].strip() and \
                    tag.name.lower() not in block_names and \
                    tag.name.lower() not in ("pre", "script", "style", "textarea"):
                lines[i] = line[:tag.end] + "<!---->"
                changed.append(i)
    return changed[::-1]


#: A line that starts with an HTML tag and has Markdown link syntax further on, or after the
#: tag's end on a later line (roughly; the tag's look-ahead is bounded: no square time).
HTML_MARKDOWN_RE = LinePattern(r"[ \t]*</?[A-Za-z](?:[^\n]*|[^>]{0,500}>[^\n]*)\][(\[]")


def html_markdown_lines(lines: list[str], code: set[int], skip: set[int]) -> list[int]:
    """For an engine that reads MDX itself: lines of an MDX page that start with an HTML tag
    and hold Markdown links in the text between their tags (a table on one line,
    ``<tr><td>[a](/x)</td><td>[b](/y)</td></tr>``, ``</li><li>[c](/z)``). MDX reads that
    text as Markdown; CommonMark starts an HTML block at the tag, so the links went unseen
    and were left as written. Each gets :data:`OPENER` before its first tag, so that the scan
    reads a paragraph of inline HTML (its tags' ``href`` too; a tag written over lines, with
    Markdown after it, too); the engine takes it out again. Returns the lines changed
    (``skip``: lines not to)."""
    view = list(lines)
    blank_comments(view, code)  # a commented-out line holds no link
    skip = skip | {n for first, end in esm_blocks(lines, code) for n in range(first, end)}
    changed = []
    for i, line in enumerate(lines):
        text = view[i].lstrip()
        if i in code or i in skip or not text.startswith("<") or text.startswith("<!"):
            continue
        outside = TAG_RE.sub("", _without_expressions(text))
        if "](" not in outside and "][" not in outside and TAG_RE.match(text) is None:
            outside = _after_tag(view, i, code)
        if "](" in outside or "][" in outside:
            text = line.lstrip()
            indent = line[:len(line) - len(text)]
            # MDX has no indented code: deep in, the line would be code to CommonMark (the
            # engine gives it its indentation back)
            lines[i] = ("" if len(indent.expandtabs(4)) >= 4 else indent) + OPENER + text
            changed.append(i)
    return changed


#: A line of an HTML element (lower-case: a component's name starts upper-case) with what
#: Markdown may read after its tag, or a table or an HTML list, roughly (:func:`html_text`).
HTML_TEXT_RE = LinePattern(r"[ \t]*</?[a-z][\w-]*[\s>/][^\n]*[\[*_`\\~]",
                           r"<(?:table|ul|ol|dl)[\s>]")
#: The elements whose text lines CommonMark and Python-Markdown keep in their HTML, as written.
STRUCTURE_TAG_RE = lazy_re(r"<(/?)(?:table|ul|ol|dl)(?=[\s>/])")
#: A line that starts with an HTML element's tag.
HTML_LINE_RE = lazy_re(r"</?[a-z][\w-]*(?=[\s>/])")


def html_text(lines: list[str], code: set[int]) -> bool:
    """For an engine that does not read MDX (MkDocs, Sphinx): the Markdown that MDX reads in
    the text of HTML, which these engines pass through as it is written: text after a tag on
    its line (``<div align="center">[![logo](/logo.png)](/)</div>``, ``<td>**yes**</td>``,
    ``<li>[a](/x)</li>``), and text lines between the tags of a table or an HTML list. Such a
    line is written as the HTML MDX makes of it (CommonMark's inline rules, through
    markdown-it), in place: the page keeps its line numbers, and the link step then reads the
    links of that HTML. A line with a tag that markdown-it does not read as HTML (JSX, a tag
    that goes on over the next line) stays as it is. Returns whether a line changed."""
    view = list(lines)
    blank_comments(view, code)
    skip = {n for first, end in esm_blocks(lines, code) for n in range(first, end)}
    render = None
    depth = 0  #: tables and lists open at this line
    changed = False
    for i, line in enumerate(view):
        if i in code or i in skip:
            continue
        inside = depth > 0
        for m in STRUCTURE_TAG_RE.finditer(line):
            depth = max(0, depth + (-1 if m.group(1) else 1))
        text = line.strip()
        if not text or text.startswith("<!") or "<!--" in lines[i]:
            continue  # (a component's marker, which it is written around later)
        if HTML_LINE_RE.match(text) is None and (not inside or text.startswith("<")):
            continue
        if MARKDOWN_TEXT_RE.search(TAG_RE.sub("", text)) is None:
            continue
        if render is None:
            from markdown_it import MarkdownIt

            render = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
        written = lines[i].strip()
        html = render.renderInline(written)
        if html == written or html.count("&lt;") > written.count("&lt;"):
            continue  # (a "<" it read as text: a tag that is no HTML)
        lines[i] = lines[i][:len(lines[i]) - len(lines[i].lstrip())] + html
        changed = True
    return changed


#: HTML's void elements: the only ones a browser closes at "/>" (outside SVG and MathML).
VOID_ELEMENTS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                           "meta", "param", "source", "track", "wbr"})
#: An element closed with "/>" that is not void, roughly (:func:`close_elements`).
SELF_CLOSED_RE = lazy_re(r"<(?!(?:" + "|".join(sorted(VOID_ELEMENTS)) + r")[\s/>])"
                         r"[a-z][\w-]*(?:\s[^<>]*)?/>")
_ELEMENT_START_RE = lazy_re(r"<[a-z]")


def close_elements(lines: list[str], code: set[int]) -> bool:
    """For an engine that does not read MDX: elements of an MDX page closed JSX's way
    (``<iframe src="…" />``, ``<video controls src="…" />``, over several lines too) get a
    closing tag. A browser closes only void elements at ``/>``: an iframe would take the rest
    of the page as its text, a video as its fallback, unseen. Returns whether a line
    changed; the lines keep their number."""
    changed = False
    for i, line in enumerate(lines):
        if i in code or "<" not in line:
            continue
        masked = CODE_SPAN_RE.sub(lambda m: "\0" * len(m.group(0)), line)
        # the last first: a closing tag written in moves what follows it on the line
        for m in reversed(list(_ELEMENT_START_RE.finditer(masked))):
            span = [lines[i]]
            for k in range(i + 1, min(i + MAX_TAG_LINES, len(lines))):
                if k in code or not lines[k].strip():
                    break
                span.append(lines[k])
            text = "\n".join(span)
            tag = read_tag(text, m.start())
            if tag is None or not tag.self_closing or tag.name.lower() in VOID_ELEMENTS:
                continue
            at = tag.end - 2  # the "/>"
            k = i + text.count("\n", 0, at)
            column = at - (text.rfind("\n", 0, at) + 1)
            lines[k] = lines[k][:column] + f"></{tag.name}>" + lines[k][column + 2:]
            changed = True
    return changed


def _after_tag(lines: list[str], at: int, code: set[int]) -> str:
    """The text after a tag that starts line ``at`` and goes on over the next lines, to the
    end of its paragraph, without tags and expressions ("" when no tag reads there)."""
    chunk = [lines[at]]
    for k in range(at + 1, min(len(lines), at + MAX_TAG_LINES)):
        if k in code or not lines[k].strip():
            break
        chunk.append(lines[k])
    text = "\n".join(chunk)
    tag = read_tag(text, len(text) - len(text.lstrip()))
    return "" if tag is None else TAG_RE.sub("", _without_expressions(text[tag.end:]))


def _without_expressions(text: str) -> str:
    """``text`` without its JSX expressions (``{"[a](/b)"}`` is a string, not a link)."""
    if "{" not in text:
        return text
    out = []
    at = 0
    while (start := text.find("{", at)) >= 0:
        out.append(text[at:start])
        end = skip_braces(text, start)
        if end < 0:
            return "".join(out)
        at = end
    return "".join(out) + text[at:]


def _html_img(tag: Tag) -> str:
    """A JSX tag as HTML (:func:`html_tag`); none for an image Tailwind's ``hidden`` class
    keeps out of the light theme (the dark one of a pair: ``hidden dark:block``), which a
    host without Tailwind would show next to the light one."""
    if tag.name == "img" and "hidden" in tag.attrs.get("className", "").split():
        return ""
    return html_tag(tag)


def _inline_components(lines: list[str], code: set[int]) -> bool:
    """Write inline components (``<Badge>``, ``<Tooltip>``, ``<Icon>``, ``<Link>``,
    ``<Kbd>``) inside text as Markdown or plain inline HTML, in place."""
    changed = False
    for i, line in enumerate(lines):
        if i in code or "<" not in line:
            continue
        masked = re.sub(r"(`+)(?:(?!\1).)+\1", lambda m: "\0" * len(m.group(0)), line)
        out: list[str] = []
        pos = 0
        k = 0
        while True:
            k = masked.find("<", k)
            if k < 0:
                break
            tag = read_tag(line, k) if masked[k + 1:k + 2].isalpha() else None
            if tag is not None and not tag.closing and tag.name[:1].islower():
                if tag.expressions or "className" in tag.attrs:
                    # JSX attributes on an HTML tag: written as HTML, so engines and the
                    # link rules read it (<img src="/x.png" style={{ width: 200 }} />)
                    out.append(line[pos:k])
                    out.append(_html_img(tag))
                    pos = tag.end
                k = tag.end
                continue
            if tag is None or tag.closing or tag.name not in INLINE:
                k += 1
                continue
            content = ""
            end = tag.end
            if not tag.self_closing:
                close = line.find(f"</{tag.name}>", tag.end)
                if close < 0:
                    k += 1
                    continue
                content = line[tag.end:close]
                end = close + len(tag.name) + 3
                if "<" in content:  # components and JSX tags in it (<Tooltip><Icon/>…)
                    inner = [content]
                    _inline_components(inner, set())
                    content = inner[0]
            out.append(line[pos:k])
            out.append(_inline_html(tag.name, tag.attrs, content))
            pos = k = end
        if pos:
            out.append(line[pos:])
            lines[i] = "".join(out)
            changed = True
    return changed


def _inline_html(name: str, attrs: dict[str, str], content: str) -> str:
    if name == "Link":
        href = attrs.get("href", "")
        return f"[{content}](<{href}>)" if href else content
    if name == "Tooltip":
        tip = attrs.get("tip") or attrs.get("headline") or ""
        return f'<abbr title="{html.escape(tip, quote=True)}">{content}</abbr>'
    if name == "Badge":
        return f'<span class="mdp-badge">{content}</span>'
    if name == "Kbd":
        return f"<kbd>{content}</kbd>"
    return content  # Icon: a decoration, nothing to read


def _markers(lines: list[str], meta: list[Block]) -> list[Block]:
    """Rebuild the component tree from the markers left by :func:`neutralize`."""
    top: list[Block] = []
    stack: list[Block] = []
    for i, line in enumerate(lines):
        if "<!--" not in line:
            continue
        for m in MARK_RE.finditer(line):
            number = int(m.group("n"))
            if number >= len(meta):
                continue
            if m.group("close"):
                if stack and stack[-1].number == number:
                    stack.pop().end = i
                continue
            src = meta[number]
            block = Block(src.name, src.attrs, line[:len(line) - len(line.lstrip())], i, i,
                          number=number, html=src.html)
            block.inline = "i" if m.group("kind") == "i" else ""
            (stack[-1].children if stack else top).append(block)
            stack.append(block)
    for block in stack:  # a marker another plugin removed: the block runs to the end
        block.end = len(lines) - 1
    return top


def render(lines: list[str], blocks: list[Block], page: Page, ctx: BuildContext,
           parent: str | None = None, *, indent: str = "", raw: bool = False) -> None:
    """Write neutralized components in the engine's syntax, in place, innermost first
    (bottom-up, so the line numbers of blocks not yet rendered stay valid). Each component
    goes through ``mdp_render_component``; the engine renders those no plugin renders.
    ``indent``: the parent's; ``raw``: inside an HTML element that stays HTML."""
    counts: dict[str, int] = {}
    numbered = []
    for block in blocks:
        counts[block.name] = counts.get(block.name, 0) + 1
        numbered.append((block, counts[block.name]))
    for block, index in reversed(numbered):
        before = len(lines)
        # an HTML element indented past its parent is in HTML (a table's cell): there it
        # stays HTML, with what is in it; so does one in a list item, where Python-Markdown
        # reads it as inline HTML in the item's paragraph, and its Markdown with it
        # (CommonMark engines read it as an HTML block: it is written as at the top level)
        in_html = raw or (bool(block.html) and len(block.indent) > len(indent) and (
            "md_in_html" in ctx.engine.features or not in_list_item(lines, block.start)))
        render(lines, block.children, page, ctx, block.name, indent=block.indent, raw=in_html)
        end = block.end + len(lines) - before  # children may have grown
        opening = lines[block.start]
        closing_mark = f"<!--/mdp:{block.number}-->"
        if end > block.start and closing_mark in lines[end]:
            own, _, rest = lines[end].partition(closing_mark)
            if rest.strip():  # outer blocks close on the same line: give them their own
                lines[end:end + 1] = [own + closing_mark, block.indent + rest.strip()]
        one_line = end == block.start
        m = MARK_RE.search(opening)
        head = opening[:m.start()] if m else opening
        after = opening[m.end():].replace(closing_mark, "") if m else ""
        attrs = dict(block.attrs)
        if block.name[:1].isupper() and "img" in attrs:
            # the picture `neutralize` wrote before the rest, as the link rules rewrote it
            pictures, head = read_image_links(head, image_attrs(attrs, ("img",)))
            attrs.pop("img")
            attrs.update(pictures)
        inline = ""
        if block.inline == "i":
            inline = head.strip()
        else:
            link = re.match(r"^[ \t]*\[.*\]\((?P<href><[^>]*>|[^)]*)\)$", head)
            if link and "href" in attrs:
                attrs["href"] = link.group("href").strip("<>")  # as the link rules rewrote it
            inline = after.strip()
        body = lines[block.start + 1:end] if not one_line else []
        if not one_line:
            tail = lines[end].replace(closing_mark, "")
            if tail.strip():
                body.append(tail)
        if block.html:  # an HTML element of MDX, whose content is Markdown
            anchor = ANCHOR_RE.match(head)
            if anchor and block.inline == "i":
                inline = inline[len(anchor.group(0).strip()):]
            new = _html_element(block, inline, body, "md_in_html" in ctx.engine.features,
                                anchor=anchor.group(0).strip() if anchor else "",
                                raw=in_html, nested=bool(parent and parent[:1].isupper()),
                                next_line=lines[end + 1] if end + 1 < len(lines) else "")
            lines[block.start:end + 1] = _fit(new, end - block.start + 1)
            continue
        if not _is_block_name(block.name) or block.name not in KNOWN:
            # unknown: its tags are gone, its content stays
            anchor = ANCHOR_RE.match(head)
            first = block.indent + (anchor.group(0).strip() if anchor else "") + inline
            kept = [first, *body]
            lines[block.start:end + 1] = _fit(kept + ([""] if not one_line else []),
                                              end - block.start + 1)
            continue
        name = _canonical(block.name, attrs)
        if name == "Visibility" and attrs.get("for", "").lower() == "agents":
            lines[block.start:end + 1] = [""] * (end - block.start + 1)  # not for readers
            continue
        component = Component(name, attrs, block.indent, body, inline, index, parent)
        anchor = ANCHOR_RE.match(head)
        new = ctx.hooks.render_component(component, page, ctx)
        if anchor:  # a component id (``#param-x``, an Update's label): kept before it
            new = [block.indent + anchor.group(0).strip(), "", *new]
        lines[block.start:end + 1] = _fit(new, end - block.start + 1)


#: A list item's marker, and the white space after it.
LIST_MARKER_RE = lazy_re(r"[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)")
#: How far up :func:`in_list_item` looks for the item a line belongs to.
MAX_ITEM_LINES = 200


def in_list_item(lines: list[str], at: int) -> bool:
    """Whether line ``at`` (indented) is the content of a list item: the first line above it
    that is indented less is the item's marker line, whose content starts at or before it."""
    width = _indent_width(lines[at])
    for k in range(at - 1, max(-1, at - MAX_ITEM_LINES), -1):
        line = lines[k]
        if not line.strip():
            continue
        if _indent_width(line) < width:
            m = LIST_MARKER_RE.match(line)
            return m is not None and len(m.group(0).expandtabs(4)) <= width
    return False


def _indent_width(line: str) -> int:
    """The columns of a line's indentation (a tab to the next multiple of four)."""
    return len(line[:len(line) - len(line.lstrip())].expandtabs(4))


#: Mintlify's ``<Callout type>`` values and the callout each one is.
CALLOUT_TYPES = {"info": "Info", "warning": "Warning", "tip": "Tip", "danger": "Danger",
                 "check": "Check", "success": "Check", "note": "Note", "caution": "Caution",
                 "error": "Danger"}


def _canonical(name: str, attrs: dict[str, str]) -> str:
    """Components that are another one under a different name."""
    if name == "Callout":
        return CALLOUT_TYPES.get(attrs.get("type", "").lower(), "Note")
    if name in ("RequestExample", "ResponseExample"):
        return "CodeGroup"
    if name == "Prompt":  # a prompt to copy, under its description
        attrs["title"] = " ".join(attrs.get("description", "").split()) or "Prompt"
        return "Note"
    return name


#: the components Mintlify gives an id of their name (``rehypeParamFieldIds``)
FIELDS = ("ParamField", "Param", "ResponseField")


def _field_name(block: Block) -> str | None:
    if block.name == "ResponseField":
        return block.attrs.get("name") or None
    return next((block.attrs[k] for k in ("query", "path", "body", "header")
                 if block.attrs.get(k)), None)


def name_fields(blocks: list[Block]) -> None:
    """Give each field of a page (:data:`FIELDS`) without an ``id`` the one Mintlify gives it:
    ``param-`` and its name (``query``, ``path``, ``body``, ``header``; a ``ResponseField``'s
    ``name``), counted on repeats and stepping over the ids written on other fields."""
    from .anchors import mintlify_field_id

    fields: list[Block] = []

    def walk(level: list[Block]) -> None:
        for block in level:
            # only a field whose tags stand alone on their lines: one with text after its
            # opening tag is in a paragraph for MDX, and Mintlify numbers no such field
            if block.name in FIELDS and not block.inline:
                fields.append(block)
            walk(block.children)

    walk(blocks)
    if not fields:
        return
    claimed = {b.attrs["id"] for b in fields if b.attrs.get("id")}
    counts: dict[str, int] = {}
    for block in fields:
        name = _field_name(block)
        if "id" in block.attrs or name is None:
            continue
        base = mintlify_field_id(name)
        count = counts.get(base, 0)
        found = mintlify_field_id(name, count)
        while found in claimed:
            count += 1
            found = mintlify_field_id(name, count)
        counts[base] = count + 1
        claimed.add(found)
        block.attrs["id"] = found


def component_id(block: Block) -> str | None:
    """The id Mintlify gives a component, where it gives one (fields, updates)."""
    if block.name in FIELDS:
        # given by :func:`name_fields`; in a paragraph, none
        return block.attrs.get("id") or None if not block.inline else None
    from .anchors import mintlify_slug

    if block.name == "Update" and block.attrs.get("label"):
        return block.attrs.get("id") or mintlify_slug(block.attrs["label"])
    if block.name in ("Accordion", "Expandable") and block.attrs.get("title"):
        # opening one puts its title's slug in the address, which links then use
        return block.attrs.get("id") or mintlify_slug(block.attrs["title"])
    if block.name == "Tab":
        return None  # tabs must follow one another: an anchor between them splits the set
    return block.attrs.get("id") or None


def _html_element(block: Block, inline: str, body: list[str], md_in_html: bool, *,
                  anchor: str, raw: bool, nested: bool, next_line: str) -> list[str]:
    """An HTML element whose content MDX reads as Markdown (:data:`FLOW_HTML`), written for
    the engine: with md_in_html, its tag with ``markdown="1"`` (Python-Markdown then reads the
    content as Markdown, inline in a ``<p>`` or a heading); else the tags on lines of their own
    around the content, blank lines between, which CommonMark reads as two HTML blocks and
    Markdown between them (a ``<p>`` is a ``<div>`` there: a paragraph goes in it).

    As it was written, HTML: an element with no Markdown in it, one in HTML (``raw``: in a
    table cell, say), and for md_in_html one holding an inline element around blocks (a card's
    ``<a href>``: Python-Markdown would close it in a paragraph of its own). Inside a
    component the engine indents (``nested``: an admonition, a tab), where md_in_html does not
    reach, the tags go and the content stays (with ``anchor``, the element's id)."""
    ind = block.indent
    closing = f"</{block.name}>"
    content = ([ind + inline] if inline else []) + body
    plain = not any(MARKDOWN_TEXT_RE.search(TAG_RE.sub("", line)) or
                    MARKDOWN_BLOCK_RE.match(line) for line in content)
    # text right under an HTML line would be part of its HTML block
    gap = [""] if next_line.strip() and not next_line.lstrip().startswith("<") else []
    if (plain or raw) and inline and not body:
        return [ind + block.html + inline + closing, *gap]
    if plain or raw or (md_in_html and any(INLINE_FLOW_RE.match(line) for line in content)):
        return [ind + block.html, *(line.replace(' markdown="1">', ">") for line in content),
                ind + closing, *gap]
    if md_in_html and nested:
        return [*([ind + anchor, ""] if anchor else []), *content, ""]
    if md_in_html:
        return [ind + block.html[:-1] + ' markdown="1">', "", *content, "", ind + closing, ""]
    if block.name == "p":
        return [ind + "<div" + block.html[2:], "", *content, "", ind + "</div>", ""]
    return [ind + block.html, "", *content, "", ind + closing, ""]


def _fit(new: list[str], span: int) -> list[str]:
    """Keep the line count where the new form is shorter (pad with empty lines)."""
    if len(new) < span:
        return new + [""] * (span - len(new))
    return new


def _report_unknown(page: Page, found: list[Block], base: int) -> None:
    unknown: dict[str, list[int]] = {}  #: name -> [first line, uses, uses with content]
    for block in found:
        if block.name[:1].isupper() and block.name not in KNOWN:
            entry = unknown.setdefault(block.name, [block.start + 1 + base, 0, 0])
            entry[1] += 1
            if block.inline.strip() or block.children or block.end > block.open_end:
                entry[2] += 1
    if unknown:
        page.extra["unknown_components"] = unknown


#: A fence's language: its first word, or an attribute list's first class (``{.textual …}``).
FENCE_LANG_RE = lazy_re(r"\{?\s*\.?([\w+-]+)")


def _report_custom_fences(page: Page, section: Section, ctx: BuildContext, body: str,
                          names: list[str]) -> None:
    """Fences that the upstream's site draws with its own code (superfences'
    ``custom_fences``), which is not run here: the reader gets the fence's text as code,
    often nothing (``{.textual path="app.py"}``). Said once per name and page."""
    if not any(name in body for name in names):
        return
    seen: set[str] = set()
    for fence in fences(body.split("\n")):
        m = FENCE_LANG_RE.match(fence.info)
        name = m.group(1) if m else ""
        if name in names and name not in seen:
            seen.add(name)
            ctx.report(section, page.path, fence.start + 1 + page.body_line, "fence",
                       f"a `{name}` fence, which the upstream's site draws with its own code "
                       "(superfences' custom_fences): that code is not run here, so the fence "
                       "is shown as code")


def prepare_page(page: Page, ctx: BuildContext) -> None:
    body = page.content[page.body_start:]
    native = ctx.engine.reads_mdx  # Mintlify: only what the link rules need (every page MDX)
    # Each pattern only where the text it needs is there at all: a multi-line search tries
    # every position of the page, and most pages have none of these.
    has_components = "<" in body and HAS_COMPONENT_RE.search(body) is not None
    mdx_syntax = ("/*" in body or "<div" in body or "\nimport" in body or "\nexport" in body
                  or "<Snippet" in body or body.startswith(("import", "export"))) and \
        HAS_MDX_RE.search(body) is not None
    if not has_components and (mdx_syntax or native or page.path.endswith(".mdx")) and \
            "<" in body:
        # an MDX page's HTML elements: their content is Markdown (FLOW_HTML); a tag alone
        # on its line with text under it (open_html_lines)
        has_components = (NATIVE_FLOW_HTML_RE if native else FLOW_HTML_RE).search(body) \
            is not None or OPEN_HTML_RE.search(body) is not None
    has_mermaid = "mermaid" in body and MERMAID_RE.search(body) is not None
    front_title = page.title if "title" in page.meta else None
    needs_title = bool(front_title) or ctx.engine.needs_h1
    strip_ids = not ctx.engine.heading_attrs and "{" in body and \
        ("{#" in body or HEADING_IDS_RE.search(body) is not None)
    features = ctx.engine.features
    block_marks = "!!!" in body or "???" in body or "===" in body
    if ctx.engine.mkdocs_blocks:
        # for the link scan, which reads the content of MkDocs blocks as this engine does
        page.extra[BLOCK_MARKS] = [len(body), block_marks]
    dialect = (block_marks or ":::" in body) and \
        DIALECT_RE.search(body) is not None and not native and (
        "admonition" not in features or "mkdocstrings" not in features)
    mdx_syntax = mdx_syntax and not native
    across = native and "<" in body and ACROSS_LINES_RE.search(body) is not None
    html_markdown = native and "<" in body and ("](" in body or "][" in body) and \
        HTML_MARKDOWN_RE.search(body) is not None
    section = ctx.sections[page.source]
    upstream = section.upstream
    # a page written as MDX: not a page of an MkDocs site (whose admonitions may become
    # components below, and whose HTML stays HTML)
    mdx_source = native or page.path.endswith(".mdx") or (
        (mdx_syntax or has_components or (upstream is not None and upstream.mintlify))
        and not (upstream is not None and upstream.mkdocs))
    # HTML in an MDX page (a Mintlify site's .md pages are MDX too), for an engine that reads
    # it as HTML: the Markdown in its text, and elements closed with "/>"
    mdx_page = not native and "<" in body and mdx_source
    markdown_html = mdx_page and HTML_TEXT_RE.search(body) is not None
    self_closed = mdx_page and "/>" in body and SELF_CLOSED_RE.search(body) is not None
    if upstream is not None and upstream.custom_fences and ("```" in body or "~~~" in body):
        _report_custom_fences(page, section, ctx, body, upstream.custom_fences)
    if not (has_components or has_mermaid or needs_title or strip_ids or mdx_syntax or dialect
            or across or html_markdown or markdown_html or self_closed):
        return
    mdx = has_components or mdx_syntax or html_markdown or markdown_html or self_closed or \
        page.path.endswith(".mdx") or (dialect and "admonition" not in features)
    # MDX pages find their fences and title heading line by line below (MDX has no indented
    # code and no HTML blocks); the others take them from a block-level parse, or, when only
    # the title heading is in question, from the page's scan (which the links step needs
    # anyway, and which stays valid when a heading is inserted: see `with_heading`).
    scanned: ScanResult | None = None
    offset = page.body_line - page.line_delta
    if mdx:
        structure = Blocks()
    elif has_components or has_mermaid or strip_ids or dialect:
        structure = _structure(ctx, body)
    elif needs_title and H1_CANDIDATE_RE.search(body):
        scanned = ctx.scan_text(body, offset)
        structure = Blocks(has_h1=any(h.level == 1 for h in scanned.headings))
    else:
        structure = Blocks()
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    changed = False
    code = structure.code
    found_fences = None  # the fences of `lines` as they are now (MDX pages), once found
    if mdx:
        # MDX has no indented code and no HTML blocks: only fences are code
        found_fences = fences(lines, commonmark=not mdx_source)
        code = code_lines(found_fences)
        if mdx_syntax:
            before = list(lines)
            imports = strip_module_syntax(lines, code)
            changed = lines != before
            if changed:
                found_fences = None
            from .snippets import inline_snippets

            if inline_snippets(lines, code, imports, page, section, ctx):
                changed = True
                found_fences = fences(lines, commonmark=not mdx_source)
                code = code_lines(found_fences)
                has_components = HAS_COMPONENT_RE.search(newline.join(lines)) is not None
        if not native and ('{"' in body or "{'" in body or "{ " in body) and \
                string_expressions(lines, code):
            changed = True

    if dialect:
        # MkDocs' admonitions and tabs, for an engine that does not read them: components
        from .dialect import to_components  # only MkDocs upstreams use it

        converted, notes = to_components(lines, code, blocks="admonition" not in features,
                                         autodoc="mkdocstrings" not in features)
        found_fences = None  # found again below, from the lines as converted
        for line, message in notes:
            ctx.report(section, page.path, line + 1 + page.body_line, "dialect", message)
        if converted:
            changed = True
            has_components = has_components or "admonition" not in features
            if mdx:
                found_fences = fences(lines, commonmark=not mdx_source)
                code = code_lines(found_fences)
    if not native and "md_in_html" not in features and "markdown" in body and \
            MARKDOWN_ATTR_RE.search(body) is not None:
        # <figure markdown="span">: an engine without md_in_html would show its content,
        # Markdown, as text inside raw HTML; without the element's tags it is read
        from .dialect import markdown_in_html_view

        unwrapped = markdown_in_html_view(newline.join(lines)).split(newline)
        if unwrapped != lines:
            lines[:] = [line if line.strip() else "" for line in unwrapped]
            changed = True
    if not native and not mdx_source and "emoji" not in features and ":" in body and \
            upstream is not None and "pymdownx.emoji" in upstream.extensions:
        # :smile: and Material's :material-check:{ .lg }: an engine without pymdownx.emoji
        # would show the shortcodes as text
        in_code = code or code_lines(fences(lines, commonmark=not mdx_source))
        for k, text in enumerate(lines):
            if ":" in text and k not in in_code and SHORTCODE_RE.search(text):
                drawn = outside_code_spans(text, lambda part: SHORTCODE_RE.sub(_emoji_text, part))
                if drawn != text:
                    lines[k] = drawn
                    changed = True
    if not native and not mdx_source and "attr_list" not in features and "){" in body:
        # ``![chart](x.png){ width="300" }``: attr_list's, which the engine does not read,
        # would show as text after the image or link
        in_code = code or code_lines(fences(lines, commonmark=not mdx_source))
        for k, text in enumerate(lines):
            if "){" in text and k not in in_code:
                # ``[](){#old-name}``: an empty link that is only an anchor (pydantic keeps its
                # old heading ids so), which left as ``[]()`` is a link to nothing
                kept = INLINE_ATTRS_RE.sub(")", EMPTY_ANCHOR_RE.sub(r'<a id="\1"></a>', text))
                if kept != text:
                    lines[k] = kept
                    changed = True
    if not native and "abbr" not in features and "*[" in body and _abbreviations(upstream):
        # ``*[CLI]: Command Line Interface``: abbr's definitions, which the engine does not
        # read, would show as text; the terms stay, without their tooltip
        in_code = code or code_lines(fences(lines, commonmark=not mdx_source))
        for k, text in enumerate(lines):
            if "*[" in text and k not in in_code and ABBR_RE.match(text):
                lines[k] = ""
                changed = True
    fence_infos = structure.fences
    has_h1 = structure.has_h1
    if mdx:
        if found_fences is None:
            found_fences = fences(lines, commonmark=not mdx_source)
        fence_infos = [(f.start, f.info) for f in found_fences]
        has_h1 = any(_is_h1(line) for i, line in enumerate(lines) if i not in code)
        last = found_fences[-1] if found_fences else None
        if last is not None and not last.closed and not native:
            # CommonMark (and MDX) close a fence at the end of the page; Python-Markdown would
            # show the fence markers as text
            lines.append(last.indent + last.marker)
            changed = True
    for line_no, info in fence_infos:
        if info.split()[:1] == ["mermaid"] and line_no < len(lines) and \
                info.strip() in lines[line_no]:
            new = ctx.engine.fence_info(info)
            if new != info:
                lines[line_no] = lines[line_no].replace(info.strip(), new, 1)
                changed = True

    if strip_ids:
        removed: dict[int, str] = {}
        for i, text in enumerate(lines):
            m = HEADING_ATTR_RE.match(text) if i not in code else None
            if m:
                lines[i] = m.group(1)
                removed[i] = m.group(2)
                changed = True
        # the line a scan reports for body line i (a title heading inserted below shifts the
        # body and line_delta alike, so this stays right)
        base = page.body_line - page.line_delta + 1
        page.extra["heading_ids"] = {base + i: v for i, v in removed.items()}

    found: list[Block] = []
    if has_components:
        blocks, problems = find_blocks(
            lines, code, frozenset() if not mdx_source else
            NATIVE_FLOW_HTML if native else FLOW_HTML)
        for line, message in problems:
            ctx.report(section, page.path, line + 1 + page.body_line, "component", message)
        if blocks:
            normalize_indent(lines, blocks)
            name_fields(blocks)
            neutralize(lines, blocks, found, markers=not native)
            _report_unknown(page, found, page.body_line)
            changed = True
        if not native and _tags_across_lines(lines, code):
            changed = True
        if not native and _inline_components(lines, code):
            changed = True
    joined = join_tags(lines, code) if across and mdx else []
    if mdx and "<" in body:
        alone = open_html_lines(lines, code, {first for first, _ in joined})
        if alone:
            changed = True
            if native:  # written back as they were, with their links (as joined tags are)
                joined += [(i, i) for i in alone]
    if joined:
        page.extra[JOINED_TAGS] = joined
        changed = True
    if html_markdown:
        opened = html_markdown_lines(lines, code, {k for first, last in joined
                                                   for k in range(first, last + 1)})
        if opened:
            page.extra[HTML_MARKDOWN_LINES] = opened
            changed = True
    if (markdown_html or self_closed) and html_text(lines, code_lines(fences(lines))):
        changed = True
    if self_closed and close_elements(lines, code_lines(fences(lines))):
        changed = True

    title = (front_title or _mkdocs_title(page, section, ctx)) if needs_title and not has_h1 \
        else None
    if title:
        # Mintlify shows the front matter title as the page heading, and MkDocs' themes the
        # title it gives a page without one: so do we.
        heading = "# " + _heading_text(title)
        if scanned is not None and not changed and ctx.scans is not None:
            from .markdown import with_heading

            derived = scanned
            ctx.scans.remember(heading + newline + body, offset - 1,
                               lambda: with_heading(heading, newline, derived, offset))
        lines.insert(0, heading)
        page.line_delta += 1
        # scan lines are body_line - line_delta + 1-based index: the new line is index 0
        page.extra.setdefault("synthetic_headings", []).append(
            page.body_line + 1 - page.line_delta)
        changed = True

    if ctx.engine.needs_h1 and _close_heading_gaps(lines):
        changed = True

    if found:
        # rendered after the links (mdp_transform_page), found again by their markers
        page.extra["components"] = found
    if changed:
        head = page.content[:page.body_start]
        if head and not head.endswith("\n") and any(line.strip() for line in lines):
            head += newline  # a page of front matter only: the body starts on its own line
            page.body_start += len(newline)
        page.content = head + newline.join(lines)


def transform_page(page: Page, ctx: BuildContext) -> None:
    """Write the components in the engine's syntax, once the links inside them are rewritten
    (the built-in links plugin runs ``tryfirst``)."""
    meta: list[Block] | None = page.extra.pop("components", None)
    if ctx.engine.reads_mdx:
        return  # the engine writes its own components and fences
    body = page.content[page.body_start:]
    has_meta = FENCE_META_RE.search(body) is not None or "[!code " in body or (
        ctx.engine.checks_languages and ("```" in body or "~~~" in body))
    if not meta and not has_meta:
        return
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    if meta:
        render(lines, _markers(lines, meta), page, ctx)
    if has_meta:
        write_fences(lines, ctx)
    page.content = page.content[:page.body_start] + newline.join(lines)


#: Shiki's notation in a code line, as Mintlify reads it: a comment holding only
#: ``[!code ++]`` (``--``, ``highlight``, ``focus``, ``error``, ``warning``; ``:3`` for three
#: lines from there), in the comment syntax of the language.
CODE_NOTATION_RE = lazy_re(r"(?://|#|--|;|%|/\*|<!--|\{/\*)[ \t]*\[!code (?:\+\+|--|highlight|hl|"
                           r"focus|error|warning|word:\S+)(?::(\d{1,4}))?\]\s*(?:\*/\}?|-->)?\s*$")


def code_notation(lines: list[str], fence: Fence) -> list[int]:
    """Take Shiki's notation comments (:data:`CODE_NOTATION_RE`) out of the code of
    ``fence``; the lines they mark (1-based in the block), which the engines highlight:
    Mintlify colours added and removed lines, focuses or highlights the others."""
    marked: list[int] = []
    last = fence.end if fence.closed else fence.end + 1
    for k in range(fence.start + 1, last):
        line = lines[k]
        if "[!code " not in line:
            continue
        m = CODE_NOTATION_RE.search(line)
        if m is None:
            continue
        lines[k] = line[:m.start()].rstrip()
        first = k - fence.start
        marked.extend(range(first, min(first + int(m.group(1) or 1), last - fence.start)))
    return sorted(set(marked))


def write_fences(lines: list[str], ctx: BuildContext) -> None:
    """Fences whose info string carries more than a language (Mintlify's title and options:
    ```` ```bash Terminal ````, ```` ```python theme={null} ````), in the engine's form.

    Python-Markdown reads no fence at all from such a line, and MyST shows no title."""
    for fence in reversed(fences(lines, directives=False)):
        info = fence.info
        if not info or fence.indent.strip():
            continue
        attr_list = info.startswith("{")
        after = LANG_ATTRS_FENCE_RE.match(info.strip()) if not attr_list and "{" in info \
            else None
        if after is not None and HIGHLIGHT_WORD_RE.fullmatch("{" + after.group(2) + "}"):
            after = None  # Mintlify's highlighted lines (```js {1,3-5})
        if attr_list or after is not None:
            # pymdownx.superfences' attribute list (``{ .yaml .no-copy hl_lines="2" }``, or
            # after the language: ``python {lint="skip"}``): its first class is the
            # language; an engine without superfences reads no other words there (MyST takes
            # "{" for the language), so it gets them as options
            header = after or ATTR_FENCE_RE.match(info.strip())
            if header is None or "superfences" in ctx.engine.features:
                continue  # ```{directive} (MyST's own), or an engine that reads the list
            words = [w for w in header.group(2).split() if not w.startswith((".", "#"))]
            info = " ".join([header.group(1), *words])
            attr_list = True
        meta = fence_meta(info)
        if attr_list and "title=" not in info:
            meta.title = ""  # a bare word of an attribute list is no title
        bare = not meta.lang  # options and no language (superfences': ``` title="A b")
        if bare:
            if not ctx.engine.checks_languages:
                continue  # read as it is
            meta.lang = "text"  # the engine would take the first option for the language
        marked = code_notation(lines, fence)
        if marked:
            meta.options["highlight"] = ",".join(
                [*(f"{a}-{b}" for a, b in meta.highlighted()), *map(str, marked)])
        known = ctx.engine.known_language(meta.lang)
        if known and meta.lang.lower() in ctx.engine.strict_languages:
            end = fence.end if fence.closed else fence.end + 1
            known = ctx.engine.lexes(meta.lang, "\n".join(lines[fence.start + 1:end]))
        if not known:
            meta.lang = "text"  # a language (mdx) or code the highlighter cannot read
        elif len(info.split()) < 2 and not (attr_list or marked or bare):
            continue
        first = fence.start + 1
        if ctx.engine.code_options_in_body and first < len(lines) and \
                lines[first].lstrip().startswith((":", "---")):
            meta.title, meta.options = "", {}  # MyST would read that code line as an option
        # the highlighted lines within the block (Sphinx warns about a line past its end)
        count = fence.end - fence.start - (1 if fence.closed else 0)
        ranges = meta.highlighted(count)
        meta.options.pop("hl_lines", None)
        meta.options["highlight"] = ",".join(f"{a}-{b}" for a, b in ranges)
        lines[fence.start:fence.start + 1] = ctx.engine.code_fence(fence.indent, fence.marker,
                                                                   meta)
