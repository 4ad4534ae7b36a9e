"""The lock file (``core/source/lock.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from miles_docs_plugin.core.config import parse_config
from miles_docs_plugin.core.errors import LockError
from miles_docs_plugin.core.source.lock import LockEntry, load_lock, pin_for, set_entry, write_lock

A = "a" * 40
B = "b" * 40
REPO = "https://github.com/radixark/miles_diffusion.git"


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "miles-docs.lock"
    write_lock(path, [LockEntry("diffusion", REPO, "main", A)])
    lock = load_lock(path)
    assert lock.entries["diffusion"] == LockEntry("diffusion", REPO, "main", A)


def test_set_entry_changes_only_that_entry(tmp_path: Path) -> None:
    path = tmp_path / "miles-docs.lock"
    original = (
        "# pins, reviewed by hand\n"
        "version: 1\n"
        "sources:\n"
        "  other:\n"
        "    repo: https://example.org/o.git   # mirror\n"
        "    ref: v2\n"
        f"    commit: {A}\n"
        "  diffusion:\n"
        f"    repo: {REPO}\n"
        "    ref: main\n"
        f"    commit: {A}\n"
    )
    path.write_text(original)
    set_entry(path, LockEntry("diffusion", REPO, "main", B))
    before = original.splitlines(keepends=True)
    after = path.read_text().splitlines(keepends=True)
    assert len(after) == len(before)
    assert [i for i, (x, y) in enumerate(zip(before, after, strict=True)) if x != y] == [10]
    assert after[10] == f"    commit: {B}\n"
    # adding an entry appends it and leaves the rest as it was
    set_entry(path, LockEntry("third", REPO, "main", B))
    assert path.read_text().startswith("".join(after))
    assert load_lock(path).entries["third"].commit == B


@pytest.mark.parametrize(("text", "message"), [
    ("version: 1\nsources:\n  d:\n    repo: r\n    commit: main\n", "not a full 40-hex"),
    ("version: 1\nsources:\n  d:\n    repo: r\n    commit: abc123\n", "not a full 40-hex"),
    ("version: 2\nsources: {}\n", "unsupported lock file version"),
    ("version: 1\nsources: [\n", "invalid YAML"),
    ("[]\n", "must be a mapping"),
])
def test_malformed_lock_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "miles-docs.lock"
    path.write_text(text)
    with pytest.raises(LockError, match=message) as err:
        load_lock(path)
    assert str(path) in str(err.value)


def test_missing_file_entry_and_repo_mismatch(tmp_path: Path) -> None:
    config = parse_config({"sources": [{"name": "diffusion", "repo": REPO}]},
                          base_dir=tmp_path, env={})
    with pytest.raises(LockError, match=r"lock file not found.*miles-docs lock"):
        load_lock(tmp_path / "miles-docs.lock")
    path = tmp_path / "miles-docs.lock"
    write_lock(path, [LockEntry("other", REPO, "main", A)])
    lock = load_lock(path)
    with pytest.raises(LockError, match=r"no pin for source 'diffusion'.*miles-docs update "
                                        r"diffusion"):
        pin_for(lock, config.sources[0])
    assert lock.stale(config) == ["other"]
    write_lock(path, [LockEntry("diffusion", "https://example.org/fork.git", "main", A)])
    with pytest.raises(LockError, match=r"pinned for repo .*fork\.git.* but the config says"):
        pin_for(load_lock(path), config.sources[0])


def test_a_commit_id_of_digits_stays_a_string(tmp_path: Path) -> None:
    path = tmp_path / "miles-docs.lock"
    digits = "0123456701234567012345670123456701234567"
    path.write_text(f"version: 1\nsources:\n  d:\n    repo: r\n    commit: {digits}\n")
    assert load_lock(path).entries["d"].commit == digits
