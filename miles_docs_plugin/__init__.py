"""miles-docs: inject a docs section from another git repository, pinned to an exact commit.

Public API for plugins: :data:`hookimpl` marks hook implementations (see
:mod:`miles_docs_plugin.hookspecs`); the core types live in :mod:`miles_docs_plugin.core.model`,
a plugin's config keys are :class:`~miles_docs_plugin.core.config.ConfigKeys` of
:class:`~miles_docs_plugin.core.config.FieldSpec`, and the host engine a hook sees
(``ctx.engine``) is described by :class:`miles_docs_plugin.core.engine.Engine`.
"""

import pluggy

__version__ = "0.1.0"

hookimpl = pluggy.HookimplMarker("miles_docs")

__all__ = ["__version__", "hookimpl"]
