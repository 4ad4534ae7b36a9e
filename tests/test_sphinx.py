"""The Sphinx adapter: generated folder, incremental rebuilds, parallel reads, themes."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import sphinx
from hosts import built_page, make_host
from support import V1, V2, Site, copy_sample, git, lock_text, make_repo, run, write


def generated_mtimes(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns
            for p in folder.rglob("*") if p.is_file()}


def test_parallel_read_with_j2(corpus_repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    host = make_host("sphinx", tmp_path / "host", corpus_repo.as_uri(), V2)
    result = host.build("-j", "2")
    assert result.returncode == 0, result.output
    assert "WARNING" not in result.output
    assert Site(host.out).broken("diffusion") == []
    assert "Recipe Verification Levels" in Site(host.out).page(
        "diffusion/user-guide/recipe-verification.html").title


def test_generated_folder_is_ignored_marked_and_stable(corpus_repo: Path, tmp_path: Path,
                                                       cache_dir: Path) -> None:
    host = make_host("sphinx", tmp_path / "host", corpus_repo.as_uri(), V2)
    assert host.build().returncode == 0
    folder = host.docs / "diffusion"
    assert (folder / ".gitignore").read_text().strip().endswith("*")
    assert (folder / ".miles-docs-generated").exists()
    assert git(host.root, "status", "--porcelain") == ""
    before = generated_mtimes(folder)
    again = host.build()
    assert again.returncode == 0, again.output
    assert generated_mtimes(folder) == before  # nothing rewritten
    assert "0 added, 0 changed, 0 removed" in again.output


def test_one_changed_upstream_page_is_the_only_page_re_read(tmp_path: Path,
                                                            cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    pages = {f"docs/p{i:03}.md": f"# Page {i}\n\nSee [the next](p{i + 1:03}.md).\n"
             for i in range(30)}
    pages["docs/p030.md"] = "# Last\n"
    pages["docs/index.md"] = "# Index\n\n[first](p000.md)\n"
    first = make_repo(upstream, pages)
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), first)
    assert host.build().returncode == 0
    second = make_repo(upstream, {"docs/p017.md": "# Page 17, revised\n\nNew text.\n"})
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), second)}))
    result = host.build()
    assert result.returncode == 0, result.output
    assert "0 added, 1 changed, 0 removed" in result.output, result.output
    reading = re.search(r"reading sources\.\.\. (.*)", result.output)
    assert reading and "diffusion/p017" in reading.group(1)
    assert "Page 17, revised" in (host.out / "diffusion" / "p017.html").read_text()
    # the unchanged pages were not re-read, but were written again: their banner names the
    # new pin
    assert f"<code>{second[:7]}</code>" in (host.out / "diffusion" / "p000.html").read_text()


def test_removed_upstream_pages_are_removed(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    first = make_repo(upstream, {"docs/index.md": "# I\n\n[g](gone.md)\n",
                                 "docs/gone.md": "# Gone\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), first)
    assert host.build().returncode == 0
    assert (host.docs / "diffusion" / "gone.md").exists()
    git(upstream, "rm", "-q", "docs/gone.md")
    second = make_repo(upstream, {"docs/index.md": "# I\n"})
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), second)}))
    git(host.root, "commit", "-qam", "move the pin")
    result = host.build()
    assert result.returncode == 0, result.output
    assert not (host.docs / "diffusion" / "gone.md").exists()
    assert git(host.root, "status", "--porcelain") == ""


def test_a_host_folder_at_the_mount_is_never_touched(corpus_repo: Path, tmp_path: Path,
                                                     cache_dir: Path) -> None:
    host = make_host("sphinx", tmp_path / "host", corpus_repo.as_uri(), V1)
    own = write(host.docs / "diffusion" / "index.md", "# Host's own\n")
    result = host.build()
    assert result.returncode != 0
    assert "is a folder of the host" in result.output and "mounts at 'diffusion'" in result.output
    assert own.read_text() == "# Host's own\n"
    assert sorted(p.name for p in own.parent.iterdir()) == ["index.md"]


def test_config_errors_are_extension_errors(corpus_repo: Path, tmp_path: Path,
                                            cache_dir: Path) -> None:
    host = make_host("sphinx", tmp_path / "host", corpus_repo.as_uri(), V1,
                     config=f"sources:\n  - name: diffusion\n    repo: {corpus_repo.as_uri()}\n"
                            "    mount_point: x\n")
    result = host.build()
    assert result.returncode != 0
    assert "Configuration error" in result.output  # Sphinx's own kind of error
    assert "unknown key 'mount_point'" in result.output and "did you mean 'mount'" in result.output


def test_warnings_carry_type_and_subtype(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# I\n\n[missing](nope.md)\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()
    assert result.returncode != 0  # -W
    assert "docs/index.md:3: WARNING: [miles-docs] nope.md matches no page" in result.output
    if sphinx.version_info >= (8,):  # Sphinx shows the type by default since 8.0
        assert "[miles-docs.link]" in result.output
    # and users can filter them
    write(host.docs / "conf.py", (host.docs / "conf.py").read_text()
          + 'suppress_warnings = ["miles-docs.link"]\n')
    assert host.build().returncode == 0


def test_inline_sources_in_conf_py(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# Inline\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit,
                     conf_extra=f"miles_docs_sources = [{{'name': 'diffusion', "
                                f"'repo': {upstream.as_uri()!r}}}]\n")
    (host.config / "miles-docs.yml").unlink()
    result = host.build()
    assert result.returncode == 0, result.output
    assert (host.out / "diffusion" / "index.html").exists()


def test_inline_options_without_inline_sources_are_refused(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    """``miles_docs_options`` with the sources in miles-docs.yml would be dropped without a
    word: the build stops and says where they go, as the MkDocs plugin does."""
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# Options\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit,
                     conf_extra="miles_docs_options = {'banner': False}\n")
    result = host.build()
    assert result.returncode != 0
    assert "Configuration error" in result.output
    assert "inline options banner need `miles_docs_sources:`" in result.output, result.output


def test_placement_none_leaves_the_root_toctree_alone(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# Section\n"})
    config = (f"sources:\n  - name: diffusion\n    repo: {upstream.as_uri()}\n"
              "    placement: none\n")
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit, config=config)
    # placed by the host itself, on a page of its own (outside the root toctree)
    write(host.docs / "placed.md",
          "---\norphan: true\n---\n# Placed\n\n```{toctree}\ndiffusion/index\n```\n")
    assert host.build().returncode == 0
    assert "diffusion/index.html" not in (host.out / "index.html").read_text()
    host2 = make_host("sphinx", tmp_path / "host2", upstream.as_uri(), commit)
    assert host2.build().returncode == 0
    assert 'href="diffusion/index.html"' in (host2.out / "index.html").read_text()


@pytest.mark.parametrize(("theme", "options"), [
    ("furo", ""),
    ("pydata_sphinx_theme", 'html_theme_options = {"use_edit_page_button": True}\n'
                            'html_context = {"github_user": "host", "github_repo": "site", '
                            '"github_version": "main", "doc_path": "docs"}\n'),
    ("sphinx_book_theme", 'html_theme_options = {"use_edit_page_button": True, '
                          '"repository_url": "https://github.com/host/site"}\n'),
])
def test_edit_links_point_upstream_in_common_themes(corpus_repo: Path, tmp_path: Path,
                                                    cache_dir: Path, theme: str,
                                                    options: str) -> None:
    pytest.importorskip(theme)
    host = make_host("sphinx", tmp_path / "host", corpus_repo.as_uri(), V2,
                     conf_extra=f"html_theme = {theme!r}\n{options}")
    result = host.build()
    assert result.returncode == 0, result.output
    page = (host.out / "diffusion" / "user-guide" / "rewards.html").read_text()
    assert ('href="https://github.com/radixark/miles_diffusion/edit/main/docs/user-guide/'
            'rewards.md"') in page


def test_sample_sphinx_site_builds_offline(tmp_path: Path, cache_dir: Path) -> None:
    sample = copy_sample(tmp_path)
    repo = sample.parent
    out = sample / "sphinx" / "_build" / "html"
    result = run([sys.executable, "-m", "sphinx", "-W", "-b", "html", str(sample / "sphinx"),
                  str(out)], cwd=sample, env={"MILES_DOCS_OFFLINE": "1"})
    assert result.returncode == 0, result.output
    site = Site(out)
    assert site.broken() == []
    quick = site.page("diffusion/getting-started/quick-start.html").text
    assert "installation.html#requirements" in quick
    assert "concepts.html#lora-ipc-weight-sync" in quick
    assert "miles-docs-banner" in quick
    # a favicon, so browsers do not ask for /favicon.ico and log a 404
    assert 'icon" href="../../_static/favicon.svg"' in quick
    assert (out / "_static" / "favicon.svg").is_file()
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("builder", ["html", "dirhtml", "singlehtml"])
def test_the_restamp_finds_each_page_where_the_builder_wrote_it(tmp_path: Path,
                                                                builder: str) -> None:
    """The restamp makes the html builder's output paths itself (a Path per page was a third
    of it): they must be the builder's own, in every Sphinx the package supports."""
    import os

    from sphinx.application import Sphinx

    from miles_docs_plugin.sphinx_ext.restamp import _outfile

    src = write(tmp_path / "src" / "conf.py", "").parent
    app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"),
                 builder, status=None, warning=None)
    built: Any = app.builder
    outfile = _outfile(built)
    for docname in ("index", "a/b", "deep/er/page"):
        assert outfile(docname) == os.fspath(built.get_outfilename(docname))


def test_mkdocs_admonition_labels_and_code_captions_read_as_written(tmp_path: Path,
                                                                    cache_dir: Path) -> None:
    """``!!! important`` is labelled "Important" (Python-Markdown's title: the type), not
    the callout it is drawn as ("Tip"); a fence's ``title="__init__.py"`` is not Markdown."""
    html = built_page("sphinx", tmp_path, {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - admonition\n",
        "docs/index.md": "# Home\n\n!!! important\n    Body one.\n\n!!! note\n    Body two.\n\n"
                         '!!! info "Custom *title*"\n    Body three.\n\n'
                         '```python title="__init__.py"\nx = 1\n```\n',
    })
    titles = re.findall(r'<p class="admonition-title">(.*?)</p>', html)
    assert titles == ["Important", "Note", "Custom <em>title</em>"], titles
    assert '<span class="caption-text">__init__.py</span>' in html, html


def test_repository_links_in_raw_html_and_images_name_the_pin(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    """Links to repository files outside the docs folder are written as a placeholder that
    names no commit, filled in at write time; only links were filled, so an ``<img src>`` or
    ``<a href>`` in raw HTML, and a Markdown image, published ``miles-docs-pin:…`` (the
    image even under the page's folder). All are permalinks now, before and after a pin
    move."""
    upstream = tmp_path / "upstream"
    first = make_repo(upstream, {
        "README.md": "# Readme\n", "logo.png": "png",
        "docs/index.md": ("# Home\n\n<p>\n<a href=\"../README.md\">raw</a>\n"
                          "<img src=\"../logo.png\" alt=\"l\" />\n</p>\n\n"
                          "![image](../logo.png) and <a href=\"../README.md\">inline</a>.\n"),
        "docs/other.md": "# Other\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), first)
    web = "https://github.com/radixark/miles_diffusion/blob"
    for commit in (first, make_repo(upstream, {"docs/other.md": "# Other, revised\n"})):
        write(host.config / "miles-docs.lock",
              lock_text({"diffusion": (upstream.as_uri(), commit)}))
        result = host.build()
        assert result.returncode == 0, result.output
        page = (host.out / "diffusion" / "index.html").read_text()
        assert "miles-docs-pin" not in page
        assert page.count(f'href="{web}/{commit}/README.md"') == 2, page
        assert page.count(f'src="{web}/{commit}/logo.png"') == 2, page


def test_images_whose_names_need_encoding_are_found(tmp_path: Path, cache_dir: Path) -> None:
    """MyST hands Sphinx an image's destination percent-encoded (``my%20pic.png``), and
    Sphinx looked for a file of that name: a name with a space or a non-ASCII letter was a
    missing picture and a warning (an error with ``-W``). Written as the upstream wrote it
    (encoded, or in angle brackets, or as it is), each is published and shown."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {
        "docs/index.md": ("# Home\n\n![a](images/my%20pic.png) ![b](<images/my pic.png>)\n\n"
                          "![c](images/café.png)\n"),
        "docs/sub/page.md": "# Page\n\n![d](../images/my%20pic.png)\n",
        "docs/images/my pic.png": png, "docs/images/café.png": png})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    result = host.build()  # strict: a missing image fails it
    assert result.returncode == 0, result.output
    page = (host.out / "diffusion" / "index.html").read_text()
    assert page.count('src="../_images/my%20pic.png"') == 2, page
    assert 'src="../_images/caf%C3%A9.png"' in page, page
    # from a page in a folder of its own
    page = (host.out / "diffusion" / "sub" / "page.html").read_text()
    assert 'src="../../_images/my%20pic.png"' in page, page
    assert (host.out / "_images" / "my pic.png").read_bytes() == png
    assert (host.out / "_images" / "café.png").read_bytes() == png


def test_an_untitled_nav_group_has_no_page_of_its_own(tmp_path: Path, cache_dir: Path) -> None:
    """An MkDocs nav group titled ``""`` (Typer's nav has them) shows no level: its pages
    stand in the parent's list (they were under a group page titled with nothing)."""
    up = tmp_path / "up"
    commit = make_repo(up, {
        "mkdocs.yml": 'site_name: Up\nnav:\n  - Home: index.md\n  - "":\n      - a.md\n'
                      '      - "":\n          - b.md\n  - Named:\n      - c.md\n',
        "docs/index.md": "# Home\n", "docs/a.md": "# Page A\n", "docs/b.md": "# Page B\n",
        "docs/c.md": "# Page C\n"})
    host = make_host("sphinx", tmp_path / "host", up.as_uri(), commit)
    run = host.build()
    assert run.returncode == 0, run.output
    nav = host.out / "diffusion" / "_nav"
    groups = sorted(p.name for p in nav.glob("*.html"))
    assert groups == ["named.html"], groups
    home = (host.out / "diffusion" / "index.html").read_text("utf-8")
    for title in ("Page A", "Page B", "Named"):
        assert f">{title}</a>" in home, title
