"""Link rules (``core/transform/links.py``, called by ``builtin/links.py``): every link becomes
a target, then is written back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from support import lock_text, make_repo, write

from miles_docs_plugin import hookimpl
from miles_docs_plugin.core.config import load_config, parse_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.model import ExternalTarget, UnresolvedTarget
from miles_docs_plugin.core.pipeline import BuildResult, build
from miles_docs_plugin.core.transform.markdown import scan

PAGES: dict[str, str | bytes] = {
    "README.md": "# upstream readme\n",
    "scripts/run.py": "print('run')\n",
    "docs/index.md": """
        ---
        title: Home
        ---
        # Home

        - [guide](guide/setup.md) and [guide anchor](guide/setup.md#lora--ipc-weight-sync)
        - [folder](guide/) and [extensionless](guide/setup)
        - ![diagram](assets/d.png "Diagram") and <img src="assets/d.png">
        - [readme](../README.md) and [scripts](../scripts/) and [run](../scripts/run.py#L1)
        - [site root](/guide/setup) and [host](https://host.example/docs/about#team)
        - [mail](mailto:a@b.c) and [ext](https://example.org)
        - [missing](nope.md) and [escape](../../../etc/passwd) and [gone](../nothing.py)
        - [bad anchor](guide/setup.md#no-such-heading) and [self](#home)
        - <a href="javascript:alert(1)">js</a> and [git](../.git/config)
        - `[code](guide/setup.md)` stays
        """,
    "docs/guide/index.md": "# Guide index\n",
    "docs/guide/setup.md": """
        # Setup

        ## LoRA + IPC weight sync

        Back [home](../index.md) and [same page](#lora--ipc-weight-sync).
        """,
    "docs/assets/d.png": b"\x89PNG\r\n\x1a\nfake",
}


@pytest.fixture
def result(tmp_path: Path, cache_dir: Path) -> BuildResult:
    up = tmp_path / "up"
    commit = make_repo(up, PAGES)
    write(tmp_path / "miles-docs.yml", f"""
        host_urls: [https://host.example/docs]
        sources:
          - name: s
            repo: {up.as_uri()}
            web_url: https://github.com/o/r
        """)
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    return build(load_config(tmp_path / "miles-docs.yml"),
                 Engine(host_pages={"index.md", "about.md"}))


def content(result: BuildResult, page: str) -> str:
    return result.sections["s"].pages[page].content


def messages(result: BuildResult) -> list[str]:
    return [d.format() for d in result.diagnostics]


def test_page_links_anchors_and_folders(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert "[guide](guide/setup.md)" in text
    assert "[guide anchor](guide/setup.md#lora-ipc-weight-sync)" not in text  # neutral engine
    assert "[guide anchor](guide/setup.md#lora--ipc-weight-sync)" in text
    assert "[folder](guide/index.md)" in text
    assert "[extensionless](guide/setup.md)" in text
    assert "[site root](guide/setup.md)" in text
    assert "[self](#home)" in text


def test_assets_markdown_and_html(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert '![diagram](assets/d.png "Diagram")' in text
    assert '<img src="assets/d.png">' in text
    assert set(result.sections["s"].assets) == {"assets/d.png"}


def test_repo_files_get_permalinks_at_the_pin(result: BuildResult) -> None:
    commit = result.sections["s"].checkout.commit
    text = content(result, "index.md")
    assert f"[readme](https://github.com/o/r/blob/{commit}/README.md)" in text
    assert f"[scripts](https://github.com/o/r/tree/{commit}/scripts)" in text
    assert f"[run](https://github.com/o/r/blob/{commit}/scripts/run.py#L1)" in text


def test_host_urls_become_host_page_links(result: BuildResult) -> None:
    assert "[host](../about.md#team)" in content(result, "index.md")


def test_external_links_and_code_are_unchanged(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert "[mail](mailto:a@b.c) and [ext](https://example.org)" in text
    assert "`[code](guide/setup.md)` stays" in text


def test_unresolved_links_are_diagnostics_with_upstream_lines(result: BuildResult) -> None:
    found = messages(result)
    assert any("docs/index.md:12: nope.md matches no page" in m for m in found), found
    assert any("docs/index.md:12: ../../../etc/passwd points outside the repository" in m
               for m in found), found
    assert any("docs/index.md:12: ../nothing.py does not exist in the repository" in m
               for m in found), found
    assert any("docs/index.md:13: anchor #no-such-heading matches no heading" in m
               for m in found), found
    assert any("docs/index.md:14: javascript: links are not allowed" in m for m in found), found
    assert any("docs/index.md:14: ../.git/config points into .git" in m for m in found), found
    text = content(result, "index.md")
    commit = result.sections["s"].checkout.commit
    # written so that the engine does not report them again: inert, upstream, or page top
    assert '<a href="#">js</a>' in text
    assert "[escape](#)" in text and "[git](#)" in text
    assert f"[missing](https://github.com/o/r/blob/{commit}/docs/nope.md)" in text
    assert f"[gone](https://github.com/o/r/blob/{commit}/nothing.py)" in text
    assert "[bad anchor](guide/setup.md)" in text


def test_anchor_mapping_in_the_same_page(result: BuildResult) -> None:
    assert "[same page](#lora--ipc-weight-sync)" in content(result, "guide/setup.md")
    assert "[home](../index.md)" in content(result, "guide/setup.md")


# -- property: every link outside code is classified, and reported when unresolved ----------

DESTS = st.sampled_from([
    "a.md", "a.md#sec", "a.md#missing", "sub/b.md", "sub/", "missing.md", "#top", "#nope",
    "img.png", "../README.md", "../../escape.md", "https://example.org/x", "mailto:x@y.z",
    "/a", "javascript:alert(1)", "<a.md>", "a.md \"t\"",
])
FRAGMENT = st.one_of(
    st.builds(lambda d: f"[t]({d})", DESTS),
    st.builds(lambda d: f"![i]({d})", DESTS),
    st.builds(lambda d: f"`[c]({d})`", DESTS),
    st.sampled_from(["word", "*em*", "[", "]", "(", ")", "`", "<br>", "\\[x]"]),
)
LINE = st.lists(FRAGMENT, min_size=1, max_size=6).map(" ".join)
BLOCK = st.one_of(LINE, LINE.map(lambda s: "- " + s), LINE.map(lambda s: "> " + s),
                  LINE.map(lambda s: "```\n" + s + "\n```"), LINE.map(lambda s: "    " + s),
                  LINE.map(lambda s: "## " + s))
PAGE = st.lists(BLOCK, min_size=1, max_size=6).map(lambda b: "# Top\n\n" + "\n\n".join(b) + "\n")


def code_of(text: str) -> list[str]:
    md = MarkdownIt("commonmark", {"html": True})
    out: list[str] = []

    def walk(tokens: list) -> None:  # type: ignore[type-arg]
        for tok in tokens:
            if tok.type in ("code_inline", "fence", "code_block"):
                out.append(tok.content)
            if tok.children:
                walk(tok.children)

    walk(md.parse(text))
    return out


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[int, str, object]] = []

    @hookimpl(wrapper=True)
    def mdp_resolve_link(self, link: object, page: object, ctx: object) -> object:
        target = yield
        self.seen.append((getattr(link, "line", 0), getattr(link, "dest", ""), target))
        return target


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(PAGE)
def test_every_link_is_rewritten_external_or_reported(tmp_path: Path, text: str) -> None:
    wc = tmp_path / "wc"
    write(wc / "README.md", "# r\n")
    write(wc / "docs" / "a.md", "# A\n\n## Sec\n")
    write(wc / "docs" / "sub" / "b.md", "# B\n")
    (wc / "docs" / "img.png").write_bytes(b"\x89PNG")
    (wc / "docs" / "index.md").write_text(text)
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    recorder = Recorder()
    result = build(config, Engine(), plugins=[recorder], use_scan_cache=False)
    out = result.sections["s"].pages["index.md"].content
    # code never changes
    assert code_of(out) == code_of(text)
    # every link outside code was classified; unresolved ones were reported on their line
    links = [link for link in scan(text).links if link.dest.strip()]
    assert len(recorder.seen) == len(links)
    reported = {d.line for d in result.diagnostics}
    for (line, dest, target), link in zip(recorder.seen, links, strict=True):
        assert dest == link.dest
        assert target is not None
        if isinstance(target, UnresolvedTarget):
            assert line in reported, (dest, line)
        if isinstance(target, ExternalTarget):
            assert f"({dest})" in out or f"<{dest}>" in out


def test_every_page_is_scanned_before_the_first_is_transformed(tmp_path: Path) -> None:
    """The pipeline scans the pages to transform in one pass (the scanner's code stays hot),
    and the link rules then use those scans: a page's own, and its link targets' anchors."""
    wc = tmp_path / "wc"
    for i in range(4):
        write(wc / "docs" / f"p{i}.md", f"# P{i}\n\nSee [next](p{(i + 1) % 4}.md#p{i + 1}).\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    seen: list[list[bool]] = []

    class First:
        @hookimpl(tryfirst=True)
        def mdp_transform_page(self, page: object, ctx: object) -> None:
            sections = ctx.sections.values()  # type: ignore[attr-defined]
            seen.append([p.scan is not None for s in sections for p in s.pages.values()
                         if not p.extra.get("generated")])  # not the section's placeholder

    result = build(config, Engine(), plugins=[First()], use_scan_cache=False)
    assert seen[0] == [True] * 4
    assert "p2.md#p2" in result.sections["s"].pages["p1.md"].content


def test_pages_are_prepared_and_transformed_with_the_cycle_collector_paused(
        tmp_path: Path) -> None:
    """The step allocates a few objects per link and heading and forms no cycles: the
    collector is held off during it (its passes would walk the host engine's whole heap),
    on again afterwards, and left off if it was off."""
    import gc

    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n\n[a](a.md)\n")
    write(wc / "docs" / "a.md", "# A\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    during: list[bool] = []

    class Watch:
        @hookimpl
        def mdp_prepare_page(self, page: object, ctx: object) -> None:
            during.append(gc.isenabled())

        @hookimpl
        def mdp_transform_page(self, page: object, ctx: object) -> None:
            during.append(gc.isenabled())

    assert gc.isenabled() and gc.get_freeze_count() == 0
    build(config, Engine(), plugins=[Watch()], use_scan_cache=False)
    assert during == [False] * 4 and gc.isenabled()
    assert gc.get_freeze_count() == 0  # what it made went to the oldest generation
    gc.disable()
    try:
        build(config, Engine(), plugins=[Watch()], use_scan_cache=False)
        assert not gc.isenabled()
    finally:
        gc.enable()
    kept = [object()]  # a host that froze its objects (before forking workers) keeps them
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        build(config, Engine(), plugins=[Watch()], use_scan_cache=False)
        assert gc.get_freeze_count() == frozen and kept
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("mintlify", [False, True], ids=["plain", "mintlify-site"])
def test_the_mintlify_link_rule_runs_only_for_a_mintlify_site(tmp_path: Path,
                                                              mintlify: bool) -> None:
    """A link to a page's ``.md`` file is broken on the upstream's own Mintlify site: said for
    a source with a ``docs.json``; for the others the rule is left out of the build's chain
    (it would return nothing for every link), and the built-in's rules are called without
    its hook's function in between."""
    from miles_docs_plugin.core.transform.links import resolve_link

    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n\nSee [a](a.md).\n\nAnd [gone](gone.md).\n")
    write(wc / "docs" / "a.md", "# A\n")
    if mintlify:
        write(wc / "docs" / "docs.json", '{"name": "Site", "navigation": []}\n')
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    result = build(config, Engine(), use_scan_cache=False)
    assert "[a](a.md)" in result.sections["s"].pages["index.md"].content
    said = [d.message for d in result.diagnostics if "Mintlify site" in d.message]
    assert said == (["a.md is a broken link on the upstream's Mintlify site (its pages have no "
                     ".md/.mdx in their address); it is resolved here"] if mintlify else [])
    # a link that names no page is said once, by the rule that finds nothing (it was also
    # said to be "resolved here")
    gone = [d.message for d in result.diagnostics if "gone.md" in d.message]
    assert len(gone) == 1 and "matches no page" in gone[0], gone
    chain = result.ctx.memo["links:resolve_link"]
    assert (chain is resolve_link) is not mintlify


def test_what_the_paused_step_made_goes_to_the_oldest_generation() -> None:
    """It lives to the end of the build: no young collection walks it on the way."""
    import gc

    from miles_docs_plugin.core.pipeline import gc_paused

    with gc_paused():
        made = [[i] for i in range(5000)]  # more than a young collection's threshold
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    assert all(id(obj) in oldest for obj in made)
    assert gc.isenabled() and gc.get_freeze_count() == 0


@pytest.mark.parametrize("kept", [False, True], ids=["throwaway", "kept-cache"])
def test_scanning_and_rewriting_pages_leaves_no_reference_cycles(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: bool) -> None:
    """What the collector would have found during the paused step (run at its end): nothing,
    on pages with every kind of link, code spans and headings (a cycle per inline reader once
    went unnoticed there); with a kept cache, in a first build and in one that replays it."""
    import gc
    from contextlib import contextmanager
    from textwrap import dedent

    from miles_docs_plugin.core import pipeline

    files = {path: dedent(text).lstrip("\n") if isinstance(text, str) else text
             for path, text in PAGES.items()}
    files["docs/code.md"] = ("# Code\n\nRun `x` then [setup](guide/setup.md) and ``a ` b`` "
                             "[home](index.md#home).\n")
    up = tmp_path / "up"
    commit = make_repo(up, files)
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    config = parse_config({"sources": [{"name": "s", "repo": up.as_uri(),
                                        "web_url": "https://github.com/o/r"}]},
                          base_dir=tmp_path, env={"MILES_DOCS_CACHE": str(tmp_path / "cache")})

    class Keyed(Engine):  # an engine that can say what its answers depend on
        def memo_key(self) -> str | None:
            return "keyed"

    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    found: list[int] = []
    paused = pipeline.gc_paused

    @contextmanager
    def checked() -> Iterator[None]:
        gc.collect()
        with paused():
            yield
            found.append(gc.collect())

    monkeypatch.setattr(pipeline, "gc_paused", checked)
    said: list[str] = []
    for _ in range(2 if kept else 1):
        result = build(config, Keyed(), use_scan_cache=kept, progress=said.append)
        assert "[setup](guide/setup.md)" in result.sections["s"].pages["code.md"].content
    assert found == [0] * (2 if kept else 1)
    if kept:  # the second build replayed the first one's transforms
        assert any("prepare as in the last build" in line for line in said), said


def test_relative_links_through_dot_parts_and_out_of_the_docs_folder(tmp_path: Path) -> None:
    """Links are joined to their page's folder in docs-folder space first; one whose joined
    path starts with "." (it leaves the docs folder, even to come back, or names a dot
    folder) is joined in repository space: both ways find the same targets."""
    wc = tmp_path / "wc"
    write(wc / "README.md", "# Readme\n")
    write(wc / "docs" / "index.md", "# Home\n")
    write(wc / "docs" / ".assets" / "x.png", "png\n")
    write(wc / "docs" / "guide" / "a.md", """
        # A

        [back](../../docs/index.md) [dots](./.././guide/a.md#a) [hidden](../.assets/x.png)
        [up](..) [root](../) [readme](../../README.md) [top](../index.md)
        [away](../../docs/../nowhere.md) [gone](../../../x.md)
        """)
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc), "web_url": "https://github.com/o/r"}]},
                          base_dir=tmp_path, env={})
    result = build(config, Engine(), use_scan_cache=False)
    text = result.sections["s"].pages["guide/a.md"].content
    assert ("[back](../index.md) [dots](a.md#a) [hidden](../.assets/x.png)\n"
            "[up](../index.md) [root](../index.md) [readme](https://github.com/o/r/blob/") in text
    assert "/README.md) [top](../index.md)\n[away](https://github.com/o/r/blob/" in text
    assert "/nowhere.md) [gone](#)" in text
    assert sorted(d.message.split(" ")[0] for d in result.diagnostics) == [
        "../../../x.md", "../../docs/../nowhere.md"]


def test_what_python_markdown_gives_an_id_and_unused_definitions(tmp_path: Path,
                                                                cache_dir: Path) -> None:
    """An MkDocs upstream links to the ids its extensions give (footnotes' ``fn:1``,
    attr_list's ``{ #id }`` after any element): they resolve. A footnote's text is no link
    destination, and a definition no link uses is shown by no engine: neither is checked."""
    from hosts import make_host

    page = ("# Notes\n\nA claim[^1], [its note](#fn:1), [back](#fnref:1) and\n"
            "[`meta_file`](#+meta.meta_file){ #+meta.meta_file }.\n\n"
            "[^1]: The note, not a link.\n\n"
            "[unused]: missing.md#nope\n[overview]: #no-such-heading\n\n"
            "## Simplicity and power :rocket:\n\n## Set up { .special }\n\n"
            "[power](#simplicity-and-power) and [set up](#set-up).\n")
    up = tmp_path / "up"
    commit = make_repo(up, {"mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n"
                                          "  - footnotes\n  - attr_list\n  - pymdownx.emoji\n",
                            "docs/index.md": page})
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit)
    run = host.build()  # strict
    assert run.returncode == 0, run.output
    assert "0 warnings" in run.output and "WARNING" not in run.output, run.output
    html = host.site().page("diffusion/index.html").text
    # a heading's id is made from what it shows: no emoji shortcode, no attribute list
    for href in ("#fn:1", "#fnref:1", "#+meta.meta_file", "#simplicity-and-power", "#set-up"):
        assert f'href="{href}"' in html, (href, html)
    assert "<p>The note, not a link." in html, html


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_an_image_in_an_element_md_in_html_reads_is_published(engine: str, tmp_path: Path,
                                                               cache_dir: Path) -> None:
    """``<figure markdown="span">`` (Material's image figures): md_in_html reads the content
    as Markdown, where CommonMark reads one HTML block; its image is found, copied and linked.
    Sphinx has no md_in_html: the content stands without the element, and no attribute
    list shows as text."""
    from hosts import make_host

    page = ('# Figures\n\n<figure markdown="span">\n'
            '  ![A chart](img/chart.png){ width="300" }\n'
            "  <figcaption>The chart</figcaption>\n</figure>\n\nAfter.\n")
    up = tmp_path / "up"
    commit = make_repo(up, {"mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n"
                                          "  - attr_list\n  - md_in_html\n",
                            "docs/guide/index.md": page,
                            "docs/guide/img/chart.png": b"\x89PNG\r\n\x1a\n"})
    host = make_host(engine, tmp_path / "host", up.as_uri(), commit)
    run = host.build()  # strict: MkDocs warns about an image that is not there
    assert run.returncode == 0, run.output
    html = host.site().page("diffusion/guide/index.html").text
    if engine == "mkdocs":
        assert 'src="img/chart.png"' in html and 'width="300"' in html, html
        assert (host.out / "diffusion" / "guide" / "img" / "chart.png").is_file()
    else:
        assert '<img alt="A chart" src="../../_images/chart.png"' in html, html
        assert "![" not in html and "{ width" not in html and "width=”" not in html, html


@pytest.mark.parametrize("directory_urls", [True, False])
def test_an_mkdocs_upstreams_link_left_as_written_resolves_from_the_pages_address(
        tmp_path: Path, directory_urls: bool) -> None:
    """MkDocs rewrites a link that names a file of the docs folder and leaves any other as
    written, and a browser resolves that from the page's address: with
    ``use_directory_urls`` (the default) ``styles/align.md`` is served as ``styles/align/``,
    so ``../../css_types/horizontal`` is ``css_types/horizontal``. Such links (Textual's docs
    write them throughout) were resolved from the file, reported, and made GitHub 404s."""
    wc = tmp_path / "wc"
    write(wc / "mkdocs.yml", "site_name: U\n" + ("" if directory_urls else
                                                 "use_directory_urls: false\n"))
    write(wc / "docs" / "index.md", "# Home\n")
    write(wc / "docs" / "styles" / "align.md",
          "# Align\n\nA [h](../../css_types/horizontal#values), [s](../content_align), "
          "[home](../../), [file](content_align.md), [gone](../../nope).\n\n"
          '<p><a href="../../css_types/horizontal/">raw</a></p>\n')
    write(wc / "docs" / "styles" / "content_align.md", "# Content align\n")
    write(wc / "docs" / "css_types" / "index.md", "# Types\n\n[h](./horizontal/)\n")
    write(wc / "docs" / "css_types" / "horizontal.md", "# Horizontal\n\n## Values\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    result = build(config, Engine(), use_scan_cache=False)
    align = result.sections["s"].pages["styles/align.md"].content
    types = result.sections["s"].pages["css_types/index.md"].content
    reported = sorted(d.message.split()[0] for d in result.diagnostics if d.code == "link")
    if directory_urls:
        assert "[h](../css_types/horizontal.md#values)" in align
        assert "[s](content_align.md)" in align and "[home](../index.md)" in align
        assert "[file](content_align.md)" in align and "[h](horizontal.md)" in types
        assert 'href="../../css_types/horizontal/"' not in align  # the raw link: rewritten
        assert reported == ["../../nope"]
    else:  # served as styles/align.html: the browser resolves these from the file's folder
        assert "[h](../../css_types/horizontal#values)" not in align
        assert "../../css_types/horizontal#values" in reported and "../../nope" in reported


def test_a_wrapper_put_in_place_of_the_builtin_resolver_is_called(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resolver calls the link rules directly in place of the built-in's own hook, but
    not in place of a function a plugin put under its name."""
    import functools

    from miles_docs_plugin.builtin import links

    seen: list[str] = []
    original = links.mdp_resolve_link

    @functools.wraps(original)
    def wrapper(link: Any, page: Any, ctx: Any) -> Any:
        seen.append(link.dest)
        return original(link, page, ctx)

    monkeypatch.setattr(links, "mdp_resolve_link", wrapper)
    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n\nSee [a](a.md).\n")
    write(wc / "docs" / "a.md", "# A\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    build(config, Engine(), use_scan_cache=False)
    assert seen == ["a.md"]
