"""MkDocs: pages whose transform provably gives what the last build gave are not transformed
again (``core/transform/memo.py``, keyed by :meth:`MkDocsEngine.memo_key`): real MkDocs
builds after a pin move, compared byte for byte with a fresh build."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hosts import make_host
from support import lock_text, make_repo, mkdocs_build, write

PAGES = 8
MEMO = "transform as in the last build"


def _pages(changed: str = "") -> dict[str, str | bytes]:
    pages: dict[str, str | bytes] = {
        f"docs/p{i}.md": f"# Page {i}\n\n## Part {i}\n\nSee [the next](p{i + 1}.md#part-{i + 1})"
                         f" and [the script](../scripts/run.py).\n<Note>A note {i}.</Note>\n"
        for i in range(PAGES)}
    pages[f"docs/p{PAGES}.md"] = f"# Last\n\n## Part {PAGES}\n\nThe end.{changed}\n"
    pages["docs/index.md"] = "# Index\n\n[first](p0.md) ![a figure](img/fig.png)\n"
    pages["docs/img/fig.png"] = b"\x89PNG\r\n\x1a\n" + bytes(64)
    pages["scripts/run.py"] = "print('run')\n"
    return pages


def _build(site: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
           out: Path) -> list[str]:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.chdir(site)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.miles-docs"):
        build(load_config(str(site / "mkdocs.yml"), site_dir=str(out)))
    return [r.getMessage() for r in caplog.records if MEMO in r.getMessage()]


def _html(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.html")}


def test_a_pin_move_replays_the_unchanged_pages_and_builds_what_a_fresh_build_builds(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(),
                     make_repo(upstream, _pages()))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "first") == []

    # a warm build at the same pin: every page is replayed
    assert _build(host.config, monkeypatch, caplog, tmp_path / "warm") == [
        f"miles-docs: {PAGES + 2} of {PAGES + 2} page(s) {MEMO}: not transformed again"]
    assert _html(tmp_path / "warm") == _html(tmp_path / "first")
    # ... and `mkdocs build` says so in its log, as it says what it fetched
    run = mkdocs_build(host.config)
    assert run.returncode == 0, run.output
    assert f"INFO    -  miles-docs: {PAGES + 2} of {PAGES + 2} page(s) {MEMO}" in run.output

    # a pin move that changes the last page: MkDocs' pages name the pin in their repository
    # permalinks, so only the page without one (index.md) is replayed
    commit = make_repo(upstream, _pages(changed=" More."))
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), commit)}))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "moved") == [
        f"miles-docs: 1 of {PAGES + 2} page(s) {MEMO}: not transformed again"]
    assert commit.encode() in _html(tmp_path / "moved")["diffusion/p0/index.html"]

    monkeypatch.setenv("MILES_DOCS_CACHE", str(tmp_path / "fresh-cache"))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "fresh") == []
    got, want = _html(tmp_path / "moved"), _html(tmp_path / "fresh")
    assert "note" in want["diffusion/p3/index.html"].decode()
    assert [p for p in sorted(want) if got.get(p) != want[p]] == []
    assert (tmp_path / "moved" / "diffusion" / "img" / "fig.png").is_file()


def test_a_build_makes_the_upstream_spellings_of_no_anchor_it_does_not_look_up(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The memo keeps every page's anchors with its records (a page whose anchors change
    makes the pages that link to it transform again), as the basis of its anchor map: not
    its upstream spellings (GitHub's, Mintlify's), which only a link that names no emitted id
    needs, and which cost more than the rest of the map."""
    from miles_docs_plugin.core.transform.anchors import AnchorMap

    completed: list[str] = []
    complete = AnchorMap._complete

    def counted(self: AnchorMap) -> None:
        completed.append(sorted(self.emitted)[0])
        complete(self)

    monkeypatch.setattr(AnchorMap, "_complete", counted)
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    pages: dict[str, str | bytes] = {
        "docs/index.md": "# Index\n\n[one](one.md#part-1) and [two](two.md#Part-Two)\n",
        "docs/one.md": "# One\n\n## Part 1\n\nText.\n",
        "docs/two.md": "# Two\n\n## Part Two\n\nText.\n"}
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), make_repo(upstream, pages))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "first") == []
    # only two.md's: `#Part-Two` is GitHub's spelling of MkDocs' `#part-two`
    assert completed == ["part-two"]
    assert b'href="two/#part-two"' in (tmp_path / "first" / "diffusion" / "index.html"
                                          ).read_bytes()

    # a heading renamed: the page that links to it is transformed again, and says so
    commit = make_repo(upstream, {"docs/one.md": "# One\n\n## Part One\n\nText.\n"})
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), commit)}))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert _build(host.config, monkeypatch, caplog, tmp_path / "moved") == []
    assert any("anchor #part-1 matches no heading" in r.getMessage() for r in caplog.records)


def test_a_warm_build_that_changes_nothing_writes_no_cache_file(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # the scan cache file is rewritten (and authenticated again) only when an entry changed:
    # a warm build of an unchanged section reads it and leaves it as it is
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    pages = _pages()
    # a title only in front matter, and a line like a heading in a fence: its title heading
    # is decided from the page's scan, and the scan with the heading is kept for the links
    pages["docs/titled.md"] = "---\ntitle: Titled\n---\n\nText.\n\n```bash\n# a comment\n```\n"
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), make_repo(upstream, pages))
    _build(host.config, monkeypatch, caplog, tmp_path / "first")
    _build(host.config, monkeypatch, caplog, tmp_path / "warm")  # drops the unused scans

    def files() -> dict[str, tuple[int, int]]:
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
                for p in cache_dir.rglob("*.json")}

    before = files()
    assert before
    assert _build(host.config, monkeypatch, caplog, tmp_path / "again") == [
        f"miles-docs: {PAGES + 3} of {PAGES + 3} page(s) {MEMO}: not transformed again"]
    assert files() == before
    assert _html(tmp_path / "again") == _html(tmp_path / "first")


def test_a_slug_function_of_the_host_turns_it_off(tmp_path: Path, cache_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(),
                     make_repo(upstream, _pages()), mkdocs_extra=(
                         "markdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:"
                         "pymdownx.slugs.slugify {kwds: {case: lower}}\n"))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "first") == []
    assert _build(host.config, monkeypatch, caplog, tmp_path / "second") == []


def test_a_warm_build_loads_no_transform_step(tmp_path: Path, cache_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A build whose pages are all replayed loads neither the scanner nor the MDX reader, the
    anchor maps or the components step (``test_plugins.TRANSFORM``): loading the plugin does
    not pay for them, and neither does the build later."""
    import sys

    from support import run
    from test_plugins import TRANSFORM

    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    pages = _pages()
    pages["docs/cards.mdx"] = ("---\ntitle: Cards\n---\n\n<CardGroup cols={2}>\n"
                               '<Card title="One" href="/p1#part-1">First.</Card>\n'
                               "</CardGroup>\n\n<Info>See [index](/index).</Info>\n")
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), make_repo(upstream, pages))
    probe = ("import sys\nfrom mkdocs.__main__ import cli\n"
             "try:\n    cli(['build', '-q', '--strict'])\nexcept SystemExit as e:\n"
             "    code = e.code\n"
             f"print(code, sorted(m for m in {TRANSFORM!r} if m in sys.modules))\n")
    cold = run([sys.executable, "-c", probe], cwd=host.config)
    assert cold.output.splitlines()[-1].startswith("0 ['miles_docs_plugin"), cold.output
    first = _html(host.config / "site")
    warm = run([sys.executable, "-c", probe], cwd=host.config)
    assert warm.output.splitlines()[-1] == "0 []", warm.output
    assert _html(host.config / "site") == first
    assert "admonition" in first["diffusion/cards/index.html"].decode()


def test_a_warm_build_searches_no_page_for_its_extensions(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """What MkDocs must read of each page (blocks written for Python-Markdown, fences moved
    to the margin) and the extensions it uses are kept in the scan cache: a warm build
    neither looks for the blocks to shape nor searches the page for each extension's syntax,
    and its pages still get the extensions they use."""
    from miles_docs_plugin.mkdocs_plugin import engine

    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    pages = _pages()
    pages["docs/steps.md"] = ("# Steps\n\n1. Install\n\n   ```bash\n   pip install x\n   ```\n"
                              "\n2. Run\n  - a nested item\n\n!!! note\n    A note.\n")
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), make_repo(upstream, pages))
    calls: dict[str, int] = {"page_extensions": 0, "_may_need_shaping": 0}
    for name in calls:
        def counted(*args: object, _f: object = getattr(engine, name), _n: str = name) -> object:
            calls[_n] += 1
            return _f(*args)  # type: ignore[operator]

        monkeypatch.setattr(engine, name, counted)
    _build(host.config, monkeypatch, caplog, tmp_path / "first")
    assert calls["page_extensions"] >= PAGES and calls["_may_need_shaping"] >= PAGES
    calls.update(dict.fromkeys(calls, 0))
    assert _build(host.config, monkeypatch, caplog, tmp_path / "warm") != []
    assert calls == {"page_extensions": 0, "_may_need_shaping": 0}
    first, warm = _html(tmp_path / "first"), _html(tmp_path / "warm")
    assert warm == first
    steps = warm["diffusion/steps/index.html"].decode()
    assert 'class="admonition note"' in steps and "<code" in steps and "nested item" in steps
