"""Heading anchors: what upstream authors wrote, and what the host engine will emit.

Upstream pages are written for GitHub and Mintlify, whose heading slugs follow GitHub's rules
(``## LoRA + IPC weight sync`` → ``#lora--ipc-weight-sync``). MkDocs' ``toc`` and MyST each emit
their own slug for the same heading. :class:`AnchorMap` lists, per page, the ids the engine emits
and maps every upstream spelling (GitHub slug, Mintlify slug, MkDocs' slug, the engine's own
slug, explicit ``id``/``name`` attributes and ``{#id}`` attributes) to the emitted id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..patterns import lazy_re
from ..records import Record
from .scanned import Heading, HtmlId

#: What GitHub drops from a slug: not a word character, CJK ideograph, ``-`` or space. Written
#: as a lookahead, not as one class ``[^\w\u4e00-\u9fff\- ]``: the same matches (checked over
#: every code point), compiled in 0.7 ms of CPU instead of 1.9 (on first use).
_GITHUB_CLEAN = lazy_re(r"(?![\u4e00-\u9fff])[^\w\- ]")
#: attr_list's list at the end of a heading, with an id (``{#id}``, ``{ #id .wide }``,
#: ``{: .x #id }``): the id
ATTR_ID_RE = lazy_re(r"\s*\{:?\s*(?:[.\w-][^\s{}]*\s+)*#([A-Za-z][\w:.-]*)[^{}]*\}\s*$")
_WHITESPACE = lazy_re(r"\s+")
_PERCENT_ESCAPE = lazy_re(r"%[0-9A-F]{2}")
_CONTRACTION = lazy_re(r"([a-zA-Z\d]+)-([ts])(-|$)")
_DASHES = lazy_re(r"-{2,}")
#: what Python-Markdown's ``toc.slugify`` drops, joins, and how ``toc.unique`` counts
_MKDOCS_DROP = lazy_re(r"[^\w\s-]")
_MKDOCS_JOIN = lazy_re(r"[-\s]+")
_MKDOCS_COUNT = lazy_re(r"^(.*)_([0-9]+)$")
#: what Mintlify's ``cleanHeadingId`` drops after slugifying
_MINTLIFY_DROP = lazy_re(r"[?,;:!'\"()\[\]{}]")


#: ``page.extra`` key: the ids the page's title heading had, where an engine shows the title
#: itself and the heading is gone from the body (Mintlify's front matter ``title``): a link to
#: one reaches the top of the page, where the title is, and is no problem.
TITLE_IDS = "title_ids"


def title_ids(raw: str, text: str) -> list[str]:
    """Every id a title heading (``raw``: its Markdown, ``text``: as a title) may be linked
    by: its attr_list id, and its slug as GitHub, MkDocs and Mintlify spell it."""
    m = ATTR_ID_RE.search(raw)
    return list(dict.fromkeys([*([m.group(1)] if m else []), github_slug(text),
                               mkdocs_slug(text), mintlify_slug(text)]))


def github_slug(text: str) -> str:
    """GitHub's heading slug (lowercase, spaces to ``-``, punctuation dropped)."""
    return _GITHUB_CLEAN.sub("", text.lower().replace(" ", "-"))


#: letters @sindresorhus/transliterate spells out rather than strips of their marks (German
#: and Nordic; the rest of its table is what NFKD and dropping marks give)
_SPELLED_OUT = str.maketrans({"ß": "ss", "ẞ": "SS", "ä": "ae", "Ä": "Ae", "ö": "oe", "Ö": "Oe",
                              "ü": "ue", "Ü": "Ue", "Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o",
                              "Þ": "TH", "þ": "th", "Ð": "D", "ð": "d"})
#: @sindresorhus/slugify's ``decamelize``: ``isTest`` → ``is Test``, ``APIKey`` → ``API Key``
_DECAMELIZE = (
    (lazy_re(r"([A-Z]{2,})(\d+)"), r"\1 \2"),
    (lazy_re(r"([a-z\d]+)([A-Z]{2,})"), r"\1 \2"),
    (lazy_re(r"([a-z\d])([A-Z])"), r"\1 \2"),
    (lazy_re(r"([A-Z]+)([A-Z][a-rt-z\d]+)"), r"\1 \2"),  # not before "s": "APIs" stays
)


def _slugify(text: str, *, lowercase: bool, preserve: str, decamelize: bool = False) -> str:
    # @sindresorhus/slugify as Mintlify calls it: transliterate, (decamelize), lowercase,
    # runs of other characters to "-", contractions joined, no leading/trailing/double "-"
    import re
    import unicodedata

    text = unicodedata.normalize("NFKD", text.replace("&", " and ").translate(_SPELLED_OUT))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    if decamelize:
        for pattern, spaced in _DECAMELIZE:
            text = pattern.sub(spaced, text)
    if lowercase:
        text = text.lower()
    keep = "a-z0-9" + ("" if lowercase else "A-Z") + re.escape(preserve)
    text = re.sub(f"[^{keep}]+", "-", text).replace("\\", "")
    text = _CONTRACTION.sub(r"\1\2\3", text)
    return _DASHES.sub("-", text).strip("-")


def mkdocs_slug(text: str) -> str:
    """The heading slug of MkDocs (Python-Markdown's ``toc.slugify(text, "-")``, its
    default): ASCII only, punctuation dropped, runs of ``-`` and white space to one ``-``:
    ``Caret, Mark & Tilde`` → ``caret-mark-tilde`` (GitHub: ``caret-mark--tilde``)."""
    import unicodedata

    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = _MKDOCS_DROP.sub("", value).strip().lower()
    return _MKDOCS_JOIN.sub("-", value)


def mkdocs_unique(slug: str, seen: set[str]) -> str:
    """Python-Markdown's ``toc.unique``: a slug already used gets ``_1``, ``_2``…"""
    while slug in seen or not slug:
        m = _MKDOCS_COUNT.match(slug)
        slug = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{slug}_1"
    seen.add(slug)
    return slug


def mintlify_slug(text: str) -> str:
    """Mintlify's heading id, as its renderer computes it (``@mintlify/common`` ``slugify``,
    then ``cleanHeadingId``): ``## 3. Setup`` → ``3-setup``, ``LoRA + IPC`` → ``lora-+-ipc``.

    The title is lowercased, white space becomes ``-`` and the result is URI-encoded; with a
    percent escape in it the escapes are kept (and decoded for the DOM id), otherwise
    everything but letters, digits and ``_`` becomes ``-``. Checked against ``mint
    broken-links --check-anchors`` (the tests hold the examples). Mintlify's documentation
    ("Automatic anchor IDs") differs on apostrophes and periods: it gives ``What's new`` as
    ``#what\u2019s-new``, where ``mint`` finds no such anchor and takes ``#whats-new``.
    """
    import unicodedata
    from urllib.parse import quote, unquote

    encoded = quote(_WHITESPACE.sub("-", text.lower().strip()), safe="-_.!~*'()")
    if _PERCENT_ESCAPE.search(encoded):
        slug = unquote(_slugify(encoded, lowercase=False, preserve="%_"))
    else:
        slug = _slugify(encoded, lowercase=True, preserve="_")
    slug = _MINTLIFY_DROP.sub("", slug)
    return "".join(ch for ch in slug if not unicodedata.category(ch).startswith("So"))


def mintlify_field_id(name: str, count: int = 0) -> str:
    """The id Mintlify gives a ``<ParamField>``/``<ResponseField>`` without one
    (``@mintlify/common``'s ``generateParamFieldId``): ``param-`` and the field's name,
    decamelized and slugified, ``_N`` for its N-th repeat on the page: ``isTest`` →
    ``param-is-test``, ``Config file`` → ``param-config-file``, a second ``id`` →
    ``param-id-1``."""
    suffix = f"_{count}" if count > 0 else ""
    return _slugify(f"param-{name}{suffix}", lowercase=True, preserve="", decamelize=True)


def mintlify_clean(anchor: str) -> str:
    """A link's fragment as Mintlify matches it to ids (``cleanHeadingId``): percent escapes
    decoded, ``?,;:!'"()[]{}`` and emoji dropped."""
    import unicodedata
    from urllib.parse import unquote

    cleaned = _MINTLIFY_DROP.sub("", unquote(anchor))
    return "".join(ch for ch in cleaned if not unicodedata.category(ch).startswith("So")
                   and ch not in "\u200d\ufe0e\ufe0f")


def mintlify_unique(slug: str, seen: dict[str, int]) -> str:
    """Mintlify's duplicate rule: ``x``, ``x-2``, ``x-3``..."""
    count = seen.get(slug, 0) + 1
    seen[slug] = count
    return slug if count == 1 else f"{slug}-{count}"


def github_unique(slug: str, seen: dict[str, int]) -> str:
    """GitHub's duplicate rule: ``x``, ``x-1``, ``x-2``..."""
    if slug not in seen:
        seen[slug] = 0
        return slug
    while True:
        seen[slug] += 1
        candidate = f"{slug}-{seen[slug]}"
        if candidate not in seen:
            seen[candidate] = 0
            return candidate


#: An engine's slugger for one page: called once per heading, in order, with the heading text;
#: returns the id the engine will emit (it keeps its own duplicate state), or "" for none.
PageSlugger = Callable[[str], str]


def explicit_id(heading: Heading) -> str | None:
    """``{#custom}`` attribute at the end of a heading (attr_list / MyST syntax)."""
    m = ATTR_ID_RE.search(heading.raw)
    return m.group(1) if m else None


class AnchorMap(Record):
    """Ids of one page: the emitted ones and every upstream spelling that leads to them.

    :meth:`build` works out the emitted ids at once and the upstream spellings (``aliases``,
    ``too_deep``) when first asked: most links name an emitted id, and most pages are only
    ever looked up that way.
    """

    __slots__ = ("_aliases", "_basis", "_native", "_pending", "_too_deep", "emitted")
    _fields = ("emitted", "aliases", "too_deep")
    emitted: set[str]
    _aliases: dict[str, str]
    _too_deep: dict[str, int]
    #: what the spellings are made from, until they are
    _pending: Callable[[AnchorMap], None] | None
    #: what :meth:`build` made the spellings from, as JSON data (see :meth:`basis`)
    _basis: list[Any] | None

    def __init__(self, emitted: set[str] | None = None, aliases: dict[str, str] | None = None,
                 too_deep: dict[str, int] | None = None) -> None:
        self.emitted = set() if emitted is None else emitted
        self._aliases = {} if aliases is None else aliases
        self._too_deep = {} if too_deep is None else too_deep
        self._native: dict[str, str] = {}
        self._pending = None
        self._basis = None

    def basis(self) -> list[Any]:
        """JSON data that the whole map is a function of, given the code that builds it (and
        the engine's slugs, which gave the emitted ids): the emitted ids and what
        :meth:`build` makes the upstream spellings from, so that a build can tell whether a
        page's anchors changed without making its spellings (they cost more than the rest
        of the map, and most pages never need them); the spellings themselves for a map
        made otherwise. Two maps with the same basis are the same."""
        if self._basis is not None:
            return ["built", sorted(self.emitted), self._basis]
        return ["made", sorted(self.emitted), sorted(self.aliases.items()),
                sorted(self.too_deep.items()), sorted(self.native.items())]

    @property
    def aliases(self) -> dict[str, str]:
        """Upstream spellings (GitHub, Mintlify, removed ``{#id}``, ...) -> emitted id."""
        if self._pending is not None:
            self._complete()
        return self._aliases

    @aliases.setter
    def aliases(self, value: dict[str, str]) -> None:
        self._aliases = value

    @property
    def too_deep(self) -> dict[str, int]:
        """Upstream spellings of headings deeper than the engine gives ids to: their level."""
        if self._pending is not None:
            self._complete()
        return self._too_deep

    @too_deep.setter
    def too_deep(self, value: dict[str, int]) -> None:
        self._too_deep = value

    @property
    def native(self) -> dict[str, str]:
        """The ids the page has on a Mintlify site (its heading ids as Mintlify makes them,
        ``{#custom}`` ids, ids of HTML and components), each to the emitted id it stands
        for: a link of a Mintlify upstream that names none of them is broken there."""
        if self._pending is not None:
            self._complete()
        return self._native

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._pending = None
        self._basis = None
        self._native = {}
        super().__setstate__(state)

    def _complete(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._aliases, self._too_deep = {}, {}
            pending(self)

    def resolve(self, anchor: str) -> str | None:
        hit = self._lookup(anchor)
        if hit is None and ("%" in anchor or _MINTLIFY_DROP.search(anchor)):
            # as Mintlify reads a link's fragment (`#tui-mode%3A-interactive` is
            # `tui-mode-interactive`): decoded, then cleaned as its heading ids are
            cleaned = mintlify_clean(anchor)
            if cleaned != anchor:
                hit = self._lookup(cleaned)
        return hit

    def _lookup(self, anchor: str) -> str | None:
        if anchor in self.emitted:
            return anchor
        aliases = self.aliases
        hit = aliases.get(anchor)
        if hit is not None:
            return hit
        return aliases.get(anchor.lower())

    @classmethod
    def build(cls, headings: Iterable[Heading], ids: Iterable[HtmlId], slugger: PageSlugger,
              *, raw_html_ids: bool = True, synthetic: Iterable[int] = (),
              heading_ids: dict[int, str] | None = None, depth: int = 6) -> AnchorMap:
        """Map a page's anchors.

        ``raw_html_ids``: the engine can link to ids of raw HTML (MkDocs can; MyST cannot, so
        an ``<a id>`` right before a heading becomes an alias of that heading's id).
        ``synthetic``: lines of headings that upstream authors never saw (a title heading
        added from front matter); they take no part in GitHub's numbering of duplicates.
        ``heading_ids``: ``{#id}`` attributes removed from heading lines (by line) because the
        engine cannot emit them; links to them go to the heading's own id instead.
        ``depth``: the deepest heading level the engine gives an id (MyST's
        ``myst_heading_anchors``); deeper headings get none, and take no part in its
        numbering of duplicates.
        """
        amap = cls()
        skip = set(synthetic)
        custom_ids: dict[int, str] = {}  #: by line, a heading's ``{#id}``
        by_line: dict[int, str] = {}
        #: per heading that upstream authors saw: (text, its level when the engine gives it
        #: no id, else 0; the emitted id, "" for none; its line)
        seen: list[tuple[str, int, str, int]] = []
        for heading in headings:
            custom = explicit_id(heading) if "{" in heading.raw else None
            text = ATTR_ID_RE.sub("", heading.text) if custom else heading.text
            if heading.level > depth and not custom:
                if heading.line not in skip:
                    seen.append((text, heading.level, "", heading.line))
                continue
            emitted = custom or slugger(text)
            if custom:
                custom_ids[heading.line] = custom
            if heading.line in skip:
                if emitted:
                    amap.emitted.add(emitted)
                continue
            seen.append((text, 0, emitted, heading.line))
            if emitted:
                by_line[heading.line] = emitted
                amap.emitted.add(emitted)
        html_ids = list(ids)
        if raw_html_ids:
            amap.emitted.update(html_id.value for html_id in html_ids)

        def spellings(amap: AnchorMap) -> None:
            aliases, too_deep = amap.aliases, amap.too_deep
            seen_github: dict[str, int] = {}
            seen_mintlify: dict[str, int] = {}
            seen_mkdocs: set[str] = set()
            for text, level, emitted, line in seen:
                upstream = github_unique(github_slug(text), seen_github)
                # (MkDocs numbers every heading, however deep)
                mkdocs = mkdocs_unique(mkdocs_slug(text), seen_mkdocs)
                if level:
                    too_deep.setdefault(upstream, level)
                    too_deep.setdefault(upstream.lower(), level)
                    continue
                mintlify = mintlify_unique(mintlify_slug(text), seen_mintlify)
                if not emitted:
                    continue
                removed = (heading_ids or {}).get(line)
                if removed:
                    aliases.setdefault(removed, emitted)
                custom = removed or custom_ids.get(line)
                amap._native.setdefault(custom or mintlify, emitted)
                aliases.setdefault(upstream, emitted)
                aliases.setdefault(upstream.lower(), emitted)
                aliases.setdefault(mintlify, emitted)
                # an MkDocs site's pages link to its own slugs (attr_list ids aside)
                aliases.setdefault(mkdocs, emitted)
            for html_id in html_ids:
                amap._native.setdefault(html_id.value, html_id.value)
            if not raw_html_ids:
                for html_id in html_ids:
                    heading_id = by_line.get(html_id.line) or by_line.get(html_id.line + 1)
                    if heading_id:
                        aliases.setdefault(html_id.value, heading_id)

        amap._pending = spellings
        # everything spellings() reads but the code: the emitted ids are added by basis()
        amap._basis = [seen, sorted(custom_ids.items()),
                       [[html_id.value, html_id.line] for html_id in html_ids], raw_html_ids,
                       sorted((heading_ids or {}).items())]
        return amap
