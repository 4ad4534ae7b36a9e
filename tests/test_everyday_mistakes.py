"""Everyday mistakes each have a way out: a bad environment value, a changed `repo:`, a
branch given to `update --ref`, a repository that does not exist, duplicate lock keys, a
fetch killed half-way."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from support import make_repo, write

from miles_docs_plugin.cli import main


def cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(list(args), stdout=out, stderr=err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def command(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", *args], cwd=cwd,
                          env={**os.environ, **env}, capture_output=True, text=True,
                          check=False, timeout=120)


def site_for(tmp_path: Path, repo: str, extra: str = "") -> Path:
    site = tmp_path / "site"
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n{extra}")
    return site


# -- environment -------------------------------------------------------------------------------


def test_git_timeout_with_a_unit_is_understood(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n"})
    site = site_for(tmp_path, up.as_uri())
    done = command("lock", cwd=site, env={"MILES_DOCS_GIT_TIMEOUT": "10m"})
    assert done.returncode == 0, done.stderr
    assert commit in (site / "miles-docs.lock").read_text()


def test_a_bad_environment_value_is_one_line_where_it_is_used(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    up = tmp_path / "up"
    make_repo(up, {"docs/index.md": "# Home\n"})
    site = site_for(tmp_path, up.as_uri())
    for name, value, says in (("MILES_DOCS_GIT_TIMEOUT", "soon", "is not a duration"),
                              ("MILES_DOCS_OFFLINE", "maybe", "is neither on nor off")):
        done = command("lock", cwd=site, env={name: value})
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{name}={value!r} {says}" in lines[0], done.stderr
    # importing the package never reads them
    done = subprocess.run([sys.executable, "-c", "import miles_docs_plugin.core.git, "
                           "miles_docs_plugin.mkdocs_plugin"], capture_output=True, text=True,
                          env={**os.environ, "MILES_DOCS_GIT_TIMEOUT": "soon"}, check=False)
    assert done.returncode == 0, done.stderr
