"""The Sphinx engine's syntax: MyST's slugs and links, code fences and the components as MyST
directives (sphinx-design's when the host has it)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from sphinx.application import Sphinx

from ..core.engine import Engine, relative_path
from ..core.env import distribution_version
from ..core.patterns import lazy_re
from ..core.transform.blocks import (
    CALLOUTS,
    GROUPS,
    Component,
    caption_markdown,
    card_body,
    card_head,
    escape_inline,
    fence_length,
    framed_image,
    step,
)

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page, Section
    from ..core.transform.anchors import PageSlugger
    from ..core.transform.mdx import FenceMeta

#: Repository-file links are written as ``miles-docs-pin://<source>/<blob|tree>/<path>`` and
#: turned into permalinks at write time (in links, images and raw HTML), so moving the pin
#: does not change the page sources.
PIN_SCHEME = "miles-docs-pin"
#: A link that leads nowhere (reported already): ``#`` in the written page.
INERT_LINK = f"{PIN_SCHEME}:#"
#: A line that may be a thematic break (``---``, ``* * *``, ``___``; indented or quoted too).
_BREAK_RE = lazy_re(r"(?m)^[ \t>]*(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")


def stray_breaks_removed(body: str) -> str:
    """``body`` without the thematic breaks docutils has no transition for: those CommonMark
    reads inside a list item or a block quote, first or last in a section (before or after a
    heading, at either end of the page) or right before another one. Each line is left blank,
    a quote's ``>`` kept: the line numbers stay."""
    from markdown_it import MarkdownIt  # only for pages that may need it

    lines = body.split("\n")
    tokens = MarkdownIt("commonmark").disable("inline").parse(body)
    #: the page's top-level blocks in order: (kind, first line), a break's kind "hr"
    top = [(t.type, t.map[0]) for t in tokens
           if t.level == 0 and t.nesting >= 0 and t.map is not None]
    stray = {t.map[0] for t in tokens if t.type == "hr" and t.level > 0 and t.map is not None}
    for k, (kind, line) in enumerate(top):
        if kind != "hr":
            continue
        before = top[k - 1][0] if k else None
        after = top[k + 1][0] if k + 1 < len(top) else None
        if before in (None, "heading_open", "hr") or after in (None, "heading_open", "hr"):
            stray.add(line)
    for line in stray:
        text = lines[line]
        lines[line] = text[:len(text) - len(text.lstrip(" \t>"))].rstrip()
    return "\n".join(lines)


#: Mintlify callout kind -> docutils admonition
SPHINX_KINDS = {"info": "important", "success": "hint"}


def _myst_slugs() -> tuple[dict[str, Callable[[str], str]], Callable[[str], str],
                           Callable[[str, set[str]], str]]:
    """MyST's slug presets, its GitHub slugify and its de-duplication, from the installed
    myst-parser (``myst_parser.slugs`` is new in 5.0; before, the same rules lived in the
    renderer, and ``myst_heading_slug_func`` was an import path, not a preset name)."""
    try:
        from myst_parser.slugs import SLUG_PRESETS, github_slugify, unique_slug
    except ImportError:
        from myst_parser.mdit_to_docutils.base import default_slugify

        def unique(slug: str, existing: set[str]) -> str:  # compute_unique_slug's loop
            uniq, i = slug, 1
            while uniq in existing:
                uniq, i = f"{slug}-{i}", i + 1
            return uniq

        return {}, default_slugify, unique
    return SLUG_PRESETS, github_slugify, unique_slug


def _import_path(path: str) -> Callable[[str], str] | None:
    import importlib

    module, _, name = path.rpartition(".")
    try:
        func = getattr(importlib.import_module(module), name) if module else None
    except ImportError:
        return None
    return func if callable(func) else None


class SphinxEngine(Engine):
    name = "sphinx"
    slugify: Callable[..., str]  #: set in __init__, from the engine's own settings
    raw_html_ids = True  # MyST resolves them through the labels on_doctree_read_raw_ids adds
    heading_attrs = False

    def __init__(self, app: Sphinx, host_pages: set[str]) -> None:
        super().__init__(host_pages)
        self.app = app
        self.features = frozenset({"myst"} | ({"design"} if "sphinx_design" in
                                               app.config.extensions else set()))
        presets, github_slugify, _unique = _myst_slugs()
        func = getattr(app.config, "myst_heading_slug_func", None)
        if isinstance(func, str):
            func = presets.get(func) or _import_path(func) or github_slugify
        self.slugify = func or github_slugify
        # the host's depth: MyST gives deeper headings no anchor (set to 6 when it was off)
        self.heading_depth = int(getattr(app.config, "myst_heading_anchors", 0) or 6)
        self.heading_depth_setting = "myst_heading_anchors"

    def memo_key(self) -> str | None:
        import json

        config = self.app.config
        func = getattr(config, "myst_heading_slug_func", None)
        if func is not None and not isinstance(func, str):
            return None  # a function of the host's: its behaviour has no key
        versions = [distribution_version(dist)
                    for dist in ("sphinx", "myst-parser", "pygments", "sphinx-design")]
        builder = self.app.builder
        return json.dumps([type(self).__module__, type(self).__qualname__, versions,
                           builder.name if builder is not None else None,
                           sorted(config.extensions), func, self.heading_depth,
                           sorted(self.features), sorted(self.host_pages or ()),
                           config.html_file_suffix, config.html_link_suffix, config.root_doc])

    def repo_link(self, source: str, kind: str, path: str, url: str) -> str:
        # with ``//``: Sphinx's image collector takes it for a remote image, as it will be
        return f"{PIN_SCHEME}://{source}/{kind}/{path}"

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        rel = relative_path(to_doc, posixpath.dirname(from_doc))
        if not page or ("#" not in rel and "%" not in rel):
            return rel  # MyST reads the path as written (it does not percent-decode it)
        # MyST cuts a path at its first '#' and reads '%' as an escape, so `a#b.md` and
        # `50%.md` cannot be named there: link to the written URL (already quoted by Sphinx),
        # filled in at write time
        return f"{PIN_SCHEME}:url/{self.url_from(from_doc, self.page_url(to_doc))}"

    def inert_link(self, *, image: bool = False) -> str:
        # MyST would report `#` once more ("cross-reference target not found: ''", or "image
        # file not readable") on the generated copy; it is already reported upstream
        return "data:," if image else INERT_LINK

    def fence_info(self, info: str) -> str:
        if info.split()[:1] == ["mermaid"]:
            return "{mermaid}" if "sphinxcontrib.mermaid" in self.app.config.extensions else "text"
        return info

    def page_url(self, doc_path: str) -> str:
        docname = posixpath.splitext(doc_path)[0]
        assert self.app.builder is not None
        return str(self.app.builder.get_target_uri(docname))

    def page_slugger(self) -> PageSlugger:
        unique_slug = _myst_slugs()[2]
        seen: set[str] = set()
        slugify = self.slugify

        def make(text: str) -> str:
            slug = unique_slug(slugify(text), seen)
            if slug:
                seen.add(slug)
            return str(slug)

        return make

    needs_h1 = True  # MyST: "Document headings start at H2, not H1" under -W fails a build
    checks_languages = True  # "Pygments lexer name 'mdx' is not known" under -W fails a build
    code_options_in_body = True  # MyST's code-block reads a first ``:key:`` line as an option

    def known_language(self, lang: str) -> bool:
        from pygments.lexers import find_lexer_class_by_name
        from pygments.util import ClassNotFound

        if lang in ("text", "none", "default", "mermaid"):
            return True
        try:
            find_lexer_class_by_name(lang)
        except ClassNotFound:
            return False
        return True

    #: Pygments' JSON lexer stops at what JSON has not (``...``, a comment), and Sphinx warns
    #: "Lexing literal_block ... resulted in an error" (which fails ``-W``); examples in
    #: docs are full of both
    strict_languages = frozenset({"json"})

    def lexes(self, lang: str, code: str) -> bool:
        from pygments.filters import ErrorToken
        from pygments.lexers import get_lexer_by_name

        lexer = get_lexer_by_name(lang)
        lexer.add_filter("raiseonerror")  # as Sphinx's highlighter does
        try:
            for _ in lexer.get_tokens(code):
                pass
        except ErrorToken:
            return False
        return True

    def finish_page(self, section: Section, page: Page, ctx: BuildContext) -> None:
        """Thematic breaks (``---``) docutils has no transition for left out: in a list item
        or a block quote (Material's grid cards have one in each card), first or last in a
        section, or next to another. docutils warns about each (which fails ``-W``). Kept in
        the scan cache, as the MkDocs engine's lists are."""
        content = page.content
        start = page.body_start
        if _BREAK_RE.search(content, start) is None or ctx.scans is None:
            return
        page.content = ctx.scans.cached(
            "t", content, lambda: content[:start] + stray_breaks_removed(content[start:]),
            str, str)

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        # MyST reads a directive's options from lines starting with ":", and a caption as
        # Markdown: a file name's "__init__" stays as written
        options: list[str] = []
        if meta.title:
            options.append(f":caption: {escape_inline(meta.title)}")
        highlighted = meta.highlighted()
        if highlighted:
            options.append(":emphasize-lines: " + ",".join(
                f"{a}-{b}" if b > a else str(a) for a, b in highlighted))
        start = meta.line_numbers()
        if start:
            options.append(":linenos:" if start == 1 else f":lineno-start: {start}")
        if options:
            return [f"{indent}{marker}{{code-block}} {meta.lang or 'text'}",
                    *(indent + option for option in options)]
        return [f"{indent}{marker}{meta.lang}"]

    def block(self, c: Component) -> list[str]:
        ind = c.indent
        design = "design" in self.features
        inner = c.inner()
        title = " ".join(c.title.split())
        # a backtick fence's first line holds no backtick (CommonMark): a title with one
        # (``!!! tip "Use `x`"``) would leave the directive unopened, the rest of the page code
        char = "~" if "`" in title else "`"
        fence = ind + char * fence_length(inner, char)
        kind = CALLOUTS.get(c.name)
        if kind:
            kind = SPHINX_KINDS.get(kind, kind)
            if title:
                return c.wrap([f"{fence}{{admonition}} {title}", f"{ind}:class: {kind}"], inner,
                              [fence])
            return c.wrap([f"{fence}{{{kind}}}"], inner, [fence])
        if c.name in ("Accordion", "Expandable"):
            if design:
                opened = [f"{ind}:open:"] if c.attrs.get("defaultOpen", "false") != "false" \
                    else []
                return c.wrap([f"{fence}{{dropdown}} {title or c.name}", *opened], inner,
                              [fence])
            return c.wrap([f"{fence}{{admonition}} {title or c.name}", f"{ind}:class: note"],
                          inner, [fence])
        if design and c.name == "Tabs":
            return c.wrap([f"{fence}{{tab-set}}"], inner, [fence])
        if design and c.name == "Tab" and not any(line.strip() for line in inner):
            return c.wrap([], [], [])  # sphinx-design refuses an empty tab
        if design and c.name == "Tab":
            return c.wrap([f"{fence}{{tab-item}} {title or 'Tab'}"], inner, [fence])
        if design and c.name == "CodeGroup":
            from ..core.transform.mdx import code_group_parts

            parts = code_group_parts(inner)
            if parts:
                item = ind + "`" * fence_length([line for _, p in parts for line in p])
                outer = ind + "`" * (len(item.strip()) + 1)
                lines = [f"{outer}{{tab-set}}"]
                for part_title, code in parts:
                    lines += [f"{item}{{tab-item}} {part_title}", *code, item]
                return c.wrap(lines, [], [outer])
        if c.name == "Step":
            return step(c, "   ")
        image = framed_image(c) if c.name == "Frame" else None
        if image:
            alt, src = image
            hint = c.attrs.get("hint", "").strip()
            lines = ([f"{ind}{caption_markdown(hint)}", ""] if hint else []) + \
                [f"{fence}{{figure}} {src}"] + ([f"{ind}:alt: {alt}"] if alt else [])
            return c.wrap(lines, ["", f"{ind}{caption_markdown(c.attrs['caption'])}"], [fence])
        if design and c.name in GROUPS:
            cols = c.attrs.get("cols", "2")
            cols = cols if cols.isdigit() and 0 < int(cols) <= 12 else "2"
            return c.wrap([f"{fence}{{grid}} 1 {cols} {cols} {cols}", f"{ind}:gutter: 2"],
                          inner, [fence])
        if design and c.name in ("Card", "Tile"):
            body = card_body(c)
            head = card_head(c)
            directive = "grid-item-card" if c.parent in GROUPS else "card"
            return c.wrap([f"{fence}{{{directive}}}"], ([f"{ind}{head}", ""] if head else [])
                          + body, [fence])
        return super().block(c)
