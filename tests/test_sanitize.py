"""The sanitiser's quick look: a rendered page it says holds nothing to remove is published as
it is, unparsed, so it must find everything the full parse would act on.

The reference is the single case-insensitive pattern it replaced (one pattern for every
construct, tried at every position: ~45 ms per MB of HTML, a third of what the plugin added to
a 1,000-page MkDocs build). On ASCII text the two must agree exactly; beyond ASCII the quick
look reads names as the parser and browsers do (``str.lower``; browsers lower-case ASCII
only), so it may only differ on spellings that no browser reads as those names.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from miles_docs_plugin.core.section.sanitize import sanitize_html, suspect


def _spaced(word: str) -> str:
    return "[\t\n\r]*".join(word)


REFERENCE = re.compile(
    r"<(?:script|style|base|meta|link|object|embed|applet|frame|param)"
    r"|[\s/\"'\x00]on[a-z]+[\s\x00]*="
    r"|&#|&(?:colon|tab|newline)"
    r"|[\"'=][\x00-\x20]*(?:" + "|".join(_spaced(w) for w in ("javascript", "vbscript", "data",
                                                              "file")) + r")[\t\n\r]*:"
    r"|srcdoc",
    re.IGNORECASE)

PIECES = st.sampled_from([
    *"<>/=\"' \t\n\r\x00\x0c:&#;aAoOnNxX1", "on", "ON", "oN", "click", "error", "script",
    "SCRIPT", "Style", "base", "meta", "LINK", "object", "embed", "applet", "frameset",
    "param", "srcdoc", "SrcDoc", "java", "JAVA", "script:", "vb", "data", "DATA", "file",
    "image/png", "colon", "Tab", "NewLine", "href", "src", "<a ", "<img ", "<p>", "</p>",
    "java\tscript", "da\nta", "fi\rle", "&#106;", "&colon;", "x=", "=\x01",
])
FRAGMENTS = st.lists(PIECES, max_size=60).map("".join)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FRAGMENTS)
def test_the_quick_look_finds_what_the_single_pattern_found(fragment: str) -> None:
    assert suspect(fragment) is (REFERENCE.search(fragment) is not None), fragment


#: Names of schemes spelled letter by letter (or nearly: a letter dropped), with runs of
#: blanks between them as long as a browser takes, after a quote or "=" or ordinary text.
BLANKS = st.sampled_from(["", "\n", "\t\r", "\n" * 70, "\t" * 33, "\r\n" * 40])


@st.composite
def spelled(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from(["javascript", "vbscript", "data", "file", "script"]))
    if draw(st.booleans()):
        drop = draw(st.integers(0, len(word) - 1))
        word = word[:drop] + word[drop + 1:]
    letters = [*word, ":"]
    return draw(st.sampled_from(['<a href="', "<a href=", "x='", "text "])) + draw(BLANKS) + \
        "".join(letter + draw(BLANKS) for letter in letters) + "alert(1)"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(spelled(), min_size=1, max_size=3).map(" ".join))
def test_the_quick_look_reads_names_spelled_across_long_blanks(fragment: str) -> None:
    assert suspect(fragment) is (REFERENCE.search(fragment) is not None), fragment


@pytest.mark.parametrize("fragment", [
    '<form action="javascript:alert(11)"><button>go</button></form>',
    '<svg><a xlink:href="javascript:alert(12)"><text>x</text></a></svg>',
    '<object data="javascript:alert(13)"></object>',
    "<img src=x onerror=alert(14)>",
    "<img src=x\x0cOnError=alert(14)>",
    '<img src="x"onerror=alert(14)>',
    "<img/onerror=alert(14)>",
    "<SCRIPT>alert(15)</SCRIPT>",
    '<a href="java&#x09;script:alert(16)">x</a>',
    '<a href=" \x01JaVa\tScRiPt\n:alert(17)">x</a>',
    '<a href=vbscript:x>x</a>', '<a href="file:///etc/passwd">x</a>',
    '<iframe srcdoc="&lt;script&gt;"></iframe>',
    # an SVG picture is a document in a frame, and runs its scripts there
    '<iframe src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"></iframe>',
    '<a href="javascript&colon;alert(18)">x</a>',
    "<linK rel=stylesheet href=x>",  # KELVIN SIGN: lower-cased to k, as the parser reads it
    '<svg><a><animate attributeName="href" values="https://x;javascript:alert(19)"/></a></svg>',
    '<svg><a><set attributeName="href" to="javascript:alert(19)"/></a></svg>',
    # a browser ends these comments before the <img>: it reads the <img>
    "<!--><img src=x onerror=alert(20)>-->",
    "<!---><img src=x onerror=alert(20)>-->",
    "<!-- a --!><img src=x onerror=alert(20)> -->",
    # a scheme's name spelled across more blanks than the quick look reads behind a colon
    '<a href="j' + "\n" * 70 + 'avascript:alert(21)">x</a>',
    '<a href="' + "\t\n" * 40 + "d\ra\nt" + "\n" * 61 + 'a:text/html,x">x</a>',
])
def test_every_attack_is_looked_at(fragment: str) -> None:
    assert suspect(fragment)
    _clean, removed = sanitize_html(fragment)
    assert removed, fragment


@pytest.mark.parametrize("fragment", [
    "<p>Set <code>data: x</code> in the config file: it is read on startup.</p>",
    '<pre><code class="language-yaml">on: push\nfile: a.txt\n</code></pre>',
    '<a href="https://example.org/javascript">the JavaScript guide</a>',
    "<p>Turn it on, then type = and the online name.</p>",
])
def test_ordinary_pages_are_not_parsed(fragment: str) -> None:
    assert not suspect(fragment)
    assert sanitize_html(fragment) == (fragment, [])


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["title", "description", "sidebarTitle"]), st.text()),
       st.lists(st.sampled_from(["toc", "navigation", "footer", "nope", "yes"]), max_size=3))
def test_sandboxed_front_matter_reads_back_as_written(texts: dict[str, str],
                                                      hide: list[str]) -> None:
    """What MkDocs reads from a sandboxed page's front matter is what the sandbox kept, written
    without yaml.dump where it can be."""
    from mkdocs.utils.meta import get_data

    from miles_docs_plugin.core.section.sandbox import dump_front_matter, safe_meta

    meta = {**safe_meta({**texts, "hide": hide}, ("title", "description", "hide")),
            "render_macros": False}
    dumped = dump_front_matter(meta)
    body, read = get_data(f"---\n{dumped}---\n# Body\n")
    assert read == meta and body == "# Body\n", dumped
