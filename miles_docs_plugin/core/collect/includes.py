"""``pymdownx.snippets`` includes of an MkDocs upstream, read from the pinned tree.

An MkDocs site whose ``mkdocs.yml`` turns on ``pymdownx.snippets`` writes
``--8<-- "includes/note.md"`` (or a block of paths between two ``--8<--`` lines) where a file's
text goes. The host must not run the extension on upstream pages (it would read the host's
files), so the included text is put in the page when the section is collected, as the
extension would: each file's lines indented like the marker, line ranges (``file.md:3:8``,
``:-2``, several ``,``-separated) and sections (``file.md:name`` between
``--8<-- [start:name]`` and ``--8<-- [end:name]``), includes inside included files (a file
already in the chain is skipped), a ``;`` before a marker writes it literally, and a path after
``;`` in a block is left out.

Paths resolve against the extension's ``base_path`` (default ``.``: the folder of
``mkdocs.yml``), staying inside it. Only files of the docs folder are read (a build fetches no
other file of the upstream), checked against their blob ids; an include that names anything
else (a file outside the docs folder, a missing file, a URL, a symlink) is removed, as the
extension removes one it cannot find, and reported. ``auto_append`` is not applied.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..patterns import lazy_re

if TYPE_CHECKING:
    from ..model import Page

#: An include line: ``--8<-- "path"`` (inline) or a lone ``--8<--`` (a block's start or end),
#: after any indentation and ``;`` escapes; as pymdownx.snippets reads them.
MARKER_RE = lazy_re(r"""^(?P<space>[ \t]*)(?P<escape>;*)(?P<all>(?P<inline>-+8<-+[ \t]+)"""
                    r"""(?P<path>"(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?')(?![ \t])|"""
                    r"""(?P<block>-+8<-+)(?![ \t]))\r?$""")
#: A section marker: ``--8<-- [start:name]`` / ``[end:name]`` anywhere in a line.
SECTION_RE = lazy_re(r"""^(?P<pre>.*?)(?<!;)(?!(?<=-)-)(?P<escape>;*)(?P<marker>-+8<-+[ \t]+)"""
                     r"""(?P<section>\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*"""
                     r"""(?P<name>[a-z][-_0-9a-z]*)[ \t]*\])(?P<post>.*?)$""", re.I)
#: ``path``, then line ranges (``:1:5,10:``) or a section (``:name``).
TARGET_RE = lazy_re(r"(?i)(.*?)(?:((?::-?[0-9]*){1,2}(?:(?:,(?=[-0-9:])-?[0-9]*)(?::-?[0-9]*)?)*)|"
                    r"(:[a-z][-_0-9a-z]*))?$")
#: Includes inside includes are followed this deep.
MAX_DEPTH = 16
#: A longer path is not split into ranges (the split backtracks on long text).
MAX_PATH = 1024

#: Reads a file of the repository (path from its root): its text, or None with the reason.
Reader = Callable[[str], "tuple[str | None, str]"]


class Includes:
    """The includes of one section: its extension options and how to read its files."""

    def __init__(self, options: dict[str, Any], config_dir: str, read: Reader,
                 tab_length: int = 4, max_bytes: int = 1 << 62) -> None:
        bases = options.get("base_path", ["."])
        if isinstance(bases, str):
            bases = [bases]
        #: the base folders, from the repository root
        self.bases = [posixpath.normpath(posixpath.join(config_dir, str(b))) for b in bases
                      if isinstance(b, str)]
        self.dedent = bool(options.get("dedent_subsections"))
        self.read = read
        self.tab_length = tab_length
        self.problems: list[tuple[int, str]] = []  #: (0-based line of the page, message)
        #: (0-based line of the page, its number of lines now) per include
        self.inserted: list[tuple[int, int]] = []
        #: how much included text the page may still take in: a file that includes another
        #: many times, which includes another many times… is text to the power of the depth
        self.budget = max_bytes
        self._read: dict[str, tuple[str | None, str]] = {}  #: each file read once
        self._at = 0  #: the line of the page's include being expanded

    def expand(self, lines: list[str]) -> list[str]:
        """The page's lines with every include replaced by the text it names."""
        return self._parse(lines, [], False, top=True)

    def _parse(self, lines: list[str], seen: list[str], is_section: bool, *,
               top: bool = False) -> list[str]:
        out: list[str] = []
        block = False
        for i, line in enumerate(lines):
            m = MARKER_RE.match(line) if "8<" in line else None
            inline = False
            if m:
                if m.group("escape"):
                    out.append(line.replace(";", "", 1))
                    continue
                if block and m.group("inline"):
                    continue  # inline notation directly in a block is ignored
                if m.group("inline"):
                    inline = True
                else:
                    block = not block
                    if top:
                        self._note(i, 0)
                    continue
            elif not block:
                if not is_section and "8<-" in line:
                    s = SECTION_RE.match(line)
                    if s and s.group("escape"):
                        line = (s.group("pre") + s.group("escape").replace(";", "", 1) +
                                s.group("marker") + s.group("section") + s.group("post"))
                    elif s:
                        if top:
                            self._note(i, 0)
                        continue
                out.append(line)
                continue
            if inline and m:
                space, path = m.group("space"), m.group("path")[1:-1].strip()
            else:
                space = line[:len(line) - len(line.lstrip(" \t"))]
                path = line.strip()
                if not path:
                    out.append("")
                    continue
            if path.startswith(";"):
                if top:
                    self._note(i, 0)
                continue
            before = len(out)
            if top:
                self._at = i  # where what goes wrong in this include, or in its own, is shown
            included = self._include(path, seen)
            space = space.expandtabs(self.tab_length)
            out.extend(space + x for x in included)
            if top:
                self._note(i, len(out) - before)
        return out

    def _note(self, i: int, count: int) -> None:
        """Line ``i`` of the page is ``count`` lines now."""
        if count != 1:
            self.inserted.append((i, count))

    def _include(self, written: str, seen: list[str]) -> list[str]:
        target = _target(written)
        if target is None:
            return []
        path, ranges, section = target
        if re.match(r"(?i)https?://", path):
            self._problem(f"{path} is a URL: not downloaded (an include is read from "
                          "the pinned tree only); left out")
            return []
        found = None
        reason = "not in the upstream at this commit"
        for base in self.bases:
            repo_path = posixpath.normpath(posixpath.join(base, path))
            if base != "." and not repo_path.startswith(base.rstrip("/") + "/"):
                continue  # restrict_base_path: outside its base
            if base == "." and (repo_path == ".." or repo_path.startswith("../")):
                continue
            if repo_path not in self._read:
                self._read[repo_path] = self.read(repo_path)
            text, why = self._read[repo_path]
            if text is not None:
                found = (repo_path, text)
                break
            if why:
                reason = why
        if found is None:
            self._problem(f"{path} is {reason}; left out")
            return []
        repo_path, text = found
        if repo_path in seen or len(seen) >= MAX_DEPTH:
            return []
        self.budget -= len(text)
        if self.budget < 0:
            self._problem(f"{path} would make the page larger than the page size limit "
                          "(`max_page_size`); left out")
            return []
        lines = text.split("\n") if text else []
        if lines and ranges:
            lines = _lines(lines, ranges)
            lines = _dedent(lines) if self.dedent else lines
        elif lines and section:
            lines = _section(lines, section)
            lines = _dedent(lines) if self.dedent else lines
        return self._parse(lines, [*seen, repo_path], section is not None)

    def _problem(self, message: str) -> None:
        self.problems.append((self._at, f"pymdownx.snippets include: {message}"))


def _target(path: str) -> tuple[str, list[tuple[int | None, int | None]], str | None] | None:
    """(path, line ranges as 0-based starts and 1-based ends, section) of an include."""
    m = TARGET_RE.match(path) if len(path) <= MAX_PATH else None
    name, spans, section = m.groups() if m else (path, None, None)
    name = name.strip()
    if not name:
        return None
    ranges: list[tuple[int | None, int | None]] = []
    if spans:
        for nums in spans[1:].split(","):
            parts = nums.split(":")
            start = int(parts[0]) if parts[0] else None
            end = int(parts[1]) if len(parts) > 1 and parts[1] else None
            ranges.append((start if start is None or start < 0 else max(0, start - 1), end))
    return name, ranges, section[1:] if section else None


def _lines(lines: list[str], ranges: list[tuple[int | None, int | None]]) -> list[str]:
    total = len(lines)
    out: list[str] = []
    for start, end in ranges:
        if start is not None and start < 0:
            start = min(max(total + start, 0), total)
        if end is not None and end < 0:
            end = min(max(total + 1 + end, 0), total)
        out.extend(lines[start:end])
    return out


def _section(lines: list[str], name: str) -> list[str]:
    out: list[str] = []
    inside = False
    for line in lines:
        m = SECTION_RE.match(line) if "8<-" in line else None
        if m and m.group("escape"):
            line = (m.group("pre") + m.group("escape").replace(";", "", 1) + m.group("marker") +
                    m.group("section") + m.group("post"))
        elif m is not None and m.group("name") == name:
            if m.group("type") == "start":
                inside = True
                continue
            break
        elif m and inside:
            continue
        if inside:
            out.append(line)
    return out


def _dedent(lines: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(lines)).split("\n")


def record_spans(page: Page, inserted: list[tuple[int, int]]) -> None:
    """Keep where included text stands in ``page`` (``page.extra["snippet_lines"]``: the
    first line and the number of lines of each, in the lines diagnostics report), given
    ``inserted``: per replaced line of the body (0-based), how many lines it became. A
    diagnostic inside included text is then reported at the line of its include."""
    if all(n == 1 for _, n in inserted):
        return
    base = page.body_line - page.line_delta + 1
    spans = []
    shift = 0
    for i, n in sorted(inserted):
        spans.append((base + i + shift, n))
        shift += n - 1
    page.extra["snippet_lines"] = spans


def include_snippets(page: Page, options: dict[str, Any], config_dir: str, read: Reader,
                     max_bytes: int = 1 << 62) -> list[tuple[int, str]]:
    """Put the text of the page's includes in it; returns the includes left out, as (1-based
    line of the page, message)."""
    body = page.content[page.body_start:]
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    includes = Includes(options, config_dir, read, max_bytes=max_bytes)
    expanded = includes.expand(lines)
    if expanded != lines:
        page.content = page.content[:page.body_start] + newline.join(expanded)
        record_spans(page, includes.inserted)
    base = page.body_line - page.line_delta + 1
    return [(base + i, message) for i, message in includes.problems]


def upstream_line(spans: list[tuple[int, int]], line: int) -> int:
    """The upstream line of a line of the prepared page, given where snippets were inlined
    (``(first line, number of lines)`` each): inside a snippet, the line of its tag."""
    shift = 0
    for start, count in spans:
        if line < start:
            break
        if line < start + count:
            return start - shift
        shift += count - 1
    return line - shift
