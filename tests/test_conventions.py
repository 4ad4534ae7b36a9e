"""The engines' own conventions: Sphinx configuration errors, sphinx-autobuild."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from hosts import make_host
from support import make_repo, write
from test_serve import fetch, free_port, stop, upstream_and_copy, wait_for


def test_sphinx_lock_problems_are_configuration_errors(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    commit = make_repo(upstream, {"docs/index.md": "# Home\n"})
    host = make_host("sphinx", tmp_path / "host", upstream.as_uri(), commit)
    write(host.config / "miles-docs.lock", "version: 1\nsources: {}\n")
    result = host.build()
    assert result.returncode == 2
    assert "Configuration error" in result.output and "Extension error" not in result.output
    assert "[miles-docs] " in result.output and "no pin for source 'diffusion'" in result.output
    assert "miles-docs lock" in result.output  # what to do


def test_sphinx_autobuild_with_the_documented_arguments(tmp_path: Path, cache_dir: Path) -> None:
    """README: ``sphinx-autobuild docs _build/html --watch ../miles_diffusion/docs
    --ignore "*/diffusion/*"``, run from the host's folder, with a local working copy."""
    _upstream, copy, _commit = upstream_and_copy(tmp_path)
    host = make_host("sphinx", tmp_path / "host", _upstream.as_uri(), _commit)
    port = free_port()
    env = {**os.environ, "MILES_DOCS_LOCAL_DIFFUSION": str(copy)}
    docs = os.path.relpath(host.docs, host.root)
    watch = os.path.relpath(copy / "docs", host.root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sphinx_autobuild", docs, "_build/html", "--watch", watch,
         "--ignore", "*/diffusion/*", "--host", "127.0.0.1", "--port", str(port)],
        cwd=host.root, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        page = f"http://127.0.0.1:{port}/diffusion/guide.html"
        assert wait_for(lambda: "Guide text." in fetch(page), 90), "the server never came up"
        (copy / "docs" / "guide.md").write_text("# Guide\n\nEdited guide.\n")
        assert wait_for(lambda: "Edited guide." in fetch(page), 60), "no rebuild after the edit"
        time.sleep(3)  # the generated folder is ignored: no rebuild loop
    finally:
        out = stop(proc)
    builds = out.count("Running Sphinx")
    assert builds == 2, out  # the first build and one rebuild
