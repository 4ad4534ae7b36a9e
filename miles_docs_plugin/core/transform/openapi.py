"""Mintlify OpenAPI pages: ``openapi: POST /v1/things/`` in front matter.

The built-in plugin ``openapi`` calls :func:`append_reference` for every page of the MkDocs
and Sphinx hosts; a Mintlify host calls it itself, before its own steps read the page.

Mintlify builds such a page from the OpenAPI spec of the docs: the method and path, the
summary and description, the parameters, the request body and the responses. The same is
written here as Markdown, from the spec in the pinned tree: the file the front matter names
(``openapi: spec.json GET /x``, from the page's folder or the docs root; when it is not there,
the others), else ``openapi`` in ``docs.json``/``mint.json``, else
``openapi.json``/``openapi.yaml`` in the docs folder. Fields get Mintlify's ids
(``#body-messages``, ``#path-id``). Without a spec, or without that operation in it, the page
says so, links to the upstream site when the source has a ``site_url``, and a warning is
reported.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ..patterns import lazy_re
from .blocks import escape_inline

if TYPE_CHECKING:
    from ..context import BuildContext
    from ..model import Page, Section

METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
OPENAPI_RE = lazy_re(r"^\s*(?:(?P<spec>\S+)\s+)?(?P<method>[A-Za-z]+)\s+(?P<path>/\S*)\s*$")
DEFAULT_SPECS = ("openapi.json", "openapi.yaml", "openapi.yml")
#: Spec files larger than this are not read (the page then says the spec is missing).
MAX_SPEC = 16 * 2**20


def _read(section: Section, rel: str) -> str | None:
    rel = posixpath.normpath(rel.lstrip("/"))
    if rel.startswith(".."):
        return None
    repo_path = section.repo_path(rel)
    if section.checkout.tree.kind(repo_path) != "blob":
        return None
    path = section.checkout.root / repo_path
    try:
        if path.stat().st_size > MAX_SPEC:
            return None
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def parse_spec(text: str, rel: str) -> dict[str, Any] | None:
    """A spec's text read (JSON, else YAML with no tags of Python's); None when it is not a
    spec (no ``paths``), not valid, or nested too deep to read."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML has it
    try:
        data = json.loads(text) if rel.endswith(".json") else yaml.load(text, loader)
    except (ValueError, yaml.YAMLError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("paths"), dict) else None


#: What this process read of pinned specs and site configs, by blob id (a spec serves every
#: page of its endpoints; a site config every page that names no spec).
_KEPT: dict[tuple[str | None, ...], Any] = {}
_KEPT_MAX = 8


def _blob(section: Section, rel: str) -> str | None:
    """The blob id of a docs-relative file of the pinned tree ("" when there is no such
    file; None when it is there with no id known, as in a working copy: nothing is kept)."""
    repo_path = section.repo_path(rel)
    if section.checkout.tree.kind(repo_path) != "blob":
        return ""
    return section.checkout.tree.blobs.get(repo_path)


def _kept(key: tuple[str | None, ...], make: Callable[[], Any]) -> Any:
    """``make()``, once per ``key`` while it is among the last few (never for a key with a
    None: no blob id known)."""
    if None in key:
        return make()
    if key not in _KEPT:
        if len(_KEPT) >= _KEPT_MAX:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = make()
    return _KEPT[key]


def _spec_at(section: Section, rel: str) -> dict[str, Any] | None:
    """The spec at ``rel`` (docs-relative) of the pinned tree: the one the upstream's
    navigation read, else parsed once per blob."""
    rel = posixpath.normpath(rel.lstrip("/"))
    if rel.startswith(".."):
        return None
    site = section.upstream
    if site is not None and rel in site.specs:
        return site.specs[rel]

    def parse() -> dict[str, Any] | None:
        text = _read(section, rel)
        return parse_spec(text, rel) if text is not None else None

    return cast("dict[str, Any] | None", _kept(("spec", rel, _blob(section, rel)), parse))


def _declared_specs(section: Section) -> list[str]:
    """Spec files named by ``openapi`` keys of the site config (anywhere in it: a path, a
    ``{"source": …}`` object, or a list of them), read once per blob of the config."""
    key = ("declared", *(_blob(section, name) for name in SITE_CONFIGS))
    return cast("list[str]", _kept(key, lambda: _read_declared_specs(section)))


#: Mintlify's site configs, where ``openapi`` keys name specs
SITE_CONFIGS = ("docs.json", "mint.json")


def _read_declared_specs(section: Section) -> list[str]:
    out: list[str] = []
    for name in SITE_CONFIGS:
        text = _read(section, name)
        if text is None:
            continue
        try:
            config = json.loads(text)
        except (ValueError, RecursionError):
            continue
        stack: list[Any] = [config]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if key == "openapi":
                        values = value if isinstance(value, list) else [value]
                        paths = [v.get("source") if isinstance(v, dict) else v for v in values]
                        out += [v for v in paths if isinstance(v, str)
                                and not re.match(r"^[a-z]+://", v)]
                    else:
                        stack.append(value)
            elif isinstance(item, list):
                stack.extend(item)
    return out


def _specs(section: Section, named: str | None,
           folder: str = "") -> list[tuple[str, dict[str, Any]]]:
    """The specs to look the operation up in, in order: the one the front matter names (a
    path from the docs root, or from the page's ``folder``), else those ``docs.json`` names,
    else the default file names."""
    if named:
        candidates = [named] if named.startswith("/") else [
            posixpath.join(folder, named), named]
    else:
        candidates = [*_declared_specs(section), *DEFAULT_SPECS]
    out = []
    for rel in dict.fromkeys(candidates):
        spec = _spec_at(section, rel)
        if spec is not None:
            out.append((rel, spec))
    return out


def _ref(spec: dict[str, Any], node: Any, depth: int = 0) -> Any:
    """``node`` with a ``$ref`` into the same spec followed (a few levels, never a loop)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 8:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return {}
        target: Any = spec
        for part in ref[2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~")) \
                if isinstance(target, dict) else None
        node = target if target is not None else {}
        depth += 1
    return node


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _one_line(text: Any) -> str:
    return " ".join(text.split()) if isinstance(text, str) else ""


#: A type is read this deep (``array`` of ``oneOf`` of …), through this many schemas.
MAX_TYPE_DEPTH = 6
MAX_TYPE_SCHEMAS = 64
#: A reference is written up to this size; the rest is left out, and the page says so (a spec
#: of a few kilobytes can repeat one large schema thousands of times through ``$ref``).
MAX_REFERENCE = 256 * 1024


def _type(spec: dict[str, Any], schema: Any, budget: list[int] | None = None,
          depth: int = 0) -> str:
    """A schema's type as the reference shows it (``string``, ``Item[]``-like ``object[]``,
    ``string | null``), read to a bounded depth and number of schemas."""
    budget = [MAX_TYPE_SCHEMAS] if budget is None else budget
    budget[0] -= 1
    schema = _ref(spec, schema)
    if not isinstance(schema, dict) or depth > MAX_TYPE_DEPTH or budget[0] < 0:
        return ""
    if schema.get("enum") == [None]:
        return "null"  # the null arm of an anyOf, as zod writes it
    if schema.get("nullable") is True and isinstance(schema.get("type"), str):
        return _type(spec, {k: v for k, v in schema.items() if k != "nullable"}, budget,
                     depth + 1) + " | null"
    if "type" in schema:
        t = schema["type"]
        if t == "array":
            inner = _type(spec, schema.get("items", {}), budget, depth + 1)
            return f"{inner}[]" if inner else "array"
        if isinstance(t, list):
            return " | ".join(str(x) for x in t if isinstance(x, str))
        return t if isinstance(t, str) else ""
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(dict.fromkeys(_type(spec, s, budget, depth + 1) or "object"
                                            for s in schema[key][:MAX_TYPE_SCHEMAS]))
    return "object" if "properties" in schema else ""


#: What MDX would run or read as markup in text of a spec (a Mintlify host, whose pages are
#: MDX): braces, tags, and the first letter of an ``import``/``export`` line.
_MDX_TEXT_RE = lazy_re(r"[{}<>]|^[ \t]*(?:i(?=mport\b)|e(?=xport\b))", re.M)
_MDX_ENTITIES = {"{": "\\{", "}": "\\}", "<": "&lt;", ">": "&gt;", "i": "&#105;",
                 "e": "&#101;"}


#: A tag of an HTML element a description may hold (``<b>``, ``</code>``, ``<br/>``, ``<a
#: href="…">``: no attribute but a few plain ones, no expression); any other ``<``
#: (``<provider>``, ``Record<string, number>``, ``<b onclick="…">``) is text.
_HTML_TAG_RE = lazy_re(r"</?(?P<name>a|abbr|b|blockquote|br|code|dd|del|details|div|dl|dt|em|"
                       r"h[1-6]|hr|i|img|ins|kbd|li|mark|ol|p|pre|q|s|small|span|strong|sub|summary|"
                       r"sup|table|tbody|td|th|thead|tr|u|ul)(?:\s+(?:href|src|alt|title|width|"
                       r"height)=(?:\"[^\"<>{}]*\"|'[^'<>{}]*'))*\s*/?>", re.I)
_VOID = frozenset({"br", "hr", "img"})
#: An autolink (``<https://x>``, ``<a@b.org>``), which MDX has not: it reads a tag there.
_AUTOLINK_RE = lazy_re(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>")


def _autolink(m: re.Match[str]) -> str:
    target = m.group(1)
    href = (target if ":" in target else f"mailto:{target}").replace("(", "%28").replace(
        ")", "%29")  # no "<" for the text escapes after it
    return f"[{escape_inline(target)}]({href})"


def mdx_text(text: str) -> str:
    """Text of a spec (Markdown) written so that MDX reads it as text: no expression, tag or
    module line (the spec is data, not its code): ``Record<string, number>``, ``{id}`` and
    ``<provider>`` stopped the page's compile. Tags of HTML elements stay (a sandbox, or MDX,
    reads them next), an autolink becomes a link; code spans and fenced code are left as
    written (MDX shows them as they are). Character references show as the characters."""
    from .mdx import code_lines, fences, outside_code_spans

    def plain(part: str) -> str:
        return _MDX_TEXT_RE.sub(lambda m: m.group(0)[:-1] + _MDX_ENTITIES[m.group(0)[-1]], part)

    # HTML of the spec's text stays HTML where MDX can read it: an element that closes as
    # often as it opens (a stray "</i>" stops MDX as much as "<provider>"), a void one
    balance: dict[str, int] = {}
    for m in _HTML_TAG_RE.finditer(text) if "<" in text else ():
        name = m.group("name").lower()
        balance[name] = balance.get(name, 0) + (-1 if m.group(0)[1] == "/" else 1)
    kept = {name for name, count in balance.items() if count == 0 or name in _VOID}

    def escaped(part: str) -> str:
        if "<" not in part:
            return plain(part)
        part = _AUTOLINK_RE.sub(_autolink, part)
        pieces: list[str] = []
        done = 0
        for m in _HTML_TAG_RE.finditer(part):
            if m.group("name").lower() in kept:
                pieces += [plain(part[done:m.start()]), m.group(0)]
                done = m.end()
        return "".join([*pieces, plain(part[done:])])

    lines = text.split("\n")
    code = code_lines(fences(lines)) if "```" in text or "~~~" in text else set()
    return "\n".join(line if i in code else outside_code_spans(line, escaped)
                      for i, line in enumerate(lines))


#: An ``enum`` is listed up to this many values.
MAX_ENUM = 32


def _field(anchor: str, name: str, type_: str, where: str, required: bool, default: Any,
           description: str, schema: Any = None) -> list[str]:
    head = [f"**`{name}`**" if "`" not in name else f"**{escape_inline(name)}**"]
    if type_:
        head.append(f"*{escape_inline(type_)}*")
    if where:
        head.append(escape_inline(where))
    if required:
        head.append("required")
    if default is not None and not isinstance(default, (dict, list)):
        head.append(f"default: `{json.dumps(default)}`")
    values = [v for v in _list(_dict(schema).get("enum")) if v is not None
              and not isinstance(v, (dict, list))]
    if values:
        head.append("one of: " + ", ".join(_code(json.dumps(v) if not isinstance(v, str)
                                                 else v) for v in values[:MAX_ENUM])
                    + (", …" if len(values) > MAX_ENUM else ""))
    out = [f'<a id="{anchor}"></a>', "", " · ".join(head)]
    if description:
        out += ["", description]
    return [*out, ""]


def _code(text: str) -> str:
    """``text`` as a code span, whatever backticks it holds."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def _base_url(spec: dict[str, Any], item: dict[str, Any], op: dict[str, Any]) -> str:
    """The address the operation is called at, before its path: the first of its
    ``servers`` (the operation's, the path's, the spec's; OpenAPI 3), or the spec's
    ``host`` and ``basePath`` (Swagger 2); "" when the spec names none."""
    for owner in (op, item, spec):
        servers = _list(owner.get("servers"))
        if servers and isinstance(_dict(servers[0]).get("url"), str):
            return str(servers[0]["url"]).rstrip("/")
    host = spec.get("host")
    if isinstance(host, str) and host:
        schemes = [x for x in _list(spec.get("schemes")) if isinstance(x, str)] or ["https"]
        base = spec.get("basePath") if isinstance(spec.get("basePath"), str) else ""
        return f"{schemes[0]}://{host}{base}".rstrip("/")
    return ""


def endpoint_markdown(spec: dict[str, Any], method: str, path: str, *,
                      mdx: bool = False, title: str | None = None) -> list[str] | None:
    """The reference of one operation as Markdown, or None when the spec lacks it. ``mdx``:
    the spec's text is written so that MDX reads it as text (:func:`mdx_text`). The summary
    is left out when it is the page's ``title`` (a generated page is titled by it)."""
    paths = _dict(spec.get("paths"))
    item = _ref(spec, paths.get(path))
    if not isinstance(item, dict):
        alt = path.rstrip("/") if path.endswith("/") else path + "/"
        item = _ref(spec, paths.get(alt))
    if not isinstance(item, dict) or not isinstance(item.get(method), dict):
        return None
    op = item[method]

    def text(value: str) -> str:
        return mdx_text(value) if mdx else value

    out = [f"**{method.upper()}** {_code(_base_url(spec, item, op) + path)}", ""]
    if _one_line(op.get("summary")) and _one_line(op["summary"]) != title:
        out += [text(_one_line(op["summary"])), ""]
    if isinstance(op.get("description"), str) and op["description"].strip():
        out += [text(op["description"].strip()), ""]
    params = [_ref(spec, p) for p in [*_list(item.get("parameters")),
                                      *_list(op.get("parameters"))]]
    params = [p for p in params if isinstance(p, dict) and isinstance(p.get("name"), str)
              and p["name"]]
    fields: list[list[str]] = []
    if params:
        out += ["## Parameters", ""]
        for p in params:
            where = p["in"] if isinstance(p.get("in"), str) else ""
            schema = _ref(spec, p.get("schema", {}))
            fields.append(_field(f"{_slug(where)}-{_slug(p['name'])}", p["name"],
                                 _type(spec, schema), where, p.get("required") is True,
                                 _dict(schema).get("default"),
                                 text(_one_line(p.get("description"))), schema))
    body = _ref(spec, op.get("requestBody"))
    content = _dict(body).get("content") if isinstance(body, dict) else None
    if isinstance(content, dict) and content:
        media, first = next(iter(content.items()))
        schema = _ref(spec, _dict(first).get("schema", {}))
        fields.append(["## Request body", "", _code(str(media)), ""])
        if isinstance(schema, dict):
            required = {r for r in _list(schema.get("required")) if isinstance(r, str)}
            for name, prop in _dict(schema.get("properties")).items():
                prop = _ref(spec, prop)
                if not isinstance(prop, dict) or not isinstance(name, str):
                    continue
                fields.append(_field(f"body-{_slug(name)}", name, _type(spec, prop), "",
                                     name in required, prop.get("default"),
                                     text(_one_line(prop.get("description"))), prop))
    responses = op.get("responses")
    if isinstance(responses, dict) and responses:
        lines = ["## Responses", ""]
        for code, response in responses.items():
            said = text(_one_line(_dict(_ref(spec, response)).get("description")))
            lines.append(f"- **{escape_inline(str(code))}**" + (f": {said}" if said else ""))
        fields.append([*lines, ""])
    size = sum(len(line) + 1 for line in out)
    for lines in fields:
        size += sum(len(line) + 1 for line in lines)
        if size > MAX_REFERENCE:
            out += [f"*The rest of this reference is left out: it is larger than "
                    f"{MAX_REFERENCE // 1024} KiB.*", ""]
            break
        out += lines
    return out


def append_reference(page: Page, ctx: BuildContext, *, mdx: bool = False) -> bool:
    """Write the reference of the operation that the page's ``openapi:`` front matter names
    at the end of its content, from the spec in the pinned tree. False when the page names
    none. ``mdx``: for a page MDX reads that no sandbox makes inert (:func:`mdx_text`)."""
    value = page.meta.get("openapi")
    if not isinstance(value, str):
        return False
    m = OPENAPI_RE.match(value)
    section = ctx.sections[page.source]
    line = page.body_line if page.body_line else None
    if not m or m.group("method").lower() not in METHODS:
        ctx.report(section, page.path, line, "openapi",
                   f"front matter openapi: {value!r} is not 'METHOD /path'; the page is "
                   "left as written")
        return False
    method, path = m.group("method").lower(), m.group("path")
    named = m.group("spec")
    lines: list[str] | None = None
    specs = _specs(section, named, page.path.rpartition("/")[0])
    if named and not specs:
        ctx.report(section, page.path, line, "openapi",
                   f"the OpenAPI spec {named} is not in the pinned tree (or is not a spec); "
                   "the operation is looked up in the docs' other specs")
        specs = _specs(section, None)
    for _rel, spec in specs:
        lines = endpoint_markdown(spec, method, path, mdx=mdx, title=page.title)
        if lines is not None:
            break
    if lines is None:
        where = f" in {named}" if named else ""
        ctx.report(section, page.path, line, "openapi",
                   f"the OpenAPI operation {method.upper()} {path} is not in the pinned "
                   f"tree's spec{where}; the page says so")
        site = section.source.site_url
        stem = posixpath.splitext(page.path)[0]
        link = f" See [the upstream reference](<{site.rstrip('/')}/{stem}>)." if site else ""
        lines = [f"**{method.upper()}** {_code(path)}", "",
                 "*The OpenAPI specification of this endpoint is not in the pinned "
                 f"repository.*{link}", ""]
    body = page.content[page.body_start:]
    newline = "\r\n" if "\r\n" in body else "\n"
    sep = "" if not body.strip() else newline * (1 if body.endswith(newline) else 2)
    page.content = page.content + sep + newline.join(lines)
    return True
