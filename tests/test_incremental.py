"""Sphinx after a pin move: only the pages that changed are written (issue 18).

The banner and the repository permalinks name the pinned commit. Sphinx writes the pages whose
source changed; the extension brings the pin up to date in the other pages it had written
before (their banner and permalinks only), so the output equals a fresh build's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hosts import Host, make_host
from support import lock_text, make_repo, sphinx_build, write

PAGES = 20


def _upstream(path: Path) -> str:
    pages = {f"docs/p{i:02}.md": f"# Page {i}\n\nSee [the next](p{i + 1:02}.md) and "
                                 f"[the script](../scripts/run.py#L{i + 1}).\n"
             for i in range(PAGES)}
    pages[f"docs/p{PAGES:02}.md"] = "# Last\n\nThe [scripts](../scripts/).\n"
    pages["docs/index.md"] = "# Index\n\n[first](p00.md)\n"
    pages["scripts/run.py"] = "print('run')\n"
    return make_repo(path, pages)


def _written(output: str) -> list[str]:
    # Sphinx colours its output where it thinks a terminal or a CI log shows it (CI=true)
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", output)
    return re.findall(r"writing output\.\.\. \[\s*\d+%\] (\S+)", plain)


def _html(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.html")}


def _move_pin(host: Host, upstream: Path) -> tuple[str, str]:
    first = (host.config / "miles-docs.lock").read_text().split("commit: ")[1].strip()
    second = make_repo(upstream, {"docs/p07.md": "# Page 7\n\nA revised sentence.\n"})
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), second)}))
    return first, second


def _check_equals_fresh(host: Host, tmp_path: Path, first: str, second: str) -> None:
    fresh = tmp_path / "fresh"
    run = sphinx_build(host.docs, fresh / "html", "-E", "-d", str(fresh / "doctrees"))
    assert run.returncode == 0, run.output
    got, want = _html(host.out), _html(fresh / "html")
    assert sorted(got) == sorted(want)
    assert [name for name in want if got[name] != want[name]] == []
    for name, data in got.items():
        if name.startswith("diffusion/p"):
            assert second[:7].encode() in data and first[:7].encode() not in data, name


def test_a_pin_move_writes_only_the_changed_pages(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), _upstream(upstream))
    assert host.build().returncode == 0
    first, second = _move_pin(host, upstream)
    run = host.build()
    assert run.returncode == 0, run.output
    assert "0 added, 1 changed, 0 removed" in run.output, run.output
    written = _written(run.output)
    assert "diffusion/p07" in written and len(written) <= 3, run.output
    # p00..p20 and the index: the ones Sphinx did not write are restamped
    restamped = PAGES + 2 - len([w for w in written if w.startswith("diffusion/")])
    assert f"{restamped} unchanged page(s) now name the new pin" in run.output, run.output
    page = (host.out / "diffusion" / "p03.html").read_text("utf-8")
    assert f"<code>{second[:7]}</code>" in page
    assert f"https://github.com/radixark/miles_diffusion/blob/{second}/scripts/run.py#L4" in page
    _check_equals_fresh(host, tmp_path, first, second)


def test_a_template_that_prints_the_commit_gets_every_page_written(tmp_path: Path,
                                                                   cache_dir: Path) -> None:
    """The extension cannot rewrite what a host template prints: Sphinx writes those pages."""
    upstream = tmp_path / "upstream"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), _upstream(upstream),
                     conf_extra='templates_path = ["_templates"]\n')
    write(host.docs / "_templates" / "layout.html",
          '{% extends "!layout.html" %}\n{% block footer %}{{ super() }}'
          '<p class="built-from">{{ source_commit }}</p>{% endblock %}\n')
    assert host.build().returncode == 0
    first, second = _move_pin(host, upstream)
    run = host.build()
    assert run.returncode == 0, run.output
    assert f"{PAGES} page(s) name the pin outside the banner" in run.output, run.output
    _check_equals_fresh(host, tmp_path, first, second)


def test_the_environment_pickle_keeps_no_page_state(tmp_path: Path, cache_dir: Path) -> None:
    """What builder-inited works out per page (titles, provenance, banners) is made again by
    every build: Sphinx would read and write it with its environment on every build."""
    upstream = tmp_path / "upstream"
    commit = _upstream(upstream)
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    assert host.build().returncode == 0
    (pickle,) = host.out.parent.rglob("environment.pickle")
    data = pickle.read_bytes()
    assert b"miles_docs_state" in data  # the attribute is there, empty
    assert b"miles_docs_plugin.sphinx_ext.state" in data
    for text in (b"radixark/miles_diffusion/edit/", b"docs/p03.md", b"miles-docs-banner"):
        assert text not in data, text
    # the next build (the pickle read back) still writes the banner of every page
    (host.docs / "extra.md").write_text("---\norphan: true\n---\n# Extra\n", "utf-8")
    run = host.build()
    assert run.returncode == 0, run.output
    assert f"<code>{commit[:7]}</code>" in (host.out / "diffusion" / "p03.html").read_text()


def test_a_rebuild_does_not_say_the_configuration_changed(tmp_path: Path, cache_dir: Path) -> None:
    """The banner's stylesheet folder is in the config before Sphinx compares it with the
    pickled one: an unchanged site's rebuild reports no configuration change."""
    upstream = tmp_path / "upstream"
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), _upstream(upstream))
    assert host.build().returncode == 0
    run = host.build()
    assert run.returncode == 0, run.output
    assert "configuration has changed" not in run.output, run.output
    assert "0 added, 0 changed, 0 removed" in run.output, run.output
    assert (host.out / "_static" / "miles-docs.css").is_file()


# Sources added, removed, retitled or placed elsewhere in miles-docs.yml: the root document's
# toctree (where the sections are placed) is read again, as a fresh build reads it.

ROOT_NAV_RE = re.compile(r'<li class="toctree-l(\d)"><a class="reference internal" '
                         r'href="([^"]*)">(.*?)</a>')


def _section_upstream(path: Path, title: str) -> tuple[str, str]:
    commit = make_repo(path, {"docs/index.md": f"# {title} home\n\n[The guide](guide.md)\n",
                              "docs/guide.md": f"# {title} guide\n"})
    return path.as_uri(), commit


def _configure(host: Host, upstreams: dict[str, tuple[str, str]],
               extra: dict[str, str] | None = None) -> None:
    """miles-docs.yml and its lock for ``upstreams`` (name: repository, commit), with
    ``extra`` lines per source."""
    write(host.config / "miles-docs.yml", "sources:\n" + "".join(
        f"  - name: {name}\n    repo: {repo}\n" + (extra or {}).get(name, "")
        for name, (repo, _commit) in upstreams.items()))
    write(host.config / "miles-docs.lock", lock_text(upstreams))


def _sections_host(tmp_path: Path, names: tuple[str, ...]) -> tuple[Host,
                                                                      dict[str, tuple[str, str]]]:
    upstreams = {name: _section_upstream(tmp_path / name, name.title()) for name in names}
    repo, commit = upstreams[names[0]]
    host = make_host("sphinx", tmp_path / "host", repo, commit, name=names[0])
    _configure(host, upstreams)
    run = host.build()
    assert run.returncode == 0, run.output
    return host, upstreams


def _root_nav(out: Path) -> list[tuple[str, str, str]]:
    """The root page's toctree entries, in its body and then in alabaster's sidebar:
    (level, link, title)."""
    return ROOT_NAV_RE.findall((out / "index.html").read_text("utf-8"))


def _nav_equals_fresh(host: Host, tmp_path: Path, read: str) -> list[tuple[str, str, str]]:
    """Rebuild ``host`` in place (Sphinx reports ``read``: added, changed, removed), then
    build it fresh elsewhere: the root page's navigation is the same, so is every page (its
    sidebar shows the root toctree), and neither build finds a page outside every toctree."""
    run = host.build()
    assert run.returncode == 0, run.output
    assert read in run.output, run.output
    assert "isn't included in any toctree" not in run.output, run.output
    fresh = tmp_path / "fresh"
    again = sphinx_build(host.docs, fresh / "html", "-E", "-d", str(fresh / "doctrees"))
    assert again.returncode == 0, again.output
    nav = _root_nav(host.out)
    assert nav == _root_nav(fresh / "html")
    # Sphinx leaves the pages of removed documents in the output folder: the others are equal
    got, want = _html(host.out), _html(fresh / "html")
    assert [name for name in want if got.get(name) != want[name]] == []
    return nav


def test_a_source_added_to_the_config_joins_the_root_toctree(tmp_path: Path,
                                                             cache_dir: Path) -> None:
    host, upstreams = _sections_host(tmp_path, ("diffusion",))
    upstreams["typer"] = _section_upstream(tmp_path / "typer", "Typer")
    _configure(host, upstreams)
    nav = _nav_equals_fresh(host, tmp_path, "2 added, 1 changed, 0 removed")
    assert [(link, title) for level, link, title in nav if level == "1"] == [
        ("diffusion/index.html", "Diffusion"), ("typer/index.html", "Typer")] * 2


@pytest.mark.parametrize(("extra", "want"), [
    ("    title: UV Docs\n", ["Diffusion", "UV Docs"]),
    ("    placement: start\n", ["Typer", "Diffusion"]),
], ids=["title", "placement"])
def test_a_source_retitled_or_moved_in_the_config_changes_the_root_toctree(
        tmp_path: Path, cache_dir: Path, extra: str, want: list[str]) -> None:
    host, upstreams = _sections_host(tmp_path, ("diffusion", "typer"))
    _configure(host, upstreams, {"typer": extra})
    nav = _nav_equals_fresh(host, tmp_path, "0 added, 1 changed, 0 removed")
    assert [title for level, _link, title in nav if level == "1"] == want * 2


def test_a_source_removed_from_the_config_leaves_the_root_toctree(tmp_path: Path,
                                                                  cache_dir: Path) -> None:
    host, upstreams = _sections_host(tmp_path, ("diffusion", "typer"))
    del upstreams["typer"]
    _configure(host, upstreams)
    nav = _nav_equals_fresh(host, tmp_path, "0 added, 1 changed, 2 removed")
    assert [(link, title) for level, link, title in nav if level == "1"] == [
        ("diffusion/index.html", "Diffusion")] * 2
    assert not (host.docs / "typer").exists()  # its generated folder is gone too
