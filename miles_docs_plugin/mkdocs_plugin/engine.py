"""MkDocs' syntax for injected pages: Python-Markdown's slugs and URLs, code fence titles,
the components as admonitions, tabs and Material's grid cards, the Markdown extensions each
page uses (:func:`page_extensions`), and Mintlify front matter made safe for MkDocs themes."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from ..core.engine import Engine
from ..core.env import distribution_version
from ..core.patterns import lazy_re

if TYPE_CHECKING:
    from ..core.collect.upstream import UpstreamSite
    from ..core.context import BuildContext
    from ..core.model import Page, Section
    from ..core.transform.anchors import PageSlugger
    from ..core.transform.blocks import Component
    from ..core.transform.mdx import FenceMeta


def _words_slugify(text: str, sep: str) -> str:
    """Python-Markdown's ``toc.slugify(text, sep)`` for ``sep`` "-" or "_": a heading of
    ASCII letters, digits and spaces only (most headings) is its words, lowercased, joined
    by ``sep``, without the Unicode normalization and the two substitutions (a third of the
    time of a cold link step's anchor maps); any other text goes to ``slugify`` itself."""
    if text.isascii() and text.replace(" ", "").isalnum():
        return sep.join(text.lower().split())  # only spaces between the words: split() is
        # split(" ") without the empty strings
    from markdown.extensions.toc import slugify

    return str(slugify(text, sep))


class MkDocsEngine(Engine):
    name = "mkdocs"
    slugify: Callable[..., str]  #: set in __init__, from the engine's own settings
    page_modules = ("miles_docs_plugin.mkdocs_plugin.commonmark",
                    "miles_docs_plugin.mkdocs_plugin.fences")

    def __init__(self, config: MkDocsConfig, host_pages: set[str],
                 available: Iterable[str] = ()) -> None:
        """``available``: extensions the adapter may turn on for the pages that use them, in
        addition to the host's own (``config.markdown_extensions``)."""
        super().__init__(host_pages)
        self.use_directory_urls = bool(config.use_directory_urls)
        exts = {*config.markdown_extensions, *available}
        self._host_extensions = frozenset(
            name for name in config.markdown_extensions if isinstance(name, str))
        self.features = frozenset(
            name for name, ext in FEATURE_EXTENSIONS.items()
            if ext in exts) | ({"mkdocstrings"} if "mkdocstrings" in config.plugins else set())
        self.mkdocs_blocks = frozenset(marker for feature, marker in BLOCK_MARKERS.items()
                                       if feature in self.features)
        toc = config.mdx_configs.get("toc", {})
        slugify = toc.get("slugify")
        separator = toc.get("separator", "-")
        #: the host's slug function is Python-Markdown's own (a function of the host's has
        #: no key: see :meth:`memo_key`)
        self._default_slugify = slugify is None
        if slugify is None:
            from markdown.extensions.toc import slugify as default_slugify

            slugify = default_slugify
        self.slugify = slugify
        self._separator = separator

    def memo_key(self) -> str | None:
        """What this engine's answers to the link rules and components depend on: MkDocs'
        URL style, the slug function and its separator, the features the components are
        written for, the host pages, and the versions of MkDocs and Python-Markdown. None
        when the host gives its own slug function (its behaviour has no key)."""
        if not self._default_slugify or not isinstance(self._separator, str):
            return None
        import json

        versions = [distribution_version(dist)
                    for dist in ("mkdocs", "markdown", "pymdown-extensions")]
        return json.dumps([type(self).__module__, type(self).__qualname__, versions,
                           self.use_directory_urls, self._separator, sorted(self.features),
                           sorted(self.host_pages or ())])

    def page_url(self, doc_path: str) -> str:
        return str(File(doc_path, src_dir=None, dest_dir="",
                        use_directory_urls=self.use_directory_urls).url)

    def page_slugger(self) -> PageSlugger:
        from markdown.extensions.toc import unique

        used: set[str] = set()
        slugify, sep = self.slugify, self._separator
        if self._default_slugify and sep in ("-", "_"):
            slugify = _words_slugify

        def make(text: str) -> str:
            slug = slugify(text, sep)
            if slug and slug not in used:  # unique()'s answer for a new id, without the call
                used.add(slug)
                return slug
            return str(unique(slug, used))

        return make

    def finish_page(self, section: Section, page: Page, ctx: BuildContext) -> None:
        """The page as MkDocs must read it (:func:`mkdocs_source`), and the extensions it
        uses, in ``page.extra["extensions"]``. Kept in the scan cache: a warm build neither
        parses the page again, nor imports markdown-it, nor searches it for the syntax of
        each extension."""
        upstream = section.upstream
        commonmark = upstream is None or not upstream.mkdocs
        written_for = upstream_syntax(upstream)
        content, start = page.content, page.body_start

        def compute() -> tuple[str | None, list[str]]:
            text = mkdocs_source(content, start, commonmark)
            needs = sorted(page_extensions(text[start:], written_for))
            return (None if text == content else text), needs

        if ctx.scans is None:
            text, needs = compute()
        else:
            key = f"{int(commonmark)}{','.join(sorted(written_for))}\0{start}\0{content}"
            text, needs = ctx.scans.cached("k", key, compute, list, tuple)
        if text is not None:
            page.content = text
        page.extra["extensions"] = needs

    def reads_footnotes(self, section: Section) -> bool:
        """Python-Markdown reads footnotes when the host turns the extension on, or when the
        upstream's pages are written for it (this engine then turns it on for them)."""
        return "footnotes" in self._host_extensions or \
            "footnotes" in upstream_syntax(section.upstream)

    def heading_text(self, section: Section, text: str) -> str:
        """Python-Markdown's toc slugs a heading's rendered text: emoji shortcodes (where the
        upstream's site turns pymdownx.emoji on, as this engine then does) are drawn, not
        text, and attr_list takes a closing ``{ .class }`` off (``{#id}`` is read before)."""
        if "{" in text:
            text = HEADING_ATTRS_RE.sub("", text).rstrip()
        if ":" in text and "pymdownx.emoji" in upstream_syntax(section.upstream):
            text = EMOJI_RE.sub("", text)
        return text

    def page_ids(self, body: str) -> list[str]:
        """Python-Markdown's ids that are neither headings nor raw HTML: ``{ #id }`` of
        attr_list after any element (``[text](#x){ #x }``), and footnotes' ``fn:LABEL`` (the
        note) and ``fnref:LABEL`` (its first reference), outside fenced code."""
        if "{" not in body and "[^" not in body:
            return []
        code = [(start, end) for start, _plain, _info, end in _fenced(body)] \
            if "```" in body or "~~~" in body else []
        starts = [start for start, _ in code]

        def in_code(at: int) -> bool:
            k = bisect.bisect_right(starts, at) - 1
            return k >= 0 and at < code[k][1]

        ids: list[str] = []
        if "{" in body:
            for m in ATTR_LIST_RE.finditer(body):
                if not in_code(m.start()):
                    inner = QUOTED_RE.sub("", m.group(1))
                    ids += [word[1:] for word in inner.split()
                            if word.startswith("#") and len(word) > 1 and "=" not in word]
        if "[^" in body:
            for m in FOOTNOTE_RE.finditer(body):
                if not in_code(m.start()):
                    ids.append(f"fn:{m.group(1)}")
                    ids.append(f"fnref:{m.group(1)}")
        return ids

    def code_fence(self, indent: str, marker: str, meta: FenceMeta) -> list[str]:
        # pymdownx.superfences reads pymdownx.highlight's options from the info string
        options = ""
        if "superfences" in self.features:
            if meta.title:
                options += ' title="{}"'.format(meta.title.replace('"', "'"))
            highlighted = meta.highlighted()
            if highlighted:
                options += ' hl_lines="{}"'.format(
                    " ".join(f"{a}-{b}" if b > a else str(a) for a, b in highlighted))
            start = meta.line_numbers()
            if start:
                options += f' linenums="{start}"'
        if options:
            return [f'{indent}{marker}{meta.lang or "text"}{options}']
        return [f"{indent}{marker}{meta.lang}"]

    def block(self, c: Component) -> list[str]:
        from ..core.transform.blocks import (  # a page's transform: not a warm build's
            CALLOUTS,
            GROUPS,
            caption_markdown,
            card_body,
            card_head,
            framed_image,
            step,
        )

        ind = c.indent
        title = c.title.replace('"', "'")
        quoted = f' "{title}"' if title else ""
        kind = CALLOUTS.get(c.name)
        if kind and "admonition" in self.features:
            kind = {"caution": "warning"}.get(kind, kind)
            return c.wrap([f"{ind}!!! {kind}{quoted}"], c.indented("    "), [""])
        if c.name in ("Accordion", "Expandable") and self.features & {"details", "admonition"}:
            marker = "!!!" if "details" not in self.features else \
                "???+" if c.attrs.get("defaultOpen", "false") != "false" else "???"
            return c.wrap([f'{ind}{marker} note "{title or c.name}"'], c.indented("    "), [""])
        # a <View> is one of the page's versions (a language, a framework): one tab of them
        # a set's first tab starts a set of its own (pymdownx.tabbed joins the tabs of sets
        # that follow one another: a <RequestExample> and its <ResponseExample>, say)
        if c.name in ("Tab", "View") and "tabbed" in self.features:
            mark = "===!" if c.index == 1 else "==="
            return c.wrap([f'{ind}{mark} "{title or "Tab"}"'], c.indented("    "), [""])
        if c.name == "CodeGroup" and "tabbed" in self.features:
            from ..core.transform.mdx import code_group_parts

            lines: list[str] = []
            for part_title, fence in code_group_parts(c.inner()):
                if lines and lines[-1] == "":
                    lines.pop()
                lines.append(f'{ind}{"===" if lines else "===!"} "{part_title}"')
                lines.extend(f"{ind}    {x[len(ind):] if x.startswith(ind) else x}" if x.strip()
                             else "" for x in fence)
                lines.append("")
            return c.wrap([], lines, [""]) if lines else super().block(c)
        if c.name == "Step":
            return step(c, "    ")
        image = framed_image(c) if c.name == "Frame" else None
        if image and "md_in_html" in self.features:
            caption = caption_markdown(c.attrs["caption"])
            hint = c.attrs.get("hint", "").strip()
            body = [line.strip() for line in c.inner() if line.strip()]
            return c.wrap(([f"{ind}{caption_markdown(hint)}", ""] if hint else []) +
                          [f'{ind}<figure markdown="span">'],
                          [f"{ind}  {body[0]}",
                           f'{ind}  <figcaption markdown="span">{caption}</figcaption>'],
                          [f"{ind}</figure>"])
        if "md_in_html" in self.features:
            # Material's grid cards: a list of cards in <div class="grid cards" markdown>
            if c.name in GROUPS:
                return c.wrap([f'{ind}<div class="grid cards" markdown>', ""], c.inner(),
                              ["", f"{ind}</div>"])
            if c.name in ("Card", "Tile") and c.parent in GROUPS:
                body = [f"{ind}    {x[len(ind):] if x.startswith(ind) else x.lstrip()}"
                        if x.strip() else "" for x in card_body(c)]
                head = card_head(c) or "&nbsp;"
                return c.wrap([f"{ind}-   {head}", ""], body, [""])
        return super().block(c)


#: An attribute list that ends a heading (attr_list takes it off the heading's text).
HEADING_ATTRS_RE = lazy_re(r"\{:?[ \t]*(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=[^\s{}]+)"
                           r"(?:[ \t]+(?:[#.][^\s{}]+|[A-Za-z_][\w-]*=[^\s{}]+))*[ \t]*\}[ \t]*$")
#: An emoji shortcode (``:rocket:``, ``:material-check:``).
EMOJI_RE = lazy_re(r":[a-z0-9_+-]+:")
#: attr_list's ``{ … }`` (``{: … }``) after an element: its words (Python-Markdown's
#: ``BASE_RE``), of which ``#name`` sets the id.
ATTR_LIST_RE = lazy_re(r"\{:?[ ]*([^{}\n ][^{}\n]*)\}")
QUOTED_RE = lazy_re(r"""[^ =}]+=(?:"[^"]*"|'[^']*')""")
#: A footnote's definition (``[^label]: text``): the label.
FOOTNOTE_RE = lazy_re(r"(?m)^[ ]{0,3}\[\^([^\]\s]+)\]:")


def _theme_icon(name: str) -> str | None:
    """Material's name for a Mintlify (Font Awesome) icon, if the theme ships it."""
    import importlib.util

    spec = importlib.util.find_spec("material")
    if spec is None or not spec.submodule_search_locations or not name.replace("-", "").isalnum():
        return None
    icons = Path(next(iter(spec.submodule_search_locations))) / "templates" / ".icons"
    for style in ("solid", "regular", "brands"):
        if (icons / "fontawesome" / style / f"{name}.svg").is_file():
            return f"fontawesome/{style}/{name}"
    return None


def mintlify_meta(meta: MutableMapping[str, Any]) -> None:
    """Front matter keys of Mintlify that mean something else (or a crash) to MkDocs themes.

    ``icon: building`` is a Font Awesome name: Material would look for ``.icons/building.svg``
    and stop the whole build, so it becomes Material's path for that icon, or goes.
    ``mode: wide`` / ``custom`` hide the table of contents (and the navigation), as Mintlify
    does; Material reads ``hide:``.
    """
    icon = meta.get("icon")
    if icon is not None:
        mapped = _theme_icon(icon) if isinstance(icon, str) else None
        if mapped:
            meta["icon"] = mapped
        else:
            del meta["icon"]
    mode = meta.get("mode")
    if mode in ("wide", "custom", "center") and "hide" not in meta:
        meta["hide"] = ["toc"] if mode != "custom" else ["navigation", "toc"]


#: Engine feature (:attr:`Engine.features <miles_docs_plugin.core.engine.Engine.features>`)
#: -> the Python-Markdown extension that gives it in MkDocs.
FEATURE_EXTENSIONS = {"admonition": "admonition", "details": "pymdownx.details",
                      "tabbed": "pymdownx.tabbed", "attr_list": "attr_list",
                      "superfences": "pymdownx.superfences", "md_in_html": "md_in_html",
                      "emoji": "pymdownx.emoji", "abbr": "abbr"}
#: The block marker each of those features reads (see ``Engine.mkdocs_blocks``).
BLOCK_MARKERS = {"admonition": "!!!", "details": "???", "tabbed": "==="}
#: Options an extension gets when miles-docs turns it on (a host's own options win).
#: pymdownx.superfences highlights with Pygments unless pymdownx.highlight says otherwise: a
#: page that needs superfences only for where its fences are (in a list item, an admonition,
#: a tab) gets pymdownx.highlight without Pygments, so its code comes out as fenced_code
#: writes it on the host's other pages (``<code class="language-x">``, for the theme's own
#: highlighter) and the page does not load and run Pygments' lexers (0.1 s for one page).
EXTENSION_OPTIONS: dict[str, dict[str, Any]] = {"pymdownx.tabbed": {"alternate_style": True},
                                                "pymdownx.highlight": {"use_pygments": False}}
#: The fence options only Pygments renders (pymdownx.highlight drops them without it): a page
#: with any of them keeps superfences' default, Pygments.
PYGMENTS_OPTION_RE = lazy_re(r"\b(?:title|hl_lines|linenums)=")
#: What each extension reads, as it appears in a page (outside fenced code). A false hit only
#: turns an extension on for that page; a miss would show the syntax as text.
EXTENSION_SYNTAX = (  # (extension, a string the syntax always holds, the syntax)
    ("admonition", "!!!", lazy_re(r"^[ \t>]*!!![ \t]+[\w-]", re.M)),
    ("pymdownx.details", "???", lazy_re(r"^[ \t>]*\?\?\?\+?[ \t]+[\w-]", re.M)),
    ("pymdownx.tabbed", "===", lazy_re(r'^[ \t>]*===[!+]{0,2}[ \t]+"', re.M)),
    ("md_in_html", "markdown", lazy_re(r"<[A-Za-z][\w-]*\s[^>]{0,2000}?\bmarkdown\b")),
    # (neither class holds a "{": a line of "{#" would make the two try each other's share)
    ("attr_list", "{", lazy_re(r"\{:?[ \t]*(?:#[^\s={}]+|\.[A-Za-z_][\w-]*|[A-Za-z_][\w-]*=)"
                               r"[^{}\n]*\}")),
)
#: Inline and block syntax of extensions an upstream's pages are written for, as it appears
#: in a page (outside fenced code): turned on for the pages that use it when the upstream's
#: site turns the extension on (its ``mkdocs.yml``; :data:`GFM` for other upstreams). Each
#: one only reads its own marks; none reads a file or runs anything.
UPSTREAM_SYNTAX = (
    ("footnotes", "[^", lazy_re(r"^[ \t]{0,3}\[\^[^\]\n]+\]:", re.M)),
    ("def_list", ":", lazy_re(r"^\S[^\n]*\n(?:[ \t]*\n)?:[ \t]+\S", re.M)),
    ("abbr", "*[", lazy_re(r"^\*\[[^\]\n]+\]:", re.M)),
    ("pymdownx.tasklist", "[", lazy_re(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[ xX]\][ \t]",
                                         re.M)),
    ("pymdownx.tilde", "~~", lazy_re(r"~~[^~\s]")),
    # from each line's first ``==`` only: every ``==`` of a line tried against the rest of
    # it would take time as the square of the line
    ("pymdownx.mark", "==", lazy_re(r"^(?:[^=\n]|=(?!=))*==[^=\s][^\n]*==", re.M)),
    ("pymdownx.caret", "^^", lazy_re(r"\^\^[^^\s]")),
    ("pymdownx.keys", "++", lazy_re(r"\+\+[\w-]+(?:\+[\w-]+)*\+\+")),
    # ``:smile:``, and Material's icons (``:material-check:``, ``:octicons-tag-24:``)
    ("pymdownx.emoji", ":", lazy_re(r":[a-z0-9_+-]+:")),
    ("pymdownx.inlinehilite", "`#!", lazy_re(r"`#![\w+#.-]+ ")),
    ("pymdownx.arithmatex", "$", lazy_re(r"\$\$|\$[^$\s][^$\n]*(?<=\S)\$")),
)
#: What GitHub-flavoured Markdown reads (Mintlify's pages, a plain folder of Markdown files):
#: footnotes, task lists, ``~~strikethrough~~``.
GFM = frozenset({"footnotes", "pymdownx.tasklist", "pymdownx.tilde"})




def extension_options(name: str) -> dict[str, Any] | None:
    """The options miles-docs gives an extension it turns on (:data:`EXTENSION_OPTIONS`), or
    None. Emoji and icons come as inline SVG from Material's index where Material is installed
    (what Material's sites set), else as the emoji's character: never as an image fetched
    from elsewhere. Math is kept as TeX for whatever renders it in the host (``generic``)."""
    if name == "pymdownx.emoji":
        import importlib.util

        if importlib.util.find_spec("material") is not None:
            from material.extensions import emoji as material_emoji

            return {"emoji_index": material_emoji.twemoji, "emoji_generator": _icon_or_alt}
        from pymdownx import emoji

        return {"emoji_index": emoji.twemoji, "emoji_generator": emoji.to_alt}
    if name == "pymdownx.arithmatex":
        return {"generic": True}
    return EXTENSION_OPTIONS.get(name)


def _icon_or_alt(index: str, shortname: str, alias: str, uc: str | None, alt: str, title: str,
                 category: str, options: Any, md: Any) -> Any:
    """pymdownx.emoji's generator: Material's icons as inline SVG (Material's ``to_svg``),
    emoji as their character (``to_alt``; Material's would be an image from a CDN)."""
    from material.extensions.emoji import to_svg
    from pymdownx.emoji import to_alt

    make = to_svg if not uc else to_alt
    return make(index, shortname, alias, uc, alt, title, category, options, md)


def upstream_syntax(site: UpstreamSite | None) -> frozenset[str]:
    """The extensions of :data:`UPSTREAM_SYNTAX` the upstream's pages are written for."""
    if site is None or not site.mkdocs:
        return GFM
    return site.extension_names().intersection(name for name, _, _ in UPSTREAM_SYNTAX)


#: An opening fence Python-Markdown's own ``fenced_code`` reads (at the margin, a language at
#: most); any other (indented in a list, an admonition or a tab, in a quote, with a title)
#: needs pymdownx.superfences.
PLAIN_FENCE_RE = lazy_re(r"^\.?[\w#.+-]*$")
#: Fence markers, one pattern per kind: a literal prefix makes re search instead of trying
#: every position. (Each with its literal: a page without it compiles nothing.)
FENCE_MARK_RES = (("```", lazy_re(r"```+")), ("~~~", lazy_re(r"~~~+")))


#: miles-docs' own extension for fenced code under a list item or in a block (:mod:`.fences`).
NESTED_FENCES = "miles_docs_plugin.mkdocs_plugin.fences"


def installable_extensions() -> list[str]:
    """The extensions miles-docs may turn on for injected pages that use them.

    admonition, attr_list and md_in_html ship with Python-Markdown, :data:`NESTED_FENCES` with
    miles-docs; the pymdownx ones (details, tabbed, superfences: fenced code with a title, in a
    block quote, or as :mod:`.fences` does not read it) only when pymdown-extensions is
    installed, as it is with Material.
    """
    import importlib.util

    pymdownx = importlib.util.find_spec("pymdownx") is not None
    names = ["admonition", "attr_list", "md_in_html", NESTED_FENCES]
    if pymdownx:
        names += ["pymdownx.details", "pymdownx.superfences", "pymdownx.tabbed",
                  "pymdownx.highlight"]
    # and what an upstream's pages may be written for
    return names + [name for name, _, _ in UPSTREAM_SYNTAX
                    if pymdownx or not name.startswith("pymdownx.")]


def _fence_lines(content: str) -> Iterator[tuple[int, str, str, str, int]]:
    """Lines that are a fence (``[ \\t>]*`` then 3+ backticks or tildes): (line start, indent,
    marker, info, line end). The markers are searched for, not every line matched."""
    pos = 0
    marks = [pattern.finditer(content) for mark, pattern in FENCE_MARK_RES if mark in content]
    # one kind (most pages): in page order as found; both: put in page order
    found = marks[0] if len(marks) == 1 else sorted(itertools.chain(*marks),
                                                    key=lambda m: m.start())
    for m in found:
        if m.start() < pos:
            continue  # a second marker on a line already seen
        start = content.rfind("\n", 0, m.start()) + 1
        end = content.find("\n", m.end())
        end = len(content) if end < 0 else end
        pos = end
        indent = content[start:m.start()]
        if indent.strip(" \t>"):
            continue
        yield start, indent, m.group(), content[m.end():end], end


FenceLine = tuple[int, str, str, str, int]  #: (line start, indent, marker, info, line end)


def _fence_blocks(content: str) -> Iterator[tuple[FenceLine, FenceLine | None]]:
    """Fenced code blocks as Python-Markdown's fenced_code and superfences find them (at any
    indentation, closed by a bare fence of the same kind and at least the same length, at
    most three columns deeper than the opening one, or by the end of the page): (opening
    line, closing line or None). A fence indented under a fence is its code (an example of
    a fence)."""
    opening: FenceLine | None = None
    deepest = 0
    for line in _fence_lines(content):
        _start, indent, marker, info, _end = line
        if opening is None:
            if not (marker[0] == "`" and "`" in info):
                opening = line
                deepest = len(indent.expandtabs(4)) + 3
            continue
        first = opening[2]
        if marker[0] == first[0] and marker.startswith(first) and not info.strip() and \
                len(indent.expandtabs(4)) <= deepest:
            yield opening, line
            opening = None
    if opening is not None:
        yield opening, None


def _fenced(content: str, blocks: Iterable[tuple[FenceLine, FenceLine | None]] | None = None
            ) -> Iterator[tuple[int, bool, str, int]]:
    """Fenced code blocks (``blocks``, else :func:`_fence_blocks`): (start, whether
    Python-Markdown's fenced_code reads it, info string, end)."""
    for opening, closing in _fence_blocks(content) if blocks is None else blocks:
        plain = not opening[1] and PLAIN_FENCE_RE.match(opening[3].strip()) is not None
        yield opening[0], plain, opening[3], closing[4] if closing is not None else len(content)


#: A fence indented one to three spaces (at the start of a line, or of the page).
_INDENTED_FENCE_RE = lazy_re(r"\n {1,3}(?:```|~~~)")


def margin_fences(content: str) -> str:
    """``content`` with its fences indented one to three spaces moved to the margin.

    CommonMark reads such a fence as code (an upstream writes one under a list item, indented
    like the item's text), Python-Markdown's fenced_code only at the margin; as it is, the page
    needs pymdownx.superfences, which costs more to load and run than the rest of a small
    section. Python-Markdown gives indentation under four spaces no meaning (a list item's
    content is indented four), so moving such a fence to the margin, with its content lines
    losing the same indentation, is read by fenced_code as superfences reads it where it is:
    the same code block in the same place. Only the fences superfences reads that way are
    moved: indented with spaces only, a language at most, every non-blank line of the block
    indented as the opening fence, closed by the same fence at the same indentation.
    """
    if _INDENTED_FENCE_RE.search(content) is None and \
            _INDENTED_FENCE_RE.match("\n" + content[:6]) is None:
        return content  # most pages
    out: list[str] = []
    done = 0
    for opening, closing in _fence_blocks(content):
        start, indent, marker, info, end = opening
        if closing is None or not 0 < len(indent) < 4 or indent.strip(" ") or "\t" in info \
                or not PLAIN_FENCE_RE.match(info.strip()):
            continue
        close_start, close_indent, close_marker, close_info, close_end = closing
        if close_indent != indent or close_marker != marker or close_info.strip(" \r"):
            continue
        # a block of its own: fenced_code puts blank lines around the code, superfences does
        # not (a fence right under a paragraph line stays in that paragraph)
        before = content[content.rfind("\n", 0, max(start - 1, 0)) + 1:start]
        after = content[close_end + 1:content.find("\n", close_end + 1) % (len(content) + 1)]
        if before.strip() or after.strip():
            continue
        body = content[end + 1:close_start].split("\n")[:-1]  # the lines between, each
        if any(line.strip() and not line.startswith(indent) for line in body):
            continue
        n = len(indent)
        out.append(content[done:start])
        out.append(content[start + n:end + 1])
        out.extend((line[n:] if line.startswith(indent) else line.lstrip(" ")) + "\n"
                   for line in body)
        out.append(content[close_start + n:close_end])
        done = close_end
    if not out:
        return content
    out.append(content[done:])
    return "".join(out)


def mkdocs_source(content: str, body_start: int, commonmark: bool = True) -> str:
    """``content`` as Python-Markdown must read it: for a page written for CommonMark (an
    upstream that is no MkDocs site), its lists, fences and blocks written as Python-Markdown
    reads them (:func:`.commonmark.commonmark_blocks`) and its backslash escapes shown
    (:func:`.commonmark.commonmark_escapes`); for every page, fences indented one to three
    spaces in its body (after ``body_start``, the front matter) moved to the margin
    (:func:`margin_fences`)."""
    if commonmark:
        blocks = _may_need_shaping(content)
        escapes = "\\" in content and _ESCAPE_HINT_RE.search(content) is not None
        if blocks or escapes:
            from .commonmark import commonmark_blocks, commonmark_escapes

            content = commonmark_blocks(content) if blocks else content
            content = commonmark_escapes(content) if escapes else content
    body = content[body_start:]
    moved = margin_fences(body)
    return content if moved is body else content[:body_start] + moved


def _nested_fences(content: str, blocks: list[tuple[FenceLine, FenceLine | None]]
                   ) -> dict[int, int]:
    """The blocks :mod:`.fences` reads in ``content`` (whose :func:`_fence_blocks` are
    ``blocks``): the start of each one's opening line ->
    the end of its closing line. The lines are those Python-Markdown reads (CRLF ends taken
    off, tabs expanded, lines of spaces blank). None for a page with a lone CR (a line end to
    Python-Markdown, none to :func:`_fence_lines`), or with a fence at the margin that is not
    closed by the same fence at the margin."""
    from .fences import nested_fences

    if content.count("\r") != content.count("\r\n"):
        return {}
    for opening, closing in blocks:
        if not opening[1] and (closing is None or closing[1] or closing[2] != opening[2]):
            # fenced_code leaves this block as text, superfences reads on from it to the end
            # of the page: that page is superfences'
            return {}
    raw = content.split("\n")
    lines = [line.rstrip("\r").expandtabs(4) for line in raw] if "\r" in content or \
        "\t" in content else raw
    lines = [line if line.strip(" ") else "" for line in lines]
    starts = list(itertools.accumulate((len(line) + 1 for line in raw), initial=0))
    return {starts[first]: starts[last] + len(raw[last])
            for first, last, _indent, _lang in nested_fences(lines)}


def page_extensions(content: str, upstream: frozenset[str] = frozenset()) -> set[str]:
    """The extensions of :data:`EXTENSION_SYNTAX` (and superfences) that ``content`` uses:
    what the components plugin wrote (admonitions, dropdowns, tabs, titled fences) and what
    an MkDocs upstream wrote itself; and those of :data:`UPSTREAM_SYNTAX` named in
    ``upstream`` (:func:`upstream_syntax`)."""
    needs: set[str] = set()
    code: list[tuple[int, int]] = []
    pygments = False
    if "```" in content or "~~~" in content:
        blocks = list(_fence_blocks(content))
        nested: dict[int, int] | None = None
        for start, plain, info, end in _fenced(content, blocks):
            code.append((start, end))
            if not plain:
                nested = _nested_fences(content, blocks) if nested is None else nested
                if nested.get(start) == end:
                    needs.add(NESTED_FENCES)  # a block as superfences reads it, read so
                    continue
                needs.add("pymdownx.superfences")
                pygments = pygments or PYGMENTS_OPTION_RE.search(info) is not None
        if "pymdownx.superfences" in needs:
            needs.discard(NESTED_FENCES)  # it reads them all
            if not pygments:
                needs.add("pymdownx.highlight")  # with EXTENSION_OPTIONS': code as fenced_code's
    starts = [start for start, _ in code]
    syntax = EXTENSION_SYNTAX if not upstream else (
        *EXTENSION_SYNTAX, *(entry for entry in UPSTREAM_SYNTAX if entry[0] in upstream))
    for name, literal, pattern in syntax:
        if literal not in content:
            continue
        for m in pattern.finditer(content):
            at = bisect.bisect_right(starts, m.start()) - 1
            if at < 0 or m.start() >= code[at][1]:
                needs.add(name)
                break
    return needs


#: A page whose blocks Python-Markdown may read otherwise than CommonMark
#: (:mod:`.commonmark`), but for its fenced blocks (:func:`_fence_bodies`): a line
#: indented one to three columns past a multiple of four (an item's text, or a nested item,
#: under its parent's text; a fence or a component's block indented as MDX allows), a list
#: item right under a line that is no list item (a list that interrupts a paragraph), a list
#: item after a list item and a blank line (a second list), a nested item right above an
#: item of the list it is in or at the margin (Python-Markdown may take the outer item into
#: the nested list), or an escaped pipe in code in a table row. Searched outside the lines
#: of code and of HTML blocks (:func:`_may_need_shaping`). (Each lookahead is tried once per
#: line, before the indentation: tried after each column of it, a line of spaces would take
#: time as its square.)
_BLOCK_HINT_RE = lazy_re(r"\n(?:(?: {4})* {1,3}\S|"
                         r"(?![ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$))(?: {4})*[^ \t\n][^\n]*\n"
                         r"(?: {4})*(?:[-*+]|\d{1,9}[.)])[ \t]|"
                         r"(?:[-*+]|\d{1,9}[.)])[ \t][^\n]*\n\n(?:[-*+]|\d{1,9}[.)])[ \t]|"
                         r"(?P<i>(?: {4})*) {4}(?:[-*+]|\d{1,9}[.)])[ \t][^\n]*\n"
                         r"(?P=i)(?:[-*+]|\d{1,9}[.)])[ \t]|"
                         r"(?: {4})+(?:[-*+]|\d{1,9}[.)])[ \t][^\n]*\n(?:[-*+]|\d{1,9}[.)])[ \t]|"
                         r"[ \t]*\|[^\n]*`[^`\n]*\\\|)")
#: The start of an HTML block of CommonMark's sixth kind at the margin after a blank line
#: (or at the page's start); the tag names are those of CommonMark 0.30.
_HTML_BLOCK_RE = lazy_re(
    r"(?:\A|\n[ \t]*\n)</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|"
    r"col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|"
    r"frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    r"noframes|ol|optgroup|option|p|param|section|summary|table|tbody|td|tfoot|th|thead|title|"
    r"tr|track|ul)(?=[ \t/>]|\n|\Z)", re.I)
#: A blank line (after the newline that ends the line above it).
_BLANK_LINE_RE = lazy_re(r"\n[ \t]*(?:\n|\Z)")
#: A component's opening line (:data:`.commonmark.OPENER_RE`), anywhere in a block.
_OPENER_LINE_RE = lazy_re(r"\n *(?:!!!|\?\?\?\+?|===[+!]{0,2}) ")
#: An item at the margin, after a newline, with its bullet or number.
_MARGIN_ITEM_RE = lazy_re(r"\n([-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.M)
#: A line that may open or close a fenced block, with its indentation, its run of backticks
#: or tildes and the rest of the line.
_FENCE_LINE_RE = lazy_re(r"^([ \t]*)(`{3,}|~{3,})(.*)$", re.M)
#: The start of an HTML block of types 1 to 5 (``<pre>``, ``<script>``, ``<style>``,
#: ``<textarea>``, a comment, a processing instruction, a declaration, CDATA): it may run
#: over blank lines, and a fence in it is none.
_LONG_HTML_RE = lazy_re(r"^[ \t]*<(?:[!?]|(?:pre|script|style|textarea)(?:[\s>]|$))",
                        re.M | re.I)


def _fence_bodies(content: str) -> list[tuple[int, int]] | None:
    """The bodies of the fenced blocks of ``content`` (from the start of a block's first line
    to the start of its closing line), or None where a block may open right under a line of
    text or close right above one (superfences then reads it as that paragraph's text,
    where CommonMark reads a block: :func:`.commonmark.commonmark_blocks` puts a blank line
    between) or where CommonMark might read the lines otherwise.

    A block is followed from its opening line to a closing one of the same indentation, the
    same character and no shorter: CommonMark closes it there when every fence line stands
    at a multiple of four columns. None, then, for a fence line that does not (CommonMark
    closes a block with a fence indented up to three columns), a line of the block less
    indented than its opening line (a list item or a component block may end there, and the
    fence with it), no closing line, a tab in a fence line's indentation, or an HTML block
    that may run over blank lines. A closing fence after a code line, or a code line after
    a bare opening fence, is no line of text next to a block: a page whose every block
    stands between blank lines (or the page's ends) needs no shaping for them."""
    if "```" not in content and "~~~" not in content:
        return []
    if "<" in content and _LONG_HTML_RE.search(content) is not None:
        return None
    found = list(_FENCE_LINE_RE.finditer(content))
    bodies: list[tuple[int, int]] = []
    i = 0
    while i < len(found):
        m = found[i]
        indent, marker, info = m.group(1), m.group(2), m.group(3)
        i += 1
        if m.start() > 0 and content[content.rfind("\n", 0, m.start() - 1) + 1:m.start()].strip():
            return None  # opens right under a line (or is text, a code span, right under one)
        if marker[0] == "`" and "`" in info:
            continue  # no fence: text (a code span)
        if "\t" in indent or len(indent) % 4:
            return None
        close = None
        while i < len(found):
            c = found[i]
            i += 1
            if (c.group(1) == indent and c.group(2)[0] == marker[0]
                    and len(c.group(2)) >= len(marker) and not c.group(3).strip()):
                close = c
                break
            if len(c.group(1).expandtabs(4)) % 4:
                return None  # CommonMark may close the block there
        if close is None:
            return None  # open to the end of the page (or of its container)
        body = content[m.end() + 1:close.start()]
        width = len(indent)
        if width and any(line.strip() and len(line) - len(line.lstrip(" ")) < width
                         for line in body.split("\n")):
            return None  # its container may end inside it
        after = close.end() + 1
        end = content.find("\n", after)
        if content[after:end if end >= 0 else len(content)].strip():
            return None  # closes right above a line
        bodies.append((m.end() + 1, close.start()))
    return bodies


def _html_bodies(content: str) -> list[tuple[int, int]]:
    """The lines after the first of each HTML block of ``content`` that opens at the margin
    after a blank line with a tag of CommonMark's sixth kind (``<div>``, ``<p>``, ``<table>``
    …) and runs to the next blank line: shaping (:func:`.commonmark.commonmark_blocks`)
    changes nothing in such a block, which CommonMark reads as raw HTML and Python-Markdown
    as raw HTML or its text. A block with a component's opening line in it is left out (the
    shaping reads those wherever they are)."""
    found: list[tuple[int, int]] = []
    for m in _HTML_BLOCK_RE.finditer(content):
        start = content.find("\n", m.end())
        if start < 0:
            break
        blank = _BLANK_LINE_RE.search(content, start)
        end = blank.start() + 1 if blank is not None else len(content)
        if _OPENER_LINE_RE.search(content, start, end) is None:
            found.append((start + 1, end))
    return found


def _item_kinds(content: str) -> int:
    """How many kinds of item stand at the margin of ``content`` (which starts with a newline)."""
    return len({m.group(1)[-1] for m in _MARGIN_ITEM_RE.finditer(content)})


def _item_kind_changes(content: str) -> bool:
    """Whether an item at the margin of ``content`` follows one of another kind in the same
    list: bulleted with another of ``-``, ``*`` and ``+``, numbered after bulleted or the
    other way round, or numbered with ``)`` after ``.`` or the other way round (CommonMark
    starts a new list there; Python-Markdown goes on with the one above, and has no ``)``).
    A list is taken to go on but at a line of text at the margin after a blank line;
    ``content`` starts with a newline."""
    if _item_kinds(content) < 2:
        return False
    kind, blank = "", False
    for line in content.split("\n"):
        if not line.strip():
            blank = True
            continue
        if line[0] not in " \t":
            m = _MARGIN_ITEM_RE.match("\n" + line)
            if m is not None:
                now = m.group(1)[-1]  # a bullet, or "." or ")" after a number
                if kind and now != kind:
                    return True
                kind = now
            elif blank:
                kind = ""
        blank = False
    return False


#: A backslash escape CommonMark reads and Python-Markdown does not (``commonmark.ESCAPES``).
_ESCAPE_HINT_RE = lazy_re(r"\\[%@,/;?\"$&'<:=^~]")


def _may_need_shaping(content: str) -> bool:
    """Whether a fenced block touches a line of text (:func:`_fence_bodies`), or, outside
    the blocks' bodies (lines of code, which CommonMark and Python-Markdown read alike once
    they find the blocks alike), :data:`_BLOCK_HINT_RE` finds a line or an item follows one
    of another kind (:func:`_item_kind_changes`). The pattern is searched after a newline,
    which ``re`` skips to, rather than with ``(?m)^`` tried at every position: 62 ms against
    a few for 1,000 pages. Shaping parses the page with markdown-it: ~1 ms a page."""
    text = "\n" + content
    hint = _BLOCK_HINT_RE.search(text) is not None
    kinds = not hint and _item_kinds(text) > 1
    bodies = _fence_bodies(content)
    if bodies is None or not (hint or kinds):
        return bodies is None
    if "<" in content:  # HTML blocks, but for lines of code that look like one
        bodies = sorted(bodies + [(start, end) for start, end in _html_bodies(content)
                                  if not any(a <= start < b for a, b in bodies)])
    if bodies:
        outside, done = ["\n"], 0
        for start, end in bodies:
            outside.append(content[done:start])
            done = end
        outside.append(content[done:])
        text = "".join(outside)
        hint = hint and _BLOCK_HINT_RE.search(text) is not None
    return hint or _item_kind_changes(text)
