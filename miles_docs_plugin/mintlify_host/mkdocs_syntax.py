"""An MkDocs upstream's page syntax that Mintlify does not read, in Mintlify's terms.

The pages of an MkDocs site are written for Python-Markdown and the extensions its
``mkdocs.yml`` turns on. Mintlify reads them as MDX: a fence's pymdownx.highlight options are
no meta it knows (``hl_lines="2"`` is dropped). Here:

- fences: ``title="x"`` stays (Mintlify's parseMetaString reads it as the file name),
  ``hl_lines="1 3-4"`` becomes ``highlight={1,3-4}``, ``linenums="N"`` ``lines``; a
  superfences attribute list (``{ .yaml .no-copy hl_lines="2" }``) gives its first class as the
  language; other options go (an unquoted word would become the file name).

On every page.
"""

from __future__ import annotations

import re

from ..core.transform.components import ATTR_FENCE_RE
from ..core.transform.mdx import Fence, fence_meta, fences

#: A fence's pymdownx.highlight / superfences options.
FENCE_OPTIONS_RE = re.compile(r"(?<![\w-])(?:title|hl_lines|linenums)=")


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


def mkdocs_syntax(lines: list[str]) -> bool:
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
    return changed
