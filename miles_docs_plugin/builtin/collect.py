"""Built-in collector: the pages of a fetched checkout, read and checked against the pin.

The work is :func:`miles_docs_plugin.core.collect.collect.collect`; this plugin is how the
pipeline reaches it (hook ``mdp_collect``), so that a plugin can collect a checkout its own way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import hookimpl
from ..core.collect.collect import collect

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Checkout, Section


@hookimpl(trylast=True)
def mdp_collect(checkout: Checkout, ctx: BuildContext) -> Section | None:
    return collect(checkout, ctx.report, max_page_bytes=ctx.config.max_page_size << 20)
