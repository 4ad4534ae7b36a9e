"""MkDocs: a fence under a list item or in a block is read by miles-docs' own extension
(:mod:`miles_docs_plugin.mkdocs_plugin.fences`) as pymdownx.superfences reads it, so a page
that needs nothing else of superfences does not load it and pymdownx.highlight (issue 18: P1
on corpus v2, whose one such page made every build import them), and a host without
pymdown-extensions reads the fence too."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import V2, make_repo, same_code, superfences_html, write

from miles_docs_plugin.mkdocs_plugin.engine import NESTED_FENCES, page_extensions

#: An item whose fence is indented as its text, and the list going on after it.
LIST_FENCE = """\
# Steps

1. **Run it.** The value lands at the end:

    ```bash
    python3 run.py --extra-args "--beta 0.02" <in >out
    ```

2. Edit the script.
"""


def _nested(text: str) -> str:
    return str(markdown.markdown(text, extensions=["admonition", "fenced_code", NESTED_FENCES]))


@pytest.mark.parametrize("text", [
    LIST_FENCE,
    "- a\n\n    ~~~py\n    x = 1\n\n      y\n    ~~~\n\n- b\n",
    '!!! note "Run"\n\n    ```js\n    a()\n    ```\n\ntext\n',
    "1. a\n\n    - b\n\n        ```\n        deep\n        ```\n\n2. c\n",
    "1. a\r\n\r\n    ```bash\r\n    run\r\n    ```\r\n",  # CRLF
    "1. a\n\n\t```bash\n\trun\n\t```\n",  # a tab, four columns to Python-Markdown
    # indented code holding a fence (an example of one): the fence is the code's text
    "Text\n\n    ```bash\n    run\n    ```\n\nafter\n",
    "1. a\n\n        ```bash\n        run\n        ```\n\n2. b\n",
    # a fence shown in a fence at the margin is that fence's code
    "```md\n    ```bash\n    x\n    ```\n```\n\n1. a\n\n    ```\n    y\n    ```\n",
])
def test_the_extension_reads_a_nested_fence_as_superfences_does(text: str) -> None:
    assert page_extensions(text) == {NESTED_FENCES} | (
        {"admonition"} if "!!!" in text else set())
    assert same_code(_nested(text)) == same_code(superfences_html(text, "admonition"))


@pytest.mark.parametrize("text", [
    "1. step:\n    ```bash\n    run\n    ```\n2. next\n",  # in the item's paragraph
    "- a\n\n    ```\n    b\n    ```\n- c\n",  # the next item right under it
    "- a\n\n    ```bash\n   less indented\n    ```\n",
    "- a\n\n    ```\n    b\n    ````\n",  # superfences closes only with the same fence
    '- a\n\n    ```bash title="x"\n    run\n    ```\n',
    "> ```\n> quoted\n> ```\n",
    "- a\n\n    ```\n    never closed\n",
    # fenced_code leaves a fence at the margin that is not closed by its own fence as text,
    # superfences reads on from it: the page is superfences'
    "```bash\nx\n````\n\n- a\n\n    ```\n    b\n    ```\n",
    "1. a\r\n\r\n    ```\r\n    b\r\r\n    ```\r\n",  # a lone CR
])
def test_what_it_does_not_read_stays_superfences(text: str) -> None:
    needs = page_extensions(text)
    assert "pymdownx.superfences" in needs and NESTED_FENCES not in needs, needs


#: Lines of a page, for the property below: fences at the margin are left out (fenced_code
#: reads them, as on any page without superfences, and differs from superfences there).
INDENTS = st.sampled_from([" ", "  ", "   ", "    ", "    ", "      ", "        ", "\t",
                           "            "])


@st.composite
def _fence(draw: st.DrawFn) -> list[str]:
    indent = draw(INDENTS)
    marker = draw(st.sampled_from(["```", "~~~", "````"]))
    info = draw(st.sampled_from(["", "bash", ".py", "js ", " c++", "x#y"]))
    body = [draw(st.sampled_from(["", " ", indent, "  "])) + draw(st.sampled_from(
        ["", "x", '<a & "b">', "```", "~~~", "   ```", "text", "- item"]))
        for _ in range(draw(st.integers(1, 3)))]
    if body[0].expandtabs(4).rstrip(" ") == (indent + marker).expandtabs(4):
        # no empty block: superfences puts one back in indented code with a blank line of
        # its own, which is not what it was
        body[0] = indent + "x"
    closing = draw(st.sampled_from(
        [marker, marker, marker, marker + "`", marker + "  ", " " + marker, None]))
    return [indent + marker + info, *body] + ([] if closing is None else [indent + closing])


_LINE = st.one_of(
    _fence(),
    st.tuples(st.sampled_from(["", "    ", "        "]),
              st.sampled_from(["1. item", "- item", "* x", "2. two", "!!! note", "??? tip",
                               "text", "a | b", "> q", "<div>", "</div>"])).map(
        lambda parts: ["".join(parts)]),
    st.just([""]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_LINE, st.booleans()), min_size=1, max_size=8), st.booleans())
def test_every_page_it_reads_renders_as_with_superfences(
        blocks: list[tuple[list[str], bool]], crlf: bool) -> None:
    lines: list[str] = []
    for block, blank in blocks:
        lines += [*block, *([""] if blank else [])]
    text = "\n".join(lines) + "\n"
    text = text.replace("\n", "\r\n") if crlf else text
    if NESTED_FENCES in page_extensions(text):
        assert same_code(_nested(text)) == same_code(superfences_html(text, "admonition"))


def _site(tmp_path: Path, pages: dict[str, str], extensions: str = "") -> Path:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n\nSee [steps](steps.md).\n", **pages})
    site = tmp_path / "host"
    write(site / "mkdocs.yml", f"site_name: Host\n{extensions}\nplugins:\n  - miles-docs\n")
    write(site / "docs" / "index.md", "# Host\n")
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {up.as_uri()}\n")
    write(site / "miles-docs.lock",
          f"version: 1\nsources:\n  diffusion:\n    repo: {up.as_uri()}\n    ref: main\n"
          f"    commit: {commit}\n")
    return site


#: ``mkdocs build`` in a fresh interpreter (``sys.argv[1]``: the site); ``sys.argv[2]`` ==
#: "hide" builds as if pymdown-extensions were not installed. Prints the pymdownx modules
#: the build loaded and its log.
BUILD_PROBE = """
import json, logging, sys
if sys.argv[2] == "hide":
    sys.modules["pymdownx"] = None  # find_spec says None, an import fails: not installed
from mkdocs.commands.build import build
from mkdocs.config import load_config
records = []
class Keep(logging.Handler):
    def emit(self, record): records.append(record.getMessage())
logging.getLogger("mkdocs").addHandler(Keep())
logging.getLogger("mkdocs").setLevel(logging.INFO)
build(load_config(sys.argv[1] + "/mkdocs.yml"))
print(json.dumps([sorted(m for m, v in sys.modules.items()
                        if m.startswith("pymdownx") and v is not None), records]))
"""


def _probe(site: Path, hide: bool = False) -> tuple[list[str], str]:
    run = subprocess.run([sys.executable, "-c", BUILD_PROBE, str(site),
                          "hide" if hide else "-"], capture_output=True, text=True, cwd=site,
                         check=False)
    assert run.returncode == 0, run.stderr
    modules, log = json.loads(run.stdout)
    return modules, "\n".join(log)


def _first_item(site: Path) -> str:
    page = (site / "site" / "diffusion" / "steps" / "index.html").read_text("utf-8")
    assert page.count("<ol>") == 1, page  # the list goes on after the fence
    return page.split("<ol>", 1)[1].split("</li>", 1)[0]


def test_a_host_without_pymdown_extensions_reads_a_fence_in_a_list_item(
        tmp_path: Path, cache_dir: Path) -> None:
    site = _site(tmp_path, {"docs/steps.md": LIST_FENCE})
    modules, log = _probe(site, hide=True)
    assert modules == [], modules
    assert f"turned on {NESTED_FENCES} (1 page)" in log, log
    item = _first_item(site)
    assert ('<pre><code class="language-bash">python3 run.py --extra-args '
            '&quot;--beta 0.02&quot; &lt;in &gt;out\n</code></pre>') in item, item
    assert "```" not in item, item


def test_a_host_with_superfences_reads_the_fence_itself(tmp_path: Path, cache_dir: Path) -> None:
    site = _site(tmp_path, {"docs/steps.md": LIST_FENCE},
                 extensions="markdown_extensions: [pymdownx.superfences]")
    _modules, log = _probe(site)
    assert "turned on" not in log, log  # nothing of miles-docs' own: the host's superfences
    item = _first_item(site)
    code = re.sub(r"<[^>]+>", "", item)  # highlighted by the host's Pygments
    assert "python3 run.py --extra-args" in code and "```" not in item, item


def test_a_build_of_the_real_corpus_loads_no_superfences(
        corpus_repo: Path, cache_dir: Path, tmp_path: Path) -> None:
    """Corpus v2 has one such fence (user-guide/launch-script.md): cold and warm, a build
    loads neither superfences nor highlight, where it loaded both for that page."""
    site = tmp_path / "host"
    write(site / "mkdocs.yml", "site_name: Host\nmarkdown_extensions: [admonition]\n"
                               "plugins:\n  - miles-docs\n")
    write(site / "docs" / "index.md", "# Host\n")
    repo = corpus_repo.as_uri()
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n")
    write(site / "miles-docs.lock", f"version: 1\nsources:\n  diffusion:\n    repo: {repo}\n"
                                    f"    ref: v2\n    commit: {V2}\n")
    for build in ("cold", "warm"):
        modules, log = _probe(site)
        assert not {"pymdownx.superfences", "pymdownx.highlight"} & set(modules), (build, modules)
        assert f"{NESTED_FENCES} (1 page)" in log, log
    page = (site / "site" / "diffusion" / "user-guide" / "launch-script" / "index.html")
    html = page.read_text("utf-8")
    item = html.split("<ol>", 1)[1].split("</li>", 1)[0]
    assert '<pre><code class="language-bash">python3 scripts/' in item, item
