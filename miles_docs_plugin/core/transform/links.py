"""The link rules: every link becomes a target, then is written for the host engine.

The built-in plugin :mod:`...builtin.links` calls them; a build whose pages are all replayed
from the transform memo never loads this module. Classification (:func:`resolve_link`):

=============================================  ==========================================
upstream link                                  target
=============================================  ==========================================
``#anchor``                                    :class:`AnchorTarget` (mapped to engine slug)
``page.md``, ``../x.md#a``, ``folder/``        :class:`PageTarget`
``/user-guide/rewards`` (Mintlify site root)   :class:`PageTarget`
``../assets/x.png`` (also ``<img src>``)       :class:`AssetTarget`
``../../scripts/run.py`` (outside docs_dir)    :class:`RepoFileTarget` (permalink at the pin)
one of ``host_urls`` + path/anchor             :class:`HostTarget`
a source's ``site_url`` or ``web_url`` link    :class:`PageTarget` in that section
``https://…``, ``mailto:``                     :class:`ExternalTarget`
``javascript:``, ``file:``, escapes, missing   :class:`UnresolvedTarget`
=============================================  ==========================================

Writing (:func:`transform_page`): Markdown links get relative ``.md``/asset paths (the
engine then resolves and validates them), raw HTML gets the final URL relative to the page.
"""

from __future__ import annotations

import html
import posixpath
import re
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ..config import docs_prefix
from ..errors import Severity
from ..model import (
    AnchorTarget,
    AssetTarget,
    ExternalTarget,
    HostTarget,
    Page,
    PageTarget,
    RepoFileTarget,
    Section,
    Target,
    UnresolvedTarget,
)
from ..section.sanitize import UNSAFE_SCHEMES, unsafe_url, url_scheme
from ..urls import web_link
from .anchors import TITLE_IDS, mintlify_clean
from .lookup import find_page, split_url
from .redirects import redirected
from .scanned import LINK_ATTRS, LinkRef, escape_destination, rewrite

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..context import BuildContext

    Resolver = Callable[[LinkRef, Page, BuildContext], Target | None]

SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def _section_of(page: Page, ctx: BuildContext) -> Section:
    return ctx.sections[page.source]


def _resolve_in_docs(section: Section, rel: str, anchor: str | None,
                     ctx: BuildContext) -> Target | None:
    page = find_page(section, rel)
    if page is not None:
        return PageTarget(section.source.name, page, anchor)
    rel = rel.rstrip("/")
    repo_path = section.repo_path(rel) if rel else section.source.docs_dir
    kind = section.checkout.tree.kind(repo_path)
    if kind == "blob" or (kind == "link" and rel in section.aliases):
        return AssetTarget(section.source.name, rel)
    if kind == "tree":
        return _repo_file(section, repo_path, True, anchor)
    return None


def _repo_file(section: Section, repo_path: str, is_dir: bool,
               anchor: str | None) -> Target:
    checkout = section.checkout
    web = section.source.web_url
    if not web:
        return UnresolvedTarget(
            f"links to repository files need a web address ({repo_path})",
            f"set `web_url:` for source {section.source.name!r}")
    ref = checkout.commit or section.source.ref
    return RepoFileTarget(repo_path, is_dir, web_link(web, "tree" if is_dir else "blob", ref,
                                                      repo_path), anchor)


def _host_target(url: str, ctx: BuildContext) -> Target | None:
    for base in ctx.config.host_urls:
        if url == base or url.startswith((base + "/", base + "#", base + "?")):
            rest = url[len(base):]
            path, _query, anchor = split_url(rest)
            hosts = ctx.engine.host_pages
            if hosts is None:
                return HostTarget("", anchor, url)
            path = path.strip("/")
            stem = path[:-5] if path.endswith(".html") else path
            candidates = ([stem] if stem.endswith((".md", ".rst")) else []) + (
                [f"{stem}.md", f"{stem}.rst", f"{stem}/index.md", f"{stem}/index.rst",
                 f"{stem}/README.md"] if stem else ["index.md", "index.rst", "README.md"])
            for candidate in candidates:
                if candidate in hosts:
                    return HostTarget(candidate, anchor, url)
            return UnresolvedTarget(f"host page for {url} not found",
                                    "the link points at the host site, but no host page "
                                    f"matches {path or '/'}", keep=True)
    return None


def _other_source(url: str, ctx: BuildContext) -> Target | None:
    """A link into a configured source: its published site, or its repository's web pages."""
    for section in ctx.sections.values():
        site = section.source.site_url
        if site and (url == site or url.startswith((site + "/", site + "#"))):
            path, _query, anchor = split_url(url[len(site):])
            hit = _resolve_in_docs(section, path.strip("/"), anchor, ctx)
            if isinstance(hit, PageTarget):
                return hit
    for section in ctx.sections.values():
        web = section.source.web_url
        if not web:
            continue
        web = web.rstrip("/")
        if not url.startswith(web + "/"):
            continue
        rest = url[len(web) + 1:]
        rest = rest.removeprefix("-/")
        m = re.match(r"^(?:blob|tree|edit|raw)/[^/]+/(.*)$", rest)
        if not m:
            continue
        path, _query, anchor = split_url(m.group(1))
        docs = section.source.docs_dir
        if path == docs or path.startswith(docs_prefix(docs)):
            hit = _resolve_in_docs(section, path[len(docs_prefix(docs)):], anchor, ctx)
            if isinstance(hit, PageTarget):
                return hit
    return None


def _redirected(section: Section, path: str, anchor: str | None,
                ctx: BuildContext) -> Target | None:
    """A link to a path the upstream redirects (its ``docs.json`` ``redirects``)."""
    def lookup(rel: str, anchor: str | None) -> Target | None:
        hit = _resolve_in_docs(section, rel, anchor, ctx)
        return hit if isinstance(hit, (PageTarget, AssetTarget)) else None

    return redirected(section, path, anchor, lookup)


def _in_docs(section: Section, rel: str, anchor: str | None, ctx: BuildContext) -> Target | None:
    """The target of ``rel`` in the docs folder: a page or a file first, then where the
    upstream's redirects send it, and only then a folder of the repository. A site serves no
    folder, so its redirect for the path (``/realtime`` → ``/realtime/overview``, with
    ``realtime/`` a folder) is what a reader reaches."""
    hit = _resolve_in_docs(section, rel, anchor, ctx)
    if isinstance(hit, (PageTarget, AssetTarget)):
        return hit
    return _redirected(section, rel, anchor, ctx) or hit


def resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    section = _section_of(page, ctx)
    url = link.dest.strip()
    # The scheme as a browser reads it (``java&#9;script:`` is javascript:): none without a
    # ":", which only an entity could spell otherwise.
    seen = url_scheme(url) if ":" in url or "&" in url else None
    if seen in UNSAFE_SCHEMES:
        attr = "src" if link.kind == "image" else (link.attr or "href")
        if not unsafe_url(url, attr):
            return ExternalTarget(url)
        return UnresolvedTarget(f"{seen}: links are not allowed ({url[:40]!r}"
                                + (f" in the {link.attr} attribute of <{link.tag}>"
                                   if link.kind == "html" else "") + ")",
                                "the link was made inert", unsafe=True)
    if link.kind == "html" and link.attr not in LINK_ATTRS:
        return ExternalTarget(url)  # other URL attributes are only checked, never rewritten
    if url.startswith("#"):
        return AnchorTarget(unquote(url[1:]))
    m = SCHEME_RE.match(url) if ":" in url else None  # a scheme ends with ":"
    if m:
        scheme = m.group(1).lower()
        if scheme in ("http", "https"):
            return _host_target(url, ctx) or _other_source(url, ctx) or ExternalTarget(url)
        return ExternalTarget(url)
    if url.startswith("//"):
        return ExternalTarget(url)
    path, _query, anchor = split_url(url)
    docs = section.source.docs_dir
    if path.startswith("/"):
        # Mintlify and other doc sites resolve "/x" against the docs root.
        target = _in_docs(section, path.lstrip("/"), anchor, ctx)
        return target or UnresolvedTarget(f"no page or file matches the site-root link {url}",
                                          f"upstream pages live under {docs}/",
                                          repo_path=posixpath.normpath(docs + path))
    # The usual case first: joined in docs-folder space, the path stays inside the docs folder.
    # A joined path starting with "." ("..", ".git", a hidden folder) and a link to the page
    # itself take the long way, which joins in repository space.
    rel: str | None = None
    if path:
        folder = page.path.rpartition("/")[0]
        rel = posixpath.normpath(f"{folder}/{path}" if folder else path)
        if rel.startswith("."):
            rel = None
        elif rel in section.pages:  # the usual case: a page (what _in_docs finds first)
            return PageTarget(section.source.name, rel, anchor)
    if rel is None:
        here = section.repo_path(page.path)
        if path:
            # posixpath.join and dirname, for a relative ``path`` and a normalized page path
            base = here.rpartition("/")[0]
            repo_path = posixpath.normpath(f"{base}/{path}" if base else path)
        else:
            repo_path = here
        if repo_path == ".." or repo_path.startswith("../"):
            return _from_page_url(section, page, path, anchor) or UnresolvedTarget(
                f"{url} points outside the repository", "fix the link upstream", unsafe=True)
        if repo_path == ".git" or repo_path.startswith(".git/"):
            return UnresolvedTarget(f"{url} points into .git", "fix the link upstream",
                                    unsafe=True)
        prefix = docs_prefix(docs)
        if not (repo_path == docs or repo_path.startswith(prefix)):
            return _from_page_url(section, page, path, anchor) or \
                _outside_docs(section, url, repo_path, anchor)
        if not path:
            return PageTarget(section.source.name, page.path, anchor)
        rel = "" if repo_path == docs else repo_path[len(prefix):]
    if path.endswith("/") and rel:
        rel += "/"  # normpath dropped it; a trailing slash names a folder
    target = _in_docs(section, rel, anchor, ctx)
    if target is None and path:
        target = _from_page_url(section, page, path, anchor)
    return target or UnresolvedTarget(f"{url} matches no page or file in {docs}/",
                                      "fix the link upstream",
                                      repo_path=section.repo_path(rel.rstrip("/")))


def _from_page_url(section: Section, page: Page, path: str,
                   anchor: str | None) -> Target | None:
    """A page that a relative link of an MkDocs upstream names from the page's address, not
    its file. MkDocs rewrites a link that names a file of the docs folder; any other it leaves
    as written, and with ``use_directory_urls`` (the default) a browser resolves it from the
    page's folder address: ``../../css_types/horizontal`` in ``styles/align.md`` (served as
    ``styles/align/``) is ``css_types/horizontal``. Only a page is looked for there."""
    upstream = section.upstream
    if upstream is None or not upstream.mkdocs or not upstream.directory_urls:
        return None
    base = page.path.rsplit(".", 1)[0]  # the page's address, as a folder
    folder, _, name = base.rpartition("/")
    if name in ("index", "README"):
        base = folder  # served as its folder (MkDocs: only these names)
    # (a page's address ends with "/": `horizontal/` is horizontal.md's as much as a folder's)
    rel = posixpath.normpath(f"{base}/{path}" if base else path)
    if rel == ".." or rel.startswith("../"):
        return None
    found = find_page(section, "" if rel == "." else rel)
    return PageTarget(section.source.name, found, anchor) if found is not None else None


def _outside_docs(section: Section, url: str, repo_path: str, anchor: str | None) -> Target:
    """The target of a relative link to ``repo_path``, in the repository outside the docs
    folder: a permalink at the pin, or unresolved."""
    kind = section.checkout.tree.kind(repo_path)
    if kind in ("blob", "link", "tree"):
        return _repo_file(section, repo_path, kind == "tree", anchor)
    at = f" at {section.checkout.short}" if section.checkout.commit else ""
    return UnresolvedTarget(f"{url} does not exist in the repository{at}",
                            "fix the link upstream", repo_path=repo_path)


# -- writing -------------------------------------------------------------------------------


def _anchor(ctx: BuildContext, section: Section, page: Page, target_section: Section,
            target_page: Page, anchor: str | None, link: LinkRef) -> str:
    if not anchor:
        return ""
    amap = ctx.anchors(target_section, target_page)
    mapped = amap.resolve(anchor)
    if mapped is None and anchor in target_page.extra.get(TITLE_IDS, ()):
        return ""  # the title heading, shown by the engine at the top of the page
    if mapped is None:
        where = "this page" if target_page is page else target_page.path
        level = amap.too_deep.get(anchor) or amap.too_deep.get(anchor.lower())
        if level:
            depth = ctx.engine.heading_depth
            setting = ctx.engine.heading_depth_setting or "the heading anchor depth"
            ctx.report(section, page.path, link.line, "anchor",
                       f"anchor #{anchor} names a level-{level} heading in {where}, deeper than "
                       f"the host's {setting} = {depth}, so it has no anchor; the link goes to "
                       f"the top of the page (raise {setting} to {level} to keep it)",
                       _severity(ctx))
            return ""
        ctx.report(section, page.path, link.line, "anchor",
                   f"anchor #{anchor} matches no heading or id in {where}; the link goes to "
                   "the top of the page", _severity(ctx))
        return ""
    site = section.upstream
    if target_section is section and site is not None and site.mintlify:
        native = amap.native
        if anchor not in native and native and mintlify_clean(anchor) not in native:
            # a GitHub or MkDocs spelling of the heading: broken where the upstream is
            # published (`mint broken-links --check-anchors` says so too)
            there = next((k for k, v in native.items() if v == mapped), None)
            ctx.report(section, page.path, link.line, "anchor",
                       f"anchor #{anchor} is broken on the upstream's Mintlify site"
                       + (f" (the id there is #{there})" if there else "")
                       + "; it is resolved here", _severity(ctx))
    return "#" + mapped


def _severity(ctx: BuildContext) -> Severity:
    return {"warn": Severity.WARNING, "error": Severity.ERROR,
            "ignore": Severity.INFO}[ctx.config.unresolved]


def render(target: Target, link: LinkRef, page: Page, section: Section,
           ctx: BuildContext, *, here: str | None = None) -> str | None:
    """The new destination for ``link``, or None to keep it as written (``here``: the page's
    path in the host, ``section.host_path(page.path)``, when the caller has it)."""
    if here is None:
        here = section.host_path(page.path)
    html_ctx = link.kind == "html"
    if isinstance(target, AnchorTarget):
        return _anchor(ctx, section, page, section, page, target.anchor, link) or (
            "#" if html_ctx else ctx.engine.inert_link(image=link.kind == "image"))
    if isinstance(target, PageTarget):
        tsec = section if target.source == page.source else ctx.sections[target.source]
        tpage = tsec.pages[target.path]
        there = tsec.host_path(target.path, tpage)
        anchor = _anchor(ctx, section, page, tsec, tpage, target.anchor, link) if (
            target.anchor) else ""
        if html_ctx:
            return ctx.engine.url_from(here, ctx.engine.page_url(there)) + anchor
        return ctx.engine.doc_link(here, there, page=True) + anchor
    if isinstance(target, AssetTarget):
        tsec = ctx.sections[target.source]
        tsec.add_asset(target.path)
        there = tsec.host_path(target.path)
        if html_ctx:
            return ctx.engine.url_from(here, ctx.engine.asset_url(there))
        return ctx.engine.doc_link(here, there, page=False)
    if isinstance(target, RepoFileTarget):
        url = ctx.engine.repo_link(section.source.name, "tree" if target.is_dir else "blob",
                                   target.path, target.url)
        return url + (f"#{target.anchor}" if target.anchor else "")
    if isinstance(target, HostTarget):
        if not target.path:
            return None
        anchor = f"#{target.anchor}" if target.anchor else ""
        if html_ctx:
            return ctx.engine.url_from(here, ctx.engine.page_url(target.path)) + anchor
        return ctx.engine.doc_link(here, target.path, page=True) + anchor
    if isinstance(target, UnresolvedTarget):
        hint = f" ({target.hint})" if target.hint else ""
        ctx.report(section, page.path, link.line, "link", f"{target.reason}{hint}",
                   Severity.WARNING if target.unsafe else _severity(ctx))
        if target.keep and not target.unsafe:
            return None
        web = section.source.web_url
        if target.repo_path and web and not target.unsafe:
            ref = section.checkout.commit or section.source.ref
            return ctx.engine.repo_link(section.source.name, "blob", target.repo_path,
                                        web_link(web, "blob", ref, target.repo_path))
        return "#" if html_ctx else ctx.engine.inert_link(image=link.kind == "image")
    return None



def _write(link: LinkRef, new: str) -> tuple[int, int, str]:
    """The span of ``link`` to replace and its new text (escaped for its context)."""
    if link.kind == "html":
        value = html.escape(new, quote=True)
        if link.quote:
            return link.start, link.end, value
        return link.start, link.end, f'"{value}"'
    if link.kind == "autolink":
        if SCHEME_RE.match(new):
            return link.start, link.end, f"<{new}>"
        label = re.sub(r"([\\`*_\[\]<>])", r"\\\1", link.text)
        return link.start, link.end, f"[{label}]({escape_destination(new, angle=False)})"
    return link.start, link.end, escape_destination(new, angle=link.angle)


#: where a build keeps its :func:`_resolver` (``ctx.memo``)
_RESOLVER = "links:resolve_link"


def _resolver(ctx: BuildContext) -> Resolver:
    """What resolves a link in this build: ``mdp_resolve_link`` through pluggy, or, when only
    built-ins implement it, their functions called directly in pluggy's order (its dispatch
    per link cost as much as the rules). Worked out once per build."""
    found: Any = ctx.memo.get(_RESOLVER)
    if found is None:
        from ...builtin import mintlify
        from ..plugins import BUILTIN_PLUGINS, builtin_calls

        calls = builtin_calls(ctx.hooks.pm.hook.mdp_resolve_link)
        if calls is not None and not mintlify.any_site(ctx):
            calls = [call for call in calls if call is not mintlify.mdp_resolve_link]
        if calls is not None:
            # the rules without the built-in's hook in between (it calls them): that module
            # is loaded, since its hook is among the calls, and is not imported here, as it
            # imports this one
            hook = getattr(sys.modules.get(dict(BUILTIN_PLUGINS)["miles_docs.links"]),
                           "RESOLVE_LINK", (None,))[0]
            calls = [resolve_link if call is hook else call for call in calls]
        if calls is None:
            found = ctx.hooks.resolve_link
        elif len(calls) == 1:
            found = calls[0]
        else:
            def found(link: LinkRef, page: Page, ctx: BuildContext) -> Any:
                for call in calls:
                    target = call(link, page, ctx)
                    if target is not None:
                        return target
                return None
        ctx.memo[_RESOLVER] = found
    resolve: Resolver = found
    return resolve


#: ``[label]`` not followed by ``(`` (an inline link): a reference link's label, or its text
#: (``[label][]``, ``[label]``; ``[text][label]`` is both), or a definition's label.
_BRACKETS_RE = re.compile(r"\[((?:[^\[\]\\]|\\.){0,999})\](?!\()")


def _used_labels(body: str) -> set[str]:
    """The labels that reference links of ``body`` may use, normalized as CommonMark matches
    them (case and runs of whitespace do not count): every bracketed text but a definition's
    label (at the start of a line, a ``:`` after it). A bracketed text that is no link counts
    too: a definition is left unchecked only when nothing could use it."""
    from markdown_it.common.utils import normalizeReference  # as the scan's labels are

    used = set()
    for m in _BRACKETS_RE.finditer(body):
        start = body.rfind("\n", 0, m.start()) + 1
        if body.startswith(":", m.end()) and not body[start:m.start()].strip(" "):
            continue  # a definition
        used.add(normalizeReference(m.group(1)))
    return used


def _comment_spans(body: str) -> list[tuple[int, int]]:
    """Where the ``{/* … */}`` comments of an MDX page are (for an engine that reads MDX
    itself, which is handed the page with them: the other engines' pages lose them before
    the scan). A link in one is no link: not rewritten, not reported."""
    if "/*" not in body:
        return []
    from .mdx import COMMENT_RE

    return [m.span() for m in COMMENT_RE.finditer(body)]


def _in_spans(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= at < end for start, end in spans)  # a page has few comments


def transform_page(page: Page, ctx: BuildContext) -> None:
    section = _section_of(page, ctx)
    resolve = _resolver(ctx)
    scan = ctx.scan(page)
    offset = page.body_start
    replacements: list[tuple[int, int, str]] = []
    here = section.host_path(page.path)
    for line, raw in scan.unmapped:
        ctx.report(section, page.path, line or None, "link",
                   f"cannot locate the link {raw!r} in the source; left as written")
    used: set[str] | None = None
    comments = _comment_spans(page.content[offset:]) if ctx.engine.reads_mdx else []
    for link in scan.links:
        if not link.dest.strip():
            continue
        if comments and _in_spans(link.start, comments):
            continue  # in an MDX comment, which the engine shows nothing of
        unused = False
        if link.kind == "definition" and link.label is not None:
            if link.label.startswith("^") and ctx.engine.reads_footnotes(section):
                continue  # a footnote: its text is no destination
            if used is None:
                used = _used_labels(page.content[offset:])
            unused = link.label not in used
        target = resolve(link, page, ctx)
        if target is None or isinstance(target, ExternalTarget):
            continue
        if unused and not (isinstance(target, UnresolvedTarget) and target.unsafe):
            continue  # no link uses it, so no engine shows it: only what is unsafe is acted on
        new = render(target, link, page, section, ctx, here=here)
        if new is None or new == link.dest:
            continue
        start, end, value = _write(link, new)
        replacements.append((start + offset, end + offset, value))
    if replacements:
        page.content = rewrite(page.content, replacements)
