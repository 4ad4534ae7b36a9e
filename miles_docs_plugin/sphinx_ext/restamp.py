"""After a pin move, bring the pin up to date in the pages Sphinx did not write again.

The banner and the repository permalinks name the pinned commit; they are filled in at write
time, so a moved pin changes no page source and Sphinx re-reads only the pages that changed.
Rather than have Sphinx write every page again (1,001 pages for a 1-page change), the output
folder records the pin its pages name (:data:`PINS_RECORD`), ``env-get-updated`` asks for no
page, and at ``build-finished`` :func:`restamp` replaces the old commit by the new one in the
other pages, in the extension's own banner and permalinks only: the output is byte for byte
what a fresh build writes.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from sphinx.application import Sphinx
from sphinx.util import logging

from ..core.files import write_if_changed
from ..core.urls import web_link
from .state import get_state

logger = logging.getLogger(__name__)


#: In the output folder: the pin the written pages of each source name (JSON, by source name).
PINS_RECORD = ".miles-docs-pins.json"
#: Builders whose pages :func:`restamp` can bring up to date (one HTML file per document).
RESTAMP_BUILDERS = ("html", "dirhtml")


def read_pins_record(app: Sphinx) -> dict[str, str]:
    if app.builder is None or app.builder.name not in RESTAMP_BUILDERS:
        return {}
    try:
        data = json.loads((Path(app.outdir) / PINS_RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items()
            if isinstance(v, str) and re.fullmatch(r"[0-9a-f]{40}", v)}


def _attr(value: str) -> str:
    """``value`` as Sphinx's HTML writer escapes an attribute."""
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
            .replace(">", "&gt;"))


def restamp(app: Sphinx) -> None:
    """Bring the pin up to date in the pages of the output folder that Sphinx did not write
    again after a pin moved, so they equal what a fresh build writes.

    Only what the extension itself put there changes: its banner (the exact banner of the old
    pin, replaced by the one of the new pin) and its repository permalinks
    (``href="<web>/blob|tree/<old>…"``). A page that still names the old pin after that (a
    template of the host prints ``source_commit``) is written again by Sphinx."""
    state = get_state(app)
    builder = app.builder
    if builder is None or builder.name not in RESTAMP_BUILDERS:
        return
    again: list[str] = []
    count = 0
    t0 = time.perf_counter()
    for name, old in state.restamp.items():
        new = state.pins.get(name)
        web = state.permalinks.get(name, (None, ""))[0]
        if not new or new == old:
            continue
        # href="<web>/blob/<old>" (then /, #, ? or the closing quote) -> the same at <new>
        swap = {_attr(web_link(web, kind, old, "x")[:-2]).encode():
                _attr(web_link(web, kind, new, "x")[:-2]).encode()
                for kind in ("blob", "tree")} if web else {}
        swap_hrefs = _href_swapper(swap) if swap else None
        outfile = _outfile(builder)
        for docname, info in state.pages.items():
            if info.provenance.get("source_name") != name:
                continue
            try:  # read and written back through one handle
                fh = open(outfile(docname), "r+b")  # noqa: SIM115 - closed below
            except (FileNotFoundError, IsADirectoryError):
                continue
            with fh:
                data = fh.read()
                banner = (info.banner_html or "").encode("utf-8")
                old_banner = banner.replace(new.encode(), old.encode()).replace(
                    new[:7].encode(), old[:7].encode())
                text = data
                if banner != old_banner:
                    if banner in data:
                        continue  # Sphinx wrote it in this build
                    text = text.replace(old_banner, banner, 1)
                if docname in state.rewrite:
                    again.append(docname)  # its own text names the old pin: no replacement
                    continue
                if swap_hrefs is not None:
                    text = swap_hrefs(text)
                if old[:7].encode() in text:
                    again.append(docname)
                    continue
                if text != data:
                    _overwrite(fh, text)
                    count += 1
    if count:
        logger.info("[miles-docs] %d unchanged page(s) now name the new pin (restamped in "
                    "%.2f s)", count, time.perf_counter() - t0)
    if again:
        logger.info("[miles-docs] %d page(s) name the pin outside the banner and permalinks "
                    "(a template, or their own text): written again", len(again))
    for docname in again:
        # a host template prints the commit: only Sphinx can write the page as a fresh build does
        doctree = app.env.get_and_resolve_doctree(docname, builder)
        builder.write_doc_serialized(docname, doctree)
        builder.write_doc(docname, doctree)


def _outfile(builder: Any) -> Callable[[str], str]:
    """The output file of a document: ``builder.get_outfilename``, which for the html builder
    is ``Path(outdir, docname + out_suffix)``; that path is made here as a string (a Path per
    page was a third of a restamp)."""
    from sphinx.builders.html import StandaloneHTMLBuilder  # loaded by the html builders

    own, html = type(builder), StandaloneHTMLBuilder
    # get_output_path came with Sphinx 7.3 (get_outfilename calls it); before, there is none
    if own.get_outfilename is not html.get_outfilename or \
            getattr(own, "get_output_path", None) is not getattr(html, "get_output_path", None):
        return lambda docname: os.fspath(builder.get_outfilename(docname))
    outdir, suffix = os.fspath(builder.outdir), builder.out_suffix
    return lambda docname: os.path.join(outdir, docname.replace("/", os.sep) + suffix)  # noqa: PTH118


def _overwrite(fh: BinaryIO, new: bytes) -> None:
    """Write ``new`` over the file open in ``fh`` (read to its end), in place. A commit
    replaces a commit, so the size stays and the file is not truncated: ext4 flushes a file
    truncated (or renamed over) and written again, which made a restamp cost as much per page
    as Sphinx writing it."""
    size = fh.tell()
    fh.seek(0)
    fh.write(new)
    if len(new) < size:
        fh.truncate()


def _href_swapper(swap: dict[bytes, bytes]) -> Callable[[bytes], bytes]:
    """What replaces ``href="<key>`` by ``href="<value>`` where the key ends the URL or a
    path segment of it (made once per source, used on every page)."""
    pattern = re.compile(b'href="(' + b"|".join(re.escape(k) for k in swap) + b')(?=[/"#?])')

    def value(m: re.Match[bytes]) -> bytes:
        return b'href="' + swap[m.group(1)]

    return lambda text: pattern.sub(value, text)


def write_pins_record(app: Sphinx) -> None:
    if app.builder is None or app.builder.name not in RESTAMP_BUILDERS:
        return
    pins = {name: commit for name, commit in get_state(app).pins.items() if commit}
    write_if_changed(Path(app.outdir) / PINS_RECORD,
                      json.dumps(pins, sort_keys=True).encode() + b"\n")
