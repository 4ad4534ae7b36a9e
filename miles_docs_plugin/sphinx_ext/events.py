"""The event handlers after ``builder-inited``; why each event and priority:

- ``doctree-read`` (priority 90, before the sandbox and the image collector): image file
  names; (400, before the toctree collector at 500): add the section to the root document's
  toctree (``placement``); (600, after the title collector): titles from front matter, as
  MkDocs does.
- ``html-page-context`` (priority 400, before sphinx-book-theme's buttons at 501): edit links
  of injected pages point upstream; provenance in the template context; the banner, added to
  the page body here (after the doctree was indexed for search, and at write time, so a moved
  pin re-writes pages without re-reading them).
- ``build-finished``: copy assets that only raw HTML references (Sphinx copies the rest);
  after a pin move, restamp the pages Sphinx did not write again (:mod:`.restamp`).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.domains import Domain

from ..core.files import copy_if_changed
from ..core.patterns import lazy_re
from ..core.section.banner import BANNER_CSS, insert_banner_html
from ..core.section.sandbox import safe_title, tagless
from ..core.urls import web_link
from .engine import INERT_LINK, PIN_SCHEME
from .restamp import restamp, write_pins_record
from .state import get_state


def on_doctree_read_placement(app: Sphinx, doctree: nodes.document) -> None:
    """Add each section to the root document's toctree (``placement``)."""
    if app.env.docname != app.config.root_doc:
        return
    for title, index_doc, placement in get_state(app).roots:
        if placement == "none":
            continue
        toctrees = list(doctree.findall(addnodes.toctree))
        if any(index_doc in (tc.get("includefiles") or []) for tc in toctrees):
            continue
        if toctrees:
            tc = toctrees[-1] if placement == "end" else toctrees[0]
        else:
            tc = addnodes.toctree(entries=[], includefiles=[], maxdepth=-1, glob=False,
                                  hidden=True, caption=None, titlesonly=False, numbered=0,
                                  parent=app.env.docname)
            wrapper = nodes.compound(classes=["toctree-wrapper"])
            wrapper += tc
            doctree += wrapper
        entry = (title, index_doc)
        if placement == "start":
            tc["entries"].insert(0, entry)
            tc["includefiles"].insert(0, index_doc)
        else:
            tc["entries"].append(entry)
            tc["includefiles"].append(index_doc)


def on_doctree_read_image_paths(app: Sphinx, doctree: nodes.document) -> None:
    """Give Sphinx the file name of an injected page's image, not its URL.

    MyST hands Sphinx an image's destination as markdown-it normalises it, percent-encoded
    (``![a](<images/my pic.png>)`` becomes ``images/my%20pic.png``; ``café.png``,
    ``caf%C3%A9.png``), and Sphinx looks for a file of that name: the picture was missing, with
    a warning, where MkDocs, Mintlify and browsers show it. An encoded local image whose file
    exists only decoded gets the decoded name, before the sandbox (priority 100) checks that
    it stays in the section (``..%2F`` is ``../`` there) and the image collector (500) reads
    it.
    """
    docname = app.env.docname
    if docname not in get_state(app).pages:
        return
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        if "%" not in uri or "://" in uri or uri.startswith(("data:", f"{PIN_SCHEME}:")):
            continue
        decoded = unquote(uri)
        if not Path(app.env.relfn2path(uri, docname)[1]).exists() and \
                Path(app.env.relfn2path(decoded, docname)[1]).is_file():
            node["uri"] = decoded


RAW_ID_RE = lazy_re(  # only for pages with raw HTML
    r"""<[A-Za-z][\w-]*\s[^>]*?\bid\s*=\s*["']([^"'<>]+)["']""")
#: Prefix of the std-domain label names that record raw HTML ids of injected pages.
RAW_ID_LABEL = "miles-docs-raw-id"


def on_doctree_read_raw_ids(app: Sphinx, doctree: nodes.document) -> None:
    """Make ids of raw HTML in injected pages (``<a id>``, ``<div id>``, component ids)
    link targets, as they are on Mintlify and in MkDocs.

    Each id becomes an anonymous std label of its document (a name no author writes), which
    MyST resolves for ``other.md#id`` links; same-page ``#id`` links are answered by the
    ``miles-docs`` domain below. Sphinx clears both when the document is read again.
    """
    docname = app.env.docname
    if docname not in get_state(app).pages:
        return
    std = app.env.domaindata["std"]
    # myst-parser before 5 resolves ``other.md#id`` only against the page's heading slugs
    slugs = app.env.metadata[docname].setdefault("myst_slugs", {})
    for raw in doctree.findall(nodes.raw):
        if "html" not in raw.get("format", "").split():
            continue
        for value in RAW_ID_RE.findall(raw.astext()):
            std["anonlabels"].setdefault(f"{RAW_ID_LABEL}:{docname}#{value}", (docname, value))
            if isinstance(slugs, dict):
                slugs.setdefault(value, (0, value, value))


class RawIdDomain(Domain):
    """Resolves MyST's same-page ``[text](#id)`` to ids of raw HTML (recorded above)."""

    name = "miles-docs"
    label = "miles-docs raw HTML ids"

    def resolve_any_xref(self, env: Any, fromdocname: str, builder: Any, target: str,
                         node: Any, contnode: Any) -> list[tuple[str, Any]]:
        labels = env.domaindata["std"]["anonlabels"]
        hit = labels.get(f"{RAW_ID_LABEL}:{fromdocname}#{target}")
        if hit is None:
            return []
        from sphinx.util.nodes import make_refnode

        return [("miles-docs:id", make_refnode(builder, fromdocname, hit[0], hit[1],
                                               contnode))]

    def resolve_xref(self, env: Any, fromdocname: str, builder: Any, typ: str, target: str,
                     node: Any, contnode: Any) -> Any:
        return None

    def merge_domaindata(self, docnames: Any, otherdata: Any) -> None:
        pass  # it keeps no data of its own: the labels live in the std domain


def on_doctree_read_orphans(app: Sphinx, doctree: nodes.document) -> None:
    """Pages the nav does not list are orphans (built, linkable, in no toctree), as on the
    upstream's own site."""
    if app.env.docname in get_state(app).orphans:
        app.env.metadata[app.env.docname]["orphan"] = True


def on_doctree_read_titles(app: Sphinx, doctree: nodes.document) -> None:
    """Front matter titles win over the first heading, as in MkDocs."""
    info = get_state(app).pages.get(app.env.docname)
    if info is None or not info.title:
        return
    text = tagless(info.title)  # themes print a title's text raw (sphinx-book-theme)
    title = nodes.title(text, text)
    app.env.titles[app.env.docname] = title
    app.env.longtitles[app.env.docname] = title


def on_html_page_context(app: Sphinx, pagename: str, templatename: str,
                         context: dict[str, Any], doctree: Any) -> None:
    info = get_state(app).pages.get(pagename)
    if info is None:
        context.setdefault("miles_docs", None)  # templates can test it on every page
        return
    prov = info.provenance
    if info.banner_html and "body" in context:
        # Into the HTML, not the doctree: Sphinx indexes a doctree's raw HTML for search.
        context["body"] = insert_banner_html(context["body"], info.banner_html)
    context["miles_docs"] = prov
    for key in ("source_repo", "source_commit", "source_path", "source_url"):
        context[key] = prov.get(key)
    if info.title:
        # templates take ``title`` as HTML (Sphinx renders it from the title node)
        context["title"] = safe_title(info.title)
    if info.description:
        tag = f'<meta name="description" content="{safe_title(info.description)}" />\n'
        context["metatags"] = context.get("metatags", "") + tag
    view = _current_blob_url(app, prov)
    if view:
        # furo's "view this page" would point into the host repository, where the generated
        # page is not committed: point it at the upstream file at the pin instead
        context["theme_source_view_link"] = view.replace("{", "{{").replace("}", "}}")
    edit = prov.get("edit_url")
    if edit:
        # furo / basic-ng: a per-page edit link template ({filename} is the only field)
        context["theme_source_edit_link"] = edit.replace("{", "{{").replace("}", "}}")
        # pydata-sphinx-theme / sphinx-book-theme: a per-page template that must name file_name
        context["miles_docs_edit_url"] = edit
        context["edit_page_url_template"] = "{{ miles_docs_edit_url }}{# file_name #}"
        context["edit_page_provider_name"] = "GitLab" if "/-/" in edit else "GitHub"


def _current_blob_url(app: Sphinx, prov: dict[str, Any]) -> str | None:
    web, commit = get_state(app).permalinks.get(prov.get("source_name", ""), (None, ""))
    if not web or not prov.get("source_path"):
        return None
    return web_link(web, "blob", commit, prov["source_path"])


def on_env_get_outdated(app: Sphinx, env: Any, added: set[str], changed: set[str],
                        removed: set[str]) -> list[str]:
    """Pages that entered or left the nav re-read (their orphan mark is set when read); and
    the root document when the sections placed in its toctree are not those of the last
    build (a source added or removed, its title or placement changed): they are placed when
    it is read, and its file did not change.

    What was placed is kept on the environment (pickled with it, a few names): a source
    added to ``miles-docs.yml`` was in no toctree, and the root kept an old title, until
    the root page itself was edited."""
    state = get_state(app)
    outdated = [d for d in state.pages if d in env.all_docs and
                (d in state.orphans) != bool(env.metadata.get(d, {}).get("orphan"))]
    placed = getattr(env, "miles_docs_placed", None)
    env.miles_docs_placed = list(state.roots)
    if placed != state.roots and app.config.root_doc not in added:
        outdated.append(app.config.root_doc)
        state.placed_anew = True
    return outdated


def on_env_get_updated(app: Sphinx, env: Any) -> list[str]:
    """Pages to write again (not re-read) because a pin moved: their banner and permalinks
    name the commit, and those are filled in at write time. Every page when the sections
    placed in the root toctree changed (see ``on_env_get_outdated``): each shows the root
    toctree in its sidebar and links its neighbours in it.

    When the output folder records which pin its pages name (``restamp.PINS_RECORD``), they
    are not written again: ``restamp.restamp`` brings the pin in them up to date at
    build-finished, and Sphinx writes only the pages that changed (and the toctrees that hold
    them). Only pages whose own text names the old pin are written again here."""
    state = get_state(app)
    previous = getattr(env, "miles_docs_written_pins", None)
    env.miles_docs_written_pins = dict(state.pins)
    if state.placed_anew:
        return sorted(env.all_docs)
    if previous is None or previous == state.pins:
        return []
    again = {name for name, commit in state.pins.items()
             if previous.get(name) != commit and name not in state.restamp}
    return [d for d, info in state.pages.items() if d in env.all_docs and (
        d in state.rewrite or info.provenance.get("source_name") in again)]


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Fill in what names the pinned commit: repository-file permalinks, in links, images and
    raw HTML (the banner, which names it too, is added in html-page-context)."""
    state = get_state(app)
    info = state.pages.get(docname)
    if info is None or not info.pin_links:
        return
    prefix = PIN_SCHEME + ":"

    def filled(uri: str) -> str:
        """The URL a placeholder stands for (or ``uri`` where no permalink is known)."""
        if uri == INERT_LINK:
            return "#"
        if uri.startswith(prefix + "url/"):
            return uri[len(prefix + "url/"):]
        source, kind, rest = [*uri[len(prefix) + 2:].split("/", 2), "", ""][:3]
        path, _, anchor = rest.partition("#")
        web, commit = state.permalinks.get(source, (None, ""))
        return web_link(web, kind, commit, path) + (f"#{anchor}" if anchor else "") \
            if web else uri

    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.startswith(prefix):
            ref["refuri"] = filled(uri)
    for image in doctree.findall(nodes.image):
        uri = image.get("uri", "")
        if uri.startswith(prefix):  # a remote image for the image collector ('?')
            image["uri"] = filled(uri)
            image["candidates"] = {"?": image["uri"]}
    for raw in list(doctree.findall(nodes.raw)):
        text = raw.astext()
        if prefix in text and "html" in raw.get("format", "").split():
            new = PIN_URL_RE.sub(lambda m: html.escape(filled(html.unescape(m.group(0)))),
                                 text)
            raw.replace_self(nodes.raw("", new, format=raw["format"]))


#: A placeholder written into an HTML attribute (its value, escaped: up to the quote).
PIN_URL_RE = lazy_re(PIN_SCHEME + r":[^\s\"'<>]*")


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for src, rel in get_state(app).html_assets:
        target = out / rel
        if Path(src).exists():
            copy_if_changed(Path(src), target)
    restamp(app)
    write_pins_record(app)


def on_config_inited_static(app: Sphinx, config: Config) -> None:
    """The banner's stylesheet, from the package's own static folder.

    Added when the config is read, before Sphinx compares it with the one in the pickled
    environment: added later (at ``builder-inited``) it was in the pickled config and not yet
    in the new one, and every rebuild said "The configuration has changed (html_static_path)".
    """
    static = str(BANNER_CSS.parent)
    if static not in config.html_static_path:
        config.html_static_path.append(static)
