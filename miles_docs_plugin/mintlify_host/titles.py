"""Page titles on a Mintlify host.

Mintlify names a page by its front matter: ``title`` is the page's heading (and, without a
``sidebarTitle``, its name in the navigation), else a title made from the file name
(``getDecoratedNavPageAndSlug``: ``layout.md`` is "Layout"); docs.json lists bare page ids
and has no place for a title. A page written for MkDocs (or GitHub) has no such front matter:
its heading is its first ``# Heading`` and its name in the navigation the upstream nav's
title. So the leading ``#`` heading of such a page becomes its ``title`` (and leaves the body,
where Mintlify would show it a second time, under its own), and the navigation's title, where
it differs, its ``sidebarTitle``: what the MkDocs and Sphinx hosts show.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

import yaml

from ..core.model import NavGroup, NavItem, NavPage, Page, Section, name_title
from ..core.section.sandbox import tagless
from ..core.transform.anchors import TITLE_IDS, title_ids

#: ``page.extra`` key: the text of the leading ``#`` heading taken out of the body.
HEADING = "mintlify_heading"
#: An ATX level-1 heading (its text, without closing ``#``s).
ATX_H1_RE = re.compile(r"^ {0,3}#(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_H1_RE = re.compile(r"^ {0,3}=+[ \t]*$")
#: attr_list's (or MyST's) ``{#id .class}`` at the end of a heading.
HEADING_ATTRS_RE = re.compile(r"[ \t]*\{:?[ \t]*[#.][^{}]*\}[ \t]*$")
#: Inline markup a title shows as text: a link or image (its text), code, emphasis, and a
#: backslash escape (its character).
MARKUP_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`+|(?<!\w)[*_]+|[*_]+(?!\w)|\\(?=[^\w\s])")
#: Front matter keys written here.
KEYS = ("title", "sidebarTitle")


def heading_text(raw: str) -> str:
    """A heading's Markdown as the plain text of a title."""
    raw = HEADING_ATTRS_RE.sub("", raw)
    return " ".join(MARKUP_RE.sub(lambda m: m.group(1) or "", raw).split())


def leading_heading(lines: list[str]) -> tuple[int, int, str] | None:
    """The ``#`` heading that opens a page (only blank lines before it), as MkDocs takes a
    page's title from its first element when that is a level-1 heading: (first line, last
    line, text); None without one (or with an empty one)."""
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        m = ATX_H1_RE.match(line)
        if m:
            text = heading_text(m.group(1) or "")
            return (i, i, text) if text else None
        if i + 1 < len(lines) and SETEXT_H1_RE.match(lines[i + 1]) and \
                not line.startswith(("    ", "\t")) and not line.lstrip().startswith(
                    ("<", "-", "*", "+", ">", "```", "~~~", "|")):
            text = heading_text(line.strip())
            return (i, i + 1, text) if text else None
        return None
    return None


def take_heading(page: Page, body: str) -> str:
    """``body`` (a page's body) with its leading ``#`` heading blanked (the lines stay), the
    heading's text kept in ``page.extra``: it becomes the page's front matter ``title``."""
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    found = leading_heading(lines)
    if found is None:
        return body
    first, last, text = found
    page.extra[HEADING] = text
    page.extra[TITLE_IDS] = title_ids(lines[first], text)  # links to it reach the title
    for k in range(first, last + 1):
        lines[k] = ""
    return newline.join(lines)


def nav_titles(items: list[NavItem], out: dict[str, str] | None = None) -> dict[str, str]:
    """Page path -> the title the section's navigation gives it (the first, when listed twice)."""
    out = {} if out is None else out
    for item in items:
        if isinstance(item, NavPage) and item.title and item.title.strip():
            out.setdefault(item.path, item.title.strip())
        elif isinstance(item, NavGroup):
            nav_titles(item.children, out)
    return out


def _text(value: Any) -> str | None:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and \
            str(value).strip():
        return " ".join(str(value).split())
    return None


def page_titles(section: Section, page: Page, nav_title: str | None) -> dict[str, str]:
    """The ``title`` and ``sidebarTitle`` to write into the page's front matter (none that it
    has already)."""
    meta_title = _text(page.meta.get("title"))
    sidebar = _text(page.meta.get("sidebarTitle"))
    upstream = section.upstream
    if upstream is not None and upstream.mintlify and not page.extra.get("generated"):
        # a Mintlify page names itself; a navigation of the config's own may rename it
        shown = sidebar or meta_title
        if nav_title and shown and nav_title != shown:
            return {"sidebarTitle": nav_title}
        return {}
    heading = page.extra.get(HEADING) if not page.extra.get("generated") else page.title
    title = heading or meta_title or nav_title or sidebar or name_title(
        posixpath.splitext(posixpath.basename(page.path))[0])
    name = nav_title or sidebar or meta_title
    out = {}
    if title != meta_title:
        out["title"] = title
    if name and name != title and name != sidebar:
        out["sidebarTitle"] = name
    return out


def yaml_string(text: str) -> str:
    """``text`` as a double-quoted YAML scalar on one line: every character that could end
    it, start another key or not survive a YAML reader as itself is escaped."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable() and char not in "\u2028\u2029\ufeff":
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


FRONT_RE = re.compile(r"\A(---[ \t]*\r?\n)(.*?)(^---[ \t]*(?:\r?\n|\Z))", re.S | re.M)
TOP_KEY_RE = re.compile(r"""^(['"]?)([^\s'":#][^'":]*?)\1[ \t]*:(?:[ \t]|$)""")


def with_front_matter(head: str, values: dict[str, str], *, sandboxed: bool) -> str:
    """``head`` (a page's front matter, or nothing) with ``values`` as its keys, each written
    as a quoted string on a line of its own (the upstream's text never makes a key); the lines
    of other keys as they were. Every other key (and its value's lines) stays as written."""
    if not values:
        return head
    if sandboxed:  # what the sandbox keeps of a title: one line, no tag
        values = {key: tagless(value) for key, value in values.items()}
    newline = "\r\n" if "\r\n" in head else "\n"
    written = [f"{key}: {yaml_string(value)}" for key, value in values.items()]
    m = FRONT_RE.match(head)
    if m is None:
        return "---" + newline + newline.join(written) + newline + "---" + newline + head
    kept: list[str] = []
    dropping = False
    for line in m.group(2).splitlines():
        key = TOP_KEY_RE.match(line)
        if key:
            dropping = key.group(2).strip() in values
        elif line.strip() and not line[:1].isspace() and not line.startswith("-"):
            dropping = False
        if not dropping:
            kept.append(line)
    inner = "".join(line + newline for line in written + kept)
    try:
        data = yaml.safe_load(inner)
    except yaml.YAMLError:
        data = None
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in values.items()):
        return head  # pragma: no cover - front matter this edit cannot read: as it was
    return m.group(1) + inner + m.group(3) + head[m.end():]


def titled(section: Section, page: Page, nav: dict[str, str]) -> tuple[str, str]:
    """The page as written out, (front matter, body): its titles in the front matter; a
    generated page (the section's overview) without its ``#`` heading."""
    at = page.body_start
    head, body = page.content[:at], page.content[at:]
    if page.extra.get("generated"):
        body = take_heading(Page(page.source, page.path, page.dest, ""), body).lstrip("\n")
    values = page_titles(section, page, nav.get(page.path))
    return with_front_matter(head, values, sandboxed=section.source.sandboxed), body
