"""Mintlify OpenAPI pages: ``openapi: POST /v1/things/`` in front matter.

The built-in plugin ``openapi`` calls :func:`append_reference` for every page; a Mintlify host
calls it for untrusted pages (whose ``openapi:`` its sandbox takes out).

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
from typing import TYPE_CHECKING, Any

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
    import yaml

    try:
        data = json.loads(text) if rel.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("paths"), dict) else None


def _declared_specs(section: Section) -> list[str]:
    """Spec files named by ``openapi`` keys of the site config (anywhere in it)."""
    out: list[str] = []
    for name in ("docs.json", "mint.json"):
        text = _read(section, name)
        if text is None:
            continue
        try:
            config = json.loads(text)
        except ValueError:
            continue
        stack: list[Any] = [config]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if key == "openapi":
                        values = value if isinstance(value, list) else [value]
                        out += [v for v in values if isinstance(v, str)
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
        text = _read(section, rel)
        spec = parse_spec(text, rel) if text is not None else None
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


def _one_line(text: Any) -> str:
    return " ".join(str(text).split()) if text else ""


def _type(spec: dict[str, Any], schema: Any) -> str:
    schema = _ref(spec, schema)
    if not isinstance(schema, dict):
        return ""
    if "type" in schema:
        t = schema["type"]
        if t == "array":
            inner = _type(spec, schema.get("items", {}))
            return f"{inner}[]" if inner else "array"
        return " | ".join(t) if isinstance(t, list) else str(t)
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(dict.fromkeys(_type(spec, s) or "object" for s in schema[key]))
    return "object" if "properties" in schema else ""


def _field(anchor: str, name: str, type_: str, where: str, required: bool, default: Any,
           description: str) -> list[str]:
    head = [f"**`{name}`**" if "`" not in name else f"**{escape_inline(name)}**"]
    if type_:
        head.append(f"*{escape_inline(type_)}*")
    if where:
        head.append(escape_inline(where))
    if required:
        head.append("required")
    if default is not None and not isinstance(default, (dict, list)):
        head.append(f"default: `{json.dumps(default)}`")
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


def endpoint_markdown(spec: dict[str, Any], method: str, path: str) -> list[str] | None:
    """The reference of one operation as Markdown, or None when the spec lacks it."""
    item = _ref(spec, spec.get("paths", {}).get(path))
    if not isinstance(item, dict):
        alt = path.rstrip("/") if path.endswith("/") else path + "/"
        item = _ref(spec, spec.get("paths", {}).get(alt))
    if not isinstance(item, dict) or not isinstance(item.get(method), dict):
        return None
    op = item[method]
    out = [f"**{method.upper()}** {_code(path)}", ""]
    if op.get("summary"):
        out += [_one_line(op["summary"]), ""]
    if op.get("description"):
        out += [str(op["description"]).strip(), ""]
    params = [_ref(spec, p) for p in [*item.get("parameters", []), *op.get("parameters", [])]]
    params = [p for p in params if isinstance(p, dict) and p.get("name")]
    if params:
        out += ["## Parameters", ""]
        for p in params:
            where = str(p.get("in", ""))
            schema = p.get("schema", {})
            out += _field(f"{where}-{_slug(p['name'])}", str(p["name"]), _type(spec, schema),
                          where, bool(p.get("required")),
                          _ref(spec, schema).get("default") if isinstance(
                              _ref(spec, schema), dict) else None,
                          _one_line(p.get("description")))
    body = _ref(spec, op.get("requestBody"))
    if isinstance(body, dict) and isinstance(body.get("content"), dict) and body["content"]:
        media, content = next(iter(body["content"].items()))
        schema = _ref(spec, content.get("schema", {})) if isinstance(content, dict) else {}
        out += ["## Request body", "", _code(str(media)), ""]
        if isinstance(schema, dict):
            required = set(schema.get("required", []))
            for name, prop in (schema.get("properties") or {}).items():
                prop = _ref(spec, prop)
                if not isinstance(prop, dict):
                    continue
                out += _field(f"body-{_slug(name)}", name, _type(spec, prop), "",
                              name in required, prop.get("default"),
                              _one_line(prop.get("description")))
    responses = op.get("responses")
    if isinstance(responses, dict) and responses:
        out += ["## Responses", ""]
        for code, response in responses.items():
            response = _ref(spec, response)
            text = _one_line(response.get("description")) if isinstance(response, dict) else ""
            out.append(f"- **{escape_inline(str(code))}**" + (f": {text}" if text else ""))
        out.append("")
    return out


def append_reference(page: Page, ctx: BuildContext) -> bool:
    """Write the reference of the operation that the page's ``openapi:`` front matter names
    at the end of its content, from the spec in the pinned tree. False when the page names
    none."""
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
        lines = endpoint_markdown(spec, method, path)
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
