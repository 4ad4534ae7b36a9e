"""Golden tests: one Mintlify page per component or syntax form, rendered by both engines.

``tests/golden/<case>.mdx`` is the upstream page; ``tests/golden/<case>.<engine>.html`` is the
expected main content of the rendered page (whitespace between tags normalized, permalink
anchors left out). Both engines build every case once, from one upstream repository. After an
intended change, ``MILES_DOCS_GOLDEN_UPDATE=1`` rewrites the expected files; review the diff.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hosts import ENGINES, Host, make_host
from support import ROOT, git

GOLDEN = ROOT / "tests" / "golden"
CASES = sorted(p.stem for p in [*GOLDEN.glob("*.mdx"), *GOLDEN.glob("*.md")])
#: Visible text that means some syntax was shown instead of rendered.
RAW = re.compile(r"</?[A-Z][A-Za-z]+[\s/>]|```|~~~|\{/\*|^\s*(?:import|export)\s|^#{1,6} |"
                 r"<!--|mdp:|^\s*(?:===|\?\?\?|!!!) ", re.M)


@pytest.fixture(scope="module")
def golden_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Host]]:
    base = tmp_path_factory.mktemp("golden")
    # the builds of this module share one cache; the variable goes when the module ends
    cache_env = pytest.MonkeyPatch()
    cache_env.setenv("MILES_DOCS_CACHE", str(base / "cache"))
    up = base / "upstream"
    shutil.copytree(GOLDEN, up / "docs", ignore=shutil.ignore_patterns("*.html"))
    git(up, "init", "-q", "-b", "main")
    git(up, "add", "-A")
    # a fixed date: the commit id (in permalinks of the golden HTML) is the same every run
    date = "2026-01-01T00:00:00+00:00"
    git(up, "commit", "-q", "-m", "golden",
        env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    commit = git(up, "rev-parse", "HEAD")
    sites = {}
    for engine in ENGINES:
        host = make_host(engine, base / engine, up.as_uri(), commit,
                         conf_extra='extensions.append("sphinx_design")')
        run = host.build(strict=False)
        assert run.returncode == 0, run.output
        # every link to a heading, a raw HTML id or a component id resolves in the engine
        assert "xref_missing" not in run.output and "not found in" not in run.output, run.output
        assert "highlighting_failure" not in run.output, run.output  # ```mdx in Sphinx
        sites[engine] = host
    yield sites
    cache_env.undo()


def main_content(host: Host, case: str) -> str:
    page = host.out / host.page_file(case + ".md")
    text = page.read_text("utf-8")
    if host.engine == "mkdocs":
        text = text[text.index("<main>") + 6:text.index("</main>")]
    else:
        text = text[text.index('role="main">') + 12:]
        text = text[:text.index('<div class="sphinxsidebar"')]
        text = re.sub(r"\s*</div>\s*</div>\s*</div>\s*$", "", text)
    text = re.sub(r'<p class="miles-docs-banner">.*?</p>', "", text, flags=re.S)
    text = re.sub(r'<a class="headerlink"[^>]*>.*?</a>', "", text)
    text = re.sub(r">\s+<", ">\n<", text.strip())
    return "\n".join(line.strip() for line in text.splitlines() if line.strip()) + "\n"


def visible_text(fragment: str) -> str:
    fragment = re.sub(r"<(pre|code)\b.*?</\1>", " ", fragment, flags=re.S)
    return re.sub(r"<[^>]+>", "\n", fragment).replace("&lt;", "<").replace("&gt;", ">")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_golden(golden_sites: dict[str, Host], case: str, engine: str) -> None:
    got = main_content(golden_sites[engine], case)
    expected_file = GOLDEN / f"{case}.{engine}.html"
    if os.environ.get("MILES_DOCS_GOLDEN_UPDATE") == "1":
        expected_file.write_text(got, "utf-8")
    assert expected_file.exists(), f"no golden file {expected_file.name}"
    assert got == expected_file.read_text("utf-8")
    raw = [m.group(0) for m in RAW.finditer(visible_text(got))]
    assert raw == [], f"raw syntax shown in {case} ({engine}): {raw}"


def test_every_case_has_both_golden_files() -> None:
    missing = [f"{c}.{e}.html" for c in CASES for e in ENGINES
               if not (GOLDEN / f"{c}.{e}.html").exists()]
    assert missing == []


def test_a_plugin_that_adds_a_line_keeps_components_whole(golden_sites: dict[str, Host]) -> None:
    """Components are found again where they are when they are rendered (issue 12)."""
    from miles_docs_plugin import hookimpl
    from miles_docs_plugin.core.config import load_config
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    class AddsALine:
        @hookimpl
        def mdp_prepare_page(self, page, ctx):  # type: ignore[no-untyped-def]
            page.content = (page.content[:page.body_start] + "Added by a plugin.\n\n"
                            + page.content[page.body_start:])

    host = golden_sites["mkdocs"]
    result = build(load_config(host.config / "miles-docs.yml"), Engine(), plugins=[AddsALine()],
                   use_scan_cache=False)
    content = result.sections["diffusion"].pages["nesting.mdx"].content
    assert "Added by a plugin." in content
    assert "Inside the note." in content
    assert "mdp:" not in content


def _core_build(host: Host):  # type: ignore[no-untyped-def]
    from miles_docs_plugin.core.config import load_config
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    return build(load_config(host.config / "miles-docs.yml"), Engine(), use_scan_cache=False)


def test_what_cannot_be_rendered_is_reported(golden_sites: dict[str, Host]) -> None:
    result = _core_build(golden_sites["sphinx"])
    messages = [f"{d.path}:{d.line}: {d.message}" for d in result.diagnostics]
    assert any(m.startswith("docs/mkdocs-dialect.md:27: '::: package.module' asks mkdocstrings")
               for m in messages), messages
    assert any(m.startswith("docs/openapi-missing.mdx") and "GET /nowhere is not in the pinned"
               in m for m in messages), messages
    # a snippet of three lines replaced line 11: the link on line 17 is still reported there
    assert any(m.startswith("docs/module.mdx:17: no page or file matches the site-root link "
                            "/nowhere-at-all") for m in messages), messages
    # the page that does use a field id resolves it: no anchor warning
    assert not any("openapi-page" in m for m in messages), messages


def test_unknown_components_are_counted_once_per_name(tmp_path: Path) -> None:
    from miles_docs_plugin.core.config import load_config
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    wc = tmp_path / "wc"
    (wc / "docs").mkdir(parents=True)
    (wc / "docs" / "a.mdx").write_text(
        "# A\n\n<Sparkle>\none\n</Sparkle>\n\n<Sparkle>two</Sparkle>\n")
    (wc / "docs" / "b.mdx").write_text("# B\n\n<Sparkle>\nthree\n</Sparkle>\n\n"
                                       '<Hero title="Start" href="/start" />\n')
    (tmp_path / "miles-docs.yml").write_text(
        f"sources:\n  - name: s\n    repo: https://github.com/o/r.git\n    local: {wc}\n")
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine(), use_scan_cache=False)
    found = [d for d in result.diagnostics if "unknown component" in d.message]
    assert [(d.path, d.line, d.message) for d in found] == [
        # one the page's own JavaScript draws from its attributes: no content to keep
        ("docs/b.mdx", 7, "unknown component <Hero>; it has no content, so nothing of it is "
                          "shown (a component the upstream's own JavaScript draws from its "
                          "attributes)"),
        ("docs/a.mdx", 3, "unknown component <Sparkle>; its content is kept "
                          "(3 uses in this section)")]
    content = result.sections["s"].pages["a.mdx"].content
    assert "one" in content and "two" in content and "Sparkle" not in content


def test_an_openapi_spec_named_from_the_page_s_folder_is_found(tmp_path: Path) -> None:
    """``openapi: ../spec.json PATCH /x`` (trails-docs writes it so) names the spec from the
    page's folder; a spec that is not in the tree is reported as such, and the operation is
    looked up in the docs' other specs, as Mintlify does."""
    from support import write

    from miles_docs_plugin.core.config import parse_config
    from miles_docs_plugin.core.engine import Engine
    from miles_docs_plugin.core.pipeline import build

    spec = (GOLDEN / "openapi.json").read_text("utf-8")
    wc = tmp_path / "wc"
    write(wc / "docs" / "api" / "spec.gen.json", spec)
    write(wc / "docs" / "openapi.json", spec)
    op = "patch /things/{thing_id}/"
    write(wc / "docs" / "api" / "endpoints" / "rel.mdx",
          f"---\nopenapi: ../spec.gen.json {op}\n---\n")
    write(wc / "docs" / "api" / "gone.mdx", f"---\nopenapi: nope.json {op}\n---\n")
    config = parse_config({"sources": [{"name": "s", "repo": "https://github.com/o/r.git",
                                        "local": str(wc)}]}, base_dir=tmp_path, env={})
    result = build(config, Engine(), use_scan_cache=False)
    pages = result.sections["s"].pages
    messages = [f"{d.path}: {d.message}" for d in result.diagnostics]
    assert not any("rel.mdx" in m for m in messages), messages
    for path in ("api/endpoints/rel.mdx", "api/gone.mdx"):
        assert "/things/{thing_id}/" in pages[path].content and "## " in pages[path].content
    assert any("docs/api/gone.mdx: the OpenAPI spec nope.json is not in the pinned tree" in m
               for m in messages), messages
