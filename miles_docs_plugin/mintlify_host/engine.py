"""Mintlify's syntax: its heading ids (as its renderer computes them) and its site-root URLs."""

from __future__ import annotations

import posixpath
import re

from ..core.engine import Engine
from ..core.transform.anchors import PageSlugger, mintlify_slug, mintlify_unique


class MintlifyEngine(Engine):
    name = "mintlify"
    reads_mdx = True
    raw_html_ids = True
    heading_attrs = False

    def page_url(self, doc_path: str) -> str:
        stem = posixpath.splitext(doc_path)[0]
        if stem == "index":
            return "/"
        return "/" + stem.removesuffix("/index")

    def asset_url(self, doc_path: str) -> str:
        return "/" + doc_path

    def url_from(self, from_doc: str, to_url: str) -> str:
        return to_url  # Mintlify links are site-root paths

    def doc_link(self, from_doc: str, to_doc: str, *, page: bool) -> str:
        url = self.page_url(to_doc) if page else self.asset_url(to_doc)
        return re.sub(r"[%#?]", lambda m: f"%{ord(m.group()):02X}", url)

    def page_slugger(self) -> PageSlugger:
        seen: dict[str, int] = {}
        return lambda text: mintlify_unique(mintlify_slug(text), seen)
