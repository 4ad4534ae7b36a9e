"""The scan cache is the one cache of derived data that remains: every part of its key is
proved by a test that changes only that part and sees the scan computed again, and a file it
did not write (or that was changed) is never used."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from miles_docs_plugin.core.transform import scancache
from miles_docs_plugin.core.transform.markdown import scan
from miles_docs_plugin.core.transform.scancache import ScanCache, source_digest, version_key
from miles_docs_plugin.core.transform.scanned import SCANNER_VERSION, ScanResult

PAGE = "# T\n\n[a](a.md)\n"


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MILES_DOCS_STATE", str(tmp_path / "state"))
    return tmp_path / "state"


def fill(path: Path) -> None:
    cache = ScanCache(path)
    cache.get(PAGE, 0, scan)
    cache.save()


def scans_again(path: Path, body: str = PAGE, offset: int = 0) -> bool:
    calls: list[str] = []

    def counting(text: str, line_offset: int = 0) -> ScanResult:
        calls.append(text)
        return scan(text, line_offset=line_offset)

    ScanCache(path).get(body, offset, counting)
    return bool(calls)


def test_the_same_page_is_not_scanned_again(tmp_path: Path) -> None:
    fill(tmp_path / "s.json")
    assert not scans_again(tmp_path / "s.json")


def test_key_page_text(tmp_path: Path) -> None:
    fill(tmp_path / "s.json")
    assert scans_again(tmp_path / "s.json", PAGE + "more\n")


def test_key_line_offset(tmp_path: Path) -> None:
    fill(tmp_path / "s.json")
    assert scans_again(tmp_path / "s.json", offset=3)


@pytest.mark.parametrize("part", ["scanner", "markdown-it-py", "package source"])
def test_key_code_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str) -> None:
    fill(tmp_path / "s.json")
    now = scancache.code_version().split(":")
    changed = {"scanner": [SCANNER_VERSION + "x", now[1], now[2]],
               "markdown-it-py": [now[0], "0.0.1", now[2]],
               "package source": [now[0], now[1], "0" * 16]}[part]
    monkeypatch.setattr(scancache, "code_version", lambda: version_key(*changed))
    assert scans_again(tmp_path / "s.json")


def test_the_source_digest_sees_every_edit_of_the_package(tmp_path: Path) -> None:
    package = Path(scancache.__file__).resolve().parents[2]
    copy = tmp_path / "pkg"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = source_digest(copy)
    assert before == source_digest(package)
    target = copy / "builtin" / "links.py"
    target.write_text(target.read_text() + "\n# one more line\n")
    assert source_digest(copy) != before
    # an edit that keeps the size (one character for another) is seen by its time
    edited = source_digest(copy)
    stat = target.stat()
    target.write_text(target.read_text().replace("# one more line", "# one more lime"))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert target.stat().st_size == stat.st_size
    assert source_digest(copy) != edited
    # a file added or renamed
    (copy / "core" / "new.py").write_text("")
    added = source_digest(copy)
    assert added != edited
    (copy / "core" / "new.py").rename(copy / "core" / "renamed.py")
    assert source_digest(copy) != added


def test_a_file_written_under_another_key_or_edited_is_not_used(tmp_path: Path,
                                                                state: Path) -> None:
    fill(tmp_path / "s.json")
    data = (tmp_path / "s.json").read_bytes()
    (tmp_path / "s.json").write_bytes(data.replace(b"a.md", b"b.md"))
    assert scans_again(tmp_path / "s.json")
    fill(tmp_path / "s.json")
    (state / "cache.key").write_bytes(b"k" * 32)  # another machine's (or user's) key
    assert scans_again(tmp_path / "s.json")


def test_no_key_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("MILES_DOCS_STATE", str(blocked / "state"))  # cannot be created
    cache = ScanCache(tmp_path / "s.json")
    cache.get(PAGE, 0, scan)
    cache.save()
    assert not (tmp_path / "s.json").exists()


def test_the_file_holds_one_entry_a_line_and_a_forged_line_voids_it(tmp_path: Path) -> None:
    """The file is read a line at a time (a 5,000-page cache is never decoded whole); it is
    still one JSON object, and changing any one line voids every entry."""
    import json

    path = tmp_path / "s.json"
    cache = ScanCache(path)
    for i in range(3):
        cache.get(f"# T{i}\n\n[a](a{i}.md)\n", 0, scan)
    cache.save()
    mac, _, payload = path.read_bytes().partition(b"\n")
    lines = payload.split(b"\n")
    assert len(lines) == 5  # header, three entries, closing
    assert len(json.loads(payload)["entries"]) == 3
    assert len(ScanCache(path).raw) == 3
    path.write_bytes(mac + b"\n" + payload.replace(b"a1.md", b"b1.md"))
    assert ScanCache(path).raw == {}
    assert scans_again(path, "# T0\n\n[a](a0.md)\n")
