"""Fuzzing: random bytes through page parsing and link rewriting never crash.

Bounded for CI: a fixed number of examples per test (about 20 s in all). A failure prints the
smallest input hypothesis found.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from miles_docs_plugin.core.collect.collect import (
    FrontMatterError,
    SafeLoader,
    parse_front_matter,
    simple_front_matter,
)
from miles_docs_plugin.core.config import parse_config
from miles_docs_plugin.core.engine import Engine, relative_path
from miles_docs_plugin.core.errors import ContentError
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.transform.markdown import scan
from miles_docs_plugin.core.transform.scanned import rewrite

PIECES = st.sampled_from([
    *"[]()<>!`*_#-=>:|\\/\"'&;. \n\tab01", "](", "](#", "<a href=", "<img src=", "```",
    "<Note>", "</Note>", "---\n", "{#x}", "\r\n", "\x00", "\ufeff", "é", "🛡️"])
MARKDOWNISH = st.lists(PIECES, max_size=200).map("".join)
PAGE_BYTES = st.one_of(st.binary(max_size=600), MARKDOWNISH.map(lambda s: s.encode("utf-8")))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MARKDOWNISH)
def test_scanner_and_rewriter_never_crash(text: str) -> None:
    result = scan(text)
    for link in result.links:
        assert 0 <= link.start <= link.end <= len(text)
    out = rewrite(text, [(link.start, link.end, "x") for link in result.links])
    assert isinstance(out, str)


@settings(max_examples=1000, deadline=None)
@given(MARKDOWNISH)
def test_front_matter_parser_raises_only_its_own_error(text: str) -> None:
    with contextlib.suppress(FrontMatterError):
        parse_front_matter("---\n" + text + "\n---\n# x\n")


#: What a front matter line may hold: words YAML reads as booleans, nulls or numbers, and
#: every indicator character.
FRONT_PIECES = st.sampled_from([
    *"abzAZ_09 -.,:#'\"()/[]{}!&*|>%@`?~=+\t\r", "yes", "No", "ON", "off", "true", "False",
    "null", "Null", "y", "n", "1e3", "0x1F", "2026-01-01", ".inf", "<<", ": ", " #", "é"])
FRONT_LINE = st.tuples(st.lists(FRONT_PIECES, min_size=1, max_size=6).map("".join),
                       st.lists(FRONT_PIECES, max_size=12).map("".join))


@settings(max_examples=3000, deadline=None)
@given(st.lists(FRONT_LINE, min_size=1, max_size=4))
def test_the_front_matter_fast_path_reads_what_yaml_reads(lines: list[tuple[str, str]]) -> None:
    import yaml

    raw = "".join(f"{key}: {value}\n" for key, value in lines)
    fast = simple_front_matter(raw)
    if fast is None:
        return  # left to the YAML loader
    assert fast == yaml.load(raw, Loader=SafeLoader)
    assert fast == yaml.safe_load(raw)


DOC_PATH = st.lists(st.sampled_from(["a", "ab", "b", "x.md", "..", ".", "", "a b", "%"]),
                    max_size=4).map("/".join)


@settings(max_examples=2000, deadline=None)
@given(DOC_PATH, DOC_PATH)
def test_relative_links_are_what_posixpath_relpath_gives(path: str, start: str) -> None:
    import posixpath

    if path:
        assert relative_path(path, start) == posixpath.relpath(path, start or ".")


HEADING_TEXT = st.text(st.sampled_from(list("aZ09 _-.é\t\u00a0\x1c\u00df\u00b2")), max_size=12)


@settings(max_examples=3000, deadline=None)
@given(HEADING_TEXT, st.sampled_from(["-", "_"]))
def test_the_mkdocs_slug_fast_path_is_python_markdowns_slugify(text: str, sep: str) -> None:
    from markdown.extensions.toc import slugify

    from miles_docs_plugin.mkdocs_plugin.engine import _words_slugify

    assert _words_slugify(text, sep) == slugify(text, sep)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["Setup", "setup", "Setup 1", "Setup_1", "setup-1", "", "  ",
                                 "Setup_2", "Ünïcode", "a_1_1"]), max_size=8))
def test_mkdocs_heading_ids_are_python_markdowns_duplicates_included(texts: list[str]) -> None:
    """The ids the MkDocs engine's page slugger gives a page's headings, in order, are those
    Python-Markdown's ``toc`` gives them (repeats numbered ``_1``, ``_2``; an empty slug)."""
    import io
    import tempfile

    import markdown
    from mkdocs.config import load_config

    from miles_docs_plugin.mkdocs_plugin.engine import MkDocsEngine

    docs = Path(tempfile.gettempdir())  # read for the settings only: nothing is built
    config = load_config(config_file=io.StringIO("site_name: s\n"), docs_dir=str(docs),
                         site_dir=str(docs.parent / "unused-site"))
    make = MkDocsEngine(config, set()).page_slugger()
    md = markdown.Markdown(extensions=["toc"])
    md.convert("\n\n".join(f"## {text}" for text in texts))

    def ids(tokens: list[dict[str, Any]]) -> list[str]:
        return [i for t in tokens for i in [t["id"], *ids(t["children"])]]

    assert [make(text.strip()) for text in texts] == ids(md.toc_tokens)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(PAGE_BYTES, PAGE_BYTES)
def test_the_pipeline_on_random_pages(tmp_path: Path, first: bytes, second: bytes) -> None:
    wc = tmp_path / "wc"
    (wc / "docs" / "sub").mkdir(parents=True, exist_ok=True)
    (wc / "docs" / "index.md").write_bytes(first)
    (wc / "docs" / "sub" / "page.md").write_bytes(second)
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    try:
        result = build(config, Engine(), use_scan_cache=False)
    except ContentError as exc:  # malformed front matter: one clear message
        assert "front matter" in str(exc) and ".md:" in str(exc)
        return
    for page in result.sections["s"].pages.values():
        assert isinstance(page.content, str)
