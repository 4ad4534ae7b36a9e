"""The provenance banner as every adapter places it: its stylesheet, where it goes in a
rendered page, and the user's banner template filled in (``banner: "..."``).

The rules live here, not in the replaceable built-in (``builtin/provenance.py``), so an adapter
never depends on a plugin that a host may turn off or replace.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

BANNER_CLASS = "miles-docs-banner"
#: The banner's stylesheet; the MkDocs and Sphinx adapters serve it.
BANNER_CSS = Path(__file__).resolve().parent.parent.parent / "static" / "miles-docs.css"
#: The rendered page's first ``<h1>``, when only tags and white space come before it.
LEADING_H1_RE = re.compile(r"\A(?:\s*<(?!h1\b)[a-zA-Z][^>]*>)*\s*<h1\b.*?</h1>", re.DOTALL)


def insert_banner_html(body: str, banner: str) -> str:
    """Put ``banner`` right after the leading ``<h1>`` of a rendered page body (or first)."""
    m = LEADING_H1_RE.match(body)
    at = m.end() if m else 0
    return f"{body[:at]}\n{banner}\n{body[at:]}" if at else f"{banner}\n{body}"


def template_banner(template: str, info: dict[str, Any]) -> str:
    """The ``banner:`` template filled in from a page's provenance (``{repo}``, ``{path}``,
    ``{commit}``, ``{short}``, ``{url}``, ``{name}``); a template that names another field is
    shown as written."""
    # The values are upstream text (file names) placed into HTML: escaped.
    fields = {key: html.escape(str(value), quote=True) for key, value in {
        "repo": info["source_repo"], "path": info["source_path"],
        "commit": info["source_commit"] or "local", "short": info["source_short"],
        "url": info["source_url"] or info["source_repo_url"],
        "name": info["source_name"]}.items()}
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template
