"""Reading an upstream's own site configuration: Mintlify docs.json / mint.json navigation and
redirects, MkDocs mkdocs.yml nav (pure functions; the builds are in test_upstream_sites.py and
test_conventions.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from miles_docs_plugin.core.collect.upstream import Redirect, apply_redirect, read_upstream
from miles_docs_plugin.core.config import parse_config
from miles_docs_plugin.core.errors import ConfigError
from miles_docs_plugin.core.model import NavItem, NavLink, NavPage


def shape(items: list[NavItem]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, NavPage):
            out.append(item.path if item.title is None else (item.title, item.path))
        elif isinstance(item, NavLink):
            out.append(("link", item.url))
        else:
            out.append({item.title: shape(item.children)})
    return out


def read(files: dict[str, Any], docs_dir: str = "docs") -> Any:
    def docs(rel: str) -> bytes | None:
        value = files.get(rel)
        if value is None:
            return None
        return (value if isinstance(value, str) else json.dumps(value)).encode()

    def repo(path: str) -> bytes | None:
        value = files.get("../" + path.rsplit("/", 1)[-1]) if path.startswith(
            docs_dir.rsplit("/", 1)[0]) or "/" not in path else None
        return value.encode() if isinstance(value, str) else None

    return read_upstream(docs, repo, docs_dir)


def test_docs_json_tabs_groups_nested_groups_root_and_pages() -> None:
    site = read({"docs.json": {"navigation": {"tabs": [
        {"tab": "Guide", "pages": ["index", {"group": "Start", "root": "start/index",
                                             "pages": ["start/a", {"group": "Deep",
                                                                   "expanded": False,
                                                                   "pages": ["start/deep"]}]}]},
        {"tab": "API", "groups": [{"group": "Endpoints", "pages": ["api/get"]}]},
        {"tab": "Blog", "href": "https://example.com/blog"},
        {"tab": "Hidden", "hidden": True, "pages": ["secret"]},
        {"tab": "More", "pages": [{"group": "Internal", "hidden": True, "pages": ["x"]}]},
    ]}, "redirects": [{"source": "/old", "destination": "/new"}]}})
    assert site.kind == "docs.json"
    assert shape(site.nav) == [
        {"Guide": ["index", {"Start": ["start/index", "start/a", {"Deep": ["start/deep"]}]}]},
        {"API": [{"Endpoints": ["api/get"]}]},
        ("link", "https://example.com/blog"),
    ]
    assert site.redirects == [Redirect("/old", "/new")]


def test_docs_json_single_anchor_is_no_level_and_ref_includes_are_followed() -> None:
    site = read({
        "docs.json": {"navigation": {"anchors": [{"anchor": "Docs", "tabs": [
            {"tab": "One", "groups": [{"$ref": "nav/one.json"}]},
            {"tab": "Two", "pages": ["two"]}]}]}},
        "nav/one.json": {"group": "G", "pages": ["a", {"$ref": "deeper.json"}]},
        "nav/deeper.json": {"group": "H", "pages": ["b"]},
    })
    assert shape(site.nav) == [{"One": [{"G": ["a", {"H": ["b"]}]}]}, {"Two": ["two"]}]


def test_docs_json_languages_and_versions_use_the_default_and_report_the_others() -> None:
    site = read({"docs.json": {"navigation": {"versions": [
        {"version": "v2", "pages": ["v2/a"]},
        {"version": "v1", "default": True, "languages": [
            {"language": "en", "pages": ["en/a"]},
            {"language": "fr", "pages": ["fr/a"]}]}]}}})
    assert shape(site.nav) == ["en/a"]
    notes = " ".join(message for message, _problem in site.notes)
    assert "'v2'" in notes and "'fr'" in notes


def test_broken_docs_json_falls_back_to_the_tree_with_a_reason() -> None:
    site = read({"docs.json": "{not json"})
    assert site.nav is None
    assert site.notes and site.notes[0][1] is True
    assert "the folder tree is used" in site.notes[0][0]
    site = read({"docs.json": {"navigation": {"groups": [{"$ref": "missing.json"}]}}})
    assert site.nav is None and "missing.json" in site.notes[0][0]


def test_mint_json_tabs_take_the_groups_below_their_url_and_versions() -> None:
    site = read({"mint.json": {
        "tabs": [{"name": "API Reference", "url": "api-reference"}],
        "anchors": [{"name": "Community", "url": "https://example.com"}],
        "versions": ["v2", "v1"],
        "navigation": [
            {"group": "Get started", "pages": ["introduction", "quickstart"]},
            {"group": "Endpoints", "pages": ["api-reference/get", "api-reference/post"]},
            {"group": "Old", "version": "v1", "pages": ["old"]},
            {"group": "Guides", "pages": ["guides/a", {"group": "More", "pages": ["guides/b"]}]},
        ],
        "redirects": [{"source": "/a", "destination": "/b"}]}})
    assert site.kind == "mint.json"
    assert shape(site.nav) == [
        {"Get started": ["introduction", "quickstart"]},
        {"Guides": ["guides/a", {"More": ["guides/b"]}]},
        {"API Reference": [{"Endpoints": ["api-reference/get", "api-reference/post"]}]},
    ]
    assert len(site.redirects) == 1


def test_mkdocs_yml_next_to_the_docs_folder() -> None:
    site = read({"../mkdocs.yml": (
        "site_name: x\nnav:\n  - Home: index.md\n  - Guide:\n    - guide/a.md\n"
        "    - Bee: guide/b.md\n  - Out: https://example.com\n"
        "markdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "extra:\n  v: !ENV [X, y]\n")})
    assert site.kind == "mkdocs.yml"
    assert shape(site.nav) == [("Home", "index.md"), {"Guide": ["guide/a.md", ("Bee",
                                                                              "guide/b.md")]},
                               ("link", "https://example.com")]
    other = read({"../mkdocs.yml": "site_name: x\ndocs_dir: site-src\nnav:\n  - a.md\n"})
    assert other is None  # the MkDocs site of another folder


@pytest.mark.parametrize(("source", "destination", "path", "expected"), [
    ("/old", "/new", "/old", "/new"),
    ("/old", "/new#part", "/old/", "/new#part"),
    ("/beta/:slug*", "/v2/:slug*", "/beta/intro/deep", "/v2/intro/deep"),
    ("/beta/:slug*", "/v2/:slug*", "/beta", "/v2/"),
    ("/features/:slug", "/platform/:slug", "/features/x", "/platform/x"),
    ("/features/:slug", "/platform/:slug", "/features/x/y", None),
    ("/articles/concepts-*", "/overview", "/articles/concepts-intro", "/overview"),
    ("/old/article-*", "/new/article-*", "/old/article-123", "/new/article-123"),
    # a `*` takes the rest of the path, segments too: `mint broken-links` (the pinned CLI)
    # finds /old/x/y when /new/x/y exists, and reports /old/q/r when /new/q/r does not
    ("/old/*", "/new/*", "/old/x/y", "/new/x/y"),
    ("/pre/item-*", "/new/*", "/pre/item-a/b", "/new/a/b"),
    ("/gone", "https://example.com/x", "/gone", "https://example.com/x"),
    ("/old", "/new", "/older", None),
])
def test_redirect_patterns(source: str, destination: str, path: str,
                           expected: str | None) -> None:
    assert apply_redirect(Redirect(source, destination), path) == expected


def test_nav_modes_and_root_docs_dir_in_the_config(tmp_path: Path) -> None:
    def source(**extra: Any) -> Any:
        data = {"sources": [{"name": "x", "repo": "https://github.com/o/x.git", **extra}]}
        return parse_config(data, base_dir=tmp_path, env={}).sources[0]

    assert source().nav == "auto"
    assert source(nav="tree").nav == "tree"
    assert source(nav=["a.md"]).nav == ["a.md"]
    assert source(docs_dir=".").docs_dir == "."
    assert source(docs_dir="./").docs_dir == "."
    with pytest.raises(ConfigError, match="'nav' must be"):
        source(nav="alphabetical")
    with pytest.raises(ConfigError, match=r"write '\.' for the repository root"):
        source(docs_dir="/")


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_a_hidden_mintlify_page_is_built_but_not_listed(engine: str, tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """Mintlify's ``hidden: true`` front matter keeps a page out of the navigation while its
    URL still works (docs.json lists it)."""
    import re

    from hosts import make_host
    from support import make_repo

    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": json.dumps({"name": "Up", "navigation": {"groups": [
            {"group": "Guide", "pages": ["index", "shown", "secret"]}]}}),
        "docs/index.mdx": "---\ntitle: Start\n---\n\nSee [the secret page](/secret).\n",
        "docs/shown.mdx": "---\ntitle: Shown\n---\n\nText.\n",
        "docs/secret.mdx": "---\ntitle: Secret\nhidden: true\n---\n\nHidden text.\n",
    })
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    run = host.build()  # strict: a page out of the navigation is no warning
    assert run.returncode == 0, run.output
    assert "Hidden text." in (host.out / host.page_file("secret.md")).read_text("utf-8")
    linking = {p.relative_to(host.out).as_posix() for p in host.out.rglob("*.html")
               if re.search("secret", re.sub(r"<(?:script|link)[^>]*>", "",
                                             p.read_text("utf-8")), re.I)
               and "search" not in p.name}
    linking.discard(host.page_file("secret.md"))
    home = host.page_file("index.md")
    assert linking == {home}, linking  # the page that links it, and no navigation


#: A spec with tagged, untagged, hidden and renamed operations (Mintlify's endpoint pages).
SPEC = {
    "openapi": "3.0.0", "info": {"title": "U", "version": "1"},
    "tags": [{"name": "users", "x-group": "User management"}, {"name": "orgs"}],
    "paths": {
        "/users": {
            "get": {"tags": ["users"], "summary": "List users",
                    "description": "See [orgs](/api-reference/orgs/list-orgs)."},
            "post": {"tags": ["users"], "summary": "Create user",
                     "x-mint": {"metadata": {"sidebarTitle": "New user"}}}},
        "/users/{id}": {"delete": {"tags": ["users"]},
                        "get": {"tags": ["users"], "summary": "Get user", "x-hidden": True}},
        "/orgs": {"get": {"tags": ["orgs"], "summary": "List orgs"}},
        "/health": {"get": {"summary": "Health (check)"}},
        "/old": {"get": {"summary": "Old", "x-mint": {"href": "/legacy/Old.page"}}},
        "/internal": {"get": {"summary": "Internal", "x-excluded": True}},
    },
}
V2 = """\
openapi: 3.0.0
info: {title: V2, version: "2"}
paths:
  /items:
    get: {tags: [items], summary: List items}
    post: {summary: Create item}
"""


def test_docs_json_openapi_generates_endpoint_pages_as_mintlify_does() -> None:
    """An element with ``openapi`` and no pages lists every operation, grouped by tag; a
    ``METHOD /path`` entry lists one, from its own spec, the nearest ``openapi`` above it or
    ``openapi.json``. URLs are Mintlify's (directory, tag, summary or method and path)."""
    site = read({"openapi.json": SPEC, "specs/v2.yaml": V2, "docs.json": {"navigation": {
        "tabs": [
            {"tab": "Guides", "pages": ["index", "/openapi.json DELETE /users/{id}",
                                        "GET /orgs"]},
            {"tab": "API", "openapi": "openapi.json"},
            {"tab": "V2", "groups": [
                {"group": "Selected", "openapi": {"source": "/specs/v2.yaml",
                                                  "directory": "V2-Ref"},
                 "pages": ["overview", "GET /items", "specs/v2.yaml POST /items",
                           "GET /missing"]}]},
            {"tab": "Hosted", "openapi": "https://api.example.com/openapi.json"},
        ]}}})
    assert shape(site.nav) == [
        {"Guides": ["index", "api-reference/users/delete-users", "api-reference/orgs/list-orgs"]},
        {"API": [{"User management": ["api-reference/users/list-users",
                                      "api-reference/users/create-user",
                                      "api-reference/users/delete-users"]},
                 {"orgs": ["api-reference/orgs/list-orgs"]},
                 {"API Reference": ["api-reference/health-check", "legacy/old"]}]},
        {"V2": [{"Selected": ["overview", "v2-ref/items/list-items", "v2-ref/create-item"]}]},
    ]
    pages = site.endpoints
    assert sorted(pages) == [  # x-hidden: a page, not listed
        "api-reference/health-check.mdx", "api-reference/orgs/list-orgs.mdx",
        "api-reference/users/create-user.mdx", "api-reference/users/delete-users.mdx",
        "api-reference/users/get-user.mdx", "api-reference/users/list-users.mdx",
        "legacy/old.mdx", "v2-ref/create-item.mdx", "v2-ref/items/list-items.mdx"]
    create = pages["api-reference/users/create-user.mdx"]
    assert (create.openapi, create.title, create.sidebar) == (
        "/openapi.json POST /users", "Create user", "New user")
    assert pages["api-reference/users/delete-users.mdx"].title == "DELETE /users/{id}"
    assert pages["v2-ref/create-item.mdx"].openapi == "/specs/v2.yaml POST /items"
    notes = "\n".join(message for message, _ in site.notes)
    assert "'GET /missing', an operation of no OpenAPI spec" in notes
    assert "https://api.example.com/openapi.json is a URL, which the build does not fetch" \
        in notes


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_endpoint_pages_are_built_listed_and_linked(engine: str, tmp_path: Path,
                                                    cache_dir: Path) -> None:
    """The pages Mintlify generates from a spec were left out ("not built"), and every link
    to them was broken. They are now pages of the section: in the navigation, with the
    operation's reference, reachable by links, their banner naming the spec."""
    from hosts import make_host
    from support import make_repo

    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": json.dumps({"name": "Up", "navigation": {"tabs": [
            {"tab": "Guides", "pages": ["index"]},
            {"tab": "API", "openapi": "openapi.json"}]}}),
        "docs/openapi.json": json.dumps(SPEC),
        "docs/index.mdx": "---\ntitle: Start\n---\n\nSee [the users](/api-reference/users/"
                          "list-users) and [health](/api-reference/health-check).\n",
    })
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit)
    run = host.build()  # strict: every link resolves, every page is listed
    assert run.returncode == 0, run.output
    page = (host.out / host.page_file("api-reference/users/list-users.md")).read_text("utf-8")
    assert "List users" in page and "/users</" in page
    assert "openapi.json" in page  # the banner names the file the page comes from
    home = (host.out / host.page_file("index.md")).read_text("utf-8")
    for target in ("api-reference/users/list-users", "api-reference/health-check"):
        assert re.search(rf'href="[^"]*{target}[/.]', home), (target, home)
    for path in ("api-reference/orgs/list-orgs.md", "legacy/old.md",
                 "api-reference/users/create-user.md"):
        assert (host.out / host.page_file(path)).is_file(), path
    # x-hidden: built and reachable, in no navigation (the strict build would report a page
    # the navigation lists that is missing)
    assert (host.out / host.page_file("api-reference/users/get-user.md")).is_file()


def test_a_group_title_with_a_url_in_it_stays_a_group_in_sphinx(tmp_path: Path,
                                                                 cache_dir: Path) -> None:
    """Sphinx takes a toctree entry with ``://`` anywhere for a URL, title included: the
    group "Mirror: https://…" was "a reference to a nonexisting document", and was lost."""
    from hosts import make_host
    from support import make_repo

    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": json.dumps({"name": "Up", "navigation": {"groups": [
            {"group": "Start", "pages": ["index"]},
            {"group": "Mirror: https://example.org", "pages": ["other"]}]}}),
        "docs/index.mdx": "---\ntitle: Start\n---\n\nText.\n",
        "docs/other.mdx": "---\ntitle: Other\n---\n\nMore.\n",
    })
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    run = host.build()  # -W: a toctree warning fails it
    assert run.returncode == 0, run.output
    pages = [p.read_text("utf-8") for p in host.out.rglob("*.html")]
    assert any("Mirror: https:\u200b//example.org" in text and "More." not in text
               for text in pages)


def test_an_openapi_page_finds_the_spec_docs_json_names_in_object_form(tmp_path: Path,
                                                                        cache_dir: Path) -> None:
    """``"openapi": {"source": …}`` names a spec as a path does: a page whose front matter
    names no spec finds its operation there (only the string form was read)."""
    from hosts import make_host
    from support import make_repo

    upstream = tmp_path / "up"
    commit = make_repo(upstream, {
        "docs/docs.json": json.dumps({"name": "Up", "navigation": {"tabs": [
            {"tab": "API", "openapi": {"source": "specs/api.yaml"},
             "pages": ["index", "get-thing"]}]}}),
        "docs/specs/api.yaml": "openapi: 3.0.0\npaths:\n  /things:\n    get:\n"
                               "      summary: List things\n      description: Every thing.\n",
        "docs/index.mdx": "---\ntitle: Start\n---\n\nText.\n",
        "docs/get-thing.mdx": "---\ntitle: Things\nopenapi: GET /things\n---\n",
    })
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    page = (host.out / host.page_file("get-thing.md")).read_text("utf-8")
    assert "Every thing." in page and "not in the pinned" not in page


def test_a_broken_navigation_is_reported_under_its_file_once(tmp_path: Path) -> None:
    """The diagnostic names the file; its message used to name it again
    ("docs/docs.json: docs.json: …")."""
    from support import write

    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n")
    write(wc / "docs" / "docs.json", '{"navigation": {"pages": [5]}}\n')
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    result = build(config, Engine(), use_scan_cache=False)
    said = [d.format() for d in result.diagnostics if d.code == "upstream"]
    assert said == ["[s] docs/docs.json: page entry 5 must be a path or a group; the folder "
                    "tree is used"], said
