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
``mkdocs.yml``), staying inside it. Files are read from the pinned tree only, checked against
their blob ids: the docs folder, and the files outside it that includes name (``README.md``),
which the fetch brings along (:func:`named_files`; at most 64). An include that names anything
else (a missing file, a URL, a symlink) is removed, as the extension removes one it cannot
find, and reported. The files of ``auto_append`` are appended to every page, as a block of
paths at its end, as the extension appends them.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..model import safe_path
from ..patterns import lazy_re
from .upstream import RelativeTo

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
#: Includes inside includes are followed this deep.
MAX_DEPTH = 16
#: Includes a page may expand (each one is a look-up in the tree).
MAX_INCLUDES = 10_000

#: Reads a file of the repository (path from its root): its text, or None with the reason.
Reader = Callable[[str], "tuple[str | None, str]"]


class Includes:
    """The includes of one section: its extension options and how to read its files."""

    def __init__(self, options: dict[str, Any], config_dir: str, read: Reader,
                 tab_length: int = 4, max_bytes: int = 1 << 62, page_dir: str = "",
                 docs_dir: str = "") -> None:
        bases = options.get("base_path", ["."])
        if isinstance(bases, str):
            bases = [bases]
        elif not isinstance(bases, list):
            bases = ["."]
        #: the base folders (or files), from the repository root; MkDocs' ``!relative`` is the
        #: page's folder, ``!relative $config_dir`` / ``$docs_dir`` those folders
        self.bases = []
        for base in bases:
            if isinstance(base, RelativeTo):
                for name, folder in (("$config_dir", config_dir), ("$docs_dir", docs_dir)):
                    if base == name or base.startswith(name + "/"):
                        base = folder + base[len(name):]
                        break
                else:
                    base = posixpath.join(page_dir, base)
                self.bases.append(posixpath.normpath(base or "."))
            elif isinstance(base, str):
                self.bases.append(posixpath.normpath(posixpath.join(config_dir, base)))
        self.dedent = bool(options.get("dedent_subsections"))
        self.read = read
        self.tab_length = tab_length
        self.problems: list[tuple[int, str]] = []  #: (0-based line of the page, message)
        #: (0-based line of the page, its number of lines now) per include
        self.inserted: list[tuple[int, int]] = []
        #: how much included text the page may still take in, counted as written (lines
        #: repeated by ranges, the indentation before each line) at every level: a file that
        #: includes another many times, which includes another many times… grows as the
        #: power of the depth
        self.budget = max_bytes
        self.includes = MAX_INCLUDES  #: how many more includes the page may expand
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
                        line = _unescaped(s)
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
            space = space.expandtabs(self.tab_length)
            included = self._include(path, seen)
            if not self._take(sum(map(len, included)) + len(included) * (len(space) + 1),
                              path):
                included = []
            out.extend(space + x for x in included)
            if top:
                self._note(i, len(out) - before)
        return out

    def _take(self, size: int, path: str) -> bool:
        """Whether the page may take in ``size`` more bytes of ``path`` (and count them)."""
        if size > self.budget:
            self._problem(f"{path} would make the page larger than the page size limit "
                          "(`max_page_size`); left out")
            self.budget = -1  # nothing more: one report, not one per include left
            return False
        self.budget -= size
        return True

    def _note(self, i: int, count: int) -> None:
        """Line ``i`` of the page is ``count`` lines now."""
        if count != 1:
            self.inserted.append((i, count))

    def _include(self, written: str, seen: list[str]) -> list[str]:
        if self.budget < 0:
            return []
        self.includes -= 1
        if self.includes < 0:
            if self.includes == -1:
                self._problem(f"more than {MAX_INCLUDES} includes in the page; the rest are "
                              "left out")
            return []
        target = _target(written)
        if target is None:
            return []
        path, ranges, section = target
        if re.match(r"(?i)https?://", path):
            self._problem(f"{path} is a URL: not downloaded (an include is read from the "
                          "pinned tree only); left out")
            return []
        found = None
        reason = "not in the upstream at this commit"
        for repo_path in self._candidates(path):
            if repo_path not in self._read:
                self._read[repo_path] = self.read(repo_path)
            text, why = self._read[repo_path]
            if text is not None:
                found = (repo_path, text)
                break
            if why:  # there, but not to be read: the first base that has it decides
                reason = why
                break
        if found is None:
            self._problem(f"{path} is {reason}; left out")
            return []
        repo_path, text = found
        if repo_path in seen or len(seen) >= MAX_DEPTH:
            return []
        lines = text.split("\n") if text else []
        if lines and ranges:
            lines = self._lines(lines, ranges, path)
            lines = _dedent(lines) if self.dedent else lines
        elif lines and section:
            lines = _section(lines, section)
            lines = _dedent(lines) if self.dedent else lines
        return self._parse(lines, [*seen, repo_path], section is not None)

    def _candidates(self, path: str) -> Iterator[str]:
        """Where ``path`` may be, base by base: inside a base folder (restrict_base_path: not
        outside it), or the base itself when the base is that file."""
        for base in self.bases:
            if base != "." and not safe_path(base):
                continue  # outside the repository
            repo_path = posixpath.normpath(posixpath.join(base, path))
            if safe_path(repo_path) and (base == "." or repo_path.startswith(base + "/")):
                yield repo_path
            if posixpath.normpath(posixpath.join(posixpath.dirname(base), path)) == base:
                yield base

    def _lines(self, lines: list[str], ranges: list[tuple[int | None, int | None]],
               path: str) -> list[str]:
        """The line ranges of a file, each measured before it is taken (``f.md::,:,:…``
        repeats the whole file once per range)."""
        total = len(lines)
        ends = [0]
        for line in lines:
            ends.append(ends[-1] + len(line) + 1)
        out: list[str] = []
        for start, end in ranges:
            if start is not None and start < 0:
                start = min(max(total + start, 0), total)
            if end is not None and end < 0:
                end = min(max(total + 1 + end, 0), total)
            first, last = slice(start, end).indices(total)[:2]
            if last > first and not self._take(ends[last] - ends[first], path):
                return []
            out.extend(lines[start:end])
        return out

    def _problem(self, message: str) -> None:
        self.problems.append((self._at, f"pymdownx.snippets include: {message}"))


def _target(path: str) -> tuple[str, list[tuple[int | None, int | None]], str | None] | None:
    """(path, line ranges as 0-based starts and 1-based ends, section) of an include."""
    name, spans, section = _split(path)
    name = name.strip()
    if not name:
        return None
    ranges: list[tuple[int | None, int | None]] = []
    if spans:
        for nums in spans[1:].split(","):
            parts = nums.split(":")
            start = int(parts[0]) if parts[0] not in ("", "-") else None
            end = int(parts[1]) if len(parts) > 1 and parts[1] not in ("", "-") else None
            ranges.append((start if start is None or start < 0 else max(0, start - 1), end))
    return name, ranges, section[1:] if section else None


def _split(path: str) -> tuple[str, str | None, str | None]:
    """``path`` as (file, line ranges, section): the ranges (``:1:5,10:``, ``:-2``) or the
    section (``:name``) start at the first ``:`` after which the rest of ``path`` is one of
    them, as pymdownx.snippets reads it. One pass from the end per kind of question, so a
    long path with many ``:`` takes linear time."""
    n = len(path)
    if ":" not in path:
        return path, None, None
    digits = [n] * (n + 1)  # the end of the run of digits from each index
    for i in range(n - 1, -1, -1):
        digits[i] = digits[i + 1] if "0" <= path[i] <= "9" else i

    def number_end(i: int) -> int:  # the end of ``-?[0-9]*`` from ``i``
        return digits[i + 1] if i < n and path[i] == "-" else digits[i]

    # tail[i]: the rest from ``i`` is ``,N``/``,N:N`` items only (each comma before something
    # that can start a number)
    tail = [False] * (n + 1)
    tail[n] = True
    for i in range(n - 1, -1, -1):
        if path[i] == "," and i + 1 < n and path[i + 1] in "-0123456789:":
            j = number_end(i + 1)
            if j < n and path[j] == ":":
                j = number_end(j + 1)
            tail[i] = tail[j]
    name = n  # where the run of section-name characters that ends the path starts
    while name > 0 and (path[name - 1].isascii() and (path[name - 1].isalnum() or
                                                      path[name - 1] in "-_")):
        name -= 1
    colon = path.find(":")
    while colon != -1:
        end = number_end(colon + 1)
        if end < n and path[end] == ":":
            end = number_end(end + 1)
        if tail[end]:
            return path[:colon], path[colon:], None
        if name <= colon + 1 < n and path[colon + 1].isascii() and path[colon + 1].isalpha():
            return path[:colon], None, path[colon:]
        colon = path.find(":", colon + 1)
    return path, None, None


def _section(lines: list[str], name: str) -> list[str]:
    out: list[str] = []
    inside = False
    for line in lines:
        m = SECTION_RE.match(line) if "8<-" in line else None
        if m and m.group("escape"):
            line = _unescaped(m)
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


def _unescaped(m: re.Match[str]) -> str:
    """A section marker written with ``;`` before it: the marker as text, one ``;`` less."""
    return (m.group("pre") + m.group("escape").replace(";", "", 1) + m.group("marker") +
            m.group("section") + m.group("post"))


def auto_append(options: dict[str, Any]) -> list[str]:
    """The lines pymdownx.snippets appends to every page for its ``auto_append`` files: a
    block of their paths (none without the option)."""
    names = options.get("auto_append")
    if not isinstance(names, list) or not names or \
            not all(isinstance(name, str) and name.strip() for name in names):
        return []
    return "\n\n-8<-\n{}\n-8<-\n".format("\n\n".join(names)).split("\n")


def text_of(data: str) -> str:
    """A file's or a page's text as MkDocs reads it: no byte-order mark, every line ending
    a newline."""
    return data.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _dedent(lines: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(lines)).split("\n")


def named_files(pages: dict[str, str], options: dict[str, Any], config_dir: str,
                docs_dir: str, read: Reader, max_bytes: int = 1 << 62) -> set[str]:
    """The files outside the docs folder that the includes of ``pages`` (docs-relative path ->
    text) name, found as the includes find files (the first base that has one decides),
    includes in the files ``read`` has already given followed too. ``read`` gives a file of
    the docs folder or a file outside it already at hand, and ``(None, "outside")`` for one
    outside it not yet at hand: that one is named."""
    named: set[str] = set()
    prefix = docs_dir.rstrip("/") + "/"

    def note(repo_path: str) -> tuple[str | None, str]:
        text, why = read(repo_path)
        if text is None and why and not repo_path.startswith(prefix):
            named.add(repo_path)
        return text, why

    texts = list(pages.items())
    appended = auto_append(options)
    if appended:  # what every page gets, read as a page at the top of the docs folder would
        texts.append(("index.md", "\n".join(appended)))
    for path, text in texts:
        if "8<" in text:
            page_dir = posixpath.dirname(posixpath.join(docs_dir, path))
            Includes(options, config_dir, note, page_dir=page_dir, docs_dir=docs_dir,
                     max_bytes=max_bytes).expand(text_of(text).split("\n"))
    return named


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


def include_snippets(page: Page, options: dict[str, Any], config_dir: str, docs_dir: str,
                     read: Reader, max_bytes: int = 1 << 62) -> list[tuple[int, str]]:
    """Put the text of the page's includes in it; returns the includes left out, as (1-based
    line of the page, message). ``config_dir``, ``docs_dir``: the folders of ``mkdocs.yml``
    and of the pages, from the repository root."""
    lines = text_of(page.content[page.body_start:]).split("\n")
    lines.extend(auto_append(options))
    page_dir = posixpath.dirname(posixpath.join(docs_dir, page.path))
    includes = Includes(options, config_dir, read, max_bytes=max_bytes, page_dir=page_dir,
                        docs_dir=docs_dir)
    expanded = includes.expand(lines)
    if expanded != lines:
        page.content = page.content[:page.body_start] + "\n".join(expanded)
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
