"""Pages written for CommonMark (Mintlify, GitHub), written so that Python-Markdown reads their
blocks as CommonMark does: :func:`commonmark_blocks`.

Python-Markdown needs a blank line before a list and around a fenced block (else they are the
text of the paragraph next to them), nests by steps of four columns (CommonMark nests an item
under its parent's text, two or three columns in), reads an item right after a block in the
item above as that item's text, makes one list of two that follow each other, and reads the
blocks the engine writes for components (``!!! note``, ``??? note``, ``=== "Tab"``) only at a
multiple of four columns, with their content four columns further in. CommonMark gives one to
three columns of indentation no meaning, and Mintlify authors indent JSX children as they like.

The content of each such block is a page of its own (the component's content, as its author
wrote it for CommonMark): it is taken out, written the same way, and put back four columns
under its opening line, wherever that line ends up.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.transform.mdx import CODE_SPAN_RE, code_lines, fences, outside_code_spans

#: An opening line of a block the engine writes for a component: an admonition, a dropdown, a
#: content tab.
OPENER_RE = re.compile(r"( *)(?:!!!|\?\?\?\+?|===[+!]{0,2}) ")
FENCE_RE = re.compile(r"( *)(`{3,}|~{3,})(.*)$")
_PARSER: Any = None

#: (columns of indentation a line has, columns it gets), per line of a level
Moves = dict[int, tuple[int, int]]


#: ASCII punctuation that CommonMark unescapes and Python-Markdown does not (its own escapes,
#: and ``|`` of its tables, it reads), and what stands for each: the character where it means
#: nothing to Python-Markdown or an extension, else its character reference (in which no
#: extension reads syntax: ``\$5`` is no formula, ``\~`` no strikethrough).
ESCAPES = {**{c: c for c in "%@,/;?"}, **{c: f"&#{ord(c)};" for c in "\"$&'<:=^~"}}
#: A "$" that no backslash escapes.
UNESCAPED_DOLLAR_RE = re.compile(r"(?<!\\)\$")
#: A backslash and the character after it (``\\`` is one pair: an escaped backslash).
ESCAPE_RE = re.compile(r"\\(.)")


def commonmark_escapes(content: str) -> str:
    r"""``content`` with the backslash escapes CommonMark reads and Python-Markdown does not
    (``\$``, ``\<``, ``\@``…: MDX needs ``\<`` and ``\{``) written so that Python-Markdown
    shows the character, not the backslash (:data:`ESCAPES`). Not in code (fences, code spans,
    lines indented four columns or more), HTML (a line that starts with a tag), headings
    (whose text the anchors are made from), or what may be TeX (a ``$$`` block, a line with
    two ``$``)."""
    lines = content.split("\n")
    code = code_lines(fences(lines))
    math = False  #: in a ``$$`` block (TeX: ``\,``, ``\%`` are its own)

    def unescape(m: re.Match[str]) -> str:
        return ESCAPES.get(m.group(1), m.group(0))

    def change(text: str) -> str:
        return ESCAPE_RE.sub(unescape, text) if "\\" in text else text

    for i, line in enumerate(lines):
        if i not in code and line.strip() == "$$":
            math = not math
        if "\\" not in line or i in code or math or len(UNESCAPED_DOLLAR_RE.findall(line)) > 1:
            continue  # (two "$" on a line: a formula, maybe)
        text = line.lstrip(" ")
        if len(line) - len(text) >= 4 or text.startswith(("<", "#", "\t")):
            continue
        lines[i] = outside_code_spans(line, change)
    return "\n".join(lines)


def commonmark_blocks(content: str) -> str:
    """``content``'s lists, fenced blocks and component blocks as CommonMark reads them,
    written so that Python-Markdown reads them the same (see the module). Lists in block
    quotes, and levels with tabs in a list's indentation, are left as they are."""
    return "\n".join(_shape(content.split("\n")))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _carve(lines: list[str]) -> tuple[list[str], dict[int, list[str]]]:
    """The lines of one level with the content of each component block taken out: (the
    level's lines, {index of an opening line there: the block's content, four columns less
    indented than the block}). Fenced code is left alone."""
    view: list[str] = []
    bodies: dict[int, list[str]] = {}
    fence: tuple[str, int] | None = None  # character and length of the open fence
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and \
                    not m.group(3).strip():
                fence = None
        elif m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            fence = (m.group(2)[0], len(m.group(2)))
        elif (opener := OPENER_RE.match(line)) is not None:
            inner = len(opener.group(1)) + 4
            j = i
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) >= inner):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1  # blank lines after the block are the level's
            bodies[len(view)] = [x[inner:] if x.strip() else "" for x in lines[i:j]]
            i = j
        view.append(line)
    return view, bodies


def _shape(lines: list[str]) -> list[str]:
    view, bodies = _carve(lines)
    edits = _edits("\n".join(view), view)
    moves, blank_before, apart, after, tables = edits if edits is not None else (
        {}, set(), set(), {}, set())
    out: list[str] = []
    for k, text in enumerate(view):
        if k - 1 in after:
            out += after[k - 1]
        if k in tables and "\\|" in text:
            # GFM's escaped pipe in a table cell, in code too; Python-Markdown's tables read a
            # pipe in code as code already, and would show the backslash
            text = CODE_SPAN_RE.sub(lambda m: m.group(0).replace("\\|", "|"), text)
        if k in blank_before:
            out.append("")
        elif k in apart:
            out += ["<!-- -->", ""]
        move = moves.get(k)
        if move is not None and move[0] != move[1]:
            text = " " * move[1] + text[move[0]:]
        body = bodies.get(k)
        if body is None:
            out.append(text)
            continue
        at = _indent(text)
        at -= at % 4  # Python-Markdown reads these blocks at a multiple of four columns only
        out.append(" " * at + text.lstrip(" "))
        pad = " " * (at + 4)
        out.extend(pad + line if line.strip() else "" for line in _shape(body))
    out += after.get(len(view) - 1, [])
    return out


def _edits(content: str, lines: list[str]
           ) -> tuple[Moves, set[int], set[int], dict[int, list[str]], set[int]] | None:
    """What one level needs: (moves, lines a blank line goes before, lines a list starts on
    that an HTML comment keeps from the list above, lines to add after a line, lines of
    tables); None when a list's indentation has tabs."""
    global _PARSER
    if _PARSER is None:
        from markdown_it import MarkdownIt  # only for pages that may need it

        _PARSER = MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")
    moves: Moves = {}
    blank_before: set[int] = set()
    apart: set[int] = set()
    appended: dict[int, list[str]] = {}
    tables: set[int] = set()
    block_ends: set[int] = set()  # the line after each block in an item that is no paragraph
    siblings: dict[int, tuple[int, int] | None] = {}  # per level: lines of the item above
    #: the items open: (end, content column it has, content column it gets, start)
    items: list[tuple[int, int, int, int]] = []
    last: dict[int, tuple[str, int, int]] = {}  # per level: the block above (type, start, end)
    tokens = _PARSER.parse(content)
    # where a blank line will go around a fence (_fence): it makes an item loose
    spaced = {k for token in tokens if token.type == "fence" and token.map is not None
              for k in token.map if 0 < k < len(lines) and lines[k - 1].strip() and
              lines[k].strip()}
    quotes = 0
    for token in tokens:
        if token.type in ("blockquote_open", "blockquote_close"):
            quotes += 1 if token.nesting > 0 else -1
        if quotes or token.map is None or token.type == "inline":
            continue
        start, end = token.map
        if token.type == "table_open":
            tables.update(range(start, end))
        while items and items[-1][0] <= start:
            items.pop()
        above = last.get(token.level)
        last[token.level] = (token.type, start, end)
        if token.type in ("bullet_list_open", "ordered_list_open"):
            siblings[token.level + 1] = None  # its first item comes next
            if above is not None:
                kind, above_start, above_end = above
                if kind == "paragraph_open" and above_end == start and start > 0 and (
                        not items or above_start != items[-1][3] or
                        _loose(lines, items[-1], spaced)):
                    # a list right under a paragraph (not an item's first one, which
                    # Python-Markdown reads with its nested list, but in an item with blank
                    # lines, where it puts the nested list first when the item is inside a
                    # block: an admonition, a tab)
                    blank_before.add(start)
                elif kind.endswith("_list_open") and not any(
                        line.strip() for line in lines[above_end:start]):
                    apart.add(start)
        elif token.type == "fence":
            _fence(lines, start, end, token.markup, items, moves, blank_before, appended)
            if items:
                block_ends.add(end)
        elif token.type in ("code_block", "html_block") and items:
            block_ends.add(end)  # an item right after it would be read as its item's text
        elif token.type == "list_item_open":
            previous = siblings.get(token.level)
            siblings[token.level] = (start, end)
            if lines[start - 1].strip() and (start in block_ends or (previous is not None and (
                    any(not line.strip() for line in lines[previous[0]:previous[1]]) or
                    any(k in blank_before for k in range(previous[0] + 1, previous[1]))))):
                # Python-Markdown reads it as the text of the item above: after a block that
                # is no paragraph, or in a list of items with blank lines in them (loose; the
                # blank lines written around a fence count)
                blank_before.add(start)
            line = lines[start]
            marker_at = _indent(line)
            if line[:marker_at + 1].strip(" ") == "\t" or "\t" in line[:marker_at]:
                return None
            marker = len(token.markup) + (len(token.info) if token.info else 0)
            after = line[marker_at + marker:]
            spaces = len(after) - len(after.lstrip(" "))
            column = marker_at + marker + (spaces if 1 <= spaces <= 4 and after.strip() else 1)
            to_marker = items[-1][2] if items else marker_at
            to_column = to_marker + 4
            moves[start] = (marker_at, to_marker)
            for k in range(start + 1, end):
                text = lines[k]
                indent = _indent(text)
                if text.strip() and indent >= column:
                    if "\t" in text[:indent + 1]:
                        return None
                    moves[k] = (column, to_column)
            items.append((end, column, to_column, start))
            last.pop(token.level + 1, None)  # the item's blocks start
    return moves, blank_before, apart, appended, tables


def _loose(lines: list[str], item: tuple[int, int, int, int], spaced: set[int]) -> bool:
    """Whether the item has blank lines between its lines (not counting those after them),
    or will have (before the lines ``spaced``)."""
    end, _column, _to_column, start = item
    while end > start and not lines[end - 1].strip():
        end -= 1
    return any(not line.strip() or k in spaced for k, line in enumerate(lines[start:end], start)
               if k > start)


def _fence(lines: list[str], start: int, end: int, marker: str,
           items: list[tuple[int, int, int, int]], moves: Moves, blank_before: set[int],
           appended: dict[int, list[str]]) -> None:
    """A fenced block (lines ``start`` to ``end``) in its own paragraph, at its container's
    margin: CommonMark ends a paragraph where a fence opens and gives the fence's indentation
    (up to three columns) no meaning but to take as much from its code lines;
    pymdownx.superfences reads a fence only after a blank line, as the text of the paragraph
    after it when there is no blank line, a closing fence only as indented as the opening one,
    and no block without its closing fence (CommonMark closes one where its list item ends).
    """
    column, to_column = (items[-1][1], items[-1][2]) if items else (0, 0)
    if start > 0 and lines[start - 1].strip() and not (items and items[-1][3] == start):
        blank_before.add(start)
    if end < len(lines) and lines[end].strip():
        blank_before.add(end)
    last = FENCE_RE.match(lines[end - 1]) if end - 1 > start else None
    closing = end - 1 if last and last.group(2)[0] == marker[0] and \
        len(last.group(2)) >= len(marker) and not last.group(3).strip() else None
    if closing is None and items and end < len(lines):
        # closed where its item ends: closed there, at its item's margin (one that runs to
        # the end of the page, an author's slip, is left to show as it did)
        appended[end - 1] = [" " * to_column + marker]
    extra = _indent(lines[start]) - column
    if not 0 < extra < 4:
        return
    for k in range(start, end):
        text = lines[k]
        indent = _indent(text)
        if not text.strip() or indent < column:
            continue
        cut = indent - column if k in (start, closing) else min(extra, indent - column)
        moves[k] = (column + cut, to_column)
