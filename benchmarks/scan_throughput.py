"""Cold scan and link-rewriting throughput, fast scanner against the markdown-it reference.

    python benchmarks/scan_throughput.py [--reps N] [NAME=UPSTREAM_TREE ...]

With no tree given it reads the corpus trees (``../shared/corpus`` next to the clone, or
``MILES_DOCS_CORPUS``). Each tree is read as a local source by the engine-neutral pipeline;
the page bodies the link rules see are then timed, with no cache of any kind:

* ``scan``: :func:`~miles_docs_plugin.core.transform.markdown.scan` on every page, fast and
  reference (``reference=True``: markdown-it-py parsing the whole page);
* ``links``: the built-in link rules on every page (scan + resolve + rewrite), with the fast
  scan, and with the reference scan (its time is the reference scan plus the rules).

Throughput is UTF-8 megabytes of page bodies per CPU second of this process (steadier
than wall time on a shared machine; the work is single-threaded), best of ``--reps``
runs. A tree whose scans or rewritten pages differ between the two in any byte is
reported ("identical: NO") and the script exits 1. :func:`measure` is what a benchmark row calls.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("MILES_DOCS_CORPUS") or ROOT.parent / "shared" / "corpus")
TREES = {
    "miles_diffusion v1": CORPUS / "miles_diffusion" / "v1",
    "miles_diffusion v2": CORPUS / "miles_diffusion" / "v2",
    "miles_host": CORPUS / "miles_host" / "tree",
    "mem0": CORPUS / "mem0" / "tree",
}


@dataclass
class Throughput:
    tree: str
    pages: int
    megabytes: float
    fast_mbps: float  #: scan alone, fast path
    reference_mbps: float  #: scan alone, reference
    links_fast_mbps: float  #: scan + resolve + rewrite, fast scan
    links_reference_mbps: float  #: scan + resolve + rewrite, reference scan
    identical: bool  #: same scans and same rewritten pages, byte for byte
    #: shares of the page bytes: left out of the parse (quiet), read by the scanner's own
    #: link reader, parsed by markdown-it; and of those, the inline content whose links
    #: markdown-it's own rules read (the reader's fallback)
    quiet: float = 0.0
    read: float = 0.0
    parsed: float = 0.0
    inline_fallback: float = 0.0

    def line(self) -> str:
        return (f"{self.tree}: {self.pages} pages, {self.megabytes:.2f} MB | scan "
                f"{self.fast_mbps:.1f} MB/s (reference {self.reference_mbps:.1f}, "
                f"x{self.fast_mbps / self.reference_mbps:.2f}) | links "
                f"{self.links_fast_mbps:.1f} MB/s (reference {self.links_reference_mbps:.1f}) "
                f"| bytes: {self.quiet:.0%} quiet, {self.read:.0%} read, {self.parsed:.0%} "
                f"parsed by markdown-it ({self.inline_fallback:.1%} through its inline rules) "
                f"| identical: {'yes' if self.identical else 'NO'}")


def _prepared(tree: Path) -> tuple[Any, list[Any], dict[int, str]]:
    """Build ``tree`` as a local source; the pages and their content as the link rules get it."""
    from miles_docs_plugin import hookimpl
    from miles_docs_plugin.core.config import parse_config
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    seen: dict[int, tuple[Any, str]] = {}

    class Capture:
        @hookimpl(tryfirst=True)
        def mdp_transform_page(self, page: Any, ctx: Any) -> None:
            seen[id(page)] = (page, page.content)

    with tempfile.TemporaryDirectory() as host:
        config = parse_config({"sources": [{"name": "s", "repo": "https://example.invalid/r.git",
                                            "local": str(tree)}]},
                              base_dir=Path(host), env={})
        result = build(config, Engine(), plugins=[Capture()], use_scan_cache=False)
    pages = [page for page, _ in seen.values()]
    return result.ctx, pages, {id(page): content for page, content in seen.values()}


def measure(trees: dict[str, Path] | None = None, reps: int = 5) -> list[Throughput]:
    """One row per tree (the corpus trees by default), best of ``reps`` runs."""
    return [measure_tree(name, tree, reps) for name, tree in (trees or TREES).items()]


def measure_tree(name: str, tree: Path, reps: int = 5) -> Throughput:
    from miles_docs_plugin.builtin import links
    from miles_docs_plugin.core.transform.markdown import scan

    ctx, pages, prepared = _prepared(tree)
    bodies = [(prepared[id(p)][p.body_start:], p.body_line - p.line_delta) for p in pages]
    megabytes = sum(len(body.encode()) for body, _ in bodies) / 1e6

    def scans(reference: bool) -> tuple[float, list[Any]]:
        t0 = time.process_time()
        out = [scan(body, line_offset=line, reference=reference) for body, line in bodies]
        return time.process_time() - t0, out

    def rewrite_all(given: list[Any] | None) -> tuple[float, list[str]]:
        for section in ctx.sections.values():
            section.diagnostics.clear()
        ctx._anchors.clear()
        ctx.scans = None  # the build's in-memory scans would answer for the pages' scans
        for i, page in enumerate(pages):
            page.content = prepared[id(page)]
            page.scan = given[i] if given is not None else None
        t0 = time.process_time()
        ctx.scan_all(pages)  # as the pipeline does before the first page's transform
        for page in pages:
            links.mdp_transform_page(page=page, ctx=ctx)
        return time.process_time() - t0, [page.content for page in pages]

    best = {"fast": float("inf"), "reference": float("inf"), "links fast": float("inf"),
            "links reference": float("inf")}
    identical = True
    for _ in range(reps):
        t_fast, fast = scans(False)
        t_ref, ref = scans(True)
        identical &= fast == ref
        t_links, out_fast = rewrite_all(None)
        t_rules, out_ref = rewrite_all(ref)
        identical &= out_fast == out_ref
        best["fast"] = min(best["fast"], t_fast)
        best["reference"] = min(best["reference"], t_ref)
        best["links fast"] = min(best["links fast"], t_links)
        best["links reference"] = min(best["links reference"], t_ref + t_rules)
    return Throughput(name, len(pages), megabytes, megabytes / best["fast"],
                      megabytes / best["reference"], megabytes / best["links fast"],
                      megabytes / best["links reference"], identical,
                      *shares([body for body, _ in bodies]))


def shares(bodies: list[str]) -> tuple[float, float, float, float]:
    """Which share of the bytes of ``bodies`` the scan leaves out of the parse, reads with its
    own link reader, and has markdown-it parse; and the share of inline content whose links
    markdown-it's rules read (see ``core/transform/markdown.py``: its internals, measured)."""
    from miles_docs_plugin.core.transform import markdown

    sizes = {"quiet": 0, "read": 0, "parsed": 0, "inline": 0}
    real = markdown._links_only

    def counting(state: Any, content: str, collector: Any) -> bool:
        sizes["inline"] += len(content.encode())
        return real(state, content, collector)

    markdown._links_only = counting
    try:
        for body in bodies:
            quiet, _, busy = markdown._parts(body)
            collector = markdown._Collector(body, 0)
            nl, references = "\n" + body, "]:" in body
            sizes["quiet"] += sum(len(body[a:b].encode()) for a, b in quiet)
            for a, b in busy:
                read = markdown._paragraph(body, nl, a, b, references, collector)
                sizes["read" if read else "parsed"] += len(body[a:b].encode())
            if "\r" in body:
                sizes["parsed"] += len(body.encode())
            markdown.scan(body)
    finally:
        markdown._links_only = real
    total = sum(len(body.encode()) for body in bodies) or 1
    return (sizes["quiet"] / total, sizes["read"] / total, sizes["parsed"] / total,
            sizes["inline"] / total)


def main(argv: list[str] | None = None) -> int:
    import logging

    logging.disable(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("trees", nargs="*", metavar="NAME=TREE")
    args = parser.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.trees) if args.trees else None
    rows = measure({k: Path(v) for k, v in trees.items()} if trees else None, args.reps)
    for row in rows:
        print(row.line())
    return 0 if all(row.identical for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
