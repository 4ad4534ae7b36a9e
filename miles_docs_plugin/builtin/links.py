"""Built-in link rules: every link becomes a target, then is written for the host engine.

The rules are :mod:`..core.transform.links`, loaded on the first page a build transforms: a
warm build, whose pages the transform memo replays, does not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import hookimpl

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page, Target
    from ..core.transform.scanned import LinkRef


@hookimpl(trylast=True)
def mdp_resolve_link(link: LinkRef, page: Page, ctx: BuildContext) -> Target | None:
    """The link's target (the rules' table: :mod:`..core.transform.links`). A build whose
    only resolvers are the built-ins calls the rules without this function in between."""
    from ..core.transform.links import resolve_link

    return resolve_link(link, page, ctx)


#: This module's own hook, as defined here: the link resolver calls the rules in its place,
#: but not a function a plugin put under the name (a wrapper of it, say). (In a tuple: pluggy
#: reads every name of a module it registers, and would take the function for a second hook.)
RESOLVE_LINK = (mdp_resolve_link,)


@hookimpl(tryfirst=True)  # before components are written in the engine's syntax
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    from ..core.transform.links import transform_page

    transform_page(page, ctx)


def __getattr__(name: str) -> Any:
    """The rules' names (``render``, ``SCHEME_RE``…), for plugins written when they lived
    here: loaded on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..core.transform import links

    return getattr(links, name)
