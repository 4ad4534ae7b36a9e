"""Mintlify snippets, inlined from the pinned tree where a page uses them.

Two forms (Mintlify's reusable snippets): a default import of an ``.mdx``/``.md`` file used as a
component (``import Intro from '/snippets/intro.mdx'`` … ``<Intro word="x" />``), and the older
``<Snippet file="intro.mdx" />`` (looked up in ``snippets/``, then ``_snippets/``). The snippet's
text replaces the tag, indented like it; ``{prop}`` placeholders take the tag's attributes;
its own imports and comments are removed, and its relative links are made relative to the docs
root (``/…``), so they still point where the snippet's author meant. Snippets are read from the
checkout's tree only (no symlink, nothing outside the docs folder); a missing one is reported.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ..collect.includes import record_spans
from ..patterns import lazy_re
from .blocks import names_file
from .markdown import scan
from .mdx import (
    Tag,
    code_lines,
    esm_blocks,
    fences,
    read_tag,
    strip_module_syntax,
    take_snippet_imports,
)
from .scanned import LINK_ATTRS, rewrite

if TYPE_CHECKING:
    from ..context import BuildContext
    from ..model import Page, Section

#: Snippets inside snippets are followed this deep (and no further: a loop ends here).
MAX_NESTING = 8
#: A snippet's tag may span this many lines (``<Snippet\n  file="x.mdx"\n/>``).
MAX_TAG_LINES = 40
SNIPPET_DIRS = ("snippets", "_snippets")
FRONT_MATTER_RE = lazy_re(r"\A---[ \t]*\r?\n.*?\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


def _read(section: Section, rel: str) -> str | None:
    rel = posixpath.normpath(rel).lstrip("/")
    if rel.startswith("../") or rel == "..":
        return None
    repo_path = section.repo_path(rel)
    if section.checkout.tree.kind(repo_path) != "blob":
        return None
    try:
        return (section.checkout.root / repo_path).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _locate(section: Section, written: str, from_path: str) -> str | None:
    """Docs-relative path of a snippet import (``/snippets/x.mdx``, ``./x.mdx``, ``../x``)."""
    if written.startswith("/"):
        rel = written.lstrip("/")
    else:
        rel = posixpath.join(posixpath.dirname(from_path), written)
    rel = posixpath.normpath(rel)
    return None if rel.startswith("..") else rel


#: A line that is one component tag and nothing else (``<Note>``, ``</Tab>``, ``<Card a="b">``)
TAG_LINE_RE = lazy_re(r"""^[ \t]*</?[A-Z][\w.]*(?:\s(?:[^<>"']|"[^"]*"|'[^']*')*)?/?>[ \t]*$""",
                      re.M)


#: A component's ``img="…"`` (its value, quoted).
COMPONENT_IMG_RE = lazy_re(r"""<[A-Z][\w.]*\s(?:[^<>"']|"[^"]*"|'[^']*')*?(?<![\w-])img\s*=\s*"""
                           r"""(?:"(?P<dq>[^"<>\n]*)"|'(?P<sq>[^'<>\n]*)')""")


def _absolute_links(text: str, rel: str) -> str:
    """Relative links of the snippet at ``rel`` rewritten against the docs root.

    MDX reads the text between component tags as Markdown; CommonMark would read a tag line
    and what follows as one HTML block, so the scan sees the tag lines as blank (spaces, so
    offsets stay those of ``text``)."""
    base = posixpath.dirname(rel)
    replacements = []
    links = scan(text).links
    if "<" in text:
        # the Markdown links between tag lines, as MDX reads them; the tags' own links
        # (``href``, ``src``) from the text as it is
        seen = TAG_LINE_RE.sub(lambda m: " " * len(m.group()), text)
        if seen != text:
            spans = [(link.start, link.end) for link in links]
            links = sorted([*links, *(link for link in scan(seen).links if not any(
                link.start < end and start < link.end for start, end in spans))],
                key=lambda link: link.start)
    def rebased(dest: str) -> str | None:
        """``dest`` from the docs root, or None for what needs no rebasing."""
        if not dest or dest.startswith(("/", "#")) or re.match(r"^[A-Za-z][\w+.-]*:", dest):
            return None
        return "/" + posixpath.normpath(posixpath.join(base, dest))

    for link in links:
        new = rebased(link.dest)
        if new is None or (link.kind == "html" and link.attr not in LINK_ATTRS
                           and not names_file(link.dest)):
            continue  # (an icon's name, ``icon="star"``, is not a file)
        if link.kind == "html":
            value = new if link.quote else f'"{new}"'
        else:
            value = f"<{new}>" if link.angle or " " in new else new
        replacements.append((link.start, link.end, value))
    if "img" in text:
        # a card's picture (``img``: not an attribute of HTML, so not one the scan reports)
        for m in COMPONENT_IMG_RE.finditer(text):
            group = "dq" if m.group("dq") is not None else "sq"
            dest = m.group(group)
            new = rebased(dest) if names_file(dest) else None
            if new is not None:
                replacements.append((m.start(group), m.end(group), new))
    return rewrite(text, replacements) if replacements else text


def _expand(section: Section, rel: str, props: dict[str, str], depth: int,
            problems: list[str]) -> list[str] | None:
    text = _read(section, rel)
    if text is None:
        return None
    text = FRONT_MATTER_RE.sub("", text, count=1)
    text = _absolute_links(text, rel)
    lines = text.replace("\r\n", "\n").split("\n")
    code = code_lines(fences(lines))
    imports = strip_module_syntax(lines, code)
    if props:
        for i, line in enumerate(lines):
            if i not in code and "{" in line:
                lines[i] = re.sub(r"\{\s*(\w+)\s*\}",
                                  lambda m: props.get(m.group(1), m.group(0)), line)
    if depth < MAX_NESTING:
        _inline(lines, code, imports, section, rel, depth + 1, problems)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _inline(lines: list[str], code: set[int], imports: dict[str, str], section: Section,
            from_path: str, depth: int, problems: list[str],
            inserted: list[tuple[int, int]] | None = None) -> bool:
    changed = False
    i = len(lines) - 1
    while i >= 0:  # bottom-up: inserted lines do not move the ones still to visit
        line = lines[i]
        s = line.lstrip()
        if i in code or not s.startswith("<") or not s[1:2].isupper():
            i -= 1
            continue
        indent = line[:len(line) - len(s)]
        found = _tag_alone(lines, i, code)
        if found is None:
            i -= 1
            continue
        tag, span = found
        rel: str | None = None
        if tag.name == "Snippet" and "file" in tag.attrs:
            name = tag.attrs["file"].lstrip("/")
            candidates = [name] + [f"{d}/{name}" for d in SNIPPET_DIRS]
            rel = next((c for c in candidates if _read(section, c) is not None),
                       f"snippets/{name}")
            props = {k: v for k, v in tag.attrs.items() if k != "file"}
        elif tag.name in imports:
            rel = _locate(section, imports[tag.name], from_path)
            props = tag.attrs
        else:
            i -= 1
            continue
        expanded = _expand(section, rel, props, depth, problems) if rel else None
        if expanded is None:
            problems.append(f"snippet {rel or imports.get(tag.name)} used by <{tag.name}> is "
                            "not in the pinned tree; it is left out")
            lines[i:i + span] = [""] * span  # the lines stay where they were
        else:
            new = [indent + x if x.strip() else "" for x in expanded] or [""]
            # the tag's first line becomes the snippet, its other lines blank ones (so the
            # lines below move by the snippet's length only, as record_spans counts)
            lines[i:i + span] = new + [""] * (span - 1)
            if inserted is not None:
                inserted.append((i, len(new)))
        changed = True
        i -= 1
    return changed


def _tag_alone(lines: list[str], i: int, code: set[int]) -> tuple[Tag, int] | None:
    """The self-closing component tag that starts line ``i`` and ends a line, alone on its
    lines (``<Snippet file="x.mdx" />``, or over several: ``<Snippet\n  file="x.mdx"\n/>``),
    and how many lines it spans; None for anything else."""
    line = lines[i]
    at = len(line) - len(line.lstrip())
    tag = read_tag(line, at)
    span = 1
    if tag is None:
        # a tag across lines: read again with each line that follows (not past a blank line)
        text = line
        while tag is None and span < MAX_TAG_LINES and i + span < len(lines) and \
                i + span not in code and lines[i + span].strip():
            text += "\n" + lines[i + span]
            span += 1
            tag = read_tag(text, at)
        line = text
    if tag is None or tag.closing or not tag.self_closing or line[tag.end:].strip():
        return None
    return tag, span


def inline_snippets(lines: list[str], code: set[int], imports: dict[str, str], page: Page,
                    section: Section, ctx: BuildContext) -> bool:
    """Replace every snippet use in ``lines`` (a page body) by the snippet's text."""
    problems: list[str] = []
    inserted: list[tuple[int, int]] = []
    changed = _inline(lines, code, imports, section, page.path, 0, problems, inserted)
    record_spans(page, inserted)  # where the snippets' lines are (see upstream_line)
    for message in problems:
        ctx.report(section, page.path, None, "snippet", message)
    return changed


def inline_page_snippets(page: Page, ctx: BuildContext) -> None:
    """For an engine that reads MDX itself (Mintlify): the page's snippets inlined and their
    imports removed, the rest of its MDX as written. The upstream's snippet files are not pages
    of the host, and an import of one would name nothing there."""
    body = page.content[page.body_start:]
    if "<Snippet" not in body and "import" not in body:
        return
    lines, code, newline = _body_lines(body)
    imports = take_snippet_imports(lines, code, lambda name: _inlined(lines, code, name))
    section = ctx.sections[page.source]
    if inline_snippets(lines, code, imports, page, section, ctx) or imports:
        page.content = page.content[:page.body_start] + newline.join(lines)


def _inlined(lines: list[str], code: set[int], name: str) -> bool:
    """Whether every use of the component ``name`` in ``lines`` is one that :func:`_inline`
    replaces (a self-closing tag alone on its lines): only then may its import go. Otherwise
    the import stays, for Mintlify to resolve (a trusted source's, see
    :func:`trusted_imports`) or for the sandbox to remove with the tags it defined."""
    tag_re = re.compile(rf"<{re.escape(name)}(?![\w.:-])")
    for i, line in enumerate(lines):
        if i in code or f"<{name}" not in line:
            continue
        s = line.lstrip()
        if len(tag_re.findall(line)) != 1 or not tag_re.match(s) or \
                _tag_alone(lines, i, code) is None:
            return False
    return True


def _body_lines(body: str) -> tuple[list[str], set[int], str]:
    """A page body (MDX) as its lines, the lines that are code (MDX's only code is fenced),
    and its newline."""
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    return lines, code_lines(fences(lines)), newline


#: The module a statement imports from (``} from "/snippets/x.jsx";`` ends a multi-line one;
#: ``import "./x.css"`` imports one for its effect), on any line of a file.
FROM_RE = lazy_re(r"""(\bfrom\s*|^import\s*)(["'])([^"'\n]+)\2""", re.M)
#: Files a snippet module may import in turn (read for their own imports).
MODULE_SUFFIXES = (".mdx", ".md", ".jsx", ".js", ".tsx", ".ts", ".mjs")


def trusted_imports(page: Page, section: Section, ctx: BuildContext) -> None:
    """For a trusted source on an engine that reads MDX (Mintlify): the files its page
    imports from the docs folder (``.jsx`` components, named exports of snippets) are
    published with the section, as assets under its mount, and an import from the docs root
    (``/snippets/x.jsx``) is made to name the mounted copy; a relative one names it already.
    A file those files import is published too; one imported by a path that leaves the docs
    folder, or that is not in the pinned tree, is reported."""
    body = page.content[page.body_start:]
    if "import" not in body and "export" not in body:
        return
    lines, code, newline = _body_lines(body)
    changed = False
    for i in (n for a, b in esm_blocks(lines, code) for n in range(a, b)):
        line = lines[i]

        def spec(m: re.Match[str], at: int = i) -> str:
            written = m.group(3)
            if not written.startswith(("/", "./", "../")):
                return m.group(0)  # a package (Mintlify's own), or a URL
            rel = _publish(section, written, page.path, ctx, page, at)
            if rel is None or not written.startswith("/"):
                return m.group(0)
            return f"{m.group(1)}{m.group(2)}/{section.host_path(rel)}{m.group(2)}"

        new = FROM_RE.sub(spec, line)
        if new != line:
            lines[i] = new
            changed = True
    if changed:
        page.content = page.content[:page.body_start] + newline.join(lines)


def _publish(section: Section, written: str, from_path: str, ctx: BuildContext, page: Page,
             line: int, depth: int = 0) -> str | None:
    """Publish the file ``written`` (imported by ``from_path``) and what it imports; its
    docs-relative path, or None (reported) when it is not a file of the pinned docs tree."""
    rel = _locate(section, written, from_path)
    if rel is None or section.checkout.tree.kind(section.repo_path(rel)) != "blob":
        ctx.report(section, page.path, page.body_line + line + 1, "snippet",
                   f"{written} (imported by {from_path}) is not a file of the pinned docs "
                   "folder; the import is left as written")
        return None
    if rel in section.assets:
        return rel
    section.add_asset(rel)
    text = _read(section, rel) if rel.endswith(MODULE_SUFFIXES) else None
    if depth < MAX_NESTING and text is not None:
        if rel.endswith((".mdx", ".md")):  # an import shown in a code block is code
            lines, code, newline = _body_lines(text)
            text = newline.join("" if i in code else x for i, x in enumerate(lines))
        for m in FROM_RE.finditer(text):
            inner = m.group(3)
            if inner.startswith("/"):
                ctx.report(section, page.path, page.body_line + line + 1, "snippet",
                           f"{rel} imports {inner} from the docs root, which is not where the "
                           "host publishes it; use a relative import upstream")
            elif inner.startswith(("./", "../")):
                _publish(section, inner, rel, ctx, page, line, depth + 1)
    return rel
