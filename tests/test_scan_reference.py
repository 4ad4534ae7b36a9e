"""The fast scanner against its reference: markdown-it-py parsing the whole page.

``scan(text)`` leaves out of the parse the parts of a page that cannot yield a link, a heading
or an HTML id (``core/markdown.py`` says when a part is proven so). ``scan(text,
reference=True)`` parses everything with every rule. The two must give the same result, and
the same rewritten page, on every page of every corpus tree and on generated pages.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support import CORPUS
from test_fuzz import MARKDOWNISH
from test_markdown import MIXED_PAGE

from miles_docs_plugin.core.transform.markdown import _quiet_parts, rewrite, scan

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
                        r"identical: yes\n", proc.stdout), proc.stdout
