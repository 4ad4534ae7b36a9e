"""The MkDocs adapter around the build: warm and cold caches, lock and mount errors, the CLI.

The page-by-page checks of the corpus build (v1 and v2, both engines) are in test_parity.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from hosts import make_host
from support import V1, V2, Site, git, mkdocs_build


def test_warm_cache_needs_no_upstream_and_no_git(corpus_repo: Path, host: Path,
                                                 cache_dir: Path, tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    shutil.copytree(corpus_repo, upstream)
    make_host("mkdocs", host, upstream.as_uri(), V2)
    assert mkdocs_build(host).returncode == 0

    shutil.rmtree(upstream)  # the upstream is gone ...
    bin_dir = tmp_path / "bin"  # ... and so is git: the warm build must not call it
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\necho 'git was called' >&2\nexit 99\n")
    (bin_dir / "git").chmod(0o755)
    import os

    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    warm = mkdocs_build(host, env=env)
    assert warm.returncode == 0, warm.output
    assert "git was called" not in warm.output
    assert "cached" in warm.output
    assert Site(host / "site").broken("diffusion") == []


def test_cold_cache_without_upstream_names_repo_and_commit(host: Path, cache_dir: Path,
                                                           tmp_path: Path) -> None:
    missing = (tmp_path / "nowhere").as_uri()
    make_host("mkdocs", host, missing, V2)
    result = mkdocs_build(host)
    assert result.returncode != 0
    assert V2 in result.output
    assert "nowhere" in result.output
    assert "Traceback" not in result.output
    assert git(host, "status", "--porcelain") == ""


def test_missing_lock_entry_says_which_command_writes_it(corpus_repo: Path, host: Path,
                                                         cache_dir: Path) -> None:
    make_host("mkdocs", host, corpus_repo.as_uri(), V2)
    (host / "miles-docs.lock").write_text("version: 1\nsources: {}\n")
    result = mkdocs_build(host)
    assert result.returncode != 0
    assert "no pin for source 'diffusion'" in result.output
    assert "miles-docs lock" in result.output


def test_mount_collision_stops_and_overwrites_nothing(corpus_repo: Path, host: Path,
                                                      cache_dir: Path) -> None:
    make_host("mkdocs", host, corpus_repo.as_uri(), V2)
    own = host / "docs" / "diffusion" / "index.md"
    own.parent.mkdir()
    own.write_text("# The host's own page\n")
    result = mkdocs_build(host)
    assert result.returncode != 0
    assert "mounts at 'diffusion'" in result.output
    assert "docs/diffusion/index.md" in result.output
    assert own.read_text() == "# The host's own page\n"


def test_build_via_mkdocs_cli_entry_point(corpus_repo: Path, host: Path, cache_dir: Path) -> None:
    """The plugin is found through its `mkdocs.plugins` entry point by the `mkdocs` script."""
    make_host("mkdocs", host, corpus_repo.as_uri(), V1)
    exe = Path(sys.executable).parent / "mkdocs"
    assert exe.exists(), "mkdocs console script not installed"
    proc = subprocess.run([str(exe), "build", "--strict"], cwd=host, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "diffusion ← radixark/miles_diffusion@0d0689c (22 pages" in proc.stderr
