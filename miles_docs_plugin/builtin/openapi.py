"""Built-in OpenAPI pages: a page with ``openapi: GET /x`` in its front matter gets the
operation's reference, written from the spec of the pinned tree (:mod:`..core.transform.openapi`,
imported for the pages that need it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import hookimpl

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page


@hookimpl
def mdp_prepare_page(page: Page, ctx: BuildContext) -> None:
    # A Mintlify host calls append_reference itself, before its own steps read the page.
    if "openapi" in page.meta and not ctx.engine.reads_mdx:
        from ..core.transform.openapi import append_reference

        append_reference(page, ctx)
