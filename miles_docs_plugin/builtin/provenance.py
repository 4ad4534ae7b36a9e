"""Built-in provenance: every injected page says where it comes from.

Each page gets ``page.extra["provenance"]`` (``source_repo``, ``source_path``,
``source_commit``, ``source_url``, ``edit_url``, ``local``), which the adapters expose as page
meta (MkDocs) or template context (Sphinx), and — unless ``banner: false`` —
``page.extra["banner_html"]``, a banner the adapters put at the top of the rendered page (right
after its first ``<h1>``). They add it to the HTML, not to the page source: after the search
plugins have indexed the page (the banner is not content: searching "commit" must not find every
injected page), and at write time (moving a pin then changes no page source, so Sphinx re-reads
nothing).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.model import GENERATED_FROM
from ..core.section.banner import BANNER_CLASS, template_banner
from ..core.urls import web_link

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page, Section


def provenance(section: Section, page: Page) -> dict[str, Any]:
    source = section.source
    checkout = section.checkout
    repo_path = section.repo_path(page.extra.get(GENERATED_FROM, page.path))
    web = source.web_url
    url = web_link(web, "blob", checkout.commit or source.ref, repo_path) if web else None
    edit_url = None
    if web and source.edit_uri != "":
        if source.edit_uri:
            edit_url = f"{web.rstrip('/')}/{source.edit_uri.strip('/')}/{page.path}"
        else:
            edit_url = web_link(web, "edit", source.ref, repo_path)
    return {
        "source_name": source.name,
        "source_repo": source.display,
        "source_repo_url": web or source.repo,
        "source_path": repo_path,
        "source_commit": checkout.commit,
        "source_short": checkout.short,
        "source_url": url,
        "edit_url": edit_url,
        "local": checkout.local,
    }


def _default_banner(info: dict[str, Any], local_root: str | None) -> str:
    repo = html.escape(str(info["source_repo"]))
    path = html.escape(str(info["source_path"]))
    if info["local"]:
        return (f'<p class="{BANNER_CLASS} {BANNER_CLASS}--local">Preview: this page is built '
                f"from the local working copy <code>{html.escape(local_root or '')}</code> of "
                f"{repo} (<code>{path}</code>), uncommitted changes included; it is not a "
                "pinned commit.</p>")
    name = f"{repo}/{path}"
    link = (f'<a href="{html.escape(info["source_url"], quote=True)}">{name}</a>'
            if info["source_url"] else f"<code>{name}</code>")
    return (f'<p class="{BANNER_CLASS}">This page comes from {link} at commit '
            f'<code>{html.escape(info["source_short"])}</code>.</p>')


def banner_text(section: Section, page: Page, info: dict[str, Any]) -> str | None:
    setting = section.source.banner
    if setting is False:
        return None
    if isinstance(setting, str):
        return template_banner(setting, info)
    local = str(section.checkout.root) if section.checkout.local else None
    return _default_banner(info, local)


def banner_html(banner: str) -> str:
    """The banner as HTML (a template may be Markdown)."""
    if banner.lstrip().startswith("<"):
        return banner
    from markdown_it import MarkdownIt

    rendered: str = MarkdownIt("commonmark").render(banner).strip()
    return f'<div class="{BANNER_CLASS}">{rendered}</div>'


@hookimpl(trylast=True)
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    section = ctx.sections[page.source]
    info = provenance(section, page)
    page.extra["provenance"] = info
    banner = banner_text(section, page, info)
    if not banner:
        return
    page.extra["banner_html"] = banner_html(banner)
