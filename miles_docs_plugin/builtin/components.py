"""Built-in components and front matter: upstream markup the host engine does not speak.

Mintlify MDX components become the host engine's own constructs, a title only in the front
matter becomes the page's heading, and code fences get the engine's info string
(:mod:`..core.transform.components` does the work). A page whose transform an earlier build
recorded (:mod:`..core.transform.memo`) skips these hooks, so a warm build loads that module
only for the pages it transforms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..core.errors import Diagnostic, Severity
from ..core.records import replace

if TYPE_CHECKING:
    from ..core.context import BuildContext
    from ..core.model import Page, Section


@hookimpl(tryfirst=True)
def mdp_prepare_page(page: Page, ctx: BuildContext) -> None:
    from ..core.transform.components import prepare_page

    prepare_page(page, ctx)


@hookimpl
def mdp_transform_page(page: Page, ctx: BuildContext) -> None:
    """Write the components in the engine's syntax, once the links inside them are rewritten
    (the built-in links plugin runs ``tryfirst``)."""
    from ..core.transform.components import transform_page

    transform_page(page, ctx)


def _upstream_lines(section: Section) -> None:
    spans = {section.repo_path(path): page.extra["snippet_lines"]
             for path, page in section.pages.items() if page.extra.get("snippet_lines")}
    if not spans:
        return
    from ..core.collect.includes import upstream_line

    # an include's own problems are reported at the include's upstream line already
    section.diagnostics[:] = [
        replace(d, line=upstream_line(spans[d.path], d.line))
        if d.line is not None and d.path in spans and d.code != "snippet" else d
        for d in section.diagnostics]


@hookimpl
def mdp_collect_diagnostics(section: Section, ctx: BuildContext) -> list[Diagnostic] | None:
    """Unknown components, once per name with the number of uses and the first place.

    Diagnostics of pages with inlined snippets are moved back to upstream lines first."""
    _upstream_lines(section)
    totals: dict[str, tuple[str, int, int, int]] = {}
    for path in sorted(section.pages):
        spans = section.pages[path].extra.get("snippet_lines") or []
        for name, (line, count, *with_content) in section.pages[path].extra.get(
                "unknown_components", {}).items():
            if spans:
                from ..core.collect.includes import upstream_line

                line = upstream_line(spans, line)
            shown = with_content[0] if with_content else count  # a record of an older build
            first = totals.get(name)
            totals[name] = (first[0], first[1], first[2] + count, first[3] + shown) if first \
                else (path, line, count, shown)
    out = []
    for name, (path, line, count, shown) in sorted(totals.items()):
        uses = f" ({count} uses in this section)" if count > 1 else ""
        what = "its content is kept" if shown else (
            "it has no content, so nothing of it is shown (a component the upstream's own "
            "JavaScript draws from its attributes)")
        out.append(Diagnostic(section.source.name, section.repo_path(path), line, "component",
                              f"unknown component <{name}>; {what}{uses}", Severity.WARNING))
    return out or None


def __getattr__(name: str) -> Any:
    """The components step's names (``find_blocks``, ``parse_attrs``…), for plugins written
    when they lived here: loaded on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..core.transform import components

    return getattr(components, name)
