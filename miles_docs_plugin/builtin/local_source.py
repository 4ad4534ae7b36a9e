"""Built-in source: a local working copy (preview), used only when asked for.

``local: PATH`` in a source, or ``MILES_DOCS_LOCAL_<NAME>=PATH``, builds from that folder as it
is, uncommitted edits included. Pages say so in their banner. ``MILES_DOCS_FROZEN=1`` (for CI)
turns any such override into an error, so a release build can only use pins.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import hookimpl
from ..core.env import env_flag
from ..core.errors import ConfigError, ContentError
from ..core.model import Checkout, LocalTree

if TYPE_CHECKING:
    from ..core.config import SourceConfig
    from ..core.context import BuildContext
    from ..core.source.lock import LockEntry

log = logging.getLogger("miles_docs")
FROZEN_ENV = "MILES_DOCS_FROZEN"


def frozen() -> bool:
    return env_flag(FROZEN_ENV)


@hookimpl(tryfirst=True)
def mdp_fetch(source: SourceConfig, pin: LockEntry | None, ctx: BuildContext) -> Checkout | None:
    if source.local is None:
        return None
    if frozen():
        raise ConfigError(
            f"source {source.name!r} uses the local working copy {source.local} but "
            "MILES_DOCS_FROZEN is set", where=str(ctx.config.config_file or "config"),
            hint="remove `local:` / MILES_DOCS_LOCAL_* for this build, or unset "
                 f"{FROZEN_ENV}")
    root = source.local
    if not root.is_dir():
        raise ConfigError(f"local working copy {root} does not exist",
                          where=f"{ctx.config.config_file or 'config'}: {source.name}.local",
                          hint="point `local:` (or MILES_DOCS_LOCAL_*) at a clone of the repo")
    if not (root / source.docs_dir).is_dir():
        raise ContentError(f"docs_dir {source.docs_dir!r} does not exist in {root}",
                           hint="set `docs_dir:` to the docs folder of that repository")
    return Checkout(source=source, root=root, tree=LocalTree(root), commit=None, local=True)
