"""What an untrusted page may hand to the engine: page content, and nothing else.

An upstream page is someone else's text. The adapters hand it to an engine whose host may have
extensions that read files (``pymdownx.snippets``, MyST ``{include}``), evaluate code
(``mkdocs-macros``, ``sphinx.ext.ifconfig``) or render page metadata into every page's chrome
(titles, descriptions, templates). This module holds the engine-neutral parts of the sandbox:

- :func:`safe_source` writes a page for the engine with its front matter reduced to the keys
  the engine may see (values escaped where themes print them raw), keeping the page's line
  numbers;
- :func:`escape_snippet_markers` makes ``--8<--`` lines literal text for ``pymdownx.snippets``;
- :func:`report_line` finds where in the upstream page a construct that an engine refused was
  written.

The Sphinx directive and role sandbox lives with the Sphinx adapter (it needs Sphinx); the
sanitiser of rendered HTML is :mod:`.sanitize`. A source with ``trust: full`` skips all of it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from ..model import Page
from ..patterns import lazy_re

#: pymdownx.snippets markers (inline ``--8<-- "file"`` and block ``--8<--`` lines), with any
#: escapes already there.
SNIPPET_MARKER_RE = lazy_re(r"(?m)^([ \t]*)(;*-+8<-+(?:[ \t]+\S.*)?\r?)$")
#: Front matter values that may reach an engine. Strings are HTML-escaped: themes print
#: titles and descriptions without escaping them.
SAFE_TEXT_KEYS = ("title", "description")
#: libyaml's safe dumper when PyYAML has it (several times faster), else the Python one.
_DUMPER: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
#: Material's ``hide:`` takes these values only.
HIDE_VALUES = frozenset({"navigation", "toc", "footer", "path", "tags", "feedback"})


def tagless(text: str) -> str:
    """Upstream text on one line, with ``<``/``>`` replaced by look-alikes: themes print
    titles raw, some after unescaping them (Jinja's ``striptags``), so no tag may come out of
    a title in any template."""
    return " ".join(text.split()).replace("<", "\u2039").replace(">", "\u203a")


def safe_title(text: str) -> str:
    """Upstream text as the HTML fragment engines take a title for (:func:`tagless`, escaped)."""
    return html.escape(tagless(text), quote=True)


def _escaped(value: Any) -> str | None:
    if isinstance(value, (str, int, float)) and str(value).strip():
        return safe_title(str(value))
    return None


def safe_meta(meta: Mapping[str, Any], keep: Iterable[str] = SAFE_TEXT_KEYS) -> dict[str, Any]:
    """The front matter an engine may see: ``keep`` keys (escaped text) and a valid ``hide``."""
    out: dict[str, Any] = {}
    for key in keep:
        if key == "hide":
            hide = meta.get("hide")
            if isinstance(hide, list):
                values = [h for h in hide if isinstance(h, str) and h in HIDE_VALUES]
                if values:
                    out["hide"] = values
            continue
        text = _escaped(meta.get(key))
        if text is not None:
            out[key] = text
    return out


def safe_source(page: Page, meta: Mapping[str, Any]) -> str:
    """``page.content`` with its front matter replaced by ``meta`` (nothing when empty).

    The new front matter takes as many lines as the old one where it can (blank lines pad it),
    so line numbers the engine reports still match the upstream page.
    """
    body = page.content[page.body_start:]
    if not meta:
        return "\n" * page.body_line + body if page.body_line else body
    dumped = dump_front_matter(meta)
    lines = dumped.count("\n") + 2  # the two --- lines
    pad = "\n" * max(0, page.body_line - lines)
    return f"---\n{dumped}{pad}---\n{body}"


#: Keys written as they are (none of them a word YAML reads as something else: ``on``, ``null``).
_PLAIN_KEYS = frozenset({"title", "description", "sidebarTitle", "hide", "render_macros"})


def _quoted(value: Any) -> str | None:
    """``value`` single-quoted, when YAML reads it back as it is: printable text (which has
    no control character, line or paragraph separator, byte order mark or surrogate)."""
    if isinstance(value, str) and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    return None


def dump_front_matter(meta: Mapping[str, Any]) -> str:
    """``meta`` as YAML (no ``---`` lines). What a sandboxed page's front matter holds (escaped
    one-line text, a list of words, a flag) is written directly, each string single-quoted:
    :func:`yaml.dump` took ~35 µs a page, a sixth of what the MkDocs adapter adds to a page.
    Anything else goes through :func:`yaml.dump`."""
    out: list[str] = []
    for key, value in meta.items():
        if key not in _PLAIN_KEYS:
            break
        if isinstance(value, bool):
            out.append(f"{key}: {'true' if value else 'false'}\n")
            continue
        if isinstance(value, list) and value:
            items = [_quoted(item) for item in value]
            if all(items):
                out.append(f"{key}:\n" + "".join(f"- {item}\n" for item in items))
                continue
            break
        quoted = _quoted(value)
        if quoted is None:
            break
        out.append(f"{key}: {quoted}\n")
    else:
        return "".join(out)
    return str(yaml.dump(dict(meta), Dumper=_DUMPER, allow_unicode=True, sort_keys=False,
                         default_flow_style=False, width=1 << 16))


def escape_snippet_markers(text: str) -> tuple[str, list[int]]:
    """Every ``--8<--`` marker line made literal with pymdownx.snippets' own escape (a ``;``
    before the marker, which the extension removes); returns the text and the 1-based lines."""
    lines: list[int] = []

    def escape(m: re.Match[str]) -> str:
        lines.append(text.count("\n", 0, m.start()) + 1)
        return f"{m.group(1)};{m.group(2)}"

    return SNIPPET_MARKER_RE.sub(escape, text), lines


def report_line(page: Page, needles: Iterable[str]) -> int | None:
    """The 1-based line of the upstream page where the first of ``needles`` occurs."""
    text = page.text or page.content
    for needle in needles:
        if not needle:
            continue
        at = text.find(needle)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return None
