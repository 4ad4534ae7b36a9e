"""Pages whose transform provably gives what the last build gave are not transformed again
(``core/transform/memo.py``): real Sphinx builds after pin moves, compared with fresh builds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hosts import Host, make_host
from support import lock_text, make_repo, sphinx_build, write

PAGES = 12


def _upstream(path: Path) -> str:
    pages = {f"docs/p{i:02}.md": f"# Page {i}\n\n## Part {i}\n\nSee [the next](p{i + 1:02}.md#part-"
                                 f"{i + 1}) and [the script](../scripts/run.py).\n"
             for i in range(PAGES)}
    pages[f"docs/p{PAGES:02}.md"] = f"# Last\n\n## Part {PAGES}\n\nThe end.\n"
    pages["docs/index.md"] = "# Index\n\n[first](p00.md)\n"
    pages["docs/broken.md"] = "# Broken\n\nA [missing page](nowhere.md).\n"
    pages["docs/figure.md"] = "# Figure\n\n![a figure](img/fig.png)\n"
    pages["scripts/run.py"] = "print('run')\n"
    return make_repo(path, {**pages, "docs/img/fig.png": b"\x89PNG\r\n\x1a\n" + bytes(64)})


def _move(host: Host, upstream: Path, files: dict[str, str]) -> str:
    commit = make_repo(upstream, files)
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), commit)}))
    return commit


def _skipped(output: str) -> tuple[int, int] | None:
    m = re.search(r"(\d+) of (\d+) page\(s\) transform as in the last build", output)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _html(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.html")}


def _equals_fresh(host: Host, tmp_path: Path, name: str) -> None:
    fresh = tmp_path / name
    run = sphinx_build(host.docs, fresh / "html", "-E", "-d", str(fresh / "doctrees"),
                       strict=False)
    assert run.returncode == 0, run.output
    got, want = _html(host.out), _html(fresh / "html")
    assert [p for p in sorted(want) if got.get(p) != want[p]] == []


def _warnings(output: str) -> list[str]:
    return sorted(line.split("WARNING: ", 1)[1] for line in output.splitlines()
                  if "WARNING: " in line and "miles-docs" in line)


def test_a_pin_move_transforms_only_what_can_differ(tmp_path: Path, cache_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # a machine that keeps its scan cache (on CI that takes MILES_DOCS_STATE too)
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), _upstream(upstream))
    first = host.build(strict=False)
    assert first.returncode == 0, first.output
    assert _skipped(first.output) is None
    warned = _warnings(first.output)
    assert any("nowhere.md" in w for w in warned), first.output

    # a sentence added to one page: only that page is transformed again, the warning of an
    # unchanged page is still reported, and the site equals a fresh build
    _move(host, upstream, {"docs/p05.md": "# Page 5\n\n## Part 5\n\nSee [the next](p06.md#part-6)"
                                          " and [the script](../scripts/run.py). More.\n"})
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert _skipped(run.output) == (PAGES + 3, PAGES + 4), run.output
    assert _warnings(run.output) == warned
    # the image an unchanged page links to is still published (its asset is replayed too)
    assert (host.docs / "diffusion" / "img" / "fig.png").is_file()
    assert (host.out / "_images" / "fig.png").is_file()
    _equals_fresh(host, tmp_path, "fresh-1")

    # a heading another page links to is renamed: every page is transformed again, and the
    # link to the old heading is reported
    _move(host, upstream, {"docs/p07.md": "# Page 7\n\n## Renamed\n\nText.\n"})
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert _skipped(run.output) is None, run.output
    assert any("#part-7" in w and "p07.md" in w for w in _warnings(run.output)), run.output
    _equals_fresh(host, tmp_path, "fresh-2")

    # back to the same heading: the warning goes away again
    _move(host, upstream, {"docs/p07.md": "# Page 7\n\n## Part 7\n\nText again.\n"})
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert _warnings(run.output) == warned, run.output
    _equals_fresh(host, tmp_path, "fresh-3")


def test_a_third_party_transform_turns_it_off(tmp_path: Path, cache_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A transform the core does not know could depend on anything: every page is done."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    site = tmp_path / "site-packages"
    info = site / "example_miles_docs_stamp-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: example-miles-docs-stamp\n"
                             "Version: 1.0\n")
    write(info / "entry_points.txt", "[miles_docs]\nexample-stamp = example_plugin\n")
    env = {"PYTHONPATH": f"{site}:{Path(__file__).resolve().parent / 'plugins'}"}
    upstream = tmp_path / "upstream"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), _upstream(upstream))
    assert host.build(env=env, strict=False).returncode == 0
    _move(host, upstream, {"docs/p05.md": "# Page 5\n\nChanged.\n"})
    run = host.build(env=env, strict=False)
    assert run.returncode == 0, run.output
    assert _skipped(run.output) is None, run.output


def _prepared(output: str) -> tuple[int, int] | None:
    m = re.search(r"(\d+) of (\d+) page\(s\) prepare as in the last build", output)
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_pages_that_prepare_as_before_are_not_prepared_again(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Preparation changes pages (a title heading from the front matter, components taken
    apart, problems reported); a page collected as before gets what it got last time."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    files = {
        "docs/index.md": "# Index\n\n[titled](titled.md#more) and [the note](note.md#inside).\n",
        "docs/titled.md": "---\ntitle: Titled page\n---\n\nText.\n\n## More\n\nSee [it](#more).\n",
        "docs/note.md": "# Note page\n\n<Note>\nSee [the index](index.md#index).\n</Note>\n\n"
                        "<Widget>unknown</Widget>\n\n## Inside\n\nText.\n",
        "docs/open.md": "# Open\n\n<Warning>\nnever closed\n\n[back](index.md)\n",
        "docs/other.md": "# Other\n\nText.\n",
    }
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), make_repo(upstream, files))
    first = host.build(strict=False)
    assert first.returncode == 0, first.output
    assert _prepared(first.output) is None
    warned = _warnings(first.output)
    assert any("Widget" in w for w in warned) and any("Warning" in w for w in warned), warned

    _move(host, upstream, {"docs/other.md": "# Other\n\nText, changed.\n"})
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert _prepared(run.output) == (4, 5), run.output
    assert _skipped(run.output) == (4, 5), run.output
    assert _warnings(run.output) == warned
    _equals_fresh(host, tmp_path, "fresh")
    page = (host.out / "diffusion" / "titled.html").read_text("utf-8")
    assert "<h1>Titled page<" in page


def test_an_asset_two_pages_link_to_outlives_the_first_one(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's record names every asset it links to, not only the ones it was first to
    link: when the page that first linked a shared image drops it, the unchanged page that
    is replayed still publishes it."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    upstream = tmp_path / "upstream"
    files: dict[str, str | bytes] = {
        "docs/a.md": "# A\n\n![shared](img/shared.png)\n",
        "docs/b.md": "# B\n\n![shared again](img/shared.png)\n",
        "docs/index.md": "# Index\n\n[a](a.md) and [b](b.md)\n",
        "docs/img/shared.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
    }
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), make_repo(upstream, files))
    first = host.build(strict=False)
    assert first.returncode == 0, first.output

    _move(host, upstream, {"docs/a.md": "# A\n\nNo image any more.\n"})
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    assert _skipped(run.output) == (2, 3), run.output
    assert (host.docs / "diffusion" / "img" / "shared.png").is_file()
    assert (host.out / "_images" / "shared.png").is_file()
    _equals_fresh(host, tmp_path, "fresh")
