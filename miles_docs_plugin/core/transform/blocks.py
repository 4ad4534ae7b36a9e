"""Components as data, and the plain-Markdown form every engine can read.

The components plugin finds Mintlify components in a page and hands each one, innermost first,
to :meth:`Engine.block <miles_docs_plugin.core.engine.Engine.block>` as a :class:`Component`.
Adapters write the native construct of their engine (admonitions, tabs, dropdowns, MyST
directives) and fall back to :func:`fallback` for everything else. The returned lines replace
the component's lines; keeping their number equal keeps upstream line numbers right.
"""

from __future__ import annotations

import re

from ..patterns import lazy_re
from ..records import Record

#: Mintlify callouts and the admonition kind each one becomes.
CALLOUTS = {"Note": "note", "Warning": "warning", "Tip": "tip", "Info": "info",
            "Check": "success", "Danger": "danger", "Caution": "caution"}
#: Components that only group others (their tags disappear, their content stays).
WRAPPERS = {"AccordionGroup", "CardGroup", "Columns", "Steps", "Tabs", "Frame", "Column",
            "TileGroup", "Visibility", "Panel", "Tree", "Color", "Popup", "PopupTrigger",
            "PopupContent"}
CONTAINERS = {"Step", "Tab", "CodeGroup", "Accordion", "Expandable", "Card", "Update",
              "Callout", "ParamField", "ResponseField", "Tile", "RequestExample",
              "ResponseExample", "Snippet", "View", "Prompt"}
#: The entries of a ``<Tree>`` and of a ``<Color>`` palette: what they show is in their
#: attributes (a name, a colour), written as the items of a nested list.
ENTRIES = {"Tree.Folder", "Tree.File", "Color.Row", "Color.Item"}
#: Components that lay out cards in a grid.
GROUPS = {"CardGroup", "Columns", "TileGroup"}
#: Components that stand inside a line of text (written by the components plugin directly).
INLINE = {"Badge", "Tooltip", "Icon", "Link", "Kbd"}
KNOWN = set(CALLOUTS) | WRAPPERS | CONTAINERS | INLINE | ENTRIES

FENCE_RE = lazy_re(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class Block(Record):
    """Where a component stands in a page (line indexes), as the components plugin parses it;
    the Mintlify adapter restores the tags from it."""

    __slots__ = _fields = ("name", "attrs", "indent", "start", "end", "children", "inline",
                           "open_end", "tail", "number", "html")
    name: str
    attrs: dict[str, str]
    indent: str
    start: int  #: line index of the opening tag
    end: int  #: line index of the closing tag (== start for self-closing or one-line)
    children: list[Block]
    inline: str  #: content on the opening line (``<Note>text</Note>``)
    open_end: int  #: last line of the opening tag (it may span lines; -1: ``start``)
    tail: str  #: content before the closing tag on its line (``text</Note>``)
    number: int  #: index in ``page.extra["components"]``
    #: an HTML element's opening tag as HTML (``<p class="lead">``; "" for a component)
    html: str

    def __init__(self, name: str, attrs: dict[str, str], indent: str, start: int, end: int,
                 children: list[Block] | None = None, inline: str = "", open_end: int = -1,
                 tail: str = "", number: int = 0, html: str = "") -> None:
        self.name = name
        self.attrs = attrs
        self.indent = indent
        self.start = start
        self.end = end
        self.children = [] if children is None else children
        self.inline = inline
        self.open_end = start if open_end < 0 else open_end
        self.tail = tail
        self.number = number
        self.html = html


#: The opening line of a component with ``href`` once the components plugin neutralized it
#: without markers.
LINK_LINE_RE = lazy_re(r"^[ \t]*\[(?P<text>.*)\]\((?P<href>.*)\)[ \t]*$")
#: The anchor that stands for a component's id at the start of its neutralized line.
ANCHOR_RE = lazy_re(r'^\s*<a id="[^"<>]*"></a>')
#: Between a component's link and the text on its tag's line, in the line the components
#: plugin writes for an engine that reads MDX (the engine reads both back).
INLINE_MARK = "<!--mdp:inline-->"
#: Component attributes that may name an image: a card's picture (``img``), an icon given as
#: a file of the docs or a URL (``icon="/images/openai.svg"``; else it is an icon's name).
IMAGE_ATTRS = ("icon", "img")
#: An image written at the start of a component's opening line for the link rules, once they
#: rewrote it (``![](<…>)`` as written, or as the rules write a destination).
IMAGE_LINK_RE = lazy_re(r"!\[\]\((?:<(?P<angle>[^<>\n]*)>|(?P<plain>[^()\s]*))\)")


def names_file(value: str) -> bool:
    """Whether an ``icon``/``img`` value is a file's path or a URL: not an icon's name (a path
    holds a ``/`` or a file extension), not an expression (``{cfg.icon}`` as HTML reads it)."""
    return ("/" in value or "." in value) and not any(c in value for c in "<>{}\n")


def image_attrs(attrs: dict[str, str], names: tuple[str, ...] = IMAGE_ATTRS) -> list[str]:
    """The attributes of ``names`` whose value :func:`names_file`, in the order of ``names``."""
    return [name for name in names if names_file(attrs.get(name, ""))]


def image_links(attrs: dict[str, str], names: list[str]) -> str:
    """The images of :func:`image_attrs` as Markdown, for the link rules to rewrite."""
    return "".join(f"![](<{attrs[name]}>)" for name in names)


def read_image_links(line: str, names: list[str]) -> tuple[dict[str, str], str]:
    """The values the link rules gave the images :func:`image_links` wrote at the start of
    ``line`` (after its indentation), and the line without them."""
    rest = line.lstrip()
    indent = line[:len(line) - len(rest)]
    values: dict[str, str] = {}
    for name in names:
        m = IMAGE_LINK_RE.match(rest)
        if m is None:
            break
        values[name] = m.group("angle") if m.group("angle") is not None else m.group("plain")
        rest = rest[m.end():]
    return values, indent + rest


class Component(Record):
    """One component of a page (``<Note>``, ``<Steps>``, …), as written upstream."""

    __slots__ = _fields = ("name", "attrs", "indent", "body", "inline", "index", "parent")
    name: str
    attrs: dict[str, str]
    indent: str  #: indentation of the opening tag
    body: list[str]  #: the lines between the tags, as written
    inline: str  #: content on the opening line (``<Note>text</Note>``)
    index: int  #: 1-based position among siblings of the same name (numbers Steps)
    parent: str | None

    def __init__(self, name: str, attrs: dict[str, str], indent: str, body: list[str],
                 inline: str = "", index: int = 1, parent: str | None = None) -> None:
        self.name = name
        self.attrs = attrs
        self.indent = indent
        self.body = body
        self.inline = inline
        self.index = index
        self.parent = parent

    @property
    def title(self) -> str:
        return self.attrs.get("title", "").strip()

    def inner(self) -> list[str]:
        """The content lines (``inline`` first), relative to ``indent``."""
        lines = [self.indent + self.inline] if self.inline else []
        return lines + self.body

    def indented(self, by: str) -> list[str]:
        """Content indented one level deeper (blank lines stay blank)."""
        out = []
        for line in self.inner():
            if not line.strip():
                out.append("")
            elif line.startswith(self.indent):
                out.append(self.indent + by + line[len(self.indent):])
            else:
                out.append(self.indent + by + line.lstrip())
        return out

    def wrap(self, head: list[str], body: list[str], tail: list[str]) -> list[str]:
        """``head`` + ``body`` + ``tail``, using the tag lines for head and tail where possible.

        The opening line carried ``inline`` content, which ``body`` already includes, so a
        one-line head keeps the line count; extra head lines are added.
        """
        lines = [*head, *body, *tail]
        expected = len(self.body) + 2
        while len(lines) < expected:
            lines.append("")
        return lines


def escape_text(text: str) -> str:
    """``text``, its whitespace as it is, with the characters Markdown would read escaped:
    with a backslash where both CommonMark and Python-Markdown read one, else as an entity
    (Python-Markdown shows the backslash of ``\\<`` and ``\\|``)."""
    return _ESCAPE_RE.sub(_escape, text)


_ESCAPE_RE = lazy_re(r"[\\`*_\[\]<>#|]")
_ENTITIES = {"<": "&lt;", "|": "&#124;"}


def _escape(m: re.Match[str]) -> str:
    char = m.group(0)
    return _ENTITIES.get(char) or "\\" + char


def escape_inline(text: str) -> str:
    """Text that Markdown shows literally, on one line."""
    return escape_text(" ".join(text.split()))


#: What a caption (an attribute: no link rule reads it) may keep of Markdown: a link to a web
#: page, bold text, code.
CAPTION_MARKUP_RE = lazy_re(r"\[([^\[\]\n]+)\]\(([^\s()<>]*)\)|\*\*([^*\n]+)\*\*|`([^`\n]+)`")


def caption_markdown(text: str) -> str:
    """A Mintlify caption (Markdown in an attribute: ``caption="See [the park](https://…)
    **now**"``) as inline Markdown on one line: links to web pages, bold and code kept,
    everything else shown as written (a link to a page of the site is its text: no link rule
    rewrites an attribute). It is shown in italics: the caption's own italics are its text."""
    text = " ".join(text.split())
    out: list[str] = []
    done = 0
    for m in CAPTION_MARKUP_RE.finditer(text):
        out.append(escape_text(text[done:m.start()]))
        label, url, bold, code = m.groups()
        if url is not None:
            web = url.startswith(("https://", "http://"))
            out.append(f"[{escape_text(label)}](<{url}>)" if web else escape_text(label))
        elif bold is not None:
            out.append(f"**{escape_text(bold)}**")
        else:
            out.append(_code(code))
        done = m.end()
    out.append(escape_text(text[done:]))
    return "".join(out)


def fence_length(lines: list[str], char: str = "`") -> int:
    """A fence of ``char`` (backticks, or tildes) longer than any such fence in ``lines``."""
    longest = 0
    for line in lines:
        m = FENCE_RE.match(line)
        if m and m.group("fence")[0] == char:
            longest = max(longest, len(m.group("fence")))
    return max(3, longest + 1)


def field_head(c: Component) -> str:
    """The line that names a ``<ParamField>``/``<ResponseField>``: name, type, flags."""
    a = c.attrs
    where = next((k for k in ("path", "query", "body", "header") if a.get(k)), "")
    name = (a.get(where) if where else a.get("name")) or ""
    parts = [f"**`{name}`**" if name and "`" not in name else f"**{escape_inline(name)}**"]
    if a.get("type"):
        parts.append(f"*{escape_inline(a['type'])}*")
    if where:
        parts.append(where)
    if "required" in a and a["required"] != "false":
        parts.append("required")
    if a.get("deprecated") == "true":
        parts.append("deprecated")
    default = a.get("default")
    if default:
        parts.append(f"default: `{default}`" if "`" not in default else
                     f"default: {escape_inline(default)}")
    return c.indent + " · ".join(parts)


def fallback(c: Component) -> list[str]:
    """Plain Markdown for any component: readable everywhere, links kept as links."""
    ind = c.indent
    kind = CALLOUTS.get(c.name)
    if kind is not None:
        label = c.title or c.name
        head = f"{ind}> **{escape_inline(label)}**"
        quoted = [f"{ind}> {line[len(ind):] if line.startswith(ind) else line.lstrip()}".rstrip()
                  if line.strip() else f"{ind}>" for line in c.inner()]
        return c.wrap([head], quoted, [""])
    if c.name in ("Tree", "Color"):
        # a list of its own: an empty comment on each side ends any list next to it, which
        # would otherwise take these items in (Markdown joins lists a blank line apart)
        return c.wrap(["", f"{ind}<!-- -->", ""], c.inner(), ["", f"{ind}<!-- -->", ""])
    if c.name in WRAPPERS:
        # a <Frame>'s hint above it and its caption under it, each a paragraph of its own
        caption, hint = c.attrs.get("caption"), c.attrs.get("hint")
        above = [f"{ind}{caption_markdown(hint)}", ""] if hint and hint.strip() else [""]
        below = ["", f"{ind}*{caption_markdown(caption)}*", ""] if caption and caption.strip() \
            else [""]
        return c.wrap(above, c.inner(), below)
    if c.name == "Step":
        title = f"{c.index}. {c.title}" if c.title else f"Step {c.index}"
        return c.wrap([f"{ind}**{escape_inline(title)}**"], c.inner(), [""])
    if c.name in ENTRIES:
        return entry(c)
    if c.name == "View":  # one version of the page (a language…), under its title
        head = f"**{escape_inline(c.title)}**" if c.title else ""
        return c.wrap([f"{ind}{head}", ""] if head else [""], c.inner(), [""])
    if c.name == "CodeGroup":
        return c.wrap([""], c.inner(), [""])
    if c.name in ("ParamField", "ResponseField"):
        return c.wrap([field_head(c)], c.inner(), [""])
    if c.name == "Update":
        label = c.attrs.get("label", "")
        desc = c.attrs.get("description", "")
        head = " · ".join(f"**{escape_inline(x)}**" if i == 0 else escape_inline(x)
                          for i, x in enumerate(v for v in (label, desc) if v))
        return c.wrap([f"{ind}{head}" if head else ""], c.inner(), [""])
    head = card_head(c)
    # the title a paragraph of its own: on the line above the content, it was the first
    # words of the content's first paragraph (a tab's title read "Automatic Format: …")
    return c.wrap([f"{ind}{head}", ""] if head else [""], card_body(c), [""])


IMAGE_LINE_RE = lazy_re(r"^\s*!\[(?P<alt>[^\]]*)\]\((?P<src><[^>]*>|[^\s)]+)\)\s*$")


def framed_image(c: Component) -> tuple[str, str] | None:
    """(alt, src) when a ``<Frame caption>`` holds exactly one Markdown image."""
    lines = [line for line in c.inner() if line.strip()]
    m = IMAGE_LINE_RE.match(lines[0]) if len(lines) == 1 and c.attrs.get("caption") else None
    return (m.group("alt"), m.group("src").strip("<>")) if m else None


def step(c: Component, indent: str) -> list[str]:
    """A ``<Step>`` as an item of a numbered list: ``1. **Title**`` (``Step 1`` without a
    title), its content indented by ``indent`` (the width the engine's lists need), after a
    blank line: Mintlify shows the title above the content, not run into its first line."""
    title = " ".join(c.title.split()) or f"Step {c.index}"
    head = f"{c.indent}{c.index}. **{escape_inline(title)}**"
    body = c.indented(indent)
    return c.wrap([head, ""] if any(line.strip() for line in body) else [head], body, [""])


def entry(c: Component) -> list[str]:
    """A ``<Tree.Folder>``/``<Tree.File>`` or ``<Color.Row>``/``<Color.Item>`` as a list item:
    a file's or folder's name (``app/``), a swatch's name and value, a row's title; the
    entries inside it become a nested list (indented by four spaces, which every engine reads
    as a list inside the item)."""
    a = c.attrs
    if c.name in ("Tree.Folder", "Tree.File"):
        name = a.get("name", "").strip() + ("/" if c.name == "Tree.Folder" else "")
        head = _code(name) if name != "/" else ""
    elif c.name == "Color.Item":
        head = " ".join(x for x in (_code(a.get("name", "").strip()),
                                    _color_value(a.get("value", ""))) if x)
    else:  # Color.Row
        head = f"**{escape_inline(c.title)}**" if c.title else ""
    item = f"{c.indent}- {head or '&nbsp;'}"
    inner = c.indented("    ")
    kept = [line for line in inner if line.strip()]
    if not kept and not c.body:
        return [item]  # self-closing: one line, so that the list stays tight
    margin = len(c.indent) + 4
    if all(line[margin:].startswith("- ") or line[margin:margin + 1].isspace()
           for line in kept) and not any("```" in line or "~~~" in line for line in kept):
        inner = kept  # entries only: the blank lines between them would loosen the list
    else:  # other content (text, code) keeps its blank lines
        while inner and not inner[-1].strip():
            inner.pop()
    return c.wrap([item], inner, [])


#: ``key: "value"`` in a JSX object (``value={{ light: "#fff", dark: "#000" }}``).
OBJECT_ENTRY_RE = lazy_re(r"""([A-Za-z_$][\w$]*)\s*:\s*(?:"([^"]*)"|'([^']*)')""")


def _color_value(raw: str) -> str:
    """A colour as the page shows it: ``#3B82F6``; ``light #fff, dark #000`` for a colour
    per theme."""
    raw = raw.strip()
    if raw.startswith("{"):
        pairs = [(m.group(1), m.group(2) if m.group(2) is not None else m.group(3))
                 for m in OBJECT_ENTRY_RE.finditer(raw)]
        return ", ".join(f"{escape_inline(k)} {_code(v)}" for k, v in pairs)
    return _code(raw)


def _code(text: str) -> str:
    """``text`` as a code span (a span of two backticks where it holds one)."""
    text = " ".join(text.split())
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``" if "``" not in text else escape_inline(text)


def card_head(c: Component) -> str:
    """A card's (or tile's, step's…) title line: bold, a link when it has ``href``."""
    from .scanned import escape_destination

    title = c.title or c.attrs.get("label", "")
    href = c.attrs.get("href")
    if href and title:
        return f"**[{escape_inline(title)}]({escape_destination(href, angle=False)})**"
    if title:
        return f"**{escape_inline(title)}**"
    return ""


def card_body(c: Component) -> list[str]:
    """A card's content; a self-closing card shows its ``description``."""
    inner = c.inner()
    if not any(line.strip() for line in inner) and c.attrs.get("description"):
        inner = [c.indent + escape_inline(c.attrs["description"])]
    picture = c.attrs.get("img", "")
    if names_file(picture):  # as the link rules wrote it
        from .scanned import escape_destination

        return [f"{c.indent}![]({escape_destination(picture, angle=False)})", "", *inner]
    return inner
