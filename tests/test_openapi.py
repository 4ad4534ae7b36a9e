"""OpenAPI references written from an upstream's spec: a hostile spec (wrong types, loops,
deep nesting, one schema repeated thousands of times) gives a bounded page or none, never a
crash or a hang; spec text is data on a Mintlify host; the endpoint pages' limits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from miles_docs_plugin.core.collect import endpoints
from miles_docs_plugin.core.collect.upstream import read_upstream
from miles_docs_plugin.core.model import NavGroup
from miles_docs_plugin.core.transform.openapi import (
    MAX_REFERENCE,
    endpoint_markdown,
    mdx_text,
    parse_spec,
)


def spec_of(op: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"openapi": "3.0.0", "paths": {"/x": {"post": op}}, **extra}


@pytest.mark.parametrize("op", [
    {"parameters": 5},
    {"parameters": [{"name": "a", "in": 5, "required": "yes", "description": {"no": 1}}]},
    {"requestBody": {"content": {"application/json": {"schema": {
        "required": 5, "properties": ["not", "a", "mapping"]}}}}},
    {"requestBody": {"content": {"application/json": {"schema": {
        "properties": {"a": {"type": "array", "items": {"$ref": "#/paths/~1x/post/x"}}}}}}},
     "x": {"type": "array", "items": {"$ref": "#/paths/~1x/post/x"}}},
    {"responses": {"200": "fine", "404": {"description": ["a", "list"]}}, "summary": 7},
], ids=["parameters", "parameter-fields", "schema-fields", "self-reference", "responses"])
def test_a_spec_of_the_wrong_shape_gives_a_page_not_a_crash(op: dict[str, Any]) -> None:
    # each raised TypeError or RecursionError: the build stopped with a traceback
    lines = endpoint_markdown(spec_of(op), "post", "/x")
    assert lines is not None and lines[0] == "**POST** `/x`"


def test_a_type_of_many_branches_is_read_in_bounded_time() -> None:
    # oneOf [S1, S1], S1 = oneOf [S2, S2], …: 2^60 paths without a bound on the schemas read
    schemas: dict[str, Any] = {
        f"S{i}": {"oneOf": [{"$ref": f"#/components/schemas/S{i + 1}"}] * 2}
        for i in range(60)}
    schemas["S60"] = {"type": "string"}
    spec = spec_of({"parameters": [{"name": "a", "in": "query",
                                    "schema": {"$ref": "#/components/schemas/S0"}}]},
                   components={"schemas": schemas})
    lines = endpoint_markdown(spec, "post", "/x")
    assert lines is not None and any("**`a`**" in line for line in lines)


def test_one_schema_repeated_by_reference_gives_a_bounded_page() -> None:
    # a 1 MiB description behind one $ref, used by 300 fields: a 315 MB page before
    big = {"type": "string", "description": "x" * 2**20}
    spec = spec_of({"requestBody": {"content": {"application/json": {"schema": {
        "properties": {f"f{i}": {"$ref": "#/components/schemas/Big"} for i in range(300)}}}}}},
        components={"schemas": {"Big": big}})
    lines = endpoint_markdown(spec, "post", "/x")
    assert lines is not None
    assert sum(len(line) + 1 for line in lines) < MAX_REFERENCE + 4096
    assert "left out: it is larger than 256 KiB" in "\n".join(lines)


def test_deeply_nested_spec_is_no_spec() -> None:
    assert parse_spec('{"paths": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                      "openapi.json") is None
    assert parse_spec("paths: {}\nx: " + "[" * 20_000 + "]" * 20_000 + "\n",
                      "openapi.yaml") is None


def test_spec_text_is_text_in_mdx() -> None:
    """A trusted source's pages are not sandboxed on a Mintlify host, but its spec is data:
    braces, tags with more than plain attributes and module lines in it must not become MDX
    code."""
    spec = spec_of({"description": "Reads {id}.\nexport const a = fetch('//e');\n<b>bold</b>"
                                   " <i onclick=\"f()\">x</i> <a href=\"/y\">y</a>",
                    "parameters": [{"name": "q", "in": 'query" onClick={() => alert(1)} x="'}]})
    text = "\n".join(endpoint_markdown(spec, "post", "/x", mdx=True) or [])
    assert "\\{id\\}" in text and "&#101;xport const" in text
    # HTML elements stay, with a few plain attributes; any other tag is text
    assert "<b>bold</b>" in text and '<a href="/y">y</a>' in text
    assert '&lt;i onclick="f()"&gt;x&lt;/i&gt;' in text  # and its closing tag
    assert "onClick={" not in text.split("**`q`**")[0]  # the anchor is a slug
    assert '<a id="query-onClick-alert-1-x-q"></a>' in text
    assert mdx_text("important\n  import x") == "important\n  &#105;mport x"


def test_endpoint_pages_and_entries_stop_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec of many operations named by many navigation elements: at most MAX_ENDPOINTS
    pages and entries (500,000 entries from a 4.5 KB docs.json before), and it says so."""
    monkeypatch.setattr(endpoints, "MAX_ENDPOINTS", 5)
    spec = {"openapi": "3.0.0", "paths": {f"/p{i}": {"get": {"summary": "x"}}
                                          for i in range(8)}}
    docs = {"navigation": {"groups": [{"group": f"G{i}", "openapi": "openapi.json"}
                                      for i in range(4)]}}
    files = {"openapi.json": json.dumps(spec), "docs.json": json.dumps(docs)}
    site = read_upstream(lambda rel: files[rel].encode() if rel in files else None,
                         lambda rel: None, "docs")
    assert site is not None and site.nav is not None
    assert sorted(site.endpoints) == ["api-reference/x-1.mdx", "api-reference/x-2.mdx",
                                      "api-reference/x-3.mdx", "api-reference/x-4.mdx",
                                      "api-reference/x.mdx"]
    entries = [page for group in site.nav if isinstance(group, NavGroup)
               for sub in group.children if isinstance(sub, NavGroup) for page in sub.children]
    assert len(entries) == 5
    assert set(site.specs) == {"openapi.json"}  # the pages' references use it: no second read
    notes = "\n".join(message for message, _ in site.notes)
    assert "more than 5 API endpoint pages" in notes
    assert "more than 5 API endpoint navigation entries" in notes


def test_the_reference_names_the_address_values_and_nulls() -> None:
    """What Helicone's endpoint pages lost against their specs: the server the call goes
    to (its two specs name two hosts), an ``enum``'s values, and ``null`` where a field may
    be null (``nullable``, and zod's ``{"enum": [null]}`` arm of an ``anyOf``)."""
    spec = spec_of({"parameters": [
        {"name": "tier", "in": "query", "schema": {"type": "string", "enum": ["auto", "flex"]}},
        {"name": "temperature", "in": "query",
         "schema": {"anyOf": [{"type": "number"},
                              {"type": "string", "nullable": True, "enum": [None]}]}},
        {"name": "user", "in": "query", "schema": {"type": "string", "nullable": True}}]})
    spec["servers"] = [{"url": "https://ai-gateway.example.com/"}]
    text = "\n".join(endpoint_markdown(spec, "post", "/x") or [])
    assert "**POST** `https://ai-gateway.example.com/x`" in text, text
    assert "**`tier`** · *string* · query · one of: `auto`, `flex`" in text, text
    assert "**`temperature`** · *number &#124; null*" in text, text  # "|" escaped for tables
    assert "**`user`** · *string &#124; null*" in text, text
    swagger = {"swagger": "2.0", "host": "api.example.com", "basePath": "/v1",
               "paths": {"/x": {"get": {"responses": {}}}}}
    assert (endpoint_markdown(swagger, "get", "/x") or [""])[0] == \
        "**GET** `https://api.example.com/v1/x`"
