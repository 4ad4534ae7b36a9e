"""Built-in components and front matter: upstream markup the host engine does not speak.

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
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.blocks import KNOWN, Component
from ..core.errors import Severity

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page


OPEN_RE = re.compile(r"^(?P<indent>[ \t]*)<(?P<name>[A-Z][A-Za-z0-9]*)(?P<attrs>(?:\s+[^>]*?)?)"
                     r"\s*(?P<self>/?)>[ \t]*(?P<rest>.*?)[ \t]*$")
CLOSE_RE = re.compile(r"^(?P<before>.*?)</(?P<name>[A-Z][A-Za-z0-9]*)>[ \t]*$")
ATTR_RE = re.compile(r"""([A-Za-z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{["']([^"']*)["']\})""")
HAS_COMPONENT_RE = re.compile(r"(?m)^[ \t]*</?[A-Z]")
#: Deeper nesting than this is reported and left as text (it also bounds the recursion).
MAX_DEPTH = 32


@dataclass
class Block:
    name: str
    attrs: dict[str, str]
    indent: str
    start: int  #: line index of the opening tag
    end: int  #: line index of the closing tag (== start for self-closing or one-line)
    children: list[Block] = field(default_factory=list)
    inline: str = ""  #: content on the opening line (``<Note>text</Note>``)


def parse_attrs(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in ATTR_RE.finditer(raw):
        value = next(g for g in m.groups()[1:] if g is not None)
        out[m.group(1)] = html.unescape(value)
    return out


_BLOCK_PARSER: Any = None
H1_CANDIDATE_RE = re.compile(r"(?m)^ {0,3}(?:#(?:[ \t]|$)|=+[ \t]*$)")
HEADING_ATTR_RE = re.compile(
    r"^( {0,3}#{1,6}[ \t].*?)[ \t]*\{[ \t]*#([A-Za-z][\w:.-]*)[^}]*\}[ \t]*$")
MERMAID_RE = re.compile(r"(?m)^[ \t>]*(?:`{3,}|~{3,})[ \t]*mermaid\b")


@dataclass
class Blocks:
    """What a block-level parse of a page body says (no inline parsing: it is cheap)."""

    code: set[int] = field(default_factory=set)  #: 0-based lines inside fenced/indented code
    fences: list[tuple[int, str]] = field(default_factory=list)  #: (opening line, info)
    has_h1: bool = False


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


def _heading_text(title: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#])", r"\\\1", " ".join(title.split()))


def find_blocks(lines: list[str], code: set[int]) -> tuple[list[Block], list[tuple[int, str]]]:
    """Nest component blocks; returns (top-level blocks, problems as (line, message))."""
    top: list[Block] = []
    stack: list[Block] = []
    problems: list[tuple[int, str]] = []
    too_deep = 0  #: open tags past MAX_DEPTH, whose closing tags are text too
    for i, line in enumerate(lines):
        if i in code:
            continue
        m = OPEN_RE.match(line)
        if m and not line.lstrip().startswith("</") and (len(stack) >= MAX_DEPTH or too_deep):
            if not too_deep:
                problems.append((i, f"components nested deeper than {MAX_DEPTH} levels are "
                                    "kept as text"))
            if not m.group("self") and not CLOSE_RE.match(m.group("rest") or ""):
                too_deep += 1
            continue
        if too_deep and CLOSE_RE.match(line):
            too_deep -= 1
            continue
        if m and not line.lstrip().startswith("</"):
            name = m.group("name")
            rest = m.group("rest")
            block = Block(name, parse_attrs(m.group("attrs") or ""), m.group("indent"), i, i)
            (stack[-1].children if stack else top).append(block)
            if m.group("self"):
                continue
            close = CLOSE_RE.match(rest) if rest else None
            if close and close.group("name") == name:
                block.inline = close.group("before")
                continue
            block.inline = rest
            stack.append(block)
            continue
        c = CLOSE_RE.match(line)
        if c and not c.group("before").strip() and stack:
            name = c.group("name")
            if stack[-1].name == name:
                stack.pop().end = i
            elif any(b.name == name for b in stack):
                while stack and stack[-1].name != name:
                    open_block = stack.pop()
                    problems.append((open_block.start, f"<{open_block.name}> is never closed"))
                    open_block.end = i
                stack.pop().end = i
            else:
                problems.append((i, f"</{name}> closes nothing"))
    for block in stack:
        problems.append((block.start, f"<{block.name}> is never closed"))
        block.end = len(lines) - 1
    return top, problems


def normalize_indent(lines: list[str], blocks: list[Block]) -> None:
    """Make the indentation inside components cosmetic, as MDX does.

    Mintlify authors indent JSX children for readability (MDX has no indented code blocks).
    Each component's content is shifted left so that its least indented line lines up with the
    component's tag; relative indentation (lists, code) is kept.
    """
    for block in blocks:
        inner = range(block.start + 1, block.end)
        widths = [len(lines[i]) - len(lines[i].lstrip()) for i in inner if lines[i].strip()]
        extra = min(widths, default=0) - len(block.indent)
        if extra > 0:
            for i in inner:
                if lines[i].strip():
                    lines[i] = lines[i][:len(block.indent)] + lines[i][len(block.indent) + extra:]
        for child in block.children:
            child.indent = lines[child.start][:len(lines[child.start]) -
                                              len(lines[child.start].lstrip())]
        normalize_indent(lines, block.children)


LINK_LINE_RE = re.compile(r"^[ \t]*\[(?P<text>.*)\]\((?P<href>.*)\)[ \t]*$")


def neutralize(lines: list[str], blocks: list[Block], unknown: list[Block]) -> None:
    """Turn the tag lines of components into plain Markdown, in place, line for line.

    The content between the tags becomes ordinary Markdown that the link scanner reads (with
    the tags in place, CommonMark would see one raw HTML block). The opening line keeps
    content that stood on it; a component with ``href`` becomes a Markdown link there, so the
    link rules rewrite it like any other. The closing line becomes blank.
    """
    for block in blocks:
        neutralize(lines, block.children, unknown)
        if block.name not in KNOWN:
            unknown.append(block)
        href = block.attrs.get("href")
        if href:
            text = block.attrs.get("title") or href
            lines[block.start] = f"{block.indent}[{text.replace(']', '')}]({href})"
        else:
            lines[block.start] = block.indent + block.inline if block.inline else ""
        if block.end > block.start:
            lines[block.end] = ""


def render(lines: list[str], blocks: list[Block], ctx: BuildContext,
           parent: str | None = None) -> None:
    """Write neutralized components in the engine's syntax, in place, innermost first
    (bottom-up, so the line numbers of blocks not yet rendered stay valid)."""
    counts: dict[str, int] = {}
    numbered = []
    for block in blocks:
        counts[block.name] = counts.get(block.name, 0) + 1
        numbered.append((block, counts[block.name]))
    for block, index in reversed(numbered):
        before = len(lines)
        render(lines, block.children, ctx, block.name)
        end = block.end + len(lines) - before  # children may have grown
        if block.name not in KNOWN:
            continue  # its tags are gone, its content stays
        attrs = dict(block.attrs)
        opening = lines[block.start]
        link = LINK_LINE_RE.match(opening) if "href" in attrs else None
        if link:
            attrs["href"] = link.group("href")  # as the link rules rewrote it
        inline = opening.strip() if block.inline and not link else ""
        body = lines[block.start + 1:end] if end > block.start else []
        component = Component(block.name, attrs, block.indent, body, inline, index, parent)
        lines[block.start:end + 1] = _fit(ctx.engine.block(component), end - block.start + 1)


def _shift(blocks: list[Block], by: int) -> None:
    for block in blocks:
        block.start += by
        block.end += by
        _shift(block.children, by)


def _fit(new: list[str], span: int) -> list[str]:
    """Keep the line count where the new form is shorter (pad with empty lines)."""
    if len(new) < span:
        return new + [""] * (span - len(new))
    return new


@hookimpl(tryfirst=True)
def mdp_prepare_page(page: Page, ctx: BuildContext) -> None:
    body = page.content[page.body_start:]
    has_components = HAS_COMPONENT_RE.search(body) is not None
    has_mermaid = MERMAID_RE.search(body) is not None
    needs_title = bool(page.title) and "title" in page.meta
    strip_ids = not ctx.engine.heading_attrs and "{#" in body
    if not (has_components or has_mermaid or needs_title or strip_ids):
        return
    structure = (_structure(ctx, body)
                 if has_components or has_mermaid or strip_ids or H1_CANDIDATE_RE.search(body)
                 else Blocks())
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    section = ctx.sections[page.source]
    changed = False

    for line_no, info in structure.fences:
        if info.split()[:1] == ["mermaid"]:
            new = ctx.engine.fence_info(info)
            if new != info:
                lines[line_no] = lines[line_no].replace(info.strip(), new, 1)
                changed = True

    if strip_ids:
        removed: dict[int, str] = {}
        for i, text in enumerate(lines):
            m = HEADING_ATTR_RE.match(text) if i not in structure.code else None
            if m:
                lines[i] = m.group(1)
                removed[i] = m.group(2)
                changed = True
        # the line a scan reports for body line i (a title heading inserted below shifts the
        # body and line_delta alike, so this stays right)
        base = page.body_line - page.line_delta + 1
        page.extra["heading_ids"] = {base + i: v for i, v in removed.items()}

    blocks: list[Block] = []
    if has_components:
        blocks, problems = find_blocks(lines, structure.code)
        for line, message in problems:
            ctx.report(section, page.path, line + 1 + page.body_line, "component", message)
        if blocks:
            unknown: list[Block] = []
            normalize_indent(lines, blocks)
            neutralize(lines, blocks, unknown)
            for block in unknown:
                ctx.report(section, page.path, block.start + 1 + page.body_line, "component",
                           f"unknown component <{block.name}>; its content is kept",
                           Severity.WARNING)
            changed = True

    if needs_title and not structure.has_h1 and page.title:
        # Mintlify shows the front matter title as the page heading: so do we.
        lines.insert(0, "# " + _heading_text(page.title))
        _shift(blocks, 1)
        page.line_delta += 1
        # scan lines are body_line - line_delta + 1-based index: the new line is index 0
        page.extra.setdefault("synthetic_headings", []).append(
            page.body_line + 1 - page.line_delta)
        changed = True

    if blocks:
        page.extra["components"] = blocks  # rendered after the links: mdp_transform_page
    if changed:
        page.content = page.content[:page.body_start] + newline.join(lines)


@hookimpl
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    """Write the components in the engine's syntax, once the links inside them are rewritten
    (the built-in links plugin runs ``tryfirst``)."""
    blocks: list[Block] | None = page.extra.pop("components", None)
    if not blocks:
        return
    body = page.content[page.body_start:]
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    render(lines, blocks, ctx)
    page.content = page.content[:page.body_start] + newline.join(lines)
