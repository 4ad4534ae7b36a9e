"""Mintlify's syntax: its heading ids (as its renderer computes them) and its site-root URLs."""

from __future__ import annotations

import posixpath
import re
import unicodedata
from urllib.parse import quote, unquote

from ..core.engine import Engine
from ..core.transform.anchors import PageSlugger, mintlify_unique


def _slugify(text: str, *, lowercase: bool, preserve: str) -> str:
    # @sindresorhus/slugify as Mintlify calls it (decamelize off): transliterate, lowercase,
    # runs of other characters to "-", contractions joined, no leading/trailing/double "-"
    text = unicodedata.normalize("NFKD", text.replace("&", " and "))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    if lowercase:
        text = text.lower()
    keep = "a-z0-9" + ("" if lowercase else "A-Z") + re.escape(preserve)
    text = re.sub(f"[^{keep}]+", "-", text).replace("\\", "")
    text = re.sub(r"([a-zA-Z\d]+)-([ts])(-|$)", r"\1\2\3", text)
    return re.sub(r"-{2,}", "-", text).strip("-")


def mintlify_slug(text: str) -> str:
    """Mintlify's heading id, as its renderer computes it (``@mintlify/common`` ``slugify``,
    then ``cleanHeadingId``): ``## 3. Setup`` → ``3-setup``, ``LoRA + IPC`` → ``lora-+-ipc``.

    The title is lowercased, white space becomes ``-`` and the result is URI-encoded; with a
    percent escape in it the escapes are kept (and decoded for the DOM id), otherwise
    everything but letters, digits and ``_`` becomes ``-``.
    """
    encoded = quote(re.sub(r"\s+", "-", text.lower().strip()), safe="-_.!~*'()")
    if re.search(r"%[0-9A-F]{2}", encoded):
        slug = unquote(_slugify(encoded, lowercase=False, preserve="%_"))
    else:
        slug = _slugify(encoded, lowercase=True, preserve="_")
    slug = re.sub(r"[?,;:!'\"()\[\]{}]", "", slug)
    return "".join(ch for ch in slug if not unicodedata.category(ch).startswith("So"))


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
