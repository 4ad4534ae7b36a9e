"""Fetching pinned commits into the cache (``builtin/git_source.py``, ``core/source/cache.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import V1, V2, lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.errors import ContentError, FetchError
from miles_docs_plugin.core.pipeline import build


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
