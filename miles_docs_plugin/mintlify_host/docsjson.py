"""docs.json: where a section goes (``mintlify:`` placement), its navigation object, and the
minimal edit that inserts it (:func:`insert_nav`: only the inserted lines are new, every other
byte — indentation, key order, line endings, trailing newline — is the host's)."""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.config import Config, SourceConfig
from ..core.errors import ConfigError
from ..core.model import NavGroup, NavItem, NavLink, NavPage, Section

PLACEMENT_KEYS = ("tab", "group", "after", "before")


@dataclass(frozen=True)
class Placement:
    tab: str | None  #: the new tab's title, or (with ``group``) the existing tab to put it in
    group: str | None  #: the new group's title
    after: str | None
    before: str | None

    @property
    def title(self) -> str:
        return self.group or self.tab or ""


def placement(source: SourceConfig, config: Config) -> Placement:
    raw: Any = source.mintlify or {}
    where = f"{config.config_file or 'config'}: sources ({source.name}): mintlify"
    if not isinstance(raw, dict):
        raise ConfigError("`mintlify:` must be a mapping", where=where,
                          hint="e.g. `mintlify: {tab: Diffusion, after: Developer Guide}`")
    for key, value in raw.items():
        if key not in PLACEMENT_KEYS:
            raise ConfigError(f"unknown key {key!r}", where=where,
                              hint=f"valid keys: {', '.join(PLACEMENT_KEYS)}")
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{key!r} must be a title (a string), got {value!r}", where=where)
    if raw.get("after") and raw.get("before"):
        raise ConfigError("give `after:` or `before:`, not both", where=where)
    tab = raw.get("tab")
    group = raw.get("group")
    if not tab and not group:
        tab = source.title
    return Placement(tab, group, raw.get("after"), raw.get("before"))


# -- docs.json: spans and the minimal edit -----------------------------------------------------


@dataclass
class Span:
    """A JSON value and where it is in the text."""

    value: Any
    start: int
    end: int
    items: list[Span] = dataclasses.field(default_factory=list)  #: array elements
    keys: dict[str, Span] = dataclasses.field(default_factory=dict)  #: object members


_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def parse_spans(text: str) -> Span:
    """Parse JSON, keeping the span of every value (docs.json is strict JSON)."""

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def value(i: int) -> Span:
        i = ws(i)
        ch = text[i:i + 1]
        if ch == "{":
            span = Span({}, i, i)
            i = ws(i + 1)
            if text[i:i + 1] == "}":
                span.end = i + 1
                return span
            while True:
                i = ws(i)
                m = _STRING.match(text, i)
                if not m:
                    raise ValueError(f"expected a key at offset {i}")
                key = json.loads(m.group(0))
                i = ws(m.end())
                if text[i:i + 1] != ":":
                    raise ValueError(f"expected ':' at offset {i}")
                member = value(i + 1)
                span.keys[key] = member
                span.value[key] = member.value
                i = ws(member.end)
                if text[i:i + 1] == ",":
                    i += 1
                    continue
                if text[i:i + 1] == "}":
                    span.end = i + 1
                    return span
                raise ValueError(f"expected ',' or '}}' at offset {i}")
        if ch == "[":
            span = Span([], i, i)
            i = ws(i + 1)
            if text[i:i + 1] == "]":
                span.end = i + 1
                return span
            while True:
                item = value(i)
                span.items.append(item)
                span.value.append(item.value)
                i = ws(item.end)
                if text[i:i + 1] == ",":
                    i += 1
                    continue
                if text[i:i + 1] == "]":
                    span.end = i + 1
                    return span
                raise ValueError(f"expected ',' or ']' at offset {i}")
        m = _STRING.match(text, i) or _SCALAR.match(text, i)
        if not m:
            raise ValueError(f"unexpected character at offset {i}")
        return Span(json.loads(m.group(0)), i, m.end())

    root = value(0)
    if text[ws(root.end):].strip():
        raise ValueError(f"unexpected text after the JSON value at offset {root.end}")
    return root


def nav_object(section: Section, place: Placement, report: Callable[[str], None]) -> Any:
    """The section's tab (or group) object for docs.json."""

    def page_id(path: str) -> str:
        return posixpath.splitext(posixpath.join(section.mount, path))[0]

    def items(nav: list[NavItem]) -> list[Any]:
        out: list[Any] = []
        for item in nav:
            if isinstance(item, NavPage):
                out.append(page_id(item.path))
            elif isinstance(item, NavGroup) and not item.title.strip():
                out.extend(items(item.children))  # untitled (`"": [...]`): no level of its own
            elif isinstance(item, NavGroup):
                out.append({"group": item.title, "pages": items(item.children)})
            elif isinstance(item, NavLink):
                report(f"nav link {item.title!r} ({item.url}) has no place in Mintlify "
                       "navigation; left out")
        return out

    pages = items(section.nav)
    if place.group:
        return {"group": place.group, "pages": pages}
    return {"tab": place.tab, "pages": pages}


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent_unit(text: str, root: Span) -> str:
    for member in root.keys.values():
        prefix = text[_line_start(text, member.start):member.start]
        m = re.match(r"[ \t]*", prefix)
        if m and m.group(0):
            return m.group(0)
    return "  "


def _render(obj: Any, unit: str, base: str, newline: str) -> str:
    indent: int | str = unit if "\t" in unit else len(unit)
    dumped = json.dumps(obj, indent=indent, ensure_ascii=False)
    return dumped.replace("\n", newline + base)


def _named(span: Span, title: str) -> Span | None:
    for item in span.items:
        if isinstance(item.value, dict) and title in (item.value.get("tab"),
                                                      item.value.get("group")):
            return item
        if item.value == title:
            return item
    return None


def _tabs(nav: Span) -> Span | None:
    if "tabs" in nav.keys:
        return nav.keys["tabs"]
    for key in ("anchors", "dropdowns"):
        holder = nav.keys.get(key)
        if holder is not None:
            for item in holder.items:
                if "tabs" in item.keys:
                    return item.keys["tabs"]
    return None


def find_ref(text: str, ref: str) -> bool:
    """Does docs.json already take the section's navigation through a ``$ref``?"""
    wanted = {ref, "./" + ref, "/" + ref}
    return any(json.loads(m.group(1)) in wanted
               for m in re.finditer(r'"\$ref"\s*:\s*("(?:[^"\\]|\\.)*")', text))


def insert_nav(text: str, obj: Any, place: Placement, where: str) -> tuple[str, int, str]:
    """``text`` (docs.json) with ``obj`` inserted; returns (new text, offset, inserted text).

    Only the inserted characters are new: indentation (detected), line endings and everything
    around the insertion are kept byte for byte.
    """
    try:
        root = parse_spans(text)
    except (ValueError, IndexError) as exc:
        raise ConfigError(f"docs.json is not valid JSON ({exc})", where=where) from None
    nav = root.keys.get("navigation")
    if nav is None or not isinstance(nav.value, dict):
        raise ConfigError("docs.json has no `navigation` object", where=where,
                          hint="add one, see https://mintlify.com/docs/organize/navigation")
    tabs = _tabs(nav)
    if place.group:
        if place.tab:
            if tabs is None or (tab := _named(tabs, place.tab)) is None:
                raise ConfigError(f"docs.json has no tab {place.tab!r} for group "
                                  f"{place.group!r}", where=where,
                                  hint="set `mintlify: tab:` to one of its tabs")
            holder = tab.keys.get("groups") or tab.keys.get("pages")
        else:
            holder = nav.keys.get("groups") or nav.keys.get("pages")
        what = "group"
    else:
        holder = tabs
        what = "tab"
    if holder is None or not isinstance(holder.value, list):
        raise ConfigError(f"docs.json has no list of {what}s to add {place.title!r} to",
                          where=where, hint="use `mintlify: group:` with `tab:` naming a tab"
                          if what == "tab" else "name an existing tab with `mintlify: tab:`")
    if _named(holder, place.title) is not None:
        raise ConfigError(f"docs.json already has a {what} {place.title!r}", where=where,
                          hint="remove it (it is generated) or choose another title")
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = _indent_unit(text, root)
    anchor_title = place.after or place.before
    anchor = _named(holder, anchor_title) if anchor_title else None
    if anchor_title and anchor is None:
        names = [i.value.get(what) if isinstance(i.value, dict) else i.value
                 for i in holder.items]
        raise ConfigError(f"docs.json has no {what} {anchor_title!r} to put {place.title!r} "
                          f"{'after' if place.after else 'before'}", where=where,
                          hint=f"{what}s there: {', '.join(map(str, names))}")
    if not holder.items:
        base = text[_line_start(text, holder.start):holder.start]
        base = base[:len(base) - len(base.lstrip())]
        block = newline + base + unit + _render(obj, unit, base + unit, newline) + newline + base
        at = holder.start + 1
        return text[:at] + block + text[at:], at, block
    first = holder.items[0]
    one_line = "\n" not in text[holder.start:first.start]
    if one_line:
        rendered = json.dumps(obj, ensure_ascii=False)
        sep = ", "
    else:
        base = text[_line_start(text, first.start):first.start]
        rendered = _render(obj, unit, base, newline)
        sep = "," + newline + base
    if place.before and anchor is not None:
        at = anchor.start
        block = rendered + sep
    else:
        at = (anchor or holder.items[-1]).end
        block = sep + rendered
    return text[:at] + block + text[at:], at, block
