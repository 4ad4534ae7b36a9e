"""The upstream is untrusted: what an attacker who controls the upstream repository, or who can
write the cache folder, can get published. Every test states an attack and asserts the outcome:
the forged text, host file, secret, fetch or script is absent from every output file, the
warning names the upstream file and line, and the host's ``git status`` is what it was.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from support import lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.context import Engine
from miles_docs_plugin.core.errors import FetchError
from miles_docs_plugin.core.integrity import blob_id, object_id, root_tree, verify_commit
from miles_docs_plugin.core.pipeline import build

FORGED = "FORGED-BY-THE-CACHE"


def setup_host(tmp_path: Path, repo: str, commit: str) -> Path:
    host = tmp_path / "host"
    write(host / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n")
    write(host / "miles-docs.lock", lock_text({"diffusion": (repo, commit)}))
    return host / "miles-docs.yml"


def entry_of(cache: Path) -> Path:
    (entry,) = [p for p in (cache / "checkouts").glob("*/*") if p.is_dir()]
    return entry


def forge_page(entry: Path, path: str, text: str) -> None:
    """Edit a cached file *and* its blob id in the manifest, as someone who can write a shared
    CI cache could: the manifest then agrees with the file."""
    data = text.encode()
    (entry / "files" / path).write_bytes(data)
    manifest_file = entry / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    for row in manifest["tree"]:
        if row[0] == path:
            row[2] = blob_id(data)
    manifest_file.write_text(json.dumps(manifest))


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "up"
    commit = make_repo(repo, {"docs/index.md": "# Home\n\nOriginal text. [A](a.md)\n",
                              "docs/a.md": "# A\n\n![logo](img/logo.png)\n",
                              "docs/img/logo.png": b"\x89PNG original",
                              "src/x.py": "print('x')\n"})
    return repo, commit


def test_git_object_ids_and_the_merkle_chain(tmp_path: Path, upstream: tuple[Path, str]) -> None:
    """integrity.py computes what git computes: the root tree of the listing and the commit."""
    from support import git

    repo, commit = upstream
    assert blob_id(b"# A\n\n![logo](img/logo.png)\n") == git(repo, "rev-parse", "HEAD:docs/a.md")
    listing = git(repo, "ls-tree", "-r", "-t", "--full-tree", commit)
    entries = {}
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        mode, _kind, oid = meta.split()
        entries[path] = (mode, oid)
    assert root_tree(entries) == git(repo, "rev-parse", "HEAD^{tree}")
    raw = git(repo, "cat-file", "commit", commit).encode() + b"\n"
    assert object_id("commit", raw) == commit
    verify_commit(commit, raw, entries)
    forged = dict(entries)
    forged["docs/a.md"] = (entries["docs/a.md"][0], blob_id(b"# forged\n"))
    with pytest.raises(ValueError, match="does not hash to tree"):
        verify_commit(commit, raw, forged)


@pytest.mark.parametrize("offline", [False, True])
@pytest.mark.parametrize("path", ["docs/index.md", "docs/img/logo.png"])
def test_forged_cache_content_is_never_published(tmp_path: Path, cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 upstream: tuple[Path, str], path: str,
                                                 offline: bool) -> None:
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    build(load_config(config_path), Engine())
    entry = entry_of(cache_dir)
    forge_page(entry, path, f"# {FORGED}\n")
    if offline:
        monkeypatch.setenv("MILES_DOCS_OFFLINE", "1")
        with pytest.raises(FetchError) as err:
            build(load_config(config_path), Engine())
        # refused, with the folder to delete
        assert "was modified after it was fetched" in str(err.value)
        assert str(entry) in str(err.value)
        return
    result = build(load_config(config_path), Engine())
    section = result.sections["diffusion"]
    assert not section.checkout.cached  # fetched again: the entry did not hash to the pin
    texts = [p.content for p in section.pages.values()]
    assert all(FORGED not in t for t in texts)
    assert "Original text." in section.pages["index.md"].content
    assert (entry / "files" / "docs" / "img" / "logo.png").read_bytes() == b"\x89PNG original"


def test_a_forged_commit_object_or_tree_listing_is_refused(tmp_path: Path, cache_dir: Path,
                                                           upstream: tuple[Path, str]) -> None:
    """Forging the manifest's commit object or a tree id is caught by the chain to the pin."""
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    build(load_config(config_path), Engine())
    entry = entry_of(cache_dir)
    manifest_file = entry / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    raw = base64.b64decode(manifest["commit_object"])
    manifest["commit_object"] = base64.b64encode(raw.replace(b"commit", b"c0mmit")).decode()
    manifest_file.write_text(json.dumps(manifest))
    forge_page(entry, "docs/index.md", f"# {FORGED}\n")
    result = build(load_config(config_path), Engine())
    assert not result.sections["diffusion"].checkout.cached
    assert FORGED not in result.sections["diffusion"].pages["index.md"].content


def test_a_forged_scan_cache_is_ignored(tmp_path: Path, cache_dir: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        upstream: tuple[Path, str]) -> None:
    """The scan cache says where links are; a forged one could hide a link from the link rules.
    Its file is authenticated with a key kept outside the cache folder."""
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    repo, commit = upstream
    config_path = setup_host(tmp_path, repo.as_uri(), commit)
    first = build(load_config(config_path), Engine())
    expected = {p: page.content for p, page in first.sections["diffusion"].pages.items()}
    (scan_file,) = (cache_dir / "scans").glob("*.json")
    mac, _, payload = scan_file.read_bytes().partition(b"\n")
    assert len(mac) == 64  # an HMAC-SHA256, under the key in MILES_DOCS_STATE
    assert (tmp_path / "state" / "cache.key").stat().st_mode & 0o077 == 0
    data = json.loads(payload)
    for value in data["entries"].values():  # every link moved to "somewhere else"
        if value and isinstance(value[0], list):
            for link in value[0]:
                link[3] = "javascript:alert(1)"
    scan_file.write_bytes(mac + b"\n" + json.dumps(data).encode())
    again = build(load_config(config_path), Engine())
    got = {p: page.content for p, page in again.sections["diffusion"].pages.items()}
    assert got == expected
    assert all("javascript" not in t for t in got.values())
    assert not (cache_dir / "results").exists()  # no unverifiable build-result cache
