"""The Sphinx adapter: the same ``miles-docs.yml`` and lock, the same section as MkDocs.

Sphinx reads documents only from its source folder (no public API reads them from elsewhere),
so the section is written into a generated folder ``<srcdir>/<mount>/``:

- it holds its own ``.gitignore`` (``*``), so the host's ``git status`` stays clean;
- a marker file (``.miles-docs-generated``) proves the folder is ours: a folder without it is a
  host folder, and the build stops instead of touching it;
- a file is rewritten only when its bytes change (atomic replace), so Sphinx re-reads exactly
  the pages that changed upstream; files that no longer exist upstream are removed, and so is
  the folder of a source no longer mounted there.

The modules: :mod:`.engine` (the engine's syntax), :mod:`.folder` (the generated folder),
:mod:`.toctree` (the nav as toctrees), :mod:`.build` (``config-inited``, ``builder-inited``),
:mod:`.events` (the later events), :mod:`.sandbox` (MyST for untrusted pages).

Events and why:

- ``config-inited``: load and validate the config (``ExtensionError`` naming the key); turn on
  MyST heading anchors if the host has them off, since upstream pages link to headings.
- ``builder-inited``: runs before Sphinx discovers documents (``Builder.read``), so the
  generated folder is complete when the project is scanned.
- the later events (``doctree-read``, ``html-page-context``, ``env-get-outdated``, …): see
  :mod:`.events`, which says why each one and its priority.
"""

from __future__ import annotations

from typing import Any

try:
    import myst_parser  # noqa: F401  (the sandbox and the slugs need it)
    from sphinx.application import Sphinx
except ModuleNotFoundError:  # Sphinx is an extra: say which one
    from ..engines import require

    require("sphinx", "the Sphinx extension")
    raise

from .. import __version__
from ..core.config import CONFIG_FILE
from ..core.section.banner import BANNER_CSS
from .build import on_builder_inited, on_config_inited
from .engine import SphinxEngine
from .events import (
    RawIdDomain,
    on_build_finished,
    on_config_inited_static,
    on_doctree_read_image_paths,
    on_doctree_read_orphans,
    on_doctree_read_placement,
    on_doctree_read_raw_ids,
    on_doctree_read_titles,
    on_doctree_resolved,
    on_env_get_outdated,
    on_env_get_updated,
    on_html_page_context,
)
from .sandbox import SandboxedMystParser
from .sandbox import on_doctree_read as sandbox_doctree_read

__all__ = ["SphinxEngine", "__version__", "setup"]


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("myst_parser")
    # MyST with the sandbox for pages of untrusted sources (see .sandbox)
    app.add_source_parser(SandboxedMystParser, override=True)
    # image file names first, then the sandbox, before the collectors (see .events)
    app.connect("doctree-read", on_doctree_read_image_paths, priority=90)
    app.connect("doctree-read", sandbox_doctree_read, priority=100)  # before the collectors
    app.add_css_file(BANNER_CSS.name)
    app.connect("config-inited", on_config_inited_static)
    app.add_config_value("miles_docs_config", CONFIG_FILE, "env", types=[str])
    app.add_config_value("miles_docs_sources", None, "env", types=[list, type(None)])
    app.add_config_value("miles_docs_options", None, "env", types=[dict, type(None)])
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("doctree-read", on_doctree_read_placement, priority=400)
    app.connect("doctree-read", on_doctree_read_titles, priority=600)
    app.connect("doctree-read", on_doctree_read_raw_ids)
    app.add_domain(RawIdDomain)
    # after the metadata collector (500), which fills the page's metadata from its docinfo
    app.connect("doctree-read", on_doctree_read_orphans, priority=600)
    app.connect("html-page-context", on_html_page_context, priority=400)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-get-updated", on_env_get_updated)
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
