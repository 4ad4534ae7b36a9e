"""Fetching pinned commits into the cache (``builtin/git_source.py``, ``core/source/checkout.py``,
``core/source/cache.py``)."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support import CORPUS, MEM0, V1, V2, git, lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.errors import ContentError, FetchError
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.core.source import checkout


def setup_host(tmp_path: Path, repo: str, commit: str, extra: str = "") -> Path:
    host = tmp_path / "host"
    write(host / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n{extra}")
    write(host / "miles-docs.lock", lock_text({"diffusion": (repo, commit)}))
    return host / "miles-docs.yml"


def entry_of(cache: Path) -> Path:
    (entry,) = [p for p in (cache / "checkouts").glob("*/*") if p.is_dir()]
    return entry


def test_fetch_verifies_and_keeps_only_the_docs_folder(corpus_repo: Path, cache_dir: Path,
                                                       tmp_path: Path) -> None:
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), V1))
    result = build(config, Engine())
    section = result.sections["diffusion"]
    assert section.checkout.commit == V1 and not section.checkout.cached
    assert len(section.pages) == 22
    entry = entry_of(cache_dir)
    assert entry.name == V1
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["commit"] == V1
    tree = {row[0]: row[1] for row in manifest["tree"]}
    assert tree["README.md"] == "blob" and tree["docs"] == "tree"
    # only the docs folder is checked out; no .git is kept
    assert sorted(p.name for p in (entry / "files").iterdir()) == ["docs"]
    assert not list(entry.rglob(".git"))
    # the next build is warm
    again = build(config, Engine())
    assert again.sections["diffusion"].checkout.cached


#: Run in a fresh interpreter (as a build starts): a pipeline build whose first collector
#: waits for the modules' loading thread, then says which of the page steps' modules are
#: not loaded yet. Nothing has prepared a page at that point.
PRELOAD_PROBE = """
import sys, threading
from pathlib import Path
from miles_docs_plugin import hookimpl
from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import build

STEPS = ["markdown_it", "miles_docs_plugin.core.transform.markdown",
         "miles_docs_plugin.core.transform.components", "miles_docs_plugin.core.transform.links"]

class Probe:
    @hookimpl(tryfirst=True)
    def mdp_collect(self, checkout, ctx):
        for thread in threading.enumerate():
            if thread.name == "miles-docs-preload":
                thread.join()
        print(checkout.cached, [m for m in STEPS if m not in sys.modules])

build(load_config(Path(sys.argv[1])), Engine(), plugins=[Probe()])
"""


def test_a_cold_build_loads_the_page_steps_while_it_fetches(corpus_repo: Path, cache_dir: Path,
                                                            tmp_path: Path) -> None:
    """The modules that preparing and transforming pages import are loaded in a thread while
    git fetches (they would otherwise be loaded after it, one page step at a time); a warm
    build, which fetches nothing, does not load them for its collector."""
    import subprocess

    config = setup_host(tmp_path, corpus_repo.as_uri(), V1)
    probe = [sys.executable, "-c", PRELOAD_PROBE, str(config)]
    cold = subprocess.run(probe, capture_output=True, text=True, check=False)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.strip() == "False []", cold.stdout
    warm = subprocess.run(probe, capture_output=True, text=True, check=False)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.startswith("True [") and "core.transform.components" in warm.stdout, \
        warm.stdout


#: Run in a fresh interpreter: a cold build for the MkDocs engine that, once the loading
#: thread that the fetch started is done, notes what is loaded; then prints the modules of
#: this package and of markdown-it that the build imported after that.
LATE_IMPORTS_PROBE = """
import json, sys, threading
from pathlib import Path
from mkdocs.config import load_config as mkdocs_config
from miles_docs_plugin.core import context
from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.pipeline import build
from miles_docs_plugin.mkdocs_plugin import MkDocsEngine

loaded = set()
fetching = context.BuildContext.fetching

def probe(self):
    fetching(self)
    for thread in threading.enumerate():
        if thread.name == "miles-docs-preload":
            thread.join()
    loaded.update(sys.modules)

context.BuildContext.fetching = probe
config = Path(sys.argv[1])
build(load_config(config), MkDocsEngine(mkdocs_config(str(config.parent / "mkdocs.yml")), set()))
assert loaded, "the build fetched nothing"
print(json.dumps(sorted(m for m in set(sys.modules) - loaded
                        if m.startswith(("miles_docs", "markdown_it")))))
"""
#: Modules a cold build may import after the fetch: those only some sites use (an OpenAPI
#: reference), whose loading would cost every other build CPU beside its fetch.
NOT_PRELOADED = {"miles_docs_plugin.core.transform.openapi"}


@pytest.mark.parametrize("tree", ["miles_diffusion v2", "mem0"])
def test_a_cold_build_imports_nothing_after_the_fetch_that_it_could_load_meanwhile(
        corpus_repo: Path, cache_dir: Path, tmp_path: Path, tree: str) -> None:
    """``PAGE_MODULES`` is a list: a module the page steps import and the list misses is
    loaded after the fetch, where a cold build waits for it."""
    import subprocess

    if tree == "mem0":
        repo, commit = tmp_path / "mem0", MEM0
        out = subprocess.run(["bash", str(CORPUS / "make_mintlify.sh"), "mem0", str(repo)],
                             capture_output=True, text=True, check=True).stdout
        assert commit in out, out
    else:
        repo, commit = corpus_repo, V2
    config = setup_host(tmp_path, repo.as_uri(), commit)
    write(config.parent / "mkdocs.yml", "site_name: Host\nmarkdown_extensions: [admonition]\n")
    write(config.parent / "docs" / "index.md", "# Host\n")
    run = subprocess.run([sys.executable, "-c", LATE_IMPORTS_PROBE, str(config)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    late = set(json.loads(run.stdout))
    assert late <= NOT_PRELOADED, sorted(late - NOT_PRELOADED)


def test_the_scan_cache_is_read_beside_a_fetch_and_in_turn_without_one(
        corpus_repo: Path, cache_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold build reads the scan cache in a thread while git fetches; a warm one, which
    waits on nothing, reads it in its own thread after the sources are collected."""
    import threading

    from miles_docs_plugin.core import pipeline
    from miles_docs_plugin.core.transform.scancache import ScanCache

    read_in: list[str] = []

    class Spy(ScanCache):
        def __init__(self, path: Path | None) -> None:
            read_in.append(threading.current_thread().name)
            super().__init__(path)

    monkeypatch.setattr(pipeline, "ScanCache", Spy)
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    config = setup_host(tmp_path, corpus_repo.as_uri(), V1)
    assert not build(load_config(config), Engine()).sections["diffusion"].checkout.cached
    assert build(load_config(config), Engine()).sections["diffusion"].checkout.cached
    assert read_in == ["miles-docs", threading.current_thread().name], read_in


def test_several_sources_are_fetched_in_threads_and_collected_here_when_cached(
        tmp_path: Path, cache_dir: Path) -> None:
    """Sources are fetched in threads. One fetched now is collected in its thread, beside the
    others' fetches; one found in the cache is collected in the build's own thread: collecting
    is Python reading and parsing pages, which threads would only run in turn."""
    import threading

    from miles_docs_plugin import hookimpl

    names = ["one", "two", "three"]
    commits = {name: make_repo(tmp_path / name, {"docs/index.md": f"# {name}\n"})
               for name in names}
    host = tmp_path / "host"
    write(host / "miles-docs.yml", "sources:\n" + "".join(
        f"  - name: {name}\n    repo: {(tmp_path / name).as_uri()}\n" for name in names))
    write(host / "miles-docs.lock", lock_text(
        {name: ((tmp_path / name).as_uri(), commit) for name, commit in commits.items()}))

    class Probe:
        def __init__(self) -> None:
            self.threads: dict[str, str] = {}

        @hookimpl(tryfirst=True)
        def mdp_collect(self, checkout: Any, ctx: Any) -> None:
            self.threads[checkout.source.name] = threading.current_thread().name

    def collected_in() -> dict[str, str]:
        probe = Probe()
        result = build(load_config(host / "miles-docs.yml"), Engine(), plugins=[probe])
        assert list(result.sections) == names  # the config's order, however they came in
        return probe.threads

    cold = collected_in()
    assert set(cold) == set(names) and all(
        thread.startswith("miles-docs") for thread in cold.values()), cold
    main = threading.current_thread().name
    assert collected_in() == {name: main for name in names}


def test_unknown_commit_is_a_clear_error(corpus_repo: Path, cache_dir: Path,
                                         tmp_path: Path) -> None:
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), "deadbeef" * 5))
    with pytest.raises(FetchError) as err:
        build(config, Engine())
    assert "deadbeef" * 5 in str(err.value) and str(corpus_repo) in str(err.value)
    assert "miles-docs update diffusion" in str(err.value)
    assert not list((cache_dir / "checkouts").glob("*/*"))


def test_server_that_refuses_commit_ids(corpus_repo: Path, cache_dir: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # protocol v0 without allowReachableSHA1InWant refuses "want <sha>": the fallback fetches
    # branches and tags and finds the commit there
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), V1))
    result = build(config, Engine())
    assert result.sections["diffusion"].checkout.commit == V1


def test_docs_dir_missing_at_the_pin(corpus_repo: Path, cache_dir: Path, tmp_path: Path) -> None:
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), V2,
                                    "    docs_dir: documentation\n"))
    with pytest.raises(ContentError, match="docs_dir 'documentation' does not exist at commit"):
        build(config, Engine())


def test_modified_cache_entry_is_detected_and_fetched_again(corpus_repo: Path, cache_dir: Path,
                                                            tmp_path: Path) -> None:
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), V2))
    build(config, Engine())
    page = entry_of(cache_dir) / "files" / "docs" / "index.md"
    page.write_text("# tampered\n")
    image = entry_of(cache_dir) / "files" / "docs" / "assets" / "images" / "sd3" / \
        "grpo-ocr-raw-reward.png"
    result = build(config, Engine())
    assert not result.sections["diffusion"].checkout.cached  # fetched again
    assert "tampered" not in result.sections["diffusion"].pages["index.md"].text
    # an asset changed in place (same size) is caught too
    data = bytearray(image.read_bytes())
    data[100] ^= 0xFF
    image.write_bytes(bytes(data))
    result = build(config, Engine())
    assert not result.sections["diffusion"].checkout.cached


def test_modified_cache_entry_offline_is_refused(tmp_path: Path, cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {"docs/index.md": "# Hi\n"})
    # a non-local URL form of the same repository, so offline mode applies
    config_path = setup_host(tmp_path, upstream.as_uri(), commit)
    build(load_config(config_path), Engine())
    (entry_of(cache_dir) / "files" / "docs" / "index.md").write_text("# evil\n")
    monkeypatch.setenv("MILES_DOCS_OFFLINE", "1")
    with pytest.raises(FetchError, match="was modified after it was fetched"):
        build(load_config(config_path), Engine())


def test_a_killed_fetch_leaves_nothing_trusted(corpus_repo: Path, cache_dir: Path,
                                               tmp_path: Path) -> None:
    config = load_config(setup_host(tmp_path, corpus_repo.as_uri(), V1))
    build(config, Engine())
    entry = entry_of(cache_dir)
    (entry / "manifest.json").unlink()  # as if the process died before the manifest landed
    result = build(config, Engine())
    assert not result.sections["diffusion"].checkout.cached
    assert (entry / "manifest.json").exists()


def test_offline_cold_cache_names_repo_and_commit(tmp_path: Path, cache_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MILES_DOCS_OFFLINE", "1")
    config = load_config(setup_host(tmp_path, "https://github.com/radixark/miles_diffusion.git",
                                    V2))
    with pytest.raises(FetchError) as err:
        build(config, Engine())
    message = str(err.value)
    assert f"radixark/miles_diffusion@{V2}" in message and "offline" in message
    assert "\n" not in message


# -- a pin move: only what changed is fetched and written -------------------------------------


def _entry(cache: Path, commit: str) -> Path:
    (entry,) = [p for p in (cache / "checkouts").glob(f"*/{commit}") if p.is_dir()]
    return entry / "files"


def _tree_at(repo: Path, commit: str, tmp: Path) -> dict[str, tuple[bytes, bool, bool]]:
    """The docs folder and mkdocs.yml at ``commit``, as git itself checks them out:
    path -> (bytes or link target, symlink, executable)."""
    out = tmp / f"git-{commit[:7]}"
    git(repo, "worktree", "add", "-q", "--detach", str(out), commit)
    return _files(out, ("docs", "mkdocs.yml"))


def _files(root: Path, keep: tuple[str, ...]) -> dict[str, tuple[bytes, bool, bool]]:
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(keep) or (path.is_dir() and not path.is_symlink()):
            continue
        if path.is_symlink():
            found[rel] = (os.readlink(path).encode(), True, False)
        else:
            found[rel] = (path.read_bytes(), False, os.access(path, os.X_OK))
    return found


def test_a_pin_move_fetches_and_writes_only_the_changed_files(
        tmp_path: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    upstream = tmp_path / "up"
    pages = {f"docs/p{i:02}.md": f"# Page {i}\n\nText {i}.\n" for i in range(12)}
    first = make_repo(upstream, {**pages, "docs/img/a.png": b"\x89PNG\0" + bytes(range(200)),
                                 "docs/run.sh": "#!/bin/sh\necho run\n",
                                 "mkdocs.yml": "nav:\n  - p00.md\n", "src/big.py": "x = 1\n"})
    (upstream / "docs" / "run.sh").chmod(0o755)
    (upstream / "docs" / "alias.md").symlink_to("p01.md")
    first = make_repo(upstream, {}, "mode and link")
    config_path = setup_host(tmp_path, upstream.as_uri(), first)
    build(load_config(config_path), Engine())
    old = _entry(cache_dir, first)
    # one page edited, one removed, one added, the symlink moved, the nav edited
    git(upstream, "rm", "-q", "docs/p05.md")
    (upstream / "docs" / "alias.md").unlink()
    (upstream / "docs" / "alias.md").symlink_to("p02.md")
    second = make_repo(upstream, {"docs/p03.md": "# Page 3\n\nRevised.\n",
                                  "docs/new/p99.md": "# New\n",
                                  "mkdocs.yml": "nav:\n  - p03.md\n"}, "second")
    # an unchanged page of the older pin, altered in the cache (same size): never carried over
    tampered = old / "docs" / "p07.md"
    tampered.write_bytes(tampered.read_bytes().replace(b"Text", b"Evil"))
    write(tmp_path / "host" / "miles-docs.lock",
          lock_text({"diffusion": (upstream.as_uri(), second)}))
    with caplog.at_level(logging.DEBUG, logger="miles_docs"):
        result = build(load_config(config_path), Engine())
    section = result.sections["diffusion"]
    assert not section.checkout.cached
    assert section.pages["p07.md"].text == "# Page 7\n\nText 7.\n"
    assert "p05.md" not in section.pages and "new/p99.md" in section.pages
    new = _entry(cache_dir, second)
    # the entry is what git checks out at the new pin: bytes, modes, links, nothing more
    assert _files(new, ("docs", "mkdocs.yml")) == _tree_at(upstream, second, tmp_path)
    # unchanged files are the older entry's (no new copy); changed and altered ones are new
    same = [p for p in ("docs/p00.md", "docs/p11.md", "docs/img/a.png", "docs/run.sh")
            if (new / p).stat().st_ino == (old / p).stat().st_ino]
    assert same == ["docs/p00.md", "docs/p11.md", "docs/img/a.png", "docs/run.sh"]
    for path in ("docs/p03.md", "docs/p07.md", "mkdocs.yml"):
        assert (new / path).stat().st_ino != (old / path).stat().st_ino, path
    assert "5 file(s) fetched, the rest reused from" in caplog.text, caplog.text


#: Files opened while :data:`_RECORD` holds a list (an audit hook: added once, it stays).
_RECORD: list[list[str]] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _RECORD and isinstance(args[0], (str, bytes, os.PathLike)):
        _RECORD[-1].append(os.fsdecode(args[0]))


def test_a_pin_move_reads_each_reused_page_once(tmp_path: Path, cache_dir: Path) -> None:
    """A file the pin move reuses is hashed as it is put in place; the build publishes the
    bytes that hashed instead of reading and hashing the file again (a page changed in the
    cache before that is still fetched again, above)."""
    upstream = tmp_path / "up"
    pages = {f"docs/p{i:02}.md": f"# Page {i}\n\nText {i}.\n" for i in range(6)}
    first = make_repo(upstream, {**pages, "docs/img/a.png": b"\x89PNG\0" + bytes(range(200))})
    config_path = setup_host(tmp_path, upstream.as_uri(), first)
    build(load_config(config_path), Engine())
    second = make_repo(upstream, {"docs/p03.md": "# Page 3\n\nRevised.\n"}, "second")
    write(tmp_path / "host" / "miles-docs.lock",
          lock_text({"diffusion": (upstream.as_uri(), second)}))
    if not _RECORD:
        sys.addaudithook(_audit)
    opened: list[str] = []
    _RECORD.append(opened)
    try:
        section = build(load_config(config_path), Engine()).sections["diffusion"]
    finally:
        _RECORD.clear()
    assert section.pages["p01.md"].text == "# Page 1\n\nText 1.\n"
    assert section.pages["p03.md"].text == "# Page 3\n\nRevised.\n"
    for name in ("p01.md", "p03.md", "img/a.png"):
        reads = [p for p in opened if p.endswith(f"/docs/{name}")]
        assert len(reads) == 1, (name, reads)


def test_a_pin_move_of_the_real_docs_equals_a_fresh_checkout(
        corpus_repo: Path, cache_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    config_path = setup_host(tmp_path, corpus_repo.as_uri(), V1)
    build(load_config(config_path), Engine())
    write(tmp_path / "host" / "miles-docs.lock",
          lock_text({"diffusion": (corpus_repo.as_uri(), V2)}))
    moved = build(load_config(config_path), Engine()).sections["diffusion"]
    fresh_cache = tmp_path / "fresh"
    monkeypatch.setenv("MILES_DOCS_CACHE", str(fresh_cache))
    fresh = build(load_config(config_path), Engine()).sections["diffusion"]
    assert _files(_entry(cache_dir, V2), ("docs",)) == _files(_entry(fresh_cache, V2), ("docs",))
    assert json.loads((_entry(cache_dir, V2).parent / "manifest.json").read_text()) == \
        json.loads((_entry(fresh_cache, V2).parent / "manifest.json").read_text())
    assert {p: page.text for p, page in moved.pages.items()} == \
        {p: page.text for p, page in fresh.pages.items()}
    # the files v1 and v2 share were not written again
    old, new = _entry(cache_dir, V1), _entry(cache_dir, V2)
    shared = [p for p in new.rglob("*") if p.is_file() and (old / p.relative_to(new)).is_file()
              and (old / p.relative_to(new)).read_bytes() == p.read_bytes()]
    assert shared and all(p.stat().st_ino == (old / p.relative_to(new)).stat().st_ino
                          for p in shared)


def test_a_pin_move_that_changes_most_files_checks_out_the_docs_folder(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(checkout, "MAX_CHANGED_FILES", 1)
    upstream = tmp_path / "up"
    first = make_repo(upstream, {"docs/index.md": "# One\n", "docs/b.md": "# B\n",
                                 "docs/c.md": "# C\n"})
    config_path = setup_host(tmp_path, upstream.as_uri(), first)
    build(load_config(config_path), Engine())
    second = make_repo(upstream, {"docs/index.md": "# Two\n", "docs/b.md": "# B2\n"})
    write(tmp_path / "host" / "miles-docs.lock",
          lock_text({"diffusion": (upstream.as_uri(), second)}))
    with caplog.at_level(logging.DEBUG, logger="miles_docs"):
        section = build(load_config(config_path), Engine()).sections["diffusion"]
    assert {p: page.text for p, page in section.pages.items()} == {
        "index.md": "# Two\n", "b.md": "# B2\n", "c.md": "# C\n"}
    assert "2 file(s) changed: checking out" in caplog.text, caplog.text
    assert _files(_entry(cache_dir, second), ("docs",)) == _tree_at(upstream, second, tmp_path)


def test_a_cold_fetch_writes_the_docs_folder_with_parallel_workers(
        tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git writes the files of a cold checkout with one worker per core (up to 8; git does so
    from 100 files on): a third less time for 1,000 pages on two cores, where writing them
    was most of git's share of a cold build."""
    upstream = tmp_path / "up"
    pages = {f"docs/p{i:03}.md": f"# Page {i}\n\nText {i}.\n" for i in range(120)}
    commit = make_repo(upstream, pages)
    trace = tmp_path / "trace2.txt"
    monkeypatch.setenv("GIT_TRACE2_PERF", str(trace))
    result = build(load_config(setup_host(tmp_path, upstream.as_uri(), commit)), Engine())
    assert "p119.md" in result.sections["diffusion"].pages
    workers = trace.read_text().count("argv:[git checkout--worker]")
    wanted = checkout.CHECKOUT_WORKERS
    assert wanted == min(os.cpu_count() or 1, 8)
    assert workers == (wanted if wanted > 1 else 0), trace.read_text()[-2000:]
