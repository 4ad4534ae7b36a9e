"""The fast scanner against its reference: markdown-it-py parsing the whole page.

``scan(text)`` leaves out of the parse the parts of a page that cannot yield a link, a heading
or an HTML id (``core/markdown.py`` says when a part is proven so). ``scan(text,
reference=True)`` parses everything with every rule. The two must give the same result, and
the same rewritten page, on every page of every corpus tree and on generated pages.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from support import CORPUS
from test_fuzz import MARKDOWNISH
from test_markdown import MIXED_PAGE

from miles_docs_plugin.core.transform.markdown import _quiet_parts, scan
from miles_docs_plugin.core.transform.scanned import ScanResult, rewrite

TREES = {
    "miles_diffusion v1": CORPUS / "miles_diffusion" / "v1",
    "miles_diffusion v2": CORPUS / "miles_diffusion" / "v2",
    "miles_host": CORPUS / "miles_host" / "tree",
    "mem0": CORPUS / "mem0" / "tree",
}


def assert_same(text: str) -> None:
    fast, reference = scan(text, line_offset=2), scan(text, line_offset=2, reference=True)
    assert fast == reference
    marks = [(link.start, link.end, f"<{i}>") for i, link in enumerate(fast.links)]
    assert rewrite(text, marks) == rewrite(
        text, [(link.start, link.end, f"<{i}>") for i, link in enumerate(reference.links)])


def parsed_by_markdown_it(text: str, line_offset: int = 0) -> tuple[ScanResult, list[str]]:
    """The fast scan of ``text``, and what it gave markdown-it's parser to read (nothing when
    the scan read it all itself)."""
    from miles_docs_plugin.core.transform import markdown

    parses: list[str] = []
    real = markdown.parser

    def spy(text: str | None = None) -> MarkdownIt:
        parses.append(text or "")
        return real(text)

    markdown.parser = spy
    try:
        return scan(text, line_offset=line_offset), parses
    finally:
        markdown.parser = real


@pytest.mark.parametrize("tree", sorted(TREES))
def test_every_corpus_page_scans_as_the_reference_does(tree: str) -> None:
    pages = sorted(p for p in TREES[tree].rglob("*") if p.suffix in (".md", ".mdx"))
    assert pages
    left_out = total = 0
    for page in pages:
        text = page.read_text("utf-8")
        assert_same(text)
        total += len(text)
        left_out += sum(b - a for a, b in _quiet_parts(text)[0])
    # the fast path is taken: a good part of every tree is never parsed
    assert left_out > total // 10, (tree, left_out, total)


# Pages where a part that looks quiet is not at rest: inside a fence, an HTML comment, a list
# item or a table, or after HTML that swallows the blank-free lines that follow it.
TRAPS = [
    "```\nfenced\n\nquiet\n\n[a](a.md)\n```\n\nquiet\n",
    "~~~~\n~~~\n\nquiet\n\n~~~~\n[b](b.md)\n",
    "```\nopen to the end\n\nquiet\n\n# not a heading\n",
    "``` a`b\n\nquiet\n\n[c](c.md)\n",
    "<!--\n\nquiet\n\n[d](d.md)\n-->\n\n[e](e.md)\n",
    "<pre>\n\nquiet\n\n[f](f.md)\n</pre>\n\n# H\n",
    "<div>\n```\n\nquiet\n\n[g](g.md)\n```\n",
    "1. item\n   ```\n\nquiet\n\n   [h](h.md)\n   ```\n\nquiet\n",
    "- a\n\n  ```\n  x\n\n  quiet\n  ```\n\n[i](i.md)\n\n```\n\nquiet\n\n[j](j.md)\n```\n",
    "| a |\n|---|\n```\n\nquiet\n\n[k](k.md)\n```\n",
    "  ```\n\nquiet\n\n[l](l.md)\n  ```\n\nquiet\n",
    "> ```\n> x\n\nquiet\n\n[m](m.md)\n",
    "para\n<!-- x\n\nquiet\n\n-->\n[n](n.md)\n\nquiet\n",
    "quiet\n\n    ```\n\nquiet\n\n[o](o.md)\n\n```\n",
    "[p]\n\nquiet\n\n[p]: p.md\n",
    "- a\n\n- quiet\n\n  ```\n\n- [r](r.md)\n  ```\n\nquiet\n",
    "1. a\n\n   <!--\n\n2. quiet\n\n   -->\n   [s](s.md)\n",
    "quiet\n\nSetext\n---\n\nquiet\n\n<https://q.example>\n",
    # headings read without markdown-it, and the ones that are not plain text
    "# a\x00b\n\n## `a` and ``b`` ` c ##\n\n# x `` y\n\n# A & B &amp; C\n\n# `  ` x\n",
    "# ` a ` #\n\n#\n\n## ##\n\n### a # b #\n\n# *em* _x_ \\# [l] <b>\n\n####### no\n",
    "# snake_case and __init__ a_ _b\n\n# ` \t ` and `  `\n\n# x ` a ` y ``  `` z\n",
    # the line after a heading starts a block: a table needs a "|" in its header line
    "# a | b\n|---|---|\n| [t](t.md) | x |\n\n# H\n```\nquiet\n\n[c](c.md)\n```\n",
    "# H\n- a\n\n  - quiet\n\n- [l](l.md)\n# G\n> [q](q.md)\nlazy\n\n# I\n    code [x](x)\n",
    # a fence line that is a table's header row; a fence in a list item that a line indented
    # by four spaces closes (it does not close the same fence at the top level)
    "``` | a |\n|---|---|\n| [x](x.md) |\n\nquiet\n\n```\n",
    "- a\n  ```\n    ```\n  [y](y.md)\n  ```\n\nquiet\n",
    # HTML blocks of types 6 and 7 before a fence line, and HTML that starts none
    "<Custom>\n```\n\nquiet\n\n[h](h.md)\n```\n",
    "para\n  <section>\n~~~\n\nquiet\n\n[i](i.md)\n~~~\n",
    "<a id=x></a><!--c-->\n```\n\nquiet\n\n[j](j.md)\n```\n\nquiet\n",
    "> <div>\n```\n\nquiet\n\n[k](k.md)\n```\n\n- <div>\n```\n\nquiet\n```\n",
    # CRLF line breaks (markdown-it reads them as "\n": a setext underline, a table row)
    "Title\r\n---\r\n\r\n| a |\r\n|---|\r\n| `|` [x](x.md) |\r\n\rT\r===\r",
    # links found by the link rules alone: nested images, references, failed images
    "[![a](a.png)](b.md) ![[x](x.md)](c.png) [a [b](b.md)](c.md) !![d](d.png) [e] (f.md)\n"
    "[g][r] [![h](h.png)][r] [i]\n(j.md) [k](l.md \"t\") [m](<n o.md>) *[p](p.md)* [[q](q.md)]"
    "\n\n[r]: r.md\n",
    "[a](b.md\n\n[![c](c.png) ![d](d.png \"e\")](f.md) [g](h.md) & [i](j.md &amp;) [k]\n",
    # destinations read without markdown-it's helper, and the ones that are not plain
    "[a](b(c)d) [e](f\\)g) [h](i&amp;j) [k](l<m) [n](o\x7fp) [q](r\ts) [t](u\n) [v]()\n",
    # paragraphs read without markdown-it, and lines that end or start one
    "**b** [a](a.md)\n`c` [d](d.md)\n*e* [f](f.md)\n``g`` [h](h.md)\n\n* * *\n\n**x\n***\n[i](i.md)"
    "\n\n*\n[j](j.md)\n\n*\ta\n[k](k.md)\n\nl\n```\n[m](m.md)\n```\n\nn\n~~~\n[o](o.md)\n\n"
    "p\n+ [q](q.md)\n\nr\n+s [t](t.md)\n\n_u_ [v](v.md)\n___\n\nw\n2) [x](x.md)\n",
    # "<![" that is no CDATA section: a browser reads it as a comment up to the next ">"
    "<div>\n<![ r ] <a href=\"x.md\">\n</div>\n\n<div>\n<![x]> <a href=\"y.md\">\n</div>\n",
    # a "](" elsewhere than at the end of the label
    "[a `](x)` b](y.md) [a](<b](c>) [a](b \"t](\") ![i `](x)`](i.png) [a `](x)` b][r] [c](d(e](f))"
    "\n\n[r]: r.md\n",
]


@pytest.mark.parametrize("text", TRAPS)
def test_parts_that_are_not_at_rest_are_parsed(text: str) -> None:
    assert_same(text)


def test_a_quiet_part_between_two_links_is_left_out() -> None:
    text = "[a](a.md)\n\nquiet prose\nover two lines\n\n```\ncode\n```\n\n[b](b.md)\n"
    assert _quiet_parts(text)[0] == [(11, text.index("[b]"))]
    assert [link.line for link in scan(text).links] == [1, 10]


def test_plain_headings_and_lists_after_them_take_the_fast_path() -> None:
    text = "# Title #\n\n- [a](a.md)\n- b\n\n## `x` and y\n\nquiet\n"
    parts, headings = _quiet_parts(text, line_offset=3)
    assert parts == [(0, text.index("- [a]")), (text.index("## `x`"), len(text))]
    assert [(h.level, h.text, h.line) for h in headings] == [(1, "Title", 4), (2, "x and y", 9)]
    assert [(h.level, h.text, h.line) for h in scan(text, line_offset=3).headings] == [
        (1, "Title", 4), (2, "x and y", 9)]


BLOCKS = st.sampled_from([
    "```", "```py", "~~~", "````", "  ```", "``` x`y", "<!--", "-->", "<pre>", "</pre>",
    "<div>", "</div>", "<?x", "?>", "<!X", ">", "- a", "1. b", "  - c", "> q", ">", "| a |",
    "|---|", "    code", "\tcode", "# H", "T\n===", "[r]: r.md", "[r]", "[x](x.md)",
    "<a href='y.md'>", "<https://z.example>", "quiet", "quiet text", "   [i](i.md)", "",
    "# `h` #", "## a ``b` c", "# &amp;", "#\tt",
])
BLOCK_PAGES = st.lists(BLOCKS, max_size=30).map(lambda lines: "\n".join(lines) + "\n")
#: Fewer kinds of lines, so that the ones whose order matters meet more often.
TIGHT_PAGES = st.lists(st.sampled_from([
    "```", "~~~", "  ```", "<div>", "<!--", "-->", "- a", "1. b", "", "", "[x](x.md)", "quiet",
    "# H", "| a |", "|---|", "> q",
]), max_size=24).map(lambda lines: "\n".join(lines) + "\n")


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(BLOCK_PAGES, TIGHT_PAGES))
@example("<!--\n\n```\n\n-->\n\n[a](a.md)\n```\n\nquiet\n")
def test_generated_block_structures_scan_as_the_reference_does(text: str) -> None:
    assert_same(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MIXED_PAGE, MARKDOWNISH))
def test_generated_pages_scan_as_the_reference_does(text: str) -> None:
    assert_same(text)


def test_the_throughput_script_measures_and_checks_identity() -> None:
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "scan_throughput.py"
    tree = TREES["miles_diffusion v1"]
    proc = subprocess.run([sys.executable, str(script), "--reps", "1", f"v1={tree}"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.fullmatch(r"v1: 22 pages, 0\.\d\d MB \| scan [\d.]+ MB/s \(reference [\d.]+, "
                        r"x[\d.]+\) \| links [\d.]+ MB/s \(reference [\d.]+\) \| "
                        r"bytes: \d+% quiet, \d+% read, \d+% parsed by markdown-it "
                        r"\([\d.]+% through its inline rules\) \| identical: yes\n",
                        proc.stdout), proc.stdout


# -- a grammar of the constructs the inline link reader has to read as markdown-it does -------

_WORDS = ["a", "b c", "see", "x_y", "*em*", "**", "_", "&amp;", "&#40;", "&#x29;", "&nbsp;",
          "&bogus;", "&", "é", "\\", "\\[", "\\]", "\\(", "\\)", "\\`", "\\\\", "\\!", "\\a",
          "!", "!!", "[", "]", "(", ")", "`", "``", "< b", "a<b", "<3", "1 < 2", " ", "  ",
          "\t", "\n", "\n  ", "  \n", "\\\n", "a>", "\x00"]
#: Raw HTML and autolinks (markdown-it reads the paragraphs that hold them).
_HTML = ["<", "]:", "<br>", "<span id=\"s\">", "</span>", "<a href=\"h.md\">", "</a>",
         "<!-- c -->", "<https://auto.example/x>", "<mail@example.org>", "<not an autolink>",
         "<a"]


def _word(rng: random.Random) -> str:
    return rng.choice(_HTML) if rng.random() < 0.05 else rng.choice(_WORDS)
_DESTINATIONS = ["d.md", "../d.md#a", "#top", "", "d(x).md", "d(x(y)).md", "d(", "d)", "d\\)",
                 "d\\(.md", "d%20e", "d&amp;e", "d&#41;", "a\\ b", "https://ex.example/p?q=1",
                 "<d e.md>", "<d>", "<>", "<d\\>>", "<d\n>", "<a<b>", "d\x7fe", "d\te",
                 "(" * 32 + "a" + ")" * 32, "(" * 33 + "a" + ")" * 33,
                 "d.md\n", "\nd.md", "d.md ", "javascript:alert(1)"]
_TITLES = ["", " \"t\"", " 't'", " (t)", " \"t \\\" q\"", " 't (x) '", " (t (x))",
           " (t \\) x)", " \"t\n2\"", "\n'multi\nline'", " \"unclosed", " t", " \"a\"b",
           " &quot;x&quot;"]
_LABELS = ["r", "R", "  r ", "other", "r\nx", "ü"]


def _inline(rng: random.Random, depth: int = 0) -> str:
    """A run of inline content: text, links, images, code spans, HTML, escapes, entities."""
    out: list[str] = []
    for _ in range(rng.randint(1, 4 if depth else 6)):
        kind = rng.random()
        if kind < 0.35 or depth > 1:
            out.append(_word(rng))
        elif kind < 0.6:
            text = _inline(rng, depth + 1) if rng.random() < 0.3 else _word(rng)
            bang = "!" if rng.random() < 0.3 else ""
            dest, title = rng.choice(_DESTINATIONS), rng.choice(_TITLES)
            space = rng.choice(["", "", " ", "\n", "  \n "])
            closing = ")" if rng.random() < 0.9 else ""
            out.append(f"{bang}[{text}]({space}{dest}{title}{space}{closing}")
        elif kind < 0.7:
            label = rng.choice(_LABELS)
            out.append(rng.choice([f"[{label}]", f"[x][{label}]", f"[{label}][]",
                                   f"![{label}]", f"[[{label}]]"]))
        elif kind < 0.85:
            ticks = rng.choice(["`", "``", "```"])
            close = ticks if rng.random() < 0.7 else rng.choice(["`", "``", ""])
            out.append(f"{ticks}{_inline(rng, depth + 1)}{close}")
        else:
            out.append("[" + _inline(rng, depth + 1) + rng.choice(["]", "](", "]]", ""]))
    return "".join(out)


def _block(rng: random.Random) -> str:
    inline = _inline(rng)
    return rng.choice([
        inline, inline, inline, inline.replace("\n", " "),
        f"- {inline}\n- [i](i.md)", f"1. {inline}\n   {_inline(rng)}", f"> {inline}\n{inline}",
        f"```\n{inline}\n```", f"    {inline}", f"# {inline}", f"{inline}\n---",
        f"| a | b |\n|---|---|\n| {inline.replace(chr(10), ' ')} | c |",
        f"[{rng.choice(_LABELS)}]: {rng.choice(_DESTINATIONS)}{rng.choice(_TITLES)}",
        f"<div>\n{inline}\n</div>", f"<div>\n\n{inline}\n\n</div>", f"  {inline}",
        f"{inline}\n    {inline}", f"* {inline}\n\n  {inline}",
        f"- {inline}\n  {_inline(rng)}\n+ {_inline(rng)}\n - x", f"10) {inline}\n    {inline}",
        f"- {inline}\n   {inline}\n{inline}", f"2. {inline}\n- {inline}\n  - {inline}",
        rng.choice(["---", "***", "- - -", "_ _ _", "* * *", "--", "**", "-- -"]),
        "\n".join([rng.choice(["| a | b |", "|a|b", "| a |", "| a | b | c |", "a | b"]),
                   rng.choice(["|---|---|", "|:-|-:|", "| --- | :---: |", "|-|", "|--|--|--|",
                               "| - | -", "|---||", "--- | ---"]),
                   *[rng.choice([f"| {_cell(rng)} | {_cell(rng)} |", f"|{_cell(rng)}",
                                 f"| {_cell(rng)} | {_cell(rng)} | {_cell(rng)} |", "|", "||",
                                 f"{_cell(rng)} | x", f"| {_cell(rng)} \\| {_cell(rng)} |"])
                     for _ in range(rng.randint(0, 3))]]),
    ])


def _cell(rng: random.Random) -> str:
    text = rng.choice([_inline(rng, 1).replace("\n", " "), f"[c]({rng.choice(['c.md', 'c d'])})"])
    return text + rng.choice(["", "", "", " `a|b`", " \x0c", "\t", " "])


def grammar_page(seed: int) -> str:
    rng = random.Random(seed)
    page = "".join(_block(rng) + rng.choice(["\n\n", "\n\n", "\n\n\n", "\n"])
                   for _ in range(rng.randint(1, 5)))
    return page.replace("\n", "\r\n") if rng.random() < 0.08 else page


def test_grammar_pages_scan_as_the_reference_does() -> None:
    """Some thousands of small pages from a grammar of the tricky constructs, each compared
    with the reference; the inline link reader must have answered for most of them (else
    this would only test markdown-it against itself)."""
    from miles_docs_plugin.core.transform import inline_links

    answered = asked = 0
    real = inline_links.find_links

    def counting(content: str, references: bool,
                 tags: list[tuple[int, int]] | None = None) -> list[inline_links.Found] | None:
        nonlocal answered, asked
        found = real(content, references, tags)
        asked += 1
        answered += found is not None
        return found

    inline_links.find_links = counting
    try:
        for seed in range(4000):
            text = grammar_page(seed)
            try:
                assert_same(text)
            except AssertionError as error:
                raise AssertionError(f"grammar_page({seed}) = {text!r}") from error
    finally:
        inline_links.find_links = real
    assert asked > 4000 and answered > asked // 2, (answered, asked)


def test_a_bogus_marked_section_is_a_comment_up_to_the_next_angle_bracket() -> None:
    # as a browser reads "<![": the standard library's parser stopped with an error on it
    text = "<div>\n<![ r ] <a href=\"x.md\">\n</div>\n\n<p>\n<![x]> <a href=\"y.md\">\n</p>\n"
    assert [link.dest for link in scan(text).links] == ["y.md"]


def test_a_page_that_starts_with_blank_lines_takes_the_fast_path() -> None:
    # what follows front matter: a blank line, then the title
    text = "\n \n# Title\n\nSee [a](a.md).\n"
    parts, headings = _quiet_parts(text, line_offset=4)
    assert parts == [(3, text.index("See"))]
    assert [(h.level, h.text, h.line) for h in headings] == [(1, "Title", 7)]
    assert_same(text)


def test_a_reference_link_after_a_failed_inline_one_reports_no_inline_destination() -> None:
    # markdown-it links "r" to /f (the label after the failed inline link): "x" is text
    text = "[r](x \"t\"X[foo]\n\n[foo]: /f\n"
    for result in (scan(text), scan(text, reference=True)):
        assert [(link.kind, link.dest) for link in result.links] == [("definition", "/f")]


@pytest.mark.parametrize("text", [
    "||\n|-\n|[x](x.md)|[x](x.md)\n",  # the first cell's text also ends the row (cell dropped)
    "|a|b|\n-|-\n)|[y](d)\n",  # a first cell as short as ")"
    "h | i\n--|--\n[a](a.md)|[b](b.md) [a](a.md)\n",  # a row not starting with "|"
])
def test_links_in_table_cells_are_found_where_markdown_it_reads_them(text: str) -> None:
    # every link markdown-it renders must carry the marker written at the offset the scan
    # reported: a link found in the wrong cell would leave the rendered one as written
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    for result in (scan(text), scan(text, reference=True)):
        assert result.unmapped == []
        marked = rewrite(text, [(link.start, link.end, f"m{i}")
                                for i, link in enumerate(result.links)])
        assert re.findall(r'href="([^"]*)"', md.render(marked)) == [
            f"m{i}" for i in range(len(result.links))]


# -- paragraphs whose links the reader takes without stepping through them --------------------

_PLAIN_WORDS = ["a", "b c", "see", "!", "&amp;", "&", "*em*", "_", "é", " ", "\n", "  \n",
                "\t", "x_y", "(", ")"]
_NEAR_WORDS = ["!!", "[", "]", "[]", "]:", "\x00", "\x7f"]
_PLAIN_DESTINATIONS = ["d.md", "../d.md#a", "#top", "https://ex.example/p?q=1", "d.md?x=1"]
_NEAR_DESTINATIONS = ["", "d(x).md", "d)", "d(", "d&amp;e", "d e", "d\te", "d\n", "\nd",
                      "d[x]", "d]", "[d", "d\x7fe", "d.md ", "d.md \"t\"", "d.md 't'",
                      "d.md (t)"]


def _plain_inline(rng: random.Random, depth: int = 0) -> str:
    """Inline content without a code span, an escape, HTML or an autolink: links and images
    whose labels and destinations are simple, or nearly so."""
    out: list[str] = []
    for _ in range(rng.randint(1, 6)):
        near = rng.random() < 0.1
        if rng.random() < 0.4 or depth > 1:
            out.append(rng.choice(_NEAR_WORDS if near else _PLAIN_WORDS))
            continue
        text = _plain_inline(rng, depth + 1) if rng.random() < 0.1 else rng.choice(
            ["x", "a b", "", "x\ny", "!", "&amp;", "("])
        bang = "!" if rng.random() < 0.3 else ""
        closing = ")" if rng.random() < 0.95 else ""
        space = rng.choice(["", "", "", "", "", "", " ", "\n"])
        dest = rng.choice(_NEAR_DESTINATIONS if near else _PLAIN_DESTINATIONS)
        out.append(f"{bang}[{text}]({space}{dest}{closing}")
    return "".join(out)


def test_paragraphs_of_plain_links_scan_as_the_reference_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Inline content with no code span, escape, HTML or autolink, where every bracket is a
    link's (no bracket in its label, a destination read as it is, right before ")"), is read
    without stepping through it; pages of such content and of near misses, as paragraphs,
    list items, table cells and headings, each compared with the reference."""
    from miles_docs_plugin.core.transform import inline_links

    stepped = asked = 0
    real_find, real_reader = inline_links.find_links, inline_links._Reader

    def counting(content: str, references: bool,
                 tags: list[tuple[int, int]] | None = None) -> list[inline_links.Found] | None:
        nonlocal asked
        asked += 1
        return real_find(content, references, tags)

    class Stepping(real_reader):  # type: ignore[valid-type,misc]
        def __init__(self, src: str, references: bool, legacy_backticks: bool) -> None:
            nonlocal stepped
            stepped += 1
            super().__init__(src, references, legacy_backticks)

    monkeypatch.setattr(inline_links, "find_links", counting)
    monkeypatch.setattr(inline_links, "_Reader", Stepping)
    for seed in range(1500):
        rng = random.Random(seed)
        blocks = []
        for _ in range(rng.randint(1, 4)):
            inline = _plain_inline(rng)
            blocks.append(rng.choice([
                inline, inline, f"- {inline}\n- [i](i.md)", f"# {inline}",
                f"| a | b |\n|---|---|\n| {inline.replace(chr(10), ' ')} | c |",
                f"{inline}\n\n[{rng.choice(['r', 'x'])}]: /r"]))
        text = "\n\n".join(blocks) + "\n"
        try:
            assert_same(text)
        except AssertionError as error:
            raise AssertionError(f"seed {seed}: {text!r}") from error
    assert asked > 1500 and asked - stepped > asked // 4, (asked, stepped)


# -- HTML blocks read without markdown-it -----------------------------------------------------

_HTML_LINES = ['<p align="center">', '<P>', "</p>", '<div id="d">', "<div>", "</div>",
               '  <img src="i.png" width="320">', '<a href="a.md" name="n">x</a>', "<br>",
               '<span id="s">', "<table>", "<td>", "| <b>x</b> | y |", "|---|---|",
               "<pre>", "</pre>", "<!-- c", "-->", "<?x ?>", '<img src="j.png">',
               "<custom-tag>", "<details>", "<summary>s</summary>", "text [l](l.md)",
               "  ", "\t", "", "", "", "    <p>", "# H", "<section id='sec'>"]
#: Pages of HTML lines and a few others: blocks that start at a rest point with every type of
#: opener, blank lines of spaces or tabs inside, pipes, ids, links.
HTML_PAGES = st.lists(st.sampled_from(_HTML_LINES), min_size=1, max_size=20).map(
    lambda lines: "\n".join(lines) + "\n")


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HTML_PAGES)
@example('<p id="b">\n  \n<a href="x.md">\n</p>\n\n<div id="a">\n')
@example('<div id="z">\n\n[a](a.md)\n\n<p id="y">\n<img src="i.png">\n</p>\n')
def test_generated_html_blocks_scan_as_the_reference_does(text: str) -> None:
    assert_same(text)


# Lines of tables, HTML blocks of every type, fences and what may come before and after them
_BLOCK_LINES = ["| a | b |", "|---|---|", "| [c](c.md) | d |", "a | b", "<!-- c -->", "<!-- c",
                "-->", "<!-- c --> | d", "```", "~~~", "```py", "<pre>", "</pre>", "<div>",
                "</div>", '<img src="i.png">', '<a id="x"></a><!-- m -->', "<custom-tag>",
                "text [l](l.md)", "para", "# H", "- item", "  - sub", "> quote", "[r]: /u",
                "    <!-- indented -->", "  <!-- two -->", "  ```", "  text [i](i.md)",
                "    code [c](c.md)", "1. one", "> - q [q](q.md)", "===", "---", "2. two",
                "1) paren [p](p.md)", "* star [s](s.md)", "-", "- - -", "**bold**", "", "", ""]
BLOCK_PAGES = st.lists(st.sampled_from(_BLOCK_LINES), min_size=1, max_size=24).map(
    lambda lines: "\n".join(lines) + "\n[end](end.md)\n\n# End\n")


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BLOCK_PAGES)
@example("| a | b |\n|---|---|\n<!-- c -->\n\n[x](x.md)\n")
@example("<!-- c --> | d\n|---|---|\n<!-- c -->\n\n[x](x.md)\n")
@example('<img src="i.png">\n```\n\n[x](x.md)\n\n```\n')
def test_generated_tables_fences_and_html_blocks_scan_as_the_reference_does(text: str) -> None:
    assert_same(text)


def test_rest_points_after_a_table_or_an_html_block_of_type_7() -> None:
    """An HTML comment or a fence after table rows or a paragraph ends them and is followed;
    an opener inside an HTML block of type 6 or 7 that the lines since the blank line begin
    with opens nothing. Either way the rest of the page keeps its rest points."""
    from miles_docs_plugin.core.transform.markdown import _rest_points

    def points(text: str) -> list[int]:
        return _rest_points(text, "\n" + text)[0]

    tail = "\n\n[x](x.md)\n"
    for head in ("| a | b |\n|---|---|\n| c | d |\n<!-- c -->",
                 "para\n| a |\n|---|\n```\ncode\n```",
                 '<img src="i.png" />\n<!-- c -->',
                 "<div>\n<pre>\n<!-- c"):
        text = head + tail
        assert text.index("[x]") in points(text), head
        assert_same(text)
    # the comment may be a table's header row, or in an HTML block a paragraph line began
    for head in ("<!-- c --> | d\n|---|---|", "para\n<div>\n<!-- c -->"):
        text = head + tail
        assert text.index("[x]") not in points(text), head
        assert_same(text)


def test_a_block_opened_at_the_top_level_bounds_its_rest_points() -> None:
    """A fence or an HTML comment at column 0 that ends the paragraph or list before it:
    its first line is a rest point, and so is the line after its last line. The paragraphs
    and the list around them are then read without markdown-it."""
    from miles_docs_plugin.core.transform import markdown

    def points(text: str) -> list[int]:
        return markdown._rest_points(text, "\n" + text)[0]

    text = ("para [a](a.md)\n```\ncode\n```\n- item [b](b.md)\n<!--mdp:0-->\n"
            "more [c](c.md)\n<!--/mdp:0-->\n")
    assert {text.index("```"), text.index("- item"), text.index("<!--mdp"),
            text.index("more"), text.index("<!--/mdp")} <= set(points(text))
    found, parses = parsed_by_markdown_it(text)
    assert [link.dest for link in found.links] == ["a.md", "b.md", "c.md"]
    assert parses == []
    assert_same(text)
    # in a list item the item may go on after its block; indented, the line after it too
    for text in ("- item\n  ```\n  code\n  ```\n  more [m](m.md)\n",
                 "```\ncode\n```\n  more [m](m.md)\n"):
        assert text.index("  more") not in points(text)
        assert_same(text)


def test_a_paragraph_that_a_list_ends_is_read_without_markdown_it() -> None:
    """A bullet list, or an ordered one from 1, ends the paragraph before it: both are read
    by the scan itself. A line after a blank line that cannot be a list item ends the list:
    it is a rest point."""
    from miles_docs_plugin.core.transform import markdown

    text = ("**New:**\n- add [a](a.md)\n- fix `x` [b](b.md)\n\n**Fixes:**\n1. one [c](c.md)\n"
            "   more [d](d.md)\n\n**Other:**\n* [e](e.md)\n")
    assert text.index("**Fixes") in markdown._rest_points(text, "\n" + text)[0]
    found, parses = parsed_by_markdown_it(text)
    assert [link.dest for link in found.links] == ["a.md", "b.md", "c.md", "d.md", "e.md"]
    assert parses == []
    assert_same(text)
    # an ordered list from 2 continues the paragraph; "- - -" is a thematic break; a lazy
    # line continues an item: left to markdown-it
    for other in ("p\n2. [a](a.md)\n", "p\n- - -\n[a](a.md)\n", "p\n- [a](a.md)\nlazy\n"):
        assert parsed_by_markdown_it(other)[1], other
        assert_same(other)


# Inline HTML among links, images, code spans and brackets: tags that hide a "]" or a "](",
# tags in a link's text and in an image's, comments, processing instructions, declarations,
# CDATA, autolinks and e-mail addresses, tags cut by a line break, and lookalikes.
_INLINE_BITS = ['<a href="a.md">', "</a>", '<a id="x"></a>', '<img src="i.png" alt="]">',
                '<span title="](x.md)">', "<br/>", "<b>", "</b>", "<!-- [c](c.md) -->",
                "<!-->", "<?pi [p](p.md) ?>", "<!DOCTYPE x>", "<![CDATA[ ] ]]>",
                "<https://e.com/x>", "<me@e.com>", "<a\nhref='n.md'>", "< a>", "<1>", "<",
                ">", "[l](l.md)", "![i](i.png)", "[", "]", "](", ")", "`<a href='c.md'>`",
                "`", "[t <b>x</b>](t.md)", "![<a id='in'>](j.png)", "[<a href='n.md'>](o.md)",
                "text", "\\<b>", "&lt;", "*em*"]
INLINE_HTML_PAGES = st.lists(
    st.lists(st.sampled_from(_INLINE_BITS), min_size=1, max_size=10).map("".join),
    min_size=1, max_size=4).flatmap(lambda paragraphs: st.sampled_from(
        ["\n\n", "\n", "\n\n- ", "\n\n| a |\n|---|\n| "]).map(
        lambda sep: sep.join(paragraphs) + "\n\n[end](end.md)\n"))


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(INLINE_HTML_PAGES)
@example('See <a href="a.md">a</a> and [b](b.md).\n')
@example("[t <b>x</b>](t.md) ![<a id='in'>](j.png)\n")
@example('<span title="](x.md)">[</span>](y.md)\n')
def test_generated_inline_html_scans_as_the_reference_does(text: str) -> None:
    assert_same(text)


def test_inline_html_is_read_without_markdown_it() -> None:
    """Tags in a paragraph, a list item or a table cell (what markdown-it's ``html_inline``
    rule reads: links and ids in their attributes) are read by the scan itself, as is a
    paragraph that starts with one; an autolink is left to markdown-it."""

    text = ('<a id="top"></a>**Start:** see <a href="a.md" rel="nofollow">A</a> and [b](b.md)\n'
            "\n- <img src=\"i.png\"> [c](c.md)\n\n| x |\n|---|\n| <a href='d.md'>d</a> |\n")
    found, parses = parsed_by_markdown_it(text)
    assert parses == []
    assert [(link.kind, link.dest) for link in found.links] == [
        ("html", "a.md"), ("inline", "b.md"), ("html", "i.png"), ("inline", "c.md"),
        ("html", "d.md")]
    assert [html_id.value for html_id in found.ids] == ["top"]
    assert len(parsed_by_markdown_it("See <https://e.com> and [b](b.md).\n")[1]) == 1
    assert_same(text)


def test_an_html_block_of_block_tags_is_read_without_markdown_it() -> None:
    """A block-level tag at a rest point opens an HTML block that ends at the next blank
    line: read by the scan itself, it reports what markdown-it's token would (links and ids,
    in page order with the ids of what is parsed)."""

    text = ("# T\n\nSee [a](a.md).\n\n<p align=\"center\">\n  <img src=\"i.png\" width=\"320\">\n"
            "  <a href=\"b.md\" id=\"one\">b</a>\n</p>\n\n<div id=\"two\">\n\nx\n")
    fast, parses = parsed_by_markdown_it(text, line_offset=2)
    assert parses == []
    assert [(link.kind, link.dest, link.line) for link in fast.links] == [
        ("inline", "a.md", 5), ("html", "i.png", 8), ("html", "b.md", 9)]
    assert [(found.value, found.line) for found in fast.ids] == [("one", 9), ("two", 12)]
    assert_same(text)
    # a pipe in the first line (a table may start there), a blank line of spaces inside, or
    # an HTML block of another type: left to markdown-it
    for other in ("<p> | <a href=\"x.md\">a</a> |\n|---|\n", "<p>\n \n<img src=\"i.png\">\n",
                  "<pre>\n<img src=\"i.png\">\n</pre>\n", "<custom-tag>\n<img src=\"i.png\">\n"):
        assert parsed_by_markdown_it("[a](a.md)\n\n" + other)[1], other
        assert_same("[a](a.md)\n\n" + other)
