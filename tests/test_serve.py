"""Local preview: a working copy instead of the pin, rebuilt on every edit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from http.client import HTTPException
from pathlib import Path

import pytest
from hosts import make_host
from support import make_repo, write


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> str:
    """The page, or "" while the server is down or mid-rebuild (a page being rewritten can
    be served short: ``IncompleteRead``, an ``HTTPException``)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except (OSError, HTTPException, UnicodeDecodeError):
        return ""


def wait_for(check: Callable[[], bool], timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.3)
    return False


def upstream_and_copy(tmp_path: Path) -> tuple[Path, Path, str]:
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# Home\n\nOriginal text.\n",
                                  "docs/guide.md": "# Guide\n\nGuide text.\n"})
    copy = tmp_path / "working-copy"
    subprocess.run(["git", "clone", "-q", str(upstream), str(copy)], check=True)
    return upstream, copy, commit


def stop(proc: subprocess.Popen[str]) -> str:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return out


def test_mkdocs_serve_rebuilds_on_edits_in_the_working_copy(tmp_path: Path,
                                                            cache_dir: Path) -> None:
    upstream, copy, commit = upstream_and_copy(tmp_path)
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), commit,
                     minimal_theme=False)
    port = free_port()
    env = {**os.environ, "MILES_DOCS_LOCAL_DIFFUSION": str(copy), "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                            cwd=host.root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        page = f"http://127.0.0.1:{port}/diffusion/"
        assert wait_for(lambda: "Original text." in fetch(page)), "the server never came up"
        assert "local working copy" in fetch(page)  # the banner says it is a preview
        (copy / "docs" / "index.md").write_text("# Home\n\nEdited text.\n")
        assert wait_for(lambda: "Edited text." in fetch(page), 30), "no rebuild after the edit"
        time.sleep(3)  # no reload loop: nothing the plugin writes is watched
    finally:
        out = stop(proc)
    assert out.count("Building documentation") <= 3, out
    assert "local working copy" in out


def test_frozen_refuses_local_overrides(tmp_path: Path, cache_dir: Path) -> None:
    upstream, copy, commit = upstream_and_copy(tmp_path)
    host = make_host("mkdocs", tmp_path / "host", upstream.as_uri(), commit)
    result = host.build(env={"MILES_DOCS_LOCAL_DIFFUSION": str(copy), "MILES_DOCS_FROZEN": "1"})
    assert result.returncode != 0
    assert "MILES_DOCS_FROZEN is set" in result.output


def test_sphinx_preview_rebuilds_only_the_edited_page(tmp_path: Path, cache_dir: Path) -> None:
    upstream, copy, commit = upstream_and_copy(tmp_path)
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    port = free_port()
    # FORCE_COLOR as on CI systems: the summary read back from Sphinx must still be found
    env = {**os.environ, "MILES_DOCS_LOCAL_DIFFUSION": str(copy), "FORCE_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "miles_docs_plugin.cli", "serve",
                             str(host.docs), "--port", str(port)], cwd=host.root, env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        page = f"http://127.0.0.1:{port}/diffusion/guide.html"
        assert wait_for(lambda: "Guide text." in fetch(page)), "the server never came up"
        assert "__miles_docs__/build" in fetch(page)  # pages reload by themselves
        (copy / "docs" / "guide.md").write_text("# Guide\n\nEdited guide.\n")
        assert wait_for(lambda: "Edited guide." in fetch(page), 60), "no rebuild after the edit"
        time.sleep(2)
    finally:
        out = stop(proc)
    builds = [line for line in out.splitlines() if "built in" in line]
    assert len(builds) == 2, out  # the first build and one rebuild: no loop
    assert "0 added, 1 changed, 0 removed" in builds[1], out


@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_local_override_banner_and_no_pin_needed(engine: str, tmp_path: Path,
                                                  cache_dir: Path) -> None:
    upstream, copy, commit = upstream_and_copy(tmp_path)
    (copy / "docs" / "index.md").write_text("# Home\n\nUncommitted edit.\n")
    host = make_host(engine, tmp_path / "host", upstream.as_uri(), commit,
                     config=f"sources:\n  - name: diffusion\n    repo: {upstream.as_uri()}\n"
                            f"    local: {copy}\n")
    (host.config / "miles-docs.lock").unlink()  # a local override needs no pin
    write(host.root / ".keep", "")
    result = host.build()
    assert result.returncode == 0, result.output
    assert "local working copy" in result.output
    name = "diffusion/index.html"
    text = (host.out / name).read_text()
    assert "Uncommitted edit." in text and "local working copy" in text
