"""MDX is code: what an untrusted page may hand to Mintlify.

Mintlify compiles every page as MDX. ``import``/``export`` statements and JSX expression
containers (``{...}``) are JavaScript that runs in Mintlify's build and in readers' browsers;
``<script>`` elements, ``on*=`` attributes and ``javascript:`` URLs run in browsers. A page of a
source without ``trust: full`` is written with all of them neutralised, and each one is reported
at the upstream ``path:line``:

- ``import``/``export`` blocks (ESM, at the start of a line) are removed (blank lines keep the
  line numbers);
- ``{/* … */}`` comments are removed (their content, tags included, would otherwise become
  live once their braces are escaped); a string literal in text (``{" "}``, Prettier's way of
  keeping a space) becomes its text;
- other ``{`` and ``}`` in text become ``\\{`` and ``\\}`` (literal braces in MDX);
- in tags: ``on*`` attributes are removed, expression attributes other than plain literals
  (``cols={2}``, ``expanded={true}``, ``title={"x"}``) and arrays and objects of them
  where a Mintlify component takes data (``<Prompt actions={["copy"]}>``, ``<Color.Item
  value={{ light: "#fff", dark: "#000" }}>``) are removed, and unsafe URLs
  (``javascript:``, ``vbscript:``, ``file:``, non-image ``data:``) become ``#``;
- ``<script>``, ``<style>``, ``<object>``, ``<embed>``, ``<base>``, ``<meta>`` and ``<link>``
  tags become literal text; an ``<iframe>`` stays (a video on the upstream's own site, as the
  sanitiser of the other hosts keeps it), without ``srcdoc`` (a document of its own, scripts
  included) and with an unsafe ``src`` made inert;
- front matter keeps ``title``, ``description`` and ``sidebarTitle`` (as plain text); every
  other key (``icon``, ``openapi``, ``mode``, ...) is removed.

Code (fenced blocks and inline code spans) is never touched: MDX reads it as text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import yaml

from ..core.section.sandbox import tagless
from ..core.section.sanitize import DOCUMENT_TAGS, DROP_ATTRS, URL_ATTRS, unsafe_url
from ..core.transform.blocks import KNOWN
from ..core.transform.mdx import (
    CODE_SPAN_RE,
    ESM_START_RE,
    TEXT_STRING_RE,
    blank_comments,
    esm_blocks,
    outside_code_spans,
    skip_braces,
    string_text,
)

#: Front matter keys an untrusted page keeps (display text only).
SAFE_FRONT_MATTER = ("title", "description", "sidebarTitle")
#: Elements whose tags are written as literal text.
UNSAFE_TAGS = frozenset({"script", "style", "object", "embed", "base", "meta", "link", "frame",
                         "frameset", "applet"})
#: Attributes removed from every tag: React's raw HTML, in any form, and an iframe's document
#: of its own (the sanitiser's ``DROP_ATTRS``).
REMOVED_ATTRS = frozenset({"dangerouslysetinnerhtml", *DROP_ATTRS})
#: Names an ``import``/``export`` statement binds: a default import, ``{ a, b as c }``,
#: ``* as ns``, ``export const|let|var|function|class name``.
BOUND_RES = (
    re.compile(r"\bimport\s+([A-Za-z_$][\w$]*)\s*(?:,|\bfrom\b)"),
    re.compile(r"\*\s*as\s+([A-Za-z_$][\w$]*)"),
    re.compile(r"\bexport\s+(?:default\s+)?(?:const|let|var|class|(?:async\s+)?function\*?)"
               r"\s+([A-Za-z_$][\w$]*)"),
)
BRACED_NAMES_RE = re.compile(r"\b(?:import|export)\s*(?:[A-Za-z_$][\w$]*\s*,\s*)?\{([^}]*)\}")
TAG_START_RE = re.compile(r"<(/?)([A-Za-z][\w.:-]*)")
ATTR_NAME_RE = re.compile(r"\s*([^\s=/>{}\"']+)")
#: A plain literal, as JavaScript reads one in a page's strict-mode module: a number without
#: leading zeros, ``true``, ``false``, ``null``, a string on one line without escapes.
LITERAL_RE = re.compile(r"""^\s*(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|true|false|null|"""
                        r""""[^"\\{}\n\r]*"|'[^'\\{}\n\r]*')\s*$""")


#: The tokens of a data literal (``["copy", "cursor"]``, ``{ light: "#fff", dark: "#000" }``):
#: punctuation, a plain literal (see :data:`LITERAL_RE`), a key (an ASCII name before ``:``),
#: else anything (refused).
DATA_TOKEN_RE = re.compile(r"""\s*(?:(?P<punct>[\[\]{},:])|(?P<scalar>-?(?:0|[1-9][0-9]*)"""
                           r"""(?:\.[0-9]+)?|true|false|null|"[^"\\{}\n\r]*"|'[^'\\{}\n\r]*')|"""
                           r"""(?P<key>[A-Za-z_$][A-Za-z0-9_$]*)|(?P<other>\S))""")
#: The attributes of Mintlify components that take an array or an object (and only data):
#: nothing else gets one from an untrusted page, not ``dangerouslySetInnerHTML``, not a prop
#: a component would show as a child.
DATA_ATTRIBUTES = frozenset({("Color.Item", "value"), ("Prompt", "actions")})


def data_literal(expr: str) -> list[str] | None:
    """The strings of ``expr`` when it is an array or object literal of plain literals (nested
    ones too), which only describes data, as Mintlify's ``Color.Item value={{ light, dark }}``
    or ``<Prompt actions={["copy"]}>`` have it; None for anything else (a name, a call, a
    spread, a computed key, a template)."""
    tokens = [(m.lastgroup, m.group(m.lastgroup or "other"))
              for m in DATA_TOKEN_RE.finditer(expr) if m.lastgroup]
    strings: list[str] = []
    at = 0

    def value() -> bool:
        nonlocal at
        if at >= len(tokens):
            return False
        kind, text = tokens[at]
        at += 1
        if kind == "scalar":
            if text[:1] in "\"'":
                strings.append(text[1:-1])
            return True
        if text == "[":
            return items("]", entry=value)
        if text == "{":
            return items("}", entry=pair)
        return False

    def pair() -> bool:
        nonlocal at
        if at + 1 >= len(tokens) or tokens[at][0] not in ("key", "scalar") or \
                tokens[at][1][:1].isdigit() or tokens[at + 1][1] != ":":
            return False
        at += 2
        return value()

    def items(close: str, entry: Any) -> bool:
        nonlocal at
        while at < len(tokens) and tokens[at][1] != close:
            if not entry():
                return False
            if at < len(tokens) and tokens[at][1] == ",":
                at += 1
            elif at < len(tokens) and tokens[at][1] != close:
                return False
        if at >= len(tokens):
            return False
        at += 1
        return True

    if not tokens or tokens[0][1] not in "[{" or not value() or at != len(tokens):
        return None
    return strings


def _data_attribute(tag: str, attr: str, expr: str) -> bool:
    """May the attribute ``attr={expr}`` of ``<tag>`` stay? Only a data literal
    (:func:`data_literal`) in one of :data:`DATA_ATTRIBUTES`, none of whose strings is an
    unsafe URL."""
    if (tag, attr) not in DATA_ATTRIBUTES:
        return False
    strings = data_literal(expr)
    return strings is not None and not any(":" in x and unsafe_url(x, "href") for x in strings)


class _Unclosed(Exception):
    """A tag that is not closed on the text given (JSX tags may span lines)."""


class _Findings:
    def __init__(self) -> None:
        self.items: list[tuple[int, str]] = []

    def add(self, line: int, message: str) -> None:
        self.items.append((line, message))


def _braced(text: str, at: int) -> int:
    """End (exclusive) of the ``{...}`` expression that starts at ``at`` (strings skipped);
    the end of the text when it is never closed."""
    end = skip_braces(text, at)
    return end if end >= 0 else len(text)


def _tag(text: str, at: int, line: int, found: _Findings,
         bound: frozenset[str] = frozenset()) -> tuple[str, int]:
    """The tag starting at ``at``, made safe; returns (new text, end offset). A component
    named in ``bound`` (bound by a removed import or export) is written as text."""
    m = TAG_START_RE.match(text, at)
    assert m is not None
    closing, name = m.group(1), m.group(2)
    i = m.end()
    parts = [text[at:i]]
    changed = False
    while i < len(text):
        if text[i] == ">":
            i += 1
            break
        if text.startswith("/>", i):
            i += 2
            parts.append("/")
            break
        if text[i] == "{":  # a spread: {...props}
            end = _braced(text, i)
            found.add(line, f"JSX expression {text[i:end][:40]!r} in <{name}> removed")
            i, changed = end, True
            continue
        a = ATTR_NAME_RE.match(text, i)
        if not a:
            parts.append(text[i])
            i += 1
            continue
        attr = a.group(1)
        j = a.end()
        value: str | None = None
        raw_end = j
        k = j
        # JSX allows any white space around "=", line breaks too (``src\n="…"``)
        while k < len(text) and text[k] in " \t\r\n":
            k += 1
        if k < len(text) and text[k] == "=":
            k += 1
            while k < len(text) and text[k] in " \t\r\n":
                k += 1
            if k < len(text) and text[k] in "\"'":
                close = text.find(text[k], k + 1)
                close = len(text) - 1 if close < 0 else close
                value = text[k + 1:close]
                raw_end = close + 1
            elif k < len(text) and text[k] == "{":
                raw_end = _braced(text, k)
                expr = text[k + 1:raw_end - 1]
                if LITERAL_RE.match(expr):
                    value = expr.strip().strip("\"'")
                elif not _data_attribute(name, attr, expr):
                    found.add(line, f"JSX expression in the {attr} attribute of <{name}> removed")
                    i, changed = raw_end, True
                    continue
            else:
                end = k
                while end < len(text) and not text[end].isspace() and text[end] not in ">":
                    end += 1
                value = text[k:end]
                raw_end = end
        raw = text[i:raw_end]
        low = attr.lower()
        if low.startswith("on"):
            found.add(line, f"event attribute {attr} of <{name}> removed")
            changed = True
        elif low in REMOVED_ATTRS:
            found.add(line, f"{attr} attribute of <{name}> removed")
            changed = True
        elif value is not None and unsafe_url(value, "src" if low in ("src", "poster") and
                                             name.lower() not in DOCUMENT_TAGS else "href") \
                and (low in URL_ATTRS or ":" in value):
            found.add(line, f"unsafe URL {value[:40]!r} in the {attr} attribute of <{name}> "
                      "made inert")
            parts.append(f' {attr}="#"')
            changed = True
        else:
            parts.append(raw)
        i = raw_end
    else:
        raise _Unclosed  # the tag goes on on the next line
    # lowercase names are HTML elements in MDX; capitalised ones are components (<Link>)
    if name[0].islower() and name.lower() in UNSAFE_TAGS:
        found.add(line, f"<{closing}{name}> tag written as text")
        return as_text(text[at:i]), i
    if (name[0].isupper() or "." in name) and name.split(".")[0] in bound:
        # its import or export is removed: MDX would fail on a component it cannot find
        found.add(line, f"<{closing}{name}> tag written as text (its {name.split('.')[0]} "
                  "came from a removed import or export)")
        return as_text(text[at:i]), i
    if not changed:
        return text[at:i], i
    out = "".join(parts)
    if not out.endswith(">"):
        out += ">"
    return out, i


#: What MDX would read in a tag written as text: a tag (``<``) or an expression (``{ }``).
_LIVE_IN_TEXT = {"<": "&lt;", "{": "\\{", "}": "\\}"}


def as_text(tag: str) -> str:
    """A tag as MDX shows it literally: its ``<``, and any ``<`` or braces in its attributes
    (``a={alert(1)}``, ``title="<img onerror=…>"``), which would otherwise be read in the
    text it has become."""
    return re.sub(r"[<{}]", lambda m: _LIVE_IN_TEXT[m.group()], tag)


def _text(segment: str, line: int, found: _Findings, state: dict[str, Any]) -> str:
    """Neutralise one stretch of text outside code."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "\\" and i + 1 < len(segment):
            out.append(segment[i:i + 2])
            i += 2
            continue
        if ch == "<" and TAG_START_RE.match(segment, i):
            try:
                new, i = _tag(segment, i, line, found, state.get("bound", frozenset()))
            except _Unclosed:
                if not state.get("last"):
                    raise
                out.append("&lt;")  # never closed: text
                i += 1
                continue
            out.append(new)
            continue
        if ch == "`":  # a code span (MDX reads it as text), else the run as it is
            m = CODE_SPAN_RE.match(segment, i)
            end = m.end() if m else len(segment) - len(segment[i:].lstrip("`"))
            out.append(segment[i:end])
            i = end
            continue
        if ch == "{" and (m := TEXT_STRING_RE.match(segment, i)):
            out.append(string_text(m))
            i = m.end()
            continue
        if ch in "{}":
            if ch == "{" and not state.get("reported"):
                found.add(line, f"JSX expression {segment[i:i + 40]!r} written as text")
                state["reported"] = True
            out.append("\\" + ch)
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


MAX_TAG_LINES = 50


def _line(line: str, n: int, found: _Findings, last: bool,
          bound: frozenset[str] = frozenset()) -> str:
    """One line (with the lines a tag that starts on it goes on to) made inert. Code spans are
    read as the text is (a backtick in a tag's quoted attribute opens none)."""
    return _text(line, n, found, {"last": last, "bound": bound})


def bound_names(statements: str) -> frozenset[str]:
    """The names ``import``/``export`` statements bind (what a page may then use as a
    component)."""
    names = {m.group(1) for pattern in BOUND_RES for m in pattern.finditer(statements)}
    for m in BRACED_NAMES_RE.finditer(statements):
        for part in m.group(1).split(","):
            words = part.split()
            if words:
                names.add(words[-1])  # `a as b` binds b
    # a Mintlify component of the same name is there without the import
    return frozenset(name for name in names if name not in KNOWN)


def sanitize_body(body: str, code: set[int]) -> tuple[str, list[tuple[int, str]]]:
    """``body`` (MDX without front matter) made inert; findings as (0-based line, message).

    ``code``: the lines MDX reads as code (see :func:`code_structure`), left alone.
    """
    found = _Findings()
    newline = "\r\n" if "\r\n" in body else "\n"
    lines = body.split(newline)
    blank_comments(lines, code)
    esm = esm_blocks(lines, code)
    bound = bound_names("\n".join("\n".join(lines[a:b]) for a, b in esm)) if esm else \
        frozenset()
    in_esm = {n for a, b in esm for n in range(a, b)}
    done_until = 0  #: lines already written as part of a tag that began above
    for n, line in enumerate(lines):
        if n in code or n < done_until:
            continue
        if n in in_esm:  # a statement, or a line it goes on to (to a blank line)
            if ESM_START_RE.match(line):
                found.add(n, f"MDX {line.split()[0]} statement removed ({line.strip()[:40]!r})")
            lines[n] = ""
            continue
        if not any(c in line for c in "<{}"):
            continue
        # a tag may span lines: take the next ones until it closes (at most MAX_TAG_LINES)
        end = n + 1
        while True:
            last = end >= len(lines) or end in code or end - n >= MAX_TAG_LINES
            attempt = _Findings()
            try:
                text = _line(newline.join(lines[n:end]), n, attempt, last, bound)
            except _Unclosed:
                end += 1
                continue
            break
        found.items += attempt.items
        new = text.split(newline)
        lines[n:end] = new + [""] * (end - n - len(new))  # keep the line count
        done_until = end
    for n, line in enumerate(lines):
        if n not in code and ("](" in line or "]:" in line):
            lines[n] = outside_code_spans(line, functools.partial(_inert_destinations, line=n,
                                                                  found=found))
    return newline.join(lines), found.items


#: A Markdown link's destination (``](dest``, ``](<dest>``) and a definition's
#: (``[label]: dest``), as MDX reads them.
DESTINATION_RES = (re.compile(r"\]\([ \t]*(<[^<>\n]*>|(?:[^\s()<]|\([^\s()]*\))+)"),
                   re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*(<[^<>\n]*>|\S+)"))
#: A backslash escape of Markdown (``javascript\:`` is ``javascript:``).
ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _inert_destinations(text: str, line: int, found: _Findings) -> str:
    """``text`` with every Markdown link destination that is an unsafe URL made ``#``.

    The link rules make the links they find inert; a link the scan does not see as MDX does
    (one in an indented line, after a tag written over several lines) would otherwise stay
    live: this is the second fence."""
    for pattern in DESTINATION_RES:
        def inert(m: re.Match[str]) -> str:
            dest = m.group(1)
            if not unsafe_url(ESCAPE_RE.sub(r"\1", dest.strip("<>"))):
                return m.group(0)
            found.add(line, f"unsafe URL {dest[:40]!r} in a link made inert")
            return m.group(0)[:m.start(1) - m.start(0)] + "#"

        text = pattern.sub(inert, text)
    return text


def safe_front_matter(meta: Mapping[str, Any], lines: int) -> tuple[str, list[str]]:
    """The front matter an untrusted page keeps, padded to ``lines`` lines where it can; and
    the keys that were removed."""
    keep: dict[str, str] = {}
    removed = []
    for key, value in meta.items():
        if key in SAFE_FRONT_MATTER and isinstance(value, (str, int, float)):
            keep[key] = tagless(str(value))
        else:
            removed.append(key)
    if not keep:
        return "\n" * lines, removed
    dumped = yaml.safe_dump(keep, allow_unicode=True, sort_keys=False, width=1 << 16)
    used = dumped.count("\n") + 2
    return "---\n" + dumped + "\n" * max(0, lines - used) + "---\n", removed
