"""The link scanner and rewriter (``core/transform/markdown.py``)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import miles_docs_plugin
from miles_docs_plugin.core.transform.markdown import scan
from miles_docs_plugin.core.transform.scanned import ScanResult, escape_destination, rewrite


def spans(text: str) -> list[tuple[str, str, str]]:
    return [(link.kind, text[link.start:link.end], link.dest) for link in scan(text).links]


def test_inline_links_images_and_titles() -> None:
    text = 'See [a](a.md "Title") and ![img](../x.png \'t\') and [b](b.md#anchor).\n'
    assert spans(text) == [("inline", "a.md", "a.md"), ("image", "../x.png", "../x.png"),
                           ("inline", "b.md#anchor", "b.md#anchor")]


def test_angle_bracket_destinations_keep_their_brackets_in_the_span() -> None:
    text = "[x](<my page.md> \"t\")\n"
    (link,) = scan(text).links
    assert text[link.start:link.end] == "<my page.md>"
    assert link.dest == "my page.md" and link.angle


def test_code_spans_fenced_and_indented_code_are_never_links() -> None:
    text = (
        "Inline `[no](code.md)` and ``[no](double.md)`` but [yes](yes.md).\n\n"
        "```\n[no](fenced.md)\n```\n\n"
        "~~~md\n![no](tilde.png)\n~~~\n\n"
        "    [no](indented.md)\n\n"
        "- item\n\n      [no](indented-in-list.md)\n"
    )
    assert [d for _, _, d in spans(text)] == ["yes.md"]


def test_reference_definitions_autolinks_and_html() -> None:
    text = (
        "[text][ref] and <https://example.org/x> and <me@example.org>\n\n"
        '<p><img src="../assets/a.png" alt=""> <a href=\'page.md#x\'>x</a></p>\n\n'
        "<!-- <a href=\"hidden.md\">not a link</a> -->\n\n"
        "[ref]: <target page.md> \"Title\"\n"
    )
    found = spans(text)
    assert ("autolink", "<https://example.org/x>", "https://example.org/x") in found
    assert ("autolink", "<me@example.org>", "mailto:me@example.org") in found
    assert ("html", "../assets/a.png", "../assets/a.png") in found
    assert ("html", "page.md#x", "page.md#x") in found
    assert ("definition", "<target page.md>", "target page.md") in found
    assert all(d != "hidden.md" for _, _, d in found)


def test_links_in_blockquotes_lists_tables_and_headings() -> None:
    text = (
        "# Title [h](h.md) #\n\n"
        "> quoted [q](q.md)\n> > nested [n](n.md)\n\n"
        "1. one [l](l.md)\n   - two [m](m.md)\n\n"
        "| a | b |\n|---|---|\n| [t](t.md) | [u](u.md) `[c](c.md)` |\n"
    )
    assert [d for _, _, d in spans(text)] == ["h.md", "q.md", "n.md", "l.md", "m.md", "t.md",
                                              "u.md"]


def test_line_numbers_are_page_lines() -> None:
    text = "a\n\nb [x](x.md)\n\n> c\n> [y](y.md)\n"
    assert [link.line for link in scan(text, line_offset=3).links] == [6, 9]


def test_headings_and_explicit_ids() -> None:
    result = scan('<a id="fg"></a>\n## 🛡️ FG — Fully gated\n\n# `code` and *em*\n')
    assert [(h.level, h.text) for h in result.headings] == [(2, "🛡️ FG — Fully gated"),
                                                            (1, "code and em")]
    assert [i.value for i in result.ids] == ["fg"]


def test_javascript_links_are_seen_even_though_markdown_it_refuses_them() -> None:
    assert [d for _, _, d in spans("[x](javascript:alert(1))\n")] == ["javascript:alert(1)"]


def test_crlf_pages() -> None:
    text = "# T\r\n\r\npara [a](a.md)\r\nmore [b](b.md)\r\n"
    assert [s for _, s, _ in spans(text)] == ["a.md", "b.md"]


def test_rewrite_replaces_only_spans() -> None:
    text = "x [a](a.md) y"
    (link,) = scan(text).links
    assert rewrite(text, [(link.start, link.end, "b/c.md")]) == "x [a](b/c.md) y"
    with pytest.raises(ValueError, match="overlapping"):
        rewrite(text, [(0, 5, "a"), (3, 6, "b")])


@pytest.mark.parametrize("url", ["a b.md", "a(b.md", "plain.md", "q?x=1#y", "a\\b"])
def test_escape_destination_round_trips(url: str) -> None:
    md = MarkdownIt("commonmark")
    for angle in (False, True):
        text = f"[x]({escape_destination(url, angle=angle)})\n"
        (link,) = scan(text).links
        assert link.dest == url
        tokens = md.parseInline(text.strip())[0].children or []
        assert tokens[0].attrs["href"] == md.normalizeLink(url)


# -- property tests ----------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=8).map(str.strip).filter(bool)
DEST = st.builds(lambda a, b: f"{a}/{b}.md", WORD.map(lambda w: w.replace(" ", "")),
                 st.sampled_from(["x", "y#z", "index"]))
LINKISH = st.one_of(
    st.builds(lambda t, d: f"[{t}]({d})", WORD, DEST),
    st.builds(lambda t, d: f'[{t}]({d} "ti tle")', WORD, DEST),
    st.builds(lambda t, d: f"![{t}]({d})", WORD, DEST),
    st.builds(lambda t, d: f"[{t}](<{d}>)", WORD, DEST),
    st.builds(lambda d: f"<https://example.org/{d}>", WORD.map(lambda w: w.replace(" ", ""))),
    st.builds(lambda t, d: f"`[{t}]({d})`", WORD, DEST),  # code span: never a link
)
NESTED = st.builds(lambda t, d, e: f"[![{t}]({d})]({e})", WORD, DEST, DEST)
SOUP = st.sampled_from(["*", "_", "[", "]", "(", ")", "`", "\\", "<", ">", "!", "\t", "\n",
                        "&amp;", "](", "[x]", "\\[", "<a href=\"h.md\">"])
INLINE = st.lists(st.one_of(WORD, LINKISH, NESTED, SOUP), min_size=1, max_size=10).map("".join)
BLOCK = st.one_of(
    INLINE,
    INLINE.map(lambda s: "# " + s),
    INLINE.map(lambda s: "> " + s),
    INLINE.map(lambda s: "- " + s),
    INLINE.map(lambda s: "1. " + s + "\n   " + s),
    INLINE.map(lambda s: "```\n" + s + "\n```"),
    INLINE.map(lambda s: "    " + s),
    INLINE.map(lambda s: "| a |\n|---|\n| " + s.replace("|", "") + " |"),
)
PAGE = st.lists(BLOCK, min_size=1, max_size=8).map(lambda blocks: "\n\n".join(blocks) + "\n")


class AnyUrl(MarkdownIt):
    """markdown-it that keeps every URL (the scanner reports unsafe ones too)."""

    def validateLink(self, url: str) -> bool:
        return True


def rendered_hrefs(text: str) -> Counter[str]:
    md = AnyUrl("commonmark", {"html": True}).enable("table")
    found: Counter[str] = Counter()

    def walk(tokens: list) -> None:  # type: ignore[type-arg]
        for tok in tokens:
            if tok.type == "link_open":
                found[str(tok.attrs["href"])] += 1
            elif tok.type == "image":
                found[str(tok.attrs["src"])] += 1
            if tok.children and tok.type != "image":  # alt text is text, not links
                walk(tok.children)

    walk(md.parse(text))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAGE)
def test_scan_finds_exactly_the_links_markdown_it_renders(text: str) -> None:
    md = MarkdownIt("commonmark")
    result = scan(text)
    assert result.unmapped == []
    found = Counter(md.normalizeLink(link.dest) for link in result.links if link.kind != "html")
    assert found == rendered_hrefs(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAGE)
@example("a\n\n- a\n\t[a](a/x.md)\n")  # a tab the parser splits into spaces before a link
def test_rewriting_changes_only_destinations(text: str) -> None:
    result = scan(text)
    new = [f"https://r.example/{i}" for i in range(len(result.links))]
    out = rewrite(text, [(link.start, link.end,
                          f"<{url}>" if link.kind == "autolink" else url)
                         for link, url in zip(result.links, new, strict=True)])
    # every byte outside the replaced spans is unchanged: the page is the old text with
    # exactly the destinations swapped
    expected, last = [], 0
    for link, url in zip(result.links, new, strict=True):
        assert link.start >= last
        expected += [text[last:link.start], f"<{url}>" if link.kind == "autolink" else url]
        last = link.end
    expected.append(text[last:])
    assert out == "".join(expected)
    # and the rewritten page links exactly to the new destinations (code untouched)
    assert rendered_hrefs(out) == Counter(
        url for link, url in zip(result.links, new, strict=True) if link.kind != "html")
    assert [link.dest for link in scan(out).links] == new


def test_scan_cache_round_trips_and_drops_stale_entries(tmp_path: Path) -> None:
    from miles_docs_plugin.core.transform.scancache import ScanCache

    path = tmp_path / "scans.json"
    calls: list[str] = []

    def counting(body: str, line_offset: int = 0) -> ScanResult:
        calls.append(body)
        return scan(body, line_offset=line_offset)

    first = ScanCache(path)
    a = first.get("[a](a.md)\n", 3, counting)
    first.cached("b", "x", lambda: [1, 2], lambda v: v, lambda raw: list(raw))
    first.save()
    second = ScanCache(path)
    assert second.get("[a](a.md)\n", 3, counting) == a  # from the file: not scanned again
    assert second.cached("b", "x", lambda: [9], lambda v: v, lambda raw: list(raw)) == [1, 2]
    assert calls == ["[a](a.md)\n"]
    second.get("other\n", 0, counting)  # the old entries were not used ...
    third = ScanCache(path)
    third.get("other\n", 0, counting)
    third.save()
    assert len(ScanCache(path).raw) == 1  # ... and a build that uses one keeps one


def reference_scan(text: str) -> ScanResult:
    """The scan with every block rule enabled and every inline token parsed."""
    return scan(text, reference=True)


NESTED_BLOCKS = st.one_of(BLOCK, st.sampled_from([
    "- # heading [h](h.md)", "- > quote [q](q.md)", "- <div>\n  [x](x.md)\n  </div>",
    "- ***", "* * *", "- a\n  ===", "Title\n---", "1. | a |\n   |---|\n   | [c](c.md) |",
    "[r]: r.md", "- [r][]\n\n  [r]: r2.md", "\t[tab](t.md)", "> - > [deep](d.md)",
]))
MIXED_PAGE = st.lists(NESTED_BLOCKS, min_size=1, max_size=10).map(
    lambda blocks: "\n\n".join(blocks) + "\n")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MIXED_PAGE)
def test_the_fast_paths_change_nothing(text: str) -> None:
    assert scan(text) == reference_scan(text)


def test_the_fast_paths_change_nothing_on_the_corpus() -> None:
    from support import CORPUS

    pages = sorted((CORPUS / "miles_diffusion").rglob("*.md"))
    assert len(pages) == 53  # 22 + 29 pages, and the two READMEs
    for page in pages:
        text = page.read_text("utf-8")
        assert scan(text) == reference_scan(text), page


def test_only_the_public_api_of_markdown_it_is_used() -> None:
    # the ruler's internals (``__rules__``, ``__find__``, ``__compile__``, ``__cache__``)
    # change between releases; ``at``/``before``/``enable``/``disable`` are its API
    package = Path(miles_docs_plugin.__file__).resolve().parent
    used = {str(path.relative_to(package)) for path in package.rglob("*.py")
            if re.search(r"\.__(?:rules|find|compile|cache)__\b", path.read_text("utf-8"))}
    assert used == set()


def test_links_in_a_table_cell_with_an_escaped_pipe_are_found() -> None:
    """GFM takes the backslash off ``\\|`` in a cell: the cell's text is no longer the page's,
    and its links were "not located" (a warning that fails a strict build)."""
    text = ("| a | b |\n|---|---|\n"
            "| x | [`Sink`](#sink) ` \\| None` and [y](other.md) `\\|` [z](z.md) |\n")
    found = scan(text)
    assert [(link.dest, text[link.start:link.end]) for link in found.links] == [
        ("#sink", "#sink"), ("other.md", "other.md"), ("z.md", "z.md")]
    assert found.unmapped == []
