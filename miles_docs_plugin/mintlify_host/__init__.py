"""The Mintlify adapter: a Mintlify host site gets its sections at build time.

Mintlify has no build plugins: it deploys a folder of a git repository as it is. So this
adapter writes files:

- ``miles-docs mintlify build --out OUT`` writes a complete site: the host's docs root as it
  is, each section under ``OUT/<mount>/``, and ``OUT/docs.json`` with the section's navigation
  added by a minimal edit (:func:`insert_nav`: only the inserted lines are new, every other
  byte — indentation, key order, line endings, trailing newline — is the host's);
- ``miles-docs mintlify dev`` writes the sections into ``<docs>/<mount>/`` (a generated folder
  that ignores itself and carries a marker, as the Sphinx adapter's), with the section's tab in
  ``<mount>/miles-docs-nav.json`` for a ``$ref`` in the host's ``docs.json``, and keeps them in
  sync with the pin or a local working copy while ``mint dev`` runs beside it.

Pages stay Mintlify MDX: components pass through untouched (the core's component plugin only
lends its parse, so that links inside components are found); links become Mintlify's site-root
form (``/diffusion/user-guide/rewards``), anchors Mintlify's heading ids, images and assets
files under the section's folder, repository files permalinks at the pin. Pages of untrusted
sources are made inert MDX (:mod:`.sandbox`).

The modules: :mod:`.engine` (heading ids, URLs), :mod:`.pages` (the page transform),
:mod:`.docsjson` (placement and the docs.json edit), :mod:`.site` (the files written). The
command is the CLI's (``miles_docs_plugin.cli.mintlify``).
"""

from ..core.transform.anchors import mintlify_slug
from .docsjson import Placement, Span, find_ref, insert_nav, nav_object, parse_spans, placement
from .engine import MintlifyEngine
from .pages import MintlifyPages
from .site import NAV_FILE, build_sections, build_site, dev_sync, ref_hint, section_files

__all__ = ["NAV_FILE", "MintlifyEngine", "MintlifyPages", "Placement", "Span", "build_sections",
           "build_site", "dev_sync", "find_ref", "insert_nav", "mintlify_slug", "nav_object",
           "parse_spans", "placement", "ref_hint", "section_files"]
