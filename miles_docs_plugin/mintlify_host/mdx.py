"""Valid MDX for every page, trusted or not: what is code (seen with the component tags out),
indented code made fenced (MDX has no indented code), and text that MDX would misread as JSX
made literal."""

from __future__ import annotations

import re
from typing import Any

from ..core.transform.mdx import CODE_SPAN_RE, outside_code_spans

_PARSER: Any = None
TAG_LINE_RE = re.compile(r"(?m)^[ \t]*<(/?)[A-Za-z][\w.:-]*(?:[ \t][^<>\n]*)?/?>[ \t]*$")
#: ``<`` that cannot start a tag: MDX stops on it (``(<20% usable)``).
STRAY_LT_RE = re.compile(r"<(?![A-Za-z/>!])")


def _jsx_depth(lines: list[str]) -> list[int]:
    """How many JSX elements are open at each line (tags alone on their lines)."""
    depth = 0
    out = []
    for line in lines:
        out.append(depth)
        m = TAG_LINE_RE.match(line)
        if m and m.group(1):
            depth = max(0, depth - 1)
        elif m and not line.rstrip().endswith("/>"):
            depth += 1
    return out


def code_structure(body: str, original: str,
                   fence_indented_code: bool) -> tuple[set[int], list[tuple[int, int]]]:
    """Lines that MDX will read as code, and the indented code blocks to write as fences.

    ``body`` is the page as the core sees it (component tags taken out, their content
    unindented), ``original`` the page as written, line for line. MDX has no indented code:
    with ``fence_indented_code`` (a ``.md`` page, written for CommonMark), an indented code
    block outside every JSX element becomes a fence (:func:`fence_indented`) and is code;
    any other indented code is text to MDX, and is not counted as code.
    """
    global _PARSER
    if _PARSER is None:
        from markdown_it import MarkdownIt

        _PARSER = MarkdownIt("commonmark", {"html": True}).disable("inline")
    code: set[int] = set()
    indented: list[tuple[int, int]] = []
    depth = _jsx_depth(original.split("\n"))
    # MDX reads a line that is only a tag as a JSX element and goes on with Markdown on the
    # next line; CommonMark would start an HTML block there and miss a fence right below it
    body = TAG_LINE_RE.sub("", body)  # (one line at a time: the line count stays)
    for token in _PARSER.parse(body):
        if not token.map:
            continue
        lines = range(token.map[0], token.map[1])
        if token.type == "fence":
            code.update(lines)
        elif token.type == "code_block" and token.level == 0 and fence_indented_code and \
                not any(depth[i] for i in lines if i < len(depth)):
            code.update(lines)
            indented.append((token.map[0], token.map[1]))
    return code, indented


def fence_indented(body: str, blocks: list[tuple[int, int]]) -> str:
    """Top-level indented code blocks written as fenced ones (MDX has no indented code)."""
    if not blocks:
        return body
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    for start, end in reversed(blocks):
        while end > start and not lines[end - 1].strip():
            end -= 1
        inner = [line[4:] if line.startswith("    ") else line.lstrip("\t ")
                 for line in lines[start:end]]
        ticks = "`" * max(3, 1 + max((len(m) for line in inner
                                      for m in re.findall(r"`+", line)), default=0))
        lines[start:end] = [ticks, *inner, ticks]
    return newline.join(lines)


VOID_RE = re.compile(r"<(area|br|col|embed|hr|img|input|source|track|wbr)\b"
                     r"((?:[^<>\"']|\"[^\"]*\"|'[^']*')*?)\s*(?<!/)>", re.IGNORECASE)


def _mdx_text(text: str) -> str:
    return STRAY_LT_RE.sub("&lt;", VOID_RE.sub(r"<\1\2 />", text))


#: Where an HTML comment ends, as a browser reads it (and an empty one, ``<!-->``).
COMMENT_END_RE = re.compile(r"--!?>")
ABRUPT_END_RE = re.compile(r"-?>")


def _without_comments(lines: list[str], code: set[int]) -> None:
    """HTML comments outside code taken out, in place (the lines stay): MDX has none, and
    stops on ``<!--`` before a tag (``<!-- note -->`` then ``<div>``). They show nothing.

    A comment never takes a line of code with it: one that would reach a line of code (or
    the end of the page) before its end is not one here, and its ``<!--`` is written as text.
    (The lines of code were found before; the sandbox relies on them.)"""
    n = 0
    at = 0
    while n < len(lines):
        line = lines[n]
        if n in code or "<!--" not in line[at:]:
            n, at = n + 1, 0
            continue
        masked = CODE_SPAN_RE.sub(lambda m: "\0" * len(m.group(0)), line)  # `<!--` is text
        start = masked.find("<!--", at)
        if start < 0:
            n, at = n + 1, 0
            continue
        abrupt = ABRUPT_END_RE.match(line, start + 4)  # <!--> and <!--->: empty ones
        if abrupt is not None:
            lines[n] = line[:start] + line[abrupt.end():]
            at = start
            continue
        k, pos, end = n, start + 4, None
        while k < len(lines) and (k == n or k not in code):
            end = COMMENT_END_RE.search(lines[k], pos)
            if end is not None:
                break
            k, pos = k + 1, 0
        if end is None:  # no end before code or the page's end: text
            lines[n] = line[:start] + "&lt;!--" + line[start + 4:]
            at = start + 7
            continue
        if k == n:
            lines[n] = line[:start] + line[end.end():]
        else:
            lines[n] = line[:start]
            lines[n + 1:k] = [""] * (k - n - 1)
            lines[k] = lines[k][end.end():]
        n, at = k, (start if k == n else 0)


def valid_mdx(body: str, code: set[int]) -> str:
    """What GitHub and MkDocs render but MDX stops on, fixed outside code: HTML's void
    elements unclosed (``<p><img ...></p>``), a ``<`` that starts no tag (``<20%``), and
    HTML comments (taken out)."""
    if "<" not in body:
        return body
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    if "<!--" in body:
        _without_comments(lines, code)
    for n, line in enumerate(lines):
        if n in code or "<" not in line:
            continue
        lines[n] = outside_code_spans(line, _mdx_text)
    return newline.join(lines)
