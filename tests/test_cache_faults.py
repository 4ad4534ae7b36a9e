"""The cache under concurrency and faults, and secrets that must never be shown."""

from __future__ import annotations

import base64
import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from support import V2, lock_text, write


def slow_git(tmp_path: Path, seconds: int) -> tuple[dict[str, str], Path]:
    """An environment whose `git` logs every fetch and delays it by ``seconds``; and the log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    real = shutil.which("git")
    assert real
    (bin_dir / "git").write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" fetch "*) echo fetch >> "{log}"; sleep "${{SLOW_FETCH:-0}}";; '
        "esac\n"
        f'exec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "SLOW_FETCH": str(seconds)}
    return env, log


def site(tmp_path: Path, repo: str, commit: str = V2) -> Path:
    path = tmp_path / "site"
    write(path / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n")
    write(path / "miles-docs.lock", lock_text({"diffusion": (repo, commit)}))
    return path


def entries(cache: Path) -> list[Path]:
    return [p for p in (cache / "checkouts").glob("*/*") if p.is_dir()]


def check_cmd() -> list[str]:
    return [sys.executable, "-m", "miles_docs_plugin.cli", "check"]


def test_two_builds_at_once_share_one_fetch(corpus_repo: Path, tmp_path: Path,
                                            cache_dir: Path) -> None:
    env, log = slow_git(tmp_path, 2)
    cwd = site(tmp_path, corpus_repo.as_uri())
    procs = [subprocess.Popen(check_cmd(), cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert log.read_text().splitlines() == ["fetch"]  # the second build waited and reused it
    (entry,) = entries(cache_dir)
    assert entry.name == V2 and (entry / "manifest.json").exists()


def test_a_fetch_killed_midway_leaves_nothing_trusted(corpus_repo: Path, tmp_path: Path,
                                                      cache_dir: Path) -> None:
    env, log = slow_git(tmp_path, 60)
    cwd = site(tmp_path, corpus_repo.as_uri())
    proc = subprocess.Popen(check_cmd(), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while not (log.exists() and log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log.exists(), "the fetch never started"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert entries(cache_dir) == []  # only a half-written folder in tmp/, never trusted
    assert list((cache_dir / "tmp").iterdir())
    again = subprocess.run(check_cmd(), cwd=cwd, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert [e.name for e in entries(cache_dir)] == [V2]


def test_unwritable_cache_is_a_clear_error(corpus_repo: Path, tmp_path: Path,
                                           cache_dir: Path) -> None:
    cwd = site(tmp_path, corpus_repo.as_uri())
    if os.geteuid() != 0:  # a read-only folder (root could still write into it) ...
        cache_dir.mkdir()
        cache_dir.chmod(0o500)
        env = dict(os.environ)
    else:  # ... or, for root too: a cache path below a regular file
        blocker = tmp_path / "blocker"
        blocker.write_text("")
        env = {**os.environ, "MILES_DOCS_CACHE": str(blocker / "cache")}
    try:
        proc = subprocess.run(check_cmd(), cwd=cwd, capture_output=True, text=True, env=env,
                              check=False)
    finally:
        if cache_dir.exists():
            cache_dir.chmod(0o700)
    assert proc.returncode == 2
    assert "is not writable" in proc.stderr and "MILES_DOCS_CACHE" in proc.stderr
    assert "Traceback" not in proc.stderr


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.headers.get("Authorization", ""))
        self.send_response(404)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def http_remote() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/org/repo.git", seen
    server.shutdown()


def test_the_ci_token_is_sent_to_git_and_never_shown(http_remote: tuple[str, list[str]],
                                                     tmp_path: Path, cache_dir: Path) -> None:
    url, seen = http_remote
    token = "ghs_s3cr3tTOKENvalue1234567890"
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    cwd = site(tmp_path, url)
    write(cwd / "mkdocs.yml", "site_name: x\nplugins:\n  - miles-docs\n")
    write(cwd / "docs" / "index.md", "# x\n")
    env = {**os.environ, "MILES_DOCS_GIT_TOKEN": token, "GIT_TRACE": "0"}
    outputs = []
    for cmd in (check_cmd(), [sys.executable, "-m", "miles_docs_plugin.cli", "status"],
                [sys.executable, "-m", "miles_docs_plugin.cli", "update"],
                [sys.executable, "-m", "mkdocs", "build", "--strict"]):
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                              check=False)
        outputs.append(proc.stdout + proc.stderr)
    assert f"Basic {basic}" in seen  # git did authenticate with it
    for text in outputs:
        assert token not in text and basic not in text, text
    assert "127.0.0.1" in outputs[0]  # the errors still name the repository


def test_a_fetch_in_progress_is_never_taken_for_a_leftover(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Another build sweeps tmp/ at any moment; while a fetch claims its folder (between
    creating the owner file and locking it) the sweep must not see a free owner."""
    from miles_docs_plugin.core.source import cache as cache_mod

    root = tmp_path / "cache"
    (root / "tmp").mkdir(parents=True)
    folder = root / "tmp" / "fetch-abc-123"
    folder.mkdir()
    seen: list[list[Path]] = []
    real_flock = cache_mod.fcntl.flock

    def flock(fd: int, op: int) -> None:
        if op == cache_mod.fcntl.LOCK_EX and not seen:
            seen.append([x.path for x in cache_mod.Cache(root).leftovers()])
        real_flock(fd, op)

    monkeypatch.setattr(cache_mod.fcntl, "flock", flock)
    fd = cache_mod._own(folder)
    assert seen == [[]]  # the sweep in the window found nothing to remove
    assert cache_mod.Cache(root).leftovers() == []
    cache_mod._disown(folder, fd)
