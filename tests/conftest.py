from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import CORPUS, V1, V2, git

collect_ignore = ["support.py"]


@pytest.fixture(scope="session")
def corpus_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real miles_diffusion docs as a two-commit repository (tags v1, v2)."""
    script = CORPUS / "make_upstream.sh"
    if not script.exists():
        pytest.fail(f"the corpus is missing: {script} (CI provides ../shared next to the "
                    "clone; elsewhere set MILES_DOCS_CORPUS to its corpus folder)")
    target = tmp_path_factory.mktemp("corpus") / "miles_diffusion"
    out = subprocess.run(["bash", str(script), str(target)], capture_output=True, text=True,
                         check=True).stdout
    assert f"v1 {V1}" in out and f"v2 {V2}" in out, out
    return target


@pytest.fixture(scope="session", autouse=True)
def _session_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``MILES_DOCS_STATE`` for what runs before a test's own (module fixtures' builds)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MILES_DOCS_STATE", str(tmp_path_factory.mktemp("state")))
        yield


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The scan cache's key folder (``MILES_DOCS_STATE``) of this test: builds never write the
    key into the user's state folder, and keep their scan cache on CI as on a workstation (a
    test of what a CI runner keeps gives its builds their own environment)."""
    path = tmp_path / "state"
    monkeypatch.setenv("MILES_DOCS_STATE", str(path))
    return path


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh checkout cache for this test (``MILES_DOCS_CACHE``)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("MILES_DOCS_CACHE", str(path))
    for var in ("MILES_DOCS_OFFLINE", "MILES_DOCS_FROZEN", "MILES_DOCS_GIT_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    return path


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Path]:
    """An empty host repository (git), so tests can check that a build leaves it clean."""
    path = tmp_path / "host"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    yield path
