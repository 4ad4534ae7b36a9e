"""Sphinx after a pin move: only the pages that changed are written (issue 18).

The banner and the repository permalinks name the pinned commit. Sphinx writes the pages whose
source changed; the extension brings the pin up to date in the other pages it had written
before (their banner and permalinks only), so the output equals a fresh build's.
"""

from __future__ import annotations

import re
from pathlib import Path

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
