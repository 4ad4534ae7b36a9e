"""MkDocs' own page syntax: for hosts whose engine does not read it (Sphinx), and as the
link scan must read it on hosts that do (MkDocs).

An MkDocs upstream writes admonitions (``!!! note "Title"``), collapsible blocks
(``??? tip``, ``???+ tip``) and content tabs (``=== "Tab"``) with their content indented four
spaces. :func:`to_components` rewrites them, in place and line for line, as the Mintlify
components they correspond to (``<Note title="Title">`` … ``</Note>``), so the components
plugin renders them in the engine's syntax like any other: the opening line becomes the
opening tag, the closing tag takes the blank line after the content (or the end of its last
line). mkdocstrings/mkautodoc ``::: package.module`` lines are reported and replaced by a
sentence that says what is missing.
"""

from __future__ import annotations

import bisect
import html
import re

from .mdx import FENCE_RE

ADMONITION_RE = re.compile(r'^(?P<indent>[ \t]*)(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)'
                           r'(?:[ \t]+(?P<classes>[\w -]*?))?(?:[ \t]*"(?P<title>[^"]*)")?[ \t]*$')
#: A content tab (``===! "Tab"`` starts a new set of tabs, ``===+`` is the one shown first).
TAB_RE = re.compile(r'^(?P<indent>[ \t]*)===[!+]{0,2}[ \t]+"(?P<title>[^"]*)"[ \t]*$')
AUTODOC_RE = re.compile(r"^(?P<indent>[ \t]*):::[ \t]+(?P<name>[\w.:-]+)[ \t]*$")
#: A list item as Python-Markdown reads one (its ``olist`` and ``ulist`` processors).
LIST_ITEM_RE = re.compile(r"[ \t]*(?:[*+-]|\d+\.)[ \t]+\S")
#: A thematic break, which Python-Markdown reads before a list item (``* * *``).
RULE_RE = re.compile(r"[ ]{0,3}([*_-])(?:[ ]*\1){2,}[ ]*$")
#: MkDocs admonition types and the Mintlify callout each one is.
KINDS = {"note": "Note", "abstract": "Info", "summary": "Info", "tldr": "Info", "info": "Info",
         "todo": "Info", "tip": "Tip", "hint": "Tip", "important": "Tip", "success": "Check",
         "check": "Check", "done": "Check", "question": "Info", "help": "Info", "faq": "Info",
         "warning": "Warning", "caution": "Caution", "attention": "Warning",
         "failure": "Danger", "fail": "Danger", "missing": "Danger", "danger": "Danger",
         "error": "Danger", "bug": "Danger", "example": "Note", "quote": "Note",
         "cite": "Note"}


def _width(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _body_end(lines: list[str], start: int, width: int, code: set[int]) -> int:
    """Index of the last line of the indented content that follows line ``start``: it ends
    before the first line of text indented less than the content, and before a fenced code
    block that opens there (Python-Markdown's admonition and pymdownx.tabbed end the block
    at its opening fence; the lines of code within the block are read where they are)."""
    last = start
    j = start + 1
    while j < len(lines):
        line = lines[j]
        if line.strip() and _width(line) < width + 4 and (
                j not in code or (j - 1 not in code and FENCE_RE.match(line))):
            break
        if line.strip():
            last = j
        j += 1
    return last


def _close(lines: list[str], last: int, indent: str, tag: str) -> int:
    """Put ``tag`` on the blank line after ``last``, or at the end of line ``last``; returns
    the line it went on."""
    after = last + 1
    if after < len(lines) and not lines[after].strip():
        lines[after] = indent + tag
        return after
    if after < len(lines) and re.match(r"^[ \t]*</[A-Z]", lines[after]):
        # an outer block closes there already: the inner one closes first
        lines[after] = indent + tag + lines[after].lstrip()
        return after
    lines[last] = lines[last].rstrip() + tag
    return last


def to_components(lines: list[str], code: set[int], *, blocks: bool = True,
                  autodoc: bool = True) -> tuple[bool, list[tuple[int, str]]]:
    """Rewrite MkDocs admonitions, collapsibles and tabs as components (``blocks``); report
    and replace ``:::`` autodoc lines (``autodoc``).

    Returns (changed, problems as (0-based line, message)).
    """
    changed = False
    problems: list[tuple[int, str]] = []
    i = 0
    last_close: dict[int, int] = {}  #: width of a tab group -> line of its </Tabs>
    while i < len(lines):
        if i in code:
            i += 1
            continue
        line = lines[i]
        m = ADMONITION_RE.match(line) if blocks else None
        if m:
            kind = m.group("kind").lower()
            title = m.group("title")
            if m.group("marker").startswith("???"):
                name = "Accordion"
                title = title if title is not None else kind.capitalize()
            else:
                name = KINDS.get(kind, "Note")
                if title is None and name.lower() != kind:
                    title = kind.capitalize()  # Python-Markdown's title: "!!! important"
            indent = m.group("indent")
            last = _body_end(lines, i, _width(line), code)
            attrs = f' title="{_attr(title)}"' if title else ""
            if m.group("marker") == "???+":
                attrs += " defaultOpen"  # open until the reader closes it
            lines[i] = f"{indent}<{name}{attrs}>"
            if last == i:  # no content
                lines[i] += f"</{name}>"
            else:
                _close(lines, last, indent, f"</{name}>")
            changed = True
            i += 1
            continue
        m = TAB_RE.match(line) if blocks else None
        if m:
            indent = m.group("indent")
            width = _width(line)
            tab = f'{indent}<Tab title="{_attr(m.group("title"))}">'
            prev = last_close.get(width)
            if prev is not None and not line.lstrip().startswith("===!") and \
                    all(not lines[k].strip() for k in range(prev + 1, i)):
                lines[prev] = lines[prev].replace("</Tabs>", "", 1)  # the group goes on
                lines[i] = tab
            elif i > 0 and not lines[i - 1].strip():
                lines[i - 1] = f"{indent}<Tabs>"
                lines[i] = tab
            else:
                lines[i] = f"{indent}<Tabs>\n{tab}"  # split below: one line more
            last = _body_end(lines, i, width, code)
            last_close[width] = _close(lines, last, indent, "</Tab></Tabs>")
            changed = True
            i += 1
            continue
        m = AUTODOC_RE.match(line) if autodoc else None
        if m:
            name = m.group("name")
            problems.append((i, f"'::: {name}' asks mkdocstrings for an API reference, which "
                                "this engine does not generate; a note stands in its place"))
            lines[i] = (f"{m.group('indent')}*The API reference of `{name}` is generated by "
                        "the upstream site and is not included here.*")
            last = _body_end(lines, i, _width(line), code)
            for k in range(i + 1, last + 1):  # the directive's indented options
                lines[k] = ""
            changed = True
            i = last + 1
            continue
        i += 1
    # a tab group opened without a blank line before it holds a newline: split it
    if any("\n" in line for line in lines):
        lines[:] = "\n".join(lines).split("\n")
    return changed, problems


def _content_end(lines: list[str], start: int, width: int, fences: dict[int, int]) -> int:
    """Index of the last line of the content of the block opened at line ``start`` (its
    opening line indented ``width`` columns): the lines after it indented ``width + 4``
    columns or more, blank ones between them, and whole the fenced code that opens there."""
    last = start
    j = start + 1
    while j < len(lines):
        line = lines[j]
        if line.strip():
            if _width(line) < width + 4:
                break
            last = fences.get(j, j)
            j = last
        j += 1
    return last


def _item_end(lines: list[str], start: int, width: int, fences: dict[int, int]) -> int:
    """Index of the last line of the list item opened at line ``start`` (its marker indented
    ``width`` columns), as Python-Markdown reads it: the lines that follow it without a blank
    line between (its paragraph, lazily continued), and after a blank line those indented
    ``width + 4`` columns or more, fenced code whole."""
    last = start
    blank = False
    j = start + 1
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            blank = True
        else:
            if blank and _width(line) < width + 4:
                break
            blank = False
            last = fences.get(j, j)
            j = last
        j += 1
    return last


def _strip_columns(line: str, columns: int) -> int:
    """How many leading characters of ``line`` make up at most ``columns`` columns of
    indentation (a tab goes to the next multiple of four)."""
    col = 0
    for n, char in enumerate(line):
        if char == " ":
            col += 1
        elif char == "\t":
            col = col // 4 * 4 + 4
        else:
            return n
        if col > columns:
            return n
        if col == columns:
            return n + 1
    return len(line)


class MarginView:
    """A page with the content of its MkDocs blocks (admonitions, collapsibles, tabs) moved
    to the margin of their opening line, as Python-Markdown reads that content: four columns
    less per block it is in. Lines keep their number; :meth:`offset` maps an offset in
    :attr:`text` back to the page."""

    __slots__ = ("_cumulative", "_starts", "text")

    def __init__(self, text: str, starts: list[int], cumulative: list[int]) -> None:
        self.text = text
        self._starts = starts  #: offset in ``text`` of each line that lost characters
        self._cumulative = cumulative  #: characters lost up to the end of that line's indent

    def offset(self, view_offset: int) -> int:
        i = bisect.bisect_right(self._starts, view_offset) - 1
        return view_offset + (self._cumulative[i] if i >= 0 else 0)


def margin_view(text: str, markers: frozenset[str] | set[str]) -> MarginView | None:
    """The :class:`MarginView` of ``text`` for the block ``markers`` the host's engine reads
    (``!!!``, ``???``, ``===``: ``Engine.mkdocs_blocks``), or None when no content moves.

    CommonMark reads content indented four spaces after a blank line as indented code, so a
    link scan of the page as written would miss the links of most admonitions (MkDocs' style
    puts a blank line after the opening line, or between paragraphs); Python-Markdown reads
    that content as Markdown. The view is what the scan reads instead. A block opens at a
    line indented less than four columns past the content it is in (a block's, or a list
    item's: four columns past its marker), outside fenced code. List items do not move: only
    a block's content does, which is what CommonMark reads as code in them too."""
    if not any(marker in text for marker in markers):
        return None
    from .mdx import fences as find_fences  # fenced code at any indentation, as here

    lines = text.split("\n")
    fences = {fence.start: fence.end for fence in find_fences(lines)}
    depth = [0] * len(lines)
    # (index of the last content line, content width) of the blocks open at line i
    stack: list[tuple[int, int]] = []
    items: list[tuple[int, int]] = []  # the same, of the list items line i is in
    skip_to = -1  # the closing line of the fenced code being passed
    for i, line in enumerate(lines):
        while stack and stack[-1][0] < i:
            stack.pop()
        while items and items[-1][0] < i:
            items.pop()
        depth[i] = len(stack)
        if i <= skip_to:
            continue
        if i in fences:
            skip_to = fences[i]
            continue
        base = max(stack[-1][1] if stack else 0, items[-1][1] if items else 0)
        m = ADMONITION_RE.match(line) or TAB_RE.match(line)
        if m is None or line.lstrip()[:3] not in markers:
            if LIST_ITEM_RE.match(line) and (width := _width(line)) - base < 4 and \
                    not RULE_RE.match(line.lstrip()):
                items.append((_item_end(lines, i, width, fences), width + 4))
            continue
        width = _width(line)
        if width - base >= 4:
            continue  # indented code where it stands
        last = _content_end(lines, i, width, fences)
        if last > i:
            stack.append((last, width + 4))
    if not any(depth):
        return None
    out: list[str] = []
    starts: list[int] = []
    cumulative: list[int] = []
    pos = 0
    lost = 0
    for line, levels in zip(lines, depth, strict=True):
        cut = _strip_columns(line, 4 * levels) if levels else 0
        if cut:
            lost += cut
            starts.append(pos)
            cumulative.append(lost)
            line = line[cut:]
        out.append(line)
        pos += len(line) + 1
    return MarginView("\n".join(out), starts, cumulative)


#: An HTML element whose content Python-Markdown's md_in_html reads as Markdown, opened alone
#: on its line (``<figure markdown="span">``, ``<div class="grid" markdown>``): its name.
MARKDOWN_TAG_RE = re.compile(r"^[ \t]{0,3}<([A-Za-z][\w-]*)\b[^<>]*?[ \t]markdown(?:=[\"']?\w*"
                             r"[\"']?)?[^<>]*>[ \t]*$")


def markdown_in_html_view(text: str) -> str:
    """``text`` with the tag lines of the elements md_in_html reads as Markdown
    (:data:`MARKDOWN_TAG_RE`, and the line of their closing tag) blanked, each character a
    space: what the link scan reads of a page written for md_in_html, where CommonMark would
    read the element and its content as one HTML block and find no Markdown link in it (an
    image in a ``<figure markdown>``). Offsets stay those of ``text``."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        # a tag line ends with ">" (and is a line of a tag, not of a page's worth of text)
        m = MARKDOWN_TAG_RE.match(line) if line.rstrip().endswith(">") and \
            len(line) <= 2000 else None
        if m is None:
            i += 1
            continue
        name = m.group(1)
        opening = re.compile(rf"<{re.escape(name)}\b", re.I)
        closing = re.compile(rf"^[ \t]*</{re.escape(name)}>[ \t]*$", re.I)
        depth = 1
        for j in range(i + 1, len(lines)):
            if closing.match(lines[j]):
                depth -= 1
                if depth == 0:
                    lines[i] = " " * len(lines[i])
                    lines[j] = " " * len(lines[j])
                    break
            elif opening.search(lines[j]) and f"</{name}" not in lines[j]:
                depth += 1
        i += 1
    return "\n".join(lines)
