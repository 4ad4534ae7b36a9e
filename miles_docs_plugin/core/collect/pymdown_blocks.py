"""pymdownx.blocks' fenced blocks (``/// tip`` … ``///``), written as the indented syntax
every host reads: ``!!!`` admonitions, ``???`` collapsibles, ``===`` tabs.

An MkDocs site that turns on ``pymdownx.blocks.admonition``, ``.details`` or ``.tab`` writes
its callouts as generic blocks (FastAPI, Typer, SQLModel do)::

    /// tip | A title
        type: note

    Content, not indented.

    ///

The block opens with three or more ``/``, a registered name and an argument after ``|``; the
lines right after it indented four spaces or more are its options (YAML); it closes at a line of
as many ``/``. A nested block takes more ``/`` (or fewer: only the innermost open block's count
closes). This module writes each block in the indented syntax that Python-Markdown's
``admonition`` and pymdownx's ``details`` and ``tabbed`` read, with the same content: the header
becomes ``!!! type "title"`` (``???`` for details, ``=== "title"`` for a tab), the content is
indented four spaces more per open block, and the option and closing lines become blank lines, so
every line keeps its number (reports name the upstream's lines). The hosts then treat them as any
MkDocs page's admonitions and tabs (``core/transform/dialect.py`` for Sphinx and Mintlify).

``html``, ``caption`` and ``definition`` blocks keep their content, unwrapped; a block of a name
the site does not register is text there, and stays text here. Fenced code is never read for
block lines. Options other than ``type``, ``open``, ``new`` and ``select`` (``attrs``) are left
out.
"""

from __future__ import annotations

import re
from typing import Any

from ..patterns import lazy_re

#: The block extensions and the names each registers (pymdownx.blocks' own defaults).
EXTENSIONS = {
    "pymdownx.blocks.admonition": ("admonition",),
    "pymdownx.blocks.details": ("details",),
    "pymdownx.blocks.tab": ("tab",),
    "pymdownx.blocks.html": ("html",),
    "pymdownx.blocks.caption": ("caption", "figure-caption", "table-caption"),
    "pymdownx.blocks.definition": ("definition",),
}
#: pymdownx.blocks.admonition's default ``types`` (each a block of its own name).
ADMONITION_TYPES = ("note", "attention", "caution", "danger", "error", "tip", "hint", "warning",
                    "important")
#: A block's first line (pymdownx.blocks ``RE_START``, one line).
START_RE = lazy_re(r"^(?P<indent>[ \t]*)(?P<slashes>/{3,})[ ]*(?P<name>[\w-]+)[ ]*"
                   r"(?:\|[ ]*(?P<arg>.*?)[ ]*)?$")
#: A block's last line (``RE_END``): as many ``/`` as its first.
END_RE = lazy_re(r"^[ \t]*(/{3,})[ ]*$")
_SEPARATORS = re.compile(r"[_-]+")
#: A class name the indented syntax reads (``!!! type``: Python-Markdown's ``[\w-]+``).
_CLASS_RE = re.compile(r"[\w-]+")


class Kind:
    """What a registered block name becomes: ``marker`` ``!!!``, ``???``, ``===`` or ""
    (unwrapped), its admonition class and its title when the header gives none."""

    __slots__ = ("css", "marker", "title")

    def __init__(self, marker: str, css: str = "", title: str = "") -> None:
        self.marker = marker
        self.css = css
        self.title = title


def registered(extensions: dict[str, dict[str, Any]]) -> dict[str, Kind]:
    """The block names an MkDocs site's ``markdown_extensions`` register, with what each
    becomes (none when it turns on no block extension)."""
    kinds: dict[str, Kind] = {}
    for extension, options in extensions.items():
        names = EXTENSIONS.get(extension)
        if names is None:
            continue
        if extension == "pymdownx.blocks.admonition":
            kinds["admonition"] = Kind("!!!")
            _types(kinds, "!!!", options.get("types", ADMONITION_TYPES))
        elif extension == "pymdownx.blocks.details":
            kinds["details"] = Kind("???")
            _types(kinds, "???", options.get("types", ()))
        elif extension == "pymdownx.blocks.tab":
            kinds["tab"] = Kind("===")
        else:
            kinds.update((name, Kind("")) for name in names)
    return kinds


def _types(kinds: dict[str, Kind], marker: str, types: Any) -> None:
    for entry in types if isinstance(types, list | tuple) else ():
        if isinstance(entry, dict) and entry.get("name"):
            name = str(entry["name"])
            css = str(entry.get("class") or name)
            title = str(entry.get("title") or _SEPARATORS.sub(" ", css).title())
        elif isinstance(entry, str):
            name = css = entry
            title = _SEPARATORS.sub(" ", css).title()
        else:
            continue
        kinds[name.lower()] = Kind(marker, css, title)


class _Open:
    __slots__ = ("length", "wraps")

    def __init__(self, length: int, wraps: bool) -> None:
        self.length = length  #: the number of "/" that closes it
        self.wraps = wraps  #: its content is indented (False: an unwrapped block)


def _options(lines: list[str], start: int, code: set[int],
             indent: int) -> tuple[dict[str, Any], int]:
    """The options under a block's first line (lines indented four spaces or more past the
    block's own ``indent``, up to the first other line) and how many lines they take."""
    end = start
    while end < len(lines) and end not in code and lines[end].strip() and \
            len(lines[end]) - len(lines[end].lstrip(" ")) >= indent + 4:
        end += 1
    if end == start:
        return {}, 0
    import textwrap

    import yaml

    try:
        found = yaml.safe_load(textwrap.dedent("\n".join(lines[start:end])))
    except yaml.YAMLError:
        found = None
    return (found if isinstance(found, dict) else {}), end - start


def _quoted(title: str) -> str:
    return '"' + title.replace("\n", " ") + '"'


def _header(kind: Kind, name: str, arg: str, options: dict[str, Any]) -> str:
    if kind.marker == "===":
        mark = "===!" if options.get("new") is True else \
            "===+" if options.get("select") is True else "==="
        return f"{mark} {_quoted(arg)}"
    css = str(options.get("type") or kind.css or "note").split()[0]
    if not _CLASS_RE.fullmatch(css):
        css = "note"  # a class the indented syntax can carry, or none of the page's text
    if arg:
        title = arg
    elif name in ("admonition", "details"):  # titled by its type, when it has one
        title = _SEPARATORS.sub(" ", css).title() if options.get("type") else ""
    else:
        title = kind.title
    mark = kind.marker + ("+" if kind.marker == "???" and options.get("open") is True else "")
    return f"{mark} {css}" + (f" {_quoted(title)}" if title else "")


def rewrite(text: str, kinds: dict[str, Kind]) -> tuple[str, list[tuple[int, str]]]:
    """``text`` (a page body) with its blocks in the indented syntax, and notes (0-based
    line, message) on what is shown differently. Lines keep their numbers."""
    from ..transform.mdx import code_lines, fences

    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    code = code_lines(fences(lines, commonmark=True)) if "```" in text or "~~~" in text \
        else set()
    code |= _indented_code(lines, code)
    stack: list[_Open] = []
    notes: list[tuple[int, str]] = []
    out: list[str] = []
    skip = 0
    for i, line in enumerate(lines):
        if skip:
            out.append("")
            skip -= 1
            continue
        if i not in code and "/" in line:
            end = END_RE.match(line) if stack else None
            if end is not None and len(end.group(1)) == stack[-1].length:
                stack.pop()
                out.append("")
                continue
            start = START_RE.match(line)
            kind = kinds.get(start.group("name").lower()) if start is not None else None
            if start is not None and kind is not None:
                options, skip = _options(lines, i + 1, code, len(start.group("indent")))
                depth = " " * _depth(stack)
                if kind.marker:
                    out.append(depth + start.group("indent") + _header(
                        kind, start.group("name").lower(), start.group("arg") or "", options))
                else:
                    out.append("")
                    notes.append((i, f"the {start.group('name')} block is shown as its "
                                     "content"))
                stack.append(_Open(len(start.group("slashes")), bool(kind.marker)))
                continue
        out.append(" " * _depth(stack) + line if stack and line.strip() else line)
    return newline.join(out), notes


#: A line that keeps the indented lines after it Markdown for Python-Markdown: a list item,
#: or the first line of an admonition, a collapsible or a tab (their content is indented).
_CONTAINER_RE = lazy_re(r"^[ ]{0,3}(?:[*+-][ \t]|\d+[.)][ \t]|!!!|\?\?\?|===)")


def _indented_code(lines: list[str], fenced: set[int]) -> set[int]:
    """The lines of indented code blocks at the margin, as Python-Markdown reads them: lines
    indented four spaces or more after a blank line, unless a list item or an admonition's
    (collapsible's, tab's) first line is the last line at the margin before them."""
    code: set[int] = set()
    container = False  # the last line at the margin opens a container
    in_code = False
    blank = True
    for i, line in enumerate(lines):
        if not line.strip():
            blank = True
            continue
        width = len(line) - len(line.lstrip(" "))
        if i in fenced or width < 4:
            in_code = False
            if width < 4 and i not in fenced:
                container = _CONTAINER_RE.match(line) is not None
        elif in_code or (blank and not container):
            in_code = True
            code.add(i)
        blank = False
    return code


def _depth(stack: list[_Open]) -> int:
    """The extra indentation of the content of the open blocks: four spaces per block the
    indented syntax wraps."""
    return 4 * sum(entry.wraps for entry in stack)
