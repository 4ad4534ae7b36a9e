"""An MkDocs upstream's page syntax that Mintlify does not read, in Mintlify's terms.

The pages of an MkDocs site are written for Python-Markdown and the extensions its
``mkdocs.yml`` turns on. Mintlify reads them as MDX: a fence's pymdownx.highlight options are
no meta it knows (``hl_lines="2"`` is dropped), and attr_list's ``{ … }`` after a link is a
JSX expression (text, once the sandbox escapes it; a compile error if it is trusted). Here,
outside code:

- fences: ``title="x"`` stays (Mintlify's parseMetaString reads it as the file name),
  ``hl_lines="1 3-4"`` becomes ``highlight={1,3-4}``, ``linenums="N"`` ``lines``; a
  superfences attribute list (``{ .yaml .no-copy hl_lines="2" }``) gives its first class as the
  language; other options go (an unquoted word would become the file name);
- attr_list's attribute lists after a link or an image, after a heading and on a line of their
  own are left out (as on Sphinx); a heading's ``#id`` is handed to the core's heading-id
  rule (``{#id}``), so links to it go to the heading's Mintlify id;
- abbr's definitions (``*[CLI]: Command Line Interface``) are left out;
- pymdownx.mark, caret and keys (``==x==``, ``^^x^^``, ``++ctrl+c++``) become ``<mark>``,
  ``<ins>`` and ``<kbd>``.

Each where the upstream's ``mkdocs.yml`` turns the extension on; fence options on every page.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..core.collect.upstream import UpstreamSite
from ..core.transform.components import ABBR_RE, ATTR_FENCE_RE, INLINE_ATTRS_RE
from ..core.transform.mdx import Fence, code_lines, fence_meta, fences, outside_code_spans

#: A fence's pymdownx.highlight / superfences options.
FENCE_OPTIONS_RE = re.compile(r"(?<![\w-])(?:title|hl_lines|linenums)=")
#: One attribute of an attribute list: ``#id``, ``.class``, ``key=value``.
_ATTR = r"""(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=(?:"[^"\n]*"|'[^'\n]*'|[^\s{}"']+))"""
_ATTRS = rf"\{{:?[ \t]*(?P<attrs>{_ATTR}(?:[ \t]+{_ATTR})*)[ \t]*\}}"
HEADING_ATTRS_RE = re.compile(rf"^(?P<heading> {{0,3}}#{{1,6}}[ \t].*?)[ \t]*{_ATTRS}[ \t]*$")
LINE_ATTRS_RE = re.compile(rf"^[ \t]*{_ATTRS}[ \t]*$")
ID_RE = re.compile(r"(?<!\S)#([A-Za-z][\w:.-]*)")
MARK_RE = re.compile(r"(?<!=)==(?![=\s])(.+?)(?<![=\s])==(?!=)")
INS_RE = re.compile(r"(?<!\^)\^\^(?![\^\s])(.+?)(?<![\^\s])\^\^(?!\^)")
KEYS_RE = re.compile(r"\+\+([\w-]+(?:\+[\w-]+)*?)\+\+")


def _fence_line(fence: Fence) -> str | None:
    """The opening line of ``fence`` with its options as Mintlify writes them, or None."""
    info = fence.info.strip()
    attr_list = info.startswith("{")
    if attr_list:
        header = ATTR_FENCE_RE.match(info)
        if header is None:
            return None
        words = [w for w in header.group(2).split() if not w.startswith((".", "#"))]
        info = " ".join([header.group(1), *words])
    elif not FENCE_OPTIONS_RE.search(info):
        return None
    meta = fence_meta(info)
    if not FENCE_OPTIONS_RE.search(info):
        meta.title = ""  # a bare word of an attribute list, or after the language, is no title
    count = fence.end - fence.start - (1 if fence.closed else 0)
    parts = [meta.lang or "text"]
    if meta.title:
        parts.append('title="{}"'.format(meta.title.replace("\\", "\\\\").replace('"', '\\"')))
    ranges = meta.highlighted(count)
    if ranges:
        parts.append("highlight={{{}}}".format(
            ",".join(f"{a}-{b}" if b > a else str(a) for a, b in ranges)))
    if meta.line_numbers():
        parts.append("lines")
    return f"{fence.indent}{fence.marker}{' '.join(parts)}"


@lru_cache(maxsize=1)
def _key_names() -> tuple[dict[str, str], dict[str, str]]:
    """pymdownx.keys' key names and aliases (``ctrl`` -> ``Ctrl``), where it is installed."""
    try:
        from pymdownx import keymap_db
    except ImportError:  # pragma: no cover - pymdown-extensions is there in the tests
        return {}, {}
    return dict(keymap_db.keymap), dict(keymap_db.aliases)


def _keys(m: re.Match[str]) -> str:
    keymap, aliases = _key_names()
    names = []
    for key in m.group(1).split("+"):
        key = key.lower()
        name = keymap.get(aliases.get(key, key)) if keymap else key.capitalize()
        if name is None:
            return m.group(0)  # pymdownx.keys leaves a combination with an unknown key as text
        names.append(f"<kbd>{name}</kbd>")
    return "+".join(names)


def _inline(text: str, marks: frozenset[str]) -> str:
    if "attr_list" in marks and "){" in text:
        text = INLINE_ATTRS_RE.sub(")", text)
    if "pymdownx.mark" in marks and "==" in text:
        text = MARK_RE.sub(r"<mark>\1</mark>", text)
    if "pymdownx.caret" in marks and "^^" in text:
        text = INS_RE.sub(r"<ins>\1</ins>", text)
    if "pymdownx.keys" in marks and "++" in text:
        text = KEYS_RE.sub(_keys, text)
    return text


def mkdocs_syntax(lines: list[str], site: UpstreamSite) -> bool:
    """Rewrite ``lines`` (an MkDocs page's body) in place, line for line; whether any
    changed."""
    found = fences(lines, commonmark=True)
    changed = False
    for fence in found:
        if fence.info.strip():
            new = _fence_line(fence)
            if new is not None and new != lines[fence.start]:
                lines[fence.start] = new
                changed = True
    names = site.extension_names()
    marks = names & {"attr_list", "pymdownx.mark", "pymdownx.caret", "pymdownx.keys"}
    abbr = "abbr" in names
    if not marks and not abbr:
        return changed
    code = code_lines(found)
    attrs = "attr_list" in marks
    for i, line in enumerate(lines):
        if i in code or not line.strip():
            continue
        new = line
        if (abbr and ABBR_RE.match(line)) or (attrs and "{" in line and LINE_ATTRS_RE.match(line)):
            new = ""
        else:
            if attrs and "{" in line and (m := HEADING_ATTRS_RE.match(line)):
                # its id to the core's heading-id rule, which aliases it to Mintlify's id
                ident = ID_RE.search(m.group("attrs"))
                new = m.group("heading") + (f" {{#{ident.group(1)}}}" if ident else "")
            new = outside_code_spans(new, lambda part: _inline(part, marks))
        if new != line:
            lines[i] = new
            changed = True
    return changed
