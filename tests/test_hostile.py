"""Hostile and broken input: every case is a clear error or a correct build, and nothing lost.

Cases are numbered as in the issue: 1 config, 2 lock, 3 repository URL, 4 checkout, 5 pages,
6 links, 7 concurrency and faults, 8 the host tree. Every case that runs a build checks that
the host repository is exactly as it was (``git status --porcelain`` and file contents).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from hosts import ENGINES, Host, make_host
from support import V1, git, lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import build


def snapshot(root: Path) -> tuple[str, dict[str, str]]:
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".git/", "site/", "_build/")) \
                and "/diffusion/" not in f"/{rel}":
            files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return git(root, "status", "--porcelain"), files


@contextmanager
def untouched(host: Host) -> Iterator[None]:
    """Case 8: the host tree is the same after the case as before it."""
    before = snapshot(host.root)
    yield
    assert snapshot(host.root) == before


def upstream(tmp_path: Path, files: dict[str, str | bytes] | None = None) -> tuple[Path, str]:
    repo = tmp_path / "upstream"
    commit = make_repo(repo, files or {"docs/index.md": "# Home\n\n[a](a.md)\n",
                                       "docs/a.md": "# A\n"})
    return repo, commit


def config_with(repo: str, extra_source: str = "", top: str = "") -> str:
    return f"{top}sources:\n  - name: diffusion\n    repo: {repo}\n{extra_source}"


# -- 1. config ---------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("extra", "top", "expected"), [
    ("    mount_at: x\n", "", ["unknown key 'mount_at'", "did you mean 'mount'"]),
    ("    nav: index.md\n", "", ["'nav' must be `auto`, `tree` or list", "nav:"]),
    ("", "offline: sometimes\n", ["'offline' must be bool"]),
    ("  - name: diffusion\n    repo: x\n", "", ["duplicate source name 'diffusion'"]),
    ("    mount: shared\n  - name: b\n    repo: x\n    mount: shared\n", "",
     ["both mount at 'shared'", "give each source its own `mount:`"]),
    ("    mount: /abs\n", "", ["mount '/abs' must be a relative path"]),
    ("    mount: ../up\n", "", ["mount '../up' must not contain '..'"]),
    ("    docs_dir: ../../outside\n", "", ["docs_dir '../../outside' must not contain '..'"]),
])
def test_1_config_errors_name_the_file_the_key_and_the_fix(
        tmp_path: Path, cache_dir: Path, engine: str, extra: str, top: str,
        expected: list[str]) -> None:
    repo, commit = upstream(tmp_path)
    host = make_host(engine, tmp_path / "host", repo.as_uri(), commit,
                     config=config_with(repo.as_uri(), extra, top))
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    assert "miles-docs.yml" in result.output
    for text in expected:
        assert text in result.output, (text, result.output)
    if engine == "mkdocs":
        assert "Traceback" not in result.output
    else:  # Sphinx's own kind for configuration (Sphinx 9 adds its report to every error)
        assert "Configuration error" in result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_1_mount_colliding_with_host_pages_overwrites_nothing(tmp_path: Path, cache_dir: Path,
                                                              engine: str) -> None:
    repo, commit = upstream(tmp_path)
    host = make_host(engine, tmp_path / "host", repo.as_uri(), commit)
    own = write(host.docs / "diffusion" / "index.md", "# The host's page\n")
    git(host.root, "add", "-A")
    git(host.root, "commit", "-q", "-m", "a host page where the section would go")
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    assert "mounts at 'diffusion'" in result.output
    assert own.read_text() == "# The host's page\n"


# -- 2. lock -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lock", "expected"), [
    (None, ["lock file not found", "miles-docs lock"]),
    ("version: 1\nsources: {}\n", ["no pin for source 'diffusion'", "miles-docs lock"]),
    ("version: 1\nsources: [\n", ["invalid YAML in the lock file", "miles-docs.lock:"]),
    ("version: 1\nsources:\n  diffusion:\n    repo: {repo}\n    commit: main\n",
     ["commit 'main' is not a full 40-hex commit id", "sources.diffusion"]),
    ("version: 1\nsources:\n  diffusion:\n    repo: {repo}\n    commit: " + "ab" * 20 + "\n",
     ["commit " + "ab" * 20 + " does not exist in", "miles-docs update diffusion"]),
    ("version: 1\nsources:\n  diffusion:\n    repo: https://example.org/fork.git\n"
     "    commit: " + "ab" * 20 + "\n",
     ["pinned for repo 'https://example.org/fork.git'", "miles-docs update diffusion"]),
])
def test_2_lock_problems(tmp_path: Path, cache_dir: Path, lock: str | None,
                         expected: list[str]) -> None:
    repo, commit = upstream(tmp_path)
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    if lock is None:
        (host.config / "miles-docs.lock").unlink()
    else:
        write(host.config / "miles-docs.lock", lock.replace("{repo}", repo.as_uri()))
    git(host.root, "add", "-A")
    git(host.root, "commit", "-q", "-m", "the lock under test")
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    for text in expected:
        assert text in result.output, (text, result.output)
    assert not list((cache_dir / "checkouts").glob("*/*")) if cache_dir.exists() else True


def test_2_a_lock_entry_for_a_source_no_longer_configured(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    repo, commit = upstream(tmp_path)
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    write(host.config / "miles-docs.lock", lock_text({"diffusion": (repo.as_uri(), commit),
                                                      "retired": (repo.as_uri(), commit)}))
    git(host.root, "commit", "-qam", "stale entry")
    with untouched(host):
        result = host.build()
    assert result.returncode == 0, result.output  # reported, not fatal
    assert "the lock file pins 'retired', which is no longer configured" in result.output


# -- 3. repository URLs ------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "expected"), [
    ("--upload-pack=touch${IFS}pwned", "starts with '-'"),
    ("-uhack", "starts with '-'"),
    ("ext::sh -c touch% pwned", "remote helpers"),
    ("fd::3", "remote helpers"),
    ("ftp://example.org/r.git", "transport 'ftp' is not allowed"),
    ("https://user:hunter2@example.org/r.git", "carries credentials"),
])
def test_3_unsafe_urls_are_refused_before_git_runs(tmp_path: Path, cache_dir: Path, url: str,
                                                   expected: str) -> None:
    host = make_host("mkdocs", tmp_path / "host", url, "ab" * 20,
                     config=config_with(f"'{url}'"))
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    assert expected in result.output
    assert "hunter2" not in result.output
    assert not (host.root / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert not cache_dir.exists() or not list(cache_dir.rglob("*.git"))


# -- 4. checkout -------------------------------------------------------------------------------


def test_4_symlinks_escaping_looping_and_inside(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "upstream"
    make_repo(repo, {"docs/index.md": "# Home\n\n[alias](alias.md)\n", "docs/real.md": "# Real\n",
                     "secret.txt": "not for the docs\n"})
    docs = repo / "docs"
    (docs / "alias.md").symlink_to("real.md")
    (docs / "passwd.md").symlink_to("../../../../../../etc/passwd")
    (docs / "abs.md").symlink_to("/etc/hostname")
    (docs / "secret.md").symlink_to("../secret.txt")
    (docs / "loop-a.md").symlink_to("loop-b.md")
    (docs / "loop-b.md").symlink_to("loop-a.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "symlinks")
    commit = git(repo, "rev-parse", "HEAD")
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    with untouched(host):
        result = host.build()
    out = result.output
    assert result.returncode != 0  # strict: the reports are warnings
    assert "passwd.md is a symlink that points outside the repository" in out
    assert "abs.md is a symlink to the absolute path '/etc/hostname' (not followed)" in out
    assert "secret.md is a symlink to 'secret.txt', outside docs/ (not followed)" in out
    assert "loop-a.md is a symlink loop" in out
    relaxed = host.build(strict=False)
    assert relaxed.returncode == 0
    assert "# Real" not in (host.out / "diffusion/alias/index.html").read_text()
    assert "Real" in (host.out / "diffusion/alias/index.html").read_text()
    assert not (host.out / "diffusion/passwd/index.html").exists()
    assert not (host.out / "diffusion/secret/index.html").exists()


def test_4_docs_dir_missing_at_the_pin(tmp_path: Path, cache_dir: Path) -> None:
    repo, commit = upstream(tmp_path)
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit,
                     config=config_with(repo.as_uri(), "    docs_dir: handbook\n"))
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    assert f"docs_dir 'handbook' does not exist at commit {commit}" in result.output
    assert "set `docs_dir:`" in result.output


# -- 5. pages ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("page", "expected"), [
    ("---\ntitle: [unclosed\n---\n# x\n", "invalid YAML front matter"),
    ("---\n- a list\n- not a mapping\n---\n# x\n", "front matter must be a mapping"),
    ("---\nx: !!python/object/apply:os.system [echo pwned]\n---\n# x\n",
     "could not determine a constructor"),
    ("---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d,"
     " *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d,"
     " *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
     "---\n# x\n", "expands to more than 10,000 values"),
    ("---\na: &a [1, *a]\n---\n# x\n", "refers to itself"),
])
def test_5_bad_front_matter_stops_with_file_and_line(tmp_path: Path, cache_dir: Path,
                                                     page: str, expected: str) -> None:
    repo, commit = upstream(tmp_path, {"docs/index.md": "# Home\n", "docs/bad.md": page})
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    with untouched(host):
        result = host.build()
    assert result.returncode != 0
    assert expected in result.output, result.output
    assert "docs/bad.md:" in result.output and "fix the front matter upstream" in result.output
    assert not (tmp_path / "host" / "pwned").exists()


def test_5_binary_and_non_utf8_pages(tmp_path: Path, cache_dir: Path) -> None:
    repo, commit = upstream(tmp_path, {
        "docs/index.md": "# Home\n",
        "docs/binary.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        "docs/latin1.md": "# Caf\xe9\n\nline two\n\xe9t\xe9\n".encode("latin-1"),
    })
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    with untouched(host):
        strict = host.build()
        relaxed = host.build(strict=False)
    assert strict.returncode != 0
    assert "binary.md is a binary file with a Markdown name; skipped" in strict.output
    assert "docs/latin1.md:1: the page is not valid UTF-8" in strict.output
    assert relaxed.returncode == 0
    assert "Caf\ufffd" in (host.out / "diffusion/latin1/index.html").read_text()
    assert not (host.out / "diffusion/binary/index.html").exists()


def _big_page(megabytes: int) -> bytes:
    chunk = ("## Section\n\nSome text with [a link](a.md#a) and `code [x](y.md)` and "
             "![img](pic.png) and more words to fill the line up to about one hundred.\n\n")
    return (("# Big\n\n" + chunk * (megabytes * 2**20 // len(chunk) + 1)).encode())[
        :megabytes * 2**20]


def test_5_a_50_mb_page_is_left_out_in_bounded_time_and_memory(tmp_path: Path,
                                                               cache_dir: Path) -> None:
    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n")
    write(wc / "docs" / "a.md", "# A\n")
    (wc / "docs" / "big.md").write_bytes(_big_page(50))
    write(tmp_path / "miles-docs.yml",
          f"sources:\n  - name: s\n    repo: https://github.com/o/r.git\n    local: {wc}\n")
    tracemalloc.start()
    started = time.perf_counter()
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine())
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "big.md" not in result.sections["s"].pages
    assert any("big.md is 50.0 MiB, over the 2 MiB limit" in d.message
               for d in result.diagnostics)
    print(f"50 MiB page: {elapsed:.3f} s, peak traced memory {peak / 2**20:.1f} MiB")
    assert elapsed < 5 and peak < 64 * 2**20  # it is never read


def test_5_a_page_of_10_000_links_and_deep_nesting(tmp_path: Path, cache_dir: Path) -> None:
    links = "".join(f"- [link {i}](a.md#a) and [ext {i}](https://example.org/{i})\n"
                    for i in range(5000))
    nested = "> " * 200 + "[deep](a.md)\n\n" + "".join("  " * i + "- x\n" for i in range(300))
    components = "<Note>\n" * 100 + "inner [c](a.md)\n" + "</Note>\n" * 100
    wc = tmp_path / "wc"
    write(wc / "docs" / "index.md", "# Home\n\n" + links + "\n" + nested + "\n" + components)
    write(wc / "docs" / "a.md", "# A\n")
    write(tmp_path / "miles-docs.yml",
          f"sources:\n  - name: s\n    repo: https://github.com/o/r.git\n    local: {wc}\n")
    started = time.perf_counter()
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine())
    elapsed = time.perf_counter() - started
    page = result.sections["s"].pages["index.md"]
    assert page.content.count("](a.md#a)") == 5000
    assert any("nested deeper than 32 levels" in d.message for d in result.diagnostics)
    print(f"10,000 links + deep nesting: {elapsed:.2f} s")
    assert elapsed < 30


# -- 6. links ----------------------------------------------------------------------------------


def test_6_links_that_try_to_leave(tmp_path: Path, cache_dir: Path) -> None:
    page = ("# Home\n\n[passwd](../../../../etc/passwd) [abs](/etc/passwd) "
            "[file](file:///etc/passwd) [git](../.git/config) [gitdir](../.git/)\n\n"
            '<a href="javascript:alert(document.cookie)">js</a> '
            '<a href="JaVaScRiPt:alert(1)">js2</a> [mdjs](javascript:alert(1))\n\n'
            "![img](../../../../etc/hostname)\n")
    repo, commit = upstream(tmp_path, {"docs/index.md": page})
    host = make_host("mkdocs", tmp_path / "host", repo.as_uri(), commit)
    with untouched(host):
        result = host.build(strict=False)
    assert result.returncode == 0, result.output
    html = (host.out / "diffusion/index.html").read_text()
    assert "javascript:" not in html.lower()
    hrefs = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert not [h for h in hrefs if h.startswith(("file:", "/etc", "../../../../"))], hrefs
    # a site-root path is looked up in the docs folder, never on the disk: upstream link
    assert any(h.endswith("/docs/etc/passwd") and h.startswith("https://") for h in hrefs)
    assert ".git/config" not in html
    assert not list((host.out / "diffusion").rglob("passwd")) and \
        not list(host.out.rglob("hostname"))
    for text in ("points outside the repository", "javascript: links are not allowed",
                 "file: links are not allowed", "points into .git"):
        assert text in result.output, text


# -- 7. faults ---------------------------------------------------------------------------------


class OsOf:
    """The ``os`` module as one module sees it, with some functions replaced: set on that
    module's own name ``os`` (``monkeypatch.setattr(module, "os", OsOf(...))``), so that the
    rest of the process, pytest included, keeps the real functions."""

    def __init__(self, **replaced: Callable[..., Any]) -> None:
        self._replaced = replaced

    def __getattr__(self, name: str) -> Any:
        return self._replaced[name] if name in self._replaced else getattr(os, name)


def test_7_disk_full_while_writing_a_generated_file_keeps_the_previous_state(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from miles_docs_plugin.core import files

    folder_root = tmp_path / "gen"
    folder_root.mkdir()
    target = folder_root / "page.md"
    assert files.write_if_changed(target, b"good version\n")

    class Full:
        def __init__(self, fh: IO[Any]) -> None:
            self.fh = fh

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, data: bytes) -> int:
            self.fh.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    # the module's own name ``os``: nothing outside it sees the full disk
    monkeypatch.setattr(files, "os", OsOf(fdopen=lambda fd, mode: Full(os.fdopen(fd, mode))))
    with pytest.raises(OSError, match="No space left"):
        files.write_if_changed(target, b"new version that does not fit\n")
    assert target.read_bytes() == b"good version\n"
    assert sorted(p.name for p in folder_root.iterdir()) == ["page.md"]  # no temp file left


def test_7_disk_full_during_a_fetch_leaves_no_entry(tmp_path: Path, cache_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo, commit = upstream(tmp_path)
    write(tmp_path / "miles-docs.yml", config_with(repo.as_uri()))
    write(tmp_path / "miles-docs.lock", lock_text({"diffusion": (repo.as_uri(), commit)}))
    from miles_docs_plugin.core.source import cache as cache_mod

    def full(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_mod, "_write_file", full)
    with pytest.raises(OSError):
        build(load_config(tmp_path / "miles-docs.yml"), Engine())
    assert not list((cache_dir / "checkouts").glob("*/*"))
    assert not list((cache_dir / "tmp").iterdir())
    monkeypatch.undo()
    assert build(load_config(tmp_path / "miles-docs.yml"), Engine()).sections


def test_7_disk_full_while_writing_the_lock_keeps_it(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from miles_docs_plugin.core import files
    from miles_docs_plugin.core.source import lock as lock_mod

    path = tmp_path / "miles-docs.lock"
    path.write_text(lock_text({"diffusion": ("r", V1)}))
    before = path.read_bytes()
    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "os", OsOf(fsync=fsync))  # the atomic writer's ``os`` only
    with pytest.raises(OSError):
        lock_mod.set_entry(path, lock_mod.LockEntry("diffusion", "r", "main", "ab" * 20))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["miles-docs.lock"]


def _hostile_lines() -> dict[str, Callable[[], object]]:
    """Each pattern of the page transforms against the line that makes a backtracking one take
    time as the square (or worse) of its length: at these sizes, hours for such a pattern."""
    from miles_docs_plugin.core.collect.upstream import Redirect, apply_redirect
    from miles_docs_plugin.core.transform.components import code_notation
    from miles_docs_plugin.core.transform.dialect import markdown_in_html_view
    from miles_docs_plugin.core.transform.mdx import CODE_SPAN_RE, Fence
    from miles_docs_plugin.mkdocs_plugin.engine import (
        HEADING_ATTRS_RE,
        MkDocsEngine,
        _may_need_shaping,
        page_extensions,
    )

    def notation() -> object:
        lines = ["```js", " " * 200_000 + "[!code x]", "```"]
        return code_notation(lines, Fence(0, 2, "", "```", "js"))

    deep, deeper = "/" + "/".join(["a"] * 32), "/" + "/".join(["a"] * 60)
    return {
        "attr_list": lambda: page_extensions("{#" * 100_000),
        "page ids": lambda: MkDocsEngine.page_ids(None, "{" * 200_000),  # type: ignore[arg-type]
        "block hint": lambda: (_may_need_shaping(" " * 500_000 + "x"),
                               _may_need_shaping(" " * 500_000 + "- x\n- y")),
        "code notation": notation,
        "heading attributes": lambda: HEADING_ATTRS_RE.sub("", "{#" * 100_000),
        "md_in_html tag": lambda: markdown_in_html_view("<div" + " markdown" * 50_000 + "\n"),
        # MDX code spans (the Mintlify sandbox tries one at each run): 2,000 took minutes
        "code spans": lambda: (list(CODE_SPAN_RE.finditer("`" * 200_000 + " x")),
                               CODE_SPAN_RE.match("`" * 200_000 + " x", 0)),
        "redirect wildcards": lambda: [
            apply_redirect(Redirect(source, "/x"), path)
            for source in ("/*/*/*/*/*/*/*/*/*/*/*/*/z", "/:a*/:b*/:c*/*/z")
            for path in (deep, deeper)],
    }


@pytest.mark.parametrize("name", ["attr_list", "page ids", "block hint", "code notation",
                                  "heading attributes", "md_in_html tag", "code spans",
                                  "redirect wildcards"])
def test_5_a_hostile_line_takes_no_time_as_its_square(name: str) -> None:
    _hostile_lines()[name]()  # would not return for hours with a backtracking pattern


def test_6_a_definition_no_link_uses_is_still_made_safe(tmp_path: Path,
                                                        cache_dir: Path) -> None:
    """A definition is left unchecked only when nothing could use it, and even then what
    leaves the repository is made inert; ``[^x]:`` is a footnote only where footnotes are
    read (here, an MkDocs upstream without them: a link definition)."""
    page = ("# Notes\n\nRead [the notes][^x] and [the file][far]: done.\n\n"
            "[^x]: ../../secret.txt\n[far]: ../../../../../../etc/passwd\n"
            "[never]: ../../../../../../etc/shadow\n")
    up = tmp_path / "up"
    commit = make_repo(up, {"mkdocs.yml": "site_name: Up\n", "docs/index.md": page})
    host = make_host("mkdocs", tmp_path / "host", up.as_uri(), commit)
    run = host.build(strict=False)
    assert run.returncode == 0, run.output
    html = host.site().page("diffusion/index.html").text
    assert "secret.txt" not in html and "etc/passwd" not in html, html
    assert run.output.count("points outside the repository") == 3, run.output
