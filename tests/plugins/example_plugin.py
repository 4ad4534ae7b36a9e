"""A third-party plugin, written against the public API only, as a plugin author would.

It declares its config keys (``stamp`` at the top level, ``stamped`` in each source) and puts
a stamp line on every injected page of a stamped source, in place of the built-in provenance
banner, which its users turn off with ``disable: [provenance]``. It also resolves links
written ``page:NAME`` (to the page ``NAME.md`` of the same section). It is registered through the
``miles_docs`` entry-point group (``tests/test_third_party_plugin.py`` installs a dist-info
that names this module).
"""

from __future__ import annotations

import html
from typing import Any

from miles_docs_plugin import hookimpl
from miles_docs_plugin.core.config import ConfigKeys, FieldSpec
from miles_docs_plugin.core.context import BuildContext
from miles_docs_plugin.core.model import Page, PageTarget, Target
from miles_docs_plugin.core.transform.scanned import LinkRef

STAMP_CLASS = "example-stamp"


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


@hookimpl
def mdp_config_keys() -> ConfigKeys:
    return ConfigKeys(
        top=(FieldSpec("stamp", "string", "Imported page",
                       "The line the example plugin puts on every injected page.",
                       check=_is_text),),
        source=(FieldSpec("stamped", "bool", True,
                          "Whether the example plugin stamps this source's pages.",
                          check=lambda value: isinstance(value, bool)),),
    )


@hookimpl
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    source = ctx.sections[page.source].source
    if not source.extra["stamped"]:
        return
    text = f"{ctx.config.extra['stamp']} ({source.name}: {page.path})"
    page.extra["banner_html"] = f'<p class="{STAMP_CLASS}">{html.escape(text)}</p>'


@hookimpl
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    if link.dest.startswith("page:"):
        return PageTarget(page.source, link.dest.removeprefix("page:") + ".md", None)
    return None  # the built-in rules resolve the others
