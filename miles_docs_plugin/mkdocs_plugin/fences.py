"""A Python-Markdown extension that reads a fenced code block under a list item or inside a
block (an admonition, a tab): the one kind of fence ``fenced_code`` does not read that
CommonMark pages write most (a step's command, indented like the step's text).

pymdownx.superfences reads those too, and much more; for a page that needs nothing else of it,
loading it and pymdownx.highlight costs more than the rest of the page (its import and its
set-up take 15 to 30 ms), and without pymdown-extensions installed (a host without Material) the
fence is not read at all. This extension reads the fences superfences reads the same way:

- an opening line indented with spaces only (no ``>``, no tab left after Python-Markdown's
  whitespace pass), three or more backticks or tildes, a language at most;
- a blank line (or the page's start) above it;
- every non-blank line of the block indented at least as far, and a closing line of exactly
  the opening fence at exactly its indentation, with a blank line (or the page's end) below.

The block becomes a placeholder at the fence's indentation, as superfences makes it, so a list
item or a block keeps it; its code is written as ``fenced_code`` writes a fence at the margin
(``<pre><code class="language-x">``). A block that Python-Markdown then reads as indented code
(a fence indented four spaces past where a list item or a block could hold it) is put back as
it was written, as superfences does: the fence is the code's text. :func:`nested_fences` is
also what :func:`.engine.page_extensions` asks to decide that a page needs no superfences.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from markdown import Extension
from markdown.blockprocessors import CodeBlockProcessor
from markdown.extensions.fenced_code import FencedCodeExtension
from markdown.preprocessors import Preprocessor

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

#: An opening fence this extension reads: indented with spaces, a language at most.
OPEN_RE = re.compile(r"( +)(`{3,}|~{3,})[ ]*\.?([\w#.+-]*)[ ]*")

#: A block: (opening line, closing line, indentation, language).
Fence = tuple[int, int, str, str]


def nested_fences(lines: Sequence[str]) -> Iterator[Fence]:
    """The indented fenced blocks of ``lines`` (as Python-Markdown's whitespace pass leaves a
    page: tabs expanded, blank lines empty) that this extension reads.

    A block is followed as superfences follows it: from its opening line to the first line of
    exactly its fence at exactly its indentation; a non-blank line less indented ends it as no
    block, and the end of the page leaves it open. The lines it took are not searched for
    another opening line, whether or not it is read."""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        m = OPEN_RE.fullmatch(line) if line[:1] == " " else None
        if m is None:
            i += 1
            continue
        indent, marker, lang = m.groups()
        closing = indent + marker
        j = i + 1
        while j < n:
            body = lines[j]
            if body.rstrip(" \t") == closing:
                break
            if body.strip() and not body.startswith(indent):
                j = -j  # less indented: superfences reads no block here
                break
            j += 1
        # a block of its own (Python-Markdown's blank line is one of spaces at most)
        if 0 < j < n and not (i and lines[i - 1].strip(" ")) and \
                not (j + 1 < n and lines[j + 1].strip(" ")):
            yield i, j, indent, lang
        i = abs(j) + 1


def escape(text: str) -> str:
    """Code as fenced_code escapes it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        '"', "&quot;")


class NestedFencePreprocessor(Preprocessor):  # type: ignore[misc]  # Python-Markdown: untyped
    """Each block of :func:`nested_fences` becomes a placeholder of the HTML stash, indented
    as its fence was; its source is kept for :class:`FenceAwareCodeProcessor`."""

    def __init__(self, md: Any, prefix: str, originals: dict[str, tuple[list[str], int]]):
        super().__init__(md)
        self.prefix = prefix
        self.originals = originals

    def run(self, lines: list[str]) -> list[str]:
        found = list(nested_fences(lines)) if any(
            "```" in line or "~~~" in line for line in lines) else []
        if not found:
            return lines
        out: list[str] = []
        done = 0
        for start, end, indent, lang in found:
            width = len(indent)
            code = "".join(line[width:] + "\n" for line in lines[start + 1:end])
            attr = f' class="{self.prefix}{escape(lang)}"' if lang else ""
            placeholder = self.md.htmlStash.store(f"<pre><code{attr}>{escape(code)}</code></pre>")
            self.originals[placeholder] = (lines[start:end + 1], width)
            out.extend(lines[done:start])
            out.append(indent + placeholder)
            done = end + 1
        out.extend(lines[done:])
        return out


class FenceAwareCodeProcessor(CodeBlockProcessor):  # type: ignore[misc]
    """Python-Markdown's indented code, with a fence this extension read inside it put back as
    it was written (the fence's own lines, indented as the code block's are)."""

    def __init__(self, parser: Any, originals: dict[str, tuple[list[str], int]]):
        super().__init__(parser)
        self.originals = originals

    def run(self, parent: Any, blocks: list[str]) -> None:
        if self.originals and blocks and "\x02" in blocks[0]:
            restored: list[str] = []
            for line in blocks[0].split("\n"):
                stripped = line.lstrip(" ")
                original = self.originals.pop(stripped, None)
                if original is None:
                    restored.append(line)
                    continue
                source, width = original
                shift = width - (len(line) - len(stripped))  # what the block's parents took
                restored.extend(text[shift:] for text in source)
            blocks[0] = "\n".join(restored)
        super().run(parent, blocks)


class NestedFencesExtension(Extension):  # type: ignore[misc]
    """Fenced code under list items and in blocks, for pages without pymdownx.superfences."""

    def extendMarkdown(self, md: Any) -> None:
        md.registerExtension(self)
        prefix = "language-"
        for ext in md.registeredExtensions:  # the host's fenced_code options, if it set any
            if isinstance(ext, FencedCodeExtension):
                prefix = ext.getConfig("lang_prefix", prefix)
        self.originals: dict[str, tuple[list[str], int]] = {}
        # after fenced_code (25): a fence at the margin, and what is in it, is its
        md.preprocessors.register(NestedFencePreprocessor(md, prefix, self.originals),
                                  "miles_nested_fences", 24)
        md.parser.blockprocessors.register(FenceAwareCodeProcessor(md.parser, self.originals),
                                           "code", 80)

    def reset(self) -> None:
        self.originals.clear()


def makeExtension(**kwargs: Any) -> NestedFencesExtension:
    return NestedFencesExtension(**kwargs)
