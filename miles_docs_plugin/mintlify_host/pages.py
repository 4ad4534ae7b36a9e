"""Mintlify's page writing, as a plugin of the pipeline: the component tags restored as
upstream wrote them (Mintlify reads them itself), the MDX made valid, and pages of untrusted
sources made inert (:mod:`.sandbox`)."""

from __future__ import annotations

import html
import re

from .. import hookimpl
from ..core.collect.upstream import UpstreamSite
from ..core.context import BuildContext
from ..core.errors import Severity
from ..core.model import Page, Section
from ..core.plugins import BUILTIN_PREFIX
from ..core.section.sandbox import tagless
from ..core.transform.blocks import (
    ANCHOR_RE,
    INLINE_MARK,
    LINK_LINE_RE,
    Block,
    image_attrs,
    read_image_links,
)
from ..core.transform.components import component_id
from ..core.transform.mdx import HTML_MARKDOWN_LINES, JOINED_TAGS, OPENER, read_tag
from ..core.transform.openapi import append_reference
from ..core.transform.snippets import inline_page_snippets, trusted_imports
from .mdx import code_structure, fence_indented, valid_mdx
from .mkdocs_syntax import mkdocs_syntax
from .sandbox import safe_front_matter, sanitize_body
from .titles import HEADING, take_heading

#: the built-in that writes an endpoint's reference (``disable: [openapi]`` turns it off)
OPENAPI_PLUGIN = BUILTIN_PREFIX + "openapi"


class MintlifyPages:
    """Mintlify's page writing, after the built-in link rules (which write site-root links
    through :meth:`MintlifyEngine.doc_link`)."""

    @hookimpl(tryfirst=True)  # before the component plugin neutralises tags and adds a title
    def mdp_prepare_page(self, page: Page, ctx: BuildContext) -> None:
        inline_page_snippets(page, ctx)  # what follows sees them as if upstream wrote them
        section = ctx.sections[page.source]
        if "openapi" in page.meta and ctx.hooks.pm.has_plugin(OPENAPI_PLUGIN):
            # ``openapi:`` names a spec by its path in the docs folder, which Mintlify would
            # look up in the host's (where the section's spec is not), or a URL it would
            # fetch: the reference is written into the page from the pinned spec, as for the
            # other engines, and is then read as the upstream's own text (links, sandbox);
            # the line goes (the sandbox removes it from an untrusted page)
            written = append_reference(page, ctx, mdx=True)
            page.extra["openapi_written"] = written
            if written and not section.source.sandboxed:
                _drop_front_key(page, "openapi")
        if section.upstream is not None and section.upstream.mkdocs:
            _mkdocs_blocks(page, section, ctx)
            _mkdocs_syntax(page, section.upstream)
        if not (section.upstream is not None and section.upstream.mintlify):
            # a page written for MkDocs or GitHub: its leading "# Heading" is its title,
            # which Mintlify shows from the front matter (written with the page: titles.py)
            body = take_heading(page, page.content[page.body_start:])
            page.content = page.content[:page.body_start] + body
        page.extra["mintlify_body"] = page.content[page.body_start:]
        # Mintlify shows the front matter title itself; the heading taken out names the page
        # where the core lists it (a generated overview)
        page.title = page.extra.get(HEADING) if "title" not in page.meta else None

    # A plain hook registered after the built-ins: it runs after the links (tryfirst) and
    # before the component plugin would write components in another engine's syntax.
    @hookimpl
    def mdp_transform_page(self, page: Page, ctx: BuildContext) -> None:
        section = ctx.sections[page.source]
        # what is code, seen with the component tags out (the lines stay where they are)
        code, indented = code_structure(page.content[page.body_start:],
                                        page.extra["mintlify_body"],
                                        not page.path.lower().endswith(".mdx"))
        self._restore(page, section, ctx)
        body = valid_mdx(page.content[page.body_start:], code)
        page.content = page.content[:page.body_start] + body
        if section.source.sandboxed:
            self._sandbox(page, section, ctx, code)
        else:
            trusted_imports(page, section, ctx)
        page.content = page.content[:page.body_start] + fence_indented(
            page.content[page.body_start:], indented)

    @staticmethod
    def _restore(page: Page, section: Section, ctx: BuildContext) -> None:
        """Put the component tags back as upstream wrote them (with rewritten hrefs) and undo
        the re-indentation of their content: Mintlify reads them itself."""
        original: str = page.extra.pop("mintlify_body")
        blocks: list[Block] = page.extra.pop("components", None) or []
        body = page.content[page.body_start:]
        newline = "\r\n" if "\r\n" in body else "\n"
        lines = body.split(newline)
        orig = original.split(newline)
        if len(lines) != len(orig):  # pragma: no cover - the component plugin keeps lines
            ctx.report(section, page.path, None, "component",
                       "components could not be restored; they are written as plain Markdown")
            return
        for i in page.extra.pop(HTML_MARKDOWN_LINES, None) or []:
            # the opener the components plugin put before the line's first tag (first: a
            # one-line element's content is read back from its line below)
            at = len(lines[i]) - len(lines[i].lstrip())
            if lines[i].startswith(OPENER, at):
                lines[i] = lines[i][:at] + lines[i][at + len(OPENER):]
        tags: dict[int, str] = {}

        def visit(block: Block) -> None:
            # the opening tag as written, on every line it spans (its href may be on any)
            opening = "\n".join(orig[block.start:block.open_end + 1])
            current = lines[block.start]
            if component_id(block) and not (block.name[:1].isupper() and "href" in block.attrs):
                current = ANCHOR_RE.sub("", current, count=1)  # its id, for the link scan
            if block.name[:1].isupper():  # its icon and picture, as the link rules wrote them
                images, current = read_image_links(current, image_attrs(block.attrs))
                for name, url in images.items():
                    opening = _with_attr(opening, name, url)
            # the link to its href, then (after a mark) what stood on the tag's line
            current, mark, text = current.partition(INLINE_MARK)
            link = LINK_LINE_RE.match(current) if "href" in block.attrs else None
            if link:
                href = link.group("href").strip()
                if href.startswith("<") and href.endswith(">"):
                    href = href[1:-1]
                opening = _with_attr(opening, "href", href)
            if block.inline and (mark or not link):
                tag_end = opening.find(">") + 1
                at = opening.find(block.inline, tag_end)
                if at >= 0:
                    opening = (opening[:at] + (text if mark else current).strip()
                               + opening[at + len(block.inline):])
            for k, text in enumerate(opening.split("\n")):
                tags[block.start + k] = text
            if block.end > block.open_end:
                tags[block.end] = orig[block.end]
            for child in block.children:
                visit(child)

        for block in blocks:
            visit(block)
        for first, last in page.extra.pop(JOINED_TAGS, None) or []:
            written = orig[first:last + 1]
            for k, text in enumerate(_with_links(written, lines[first])):
                tags[first + k] = text
        for i, line in enumerate(lines):
            if i in tags:
                lines[i] = tags[i]
            elif line != orig[i]:
                cur_ws = len(line) - len(line.lstrip())
                orig_ws = len(orig[i]) - len(orig[i].lstrip())
                lines[i] = orig[i][:orig_ws] + line[cur_ws:]
        page.content = page.content[:page.body_start] + newline.join(lines)

    @staticmethod
    def _sandbox(page: Page, section: Section, ctx: BuildContext, code: set[int]) -> None:
        body, findings = sanitize_body(page.content[page.body_start:], code)
        for line, message in findings:
            ctx.report(section, page.path, page.body_line + line + 1, "mdx",
                       f"{message} (MDX runs as code; set `trust: full` to allow it)",
                       Severity.WARNING)
        front = ""
        if page.body_start:
            front, removed = safe_front_matter(page.meta, page.body_line)
            if not removed and all(isinstance(v, str) and tagless(v) == v
                                   for v in page.meta.values()):
                front = page.content[:page.body_start]  # nothing to change: as written
            for key in removed:
                if key == "openapi" and page.extra.get("openapi_written"):
                    continue  # written into the page (mdp_prepare_page)
                ctx.report(section, page.path, _front_line(page.text, key), "mdx",
                           f"front matter key {key!r} removed (untrusted pages keep "
                           "title, description and sidebarTitle)", Severity.WARNING)
        page.content = front + body
        page.body_start = len(front)


def _mkdocs_blocks(page: Page, section: Section, ctx: BuildContext) -> None:
    """An MkDocs upstream's admonitions, collapsibles and tabs (``!!! note``, ``??? tip``,
    ``=== "Tab"``) as Mintlify's components, and its ``:::`` autodoc lines replaced and
    reported, as for an engine without them: as written, MDX showed the markers as text and
    their indented content as code."""
    body = page.content[page.body_start:]
    if not ("!!!" in body or "???" in body or "===" in body or ":::" in body):
        return
    from ..core.transform.components import DIALECT_RE
    from ..core.transform.dialect import to_components
    from ..core.transform.mdx import code_lines, fences

    if DIALECT_RE.search(body) is None:
        return
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    changed, notes = to_components(lines, code_lines(fences(lines)))
    for line, message in notes:
        ctx.report(section, page.path, line + 1 + page.body_line, "dialect", message)
    if changed:
        page.content = page.content[:page.body_start] + newline.join(lines)


def _mkdocs_syntax(page: Page, site: UpstreamSite) -> None:
    """What else of an MkDocs page's syntax Mintlify does not read (fence options, attribute
    lists, abbreviations, marks: :mod:`.mkdocs_syntax`), in Mintlify's terms."""
    body = page.content[page.body_start:]
    if not ("```" in body or "~~~" in body or "{" in body or "*[" in body or "==" in body
            or "^^" in body or "++" in body):
        return
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    if mkdocs_syntax(lines, site):
        page.content = page.content[:page.body_start] + newline.join(lines)


def _with_attr(opening: str, name: str, value: str) -> str:
    """``opening`` (a component's tag) with the first value of attribute ``name`` (quoted, or a
    string in braces) replaced by ``value``."""
    value = value.replace('"', "&quot;")
    key = rf"((?<![\w-]){re.escape(name)}\s*=\s*)"
    return re.sub(key + r"""("[^"]*"|'[^']*'|\{["'][^"']*["']\})""",
                  lambda m: f'{m.group(1)}"{value}"', opening, count=1)


def _with_links(written: list[str], joined: str) -> list[str]:
    """The lines of a tag as written, with the URLs of ``joined`` (the same tag on one line,
    as the link rules rewrote it: ``join_tags``) in its quoted ``href`` and ``src``, where
    those values stand (not in the text of another attribute)."""
    text = "\n".join(written)
    tag = read_tag(text, len(text) - len(text.lstrip()))
    now = read_tag(joined, len(joined) - len(joined.lstrip()))
    if tag is None or now is None:  # pragma: no cover - join_tags read and wrote a tag
        return written
    edits = sorted(((tag.spans[name], now.attrs[name]) for name in ("href", "src")
                    if name in tag.spans and name in now.attrs
                    and now.attrs[name] != tag.attrs[name]), reverse=True)
    for (start, end), url in edits:
        text = text[:start] + html.escape(url, quote=True) + text[end:]
    return text.split("\n")


def _front_key(key: str) -> str:
    """The start of the front matter line of ``key`` (quoted or not), as a pattern."""
    return rf"(?m)^['\"]?{re.escape(key)}['\"]?[ \t]*:"


def _drop_front_key(page: Page, key: str) -> None:
    """Blank the line of a one-line front matter ``key`` (the page keeps its line count)."""
    head = page.content[:page.body_start]
    new = re.sub(_front_key(key) + r"[^\r\n]*", "", head, count=1)
    page.content = new + page.content[page.body_start:]
    page.body_start = len(new)


def _front_line(text: str, key: str) -> int | None:
    m = re.search(_front_key(key), text)
    return text.count("\n", 0, m.start()) + 1 if m else None
