"""What a build says about its sections, the same in every adapter: each diagnostic once, one
summary line per section, and the error that stops the build when a finding is an error
(``links.unresolved: error``). Adapters only say how a line reaches their engine's log."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..errors import Diagnostic, Severity
from ..model import Section


def summary_line(section: Section, warnings: int) -> str:
    """``diffusion ← org/repo@abc1234 (12 pages, 3 assets, 0 warnings, cached)``"""
    checkout = section.checkout
    state = "local working copy" if checkout.local else (
        "cached" if checkout.cached else "fetched")
    return (f"{section.source.name} ← {section.source.display}@{checkout.short} "
            f"({len(section.pages)} pages, {len(section.assets)} assets, {warnings} warnings, "
            f"{state})")


def report(sections: Iterable[Section], emit: Callable[[Section, Diagnostic], None],
           summary: Callable[[str], None]) -> str | None:
    """Give every diagnostic to ``emit`` and each section's summary line to ``summary``;
    return the message that must stop the build, if any finding is an error."""
    errors = 0
    for section in sections:
        warnings = 0
        for diag in section.diagnostics:
            emit(section, diag)
            warnings += diag.severity is not Severity.INFO
            errors += diag.severity is Severity.ERROR
        summary(summary_line(section, warnings))
    if errors:
        return (f"[miles-docs] {errors} unresolved link(s) with `links.unresolved: error` "
                "(listed above)")
    return None
