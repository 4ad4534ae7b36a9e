"""A throwaway cache writes nothing that will not be read: on CI without ``MILES_DOCS_CACHE``,
or with ``cache: false``, the checkout lives in a temporary folder removed when the build ends,
no scan cache is read or written, and the user's cache and state folders stay empty. Real
builds (MkDocs and Sphinx processes), a real upstream over ``file://``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import Site, lock_text, make_repo, mkdocs_build, run, sphinx_build, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.errors import FetchError
from miles_docs_plugin.core.pipeline import build

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000100e527de4d0000000049454e44ae426082")


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "upstream"
    commit = make_repo(repo, {
        "README.md": "# upstream\n",
        "docs/index.md": "# Home\n\nSee [the guide](guide.md).\n\n![logo](img/logo.png)\n",
        "docs/guide.md": "# Guide\n\nBack [home](index.md).\n",
        "docs/img/logo.png": PNG,
        "src/code.py": "print('not docs')\n",
    })
    return repo, commit


@pytest.fixture(autouse=True)
def _no_state_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """These builds are CI runners: no ``MILES_DOCS_STATE`` unless a test gives one (the
    builds' environment starts from the process's, where the suite sets one per test)."""
    monkeypatch.delenv("MILES_DOCS_STATE", raising=False)


def user_dirs(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose user folders (home, XDG cache and state, temp) are under
    ``tmp_path``, with no miles-docs or CI variable inherited."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MILES_DOCS_", "XDG_")) and k not in ("CI", "TMPDIR")}
    env.update({"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
                "XDG_STATE_HOME": str(tmp_path / "xdg-state"), "TMPDIR": str(tmp_path / "tmp"),
                **extra})
    for key in ("HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    return env


def files_below(*folders: Path) -> list[str]:
    return sorted(str(p) for folder in folders if folder.exists() for p in folder.rglob("*"))


def mkdocs_host(tmp_path: Path, upstream: tuple[Path, str], extra: str = "") -> Path:
    repo, commit = upstream
    site = tmp_path / "host"
    write(site / "mkdocs.yml", "site_name: Host\nplugins:\n  - miles-docs\n")
    write(site / "docs" / "index.md", "# Host\n")
    write(site / "miles-docs.yml",
          f"sources:\n  - name: up\n    repo: {repo.as_uri()}\n{extra}")
    write(site / "miles-docs.lock", lock_text({"up": (repo.as_uri(), commit)}))
    return site


def test_on_ci_without_a_cache_folder_nothing_is_kept(tmp_path: Path,
                                                      upstream: tuple[Path, str]) -> None:
    site = mkdocs_host(tmp_path, upstream)
    env = user_dirs(tmp_path, CI="true")
    done = mkdocs_build(site, env=env)
    assert done.returncode == 0, done.output
    # the pages and the image were read from the temporary checkout while it existed
    built = Site(site / "site")
    assert "Guide" in built.page("up/guide/index.html").text
    assert (site / "site" / "up" / "img" / "logo.png").read_bytes() == PNG
    assert "fetched" in done.output
    # ... and nothing is left: no cache, no scan cache, no key, no temporary folder
    assert files_below(tmp_path / "home", tmp_path / "xdg-cache", tmp_path / "xdg-state",
                       tmp_path / "tmp") == []
    # the same build outside CI keeps its cache in the user's folders, as before
    env["CI"] = "false"  # the build helper starts from os.environ, which CI may set
    again = mkdocs_build(site, env=env)
    assert again.returncode == 0, again.output
    cache = tmp_path / "xdg-cache" / "miles-docs"
    assert list((cache / "checkouts").glob("*/*/manifest.json"))
    assert list((cache / "scans").glob("*.json"))
    assert (tmp_path / "xdg-state" / "miles-docs" / "cache.key").is_file()


def test_cache_false_keeps_nothing_in_sphinx(tmp_path: Path, upstream: tuple[Path, str]) -> None:
    repo, commit = upstream
    docs = tmp_path / "host" / "docs"
    write(docs / "conf.py", 'project = "Host"\nextensions = ["myst_parser", '
          '"miles_docs_plugin.sphinx_ext"]\nexclude_patterns = ["_build"]\n')
    write(docs / "index.md", "# Host\n\n```{toctree}\n```\n")
    write(docs / "miles-docs.yml",
          f"cache: false\nsources:\n  - name: up\n    repo: {repo.as_uri()}\n")
    write(docs / "miles-docs.lock", lock_text({"up": (repo.as_uri(), commit)}))
    # not on CI, and MILES_DOCS_CACHE set: `cache: false` still keeps nothing
    env = user_dirs(tmp_path, MILES_DOCS_CACHE=str(tmp_path / "named-cache"))
    out = tmp_path / "out"
    done = sphinx_build(docs, out, env=env)
    assert done.returncode == 0, done.output
    assert "Guide" in (out / "up" / "guide.html").read_text("utf-8")
    assert (out / "_images" / "logo.png").read_bytes() == PNG
    assert files_below(tmp_path / "home", tmp_path / "xdg-cache", tmp_path / "xdg-state",
                       tmp_path / "tmp", tmp_path / "named-cache") == []


def test_on_ci_a_named_cache_keeps_checkouts_and_scans_need_the_state_folder(
        tmp_path: Path, upstream: tuple[Path, str]) -> None:
    """The scan cache's key lives in the state folder, which a CI runner does not keep: a scan
    file written there could never be read by the next job, so it is not written."""
    site = mkdocs_host(tmp_path, upstream)
    named = tmp_path / "named-cache"
    env = user_dirs(tmp_path, CI="1", MILES_DOCS_CACHE=str(named))
    done = mkdocs_build(site, env=env)
    assert done.returncode == 0, done.output
    assert list((named / "checkouts").glob("*/*/manifest.json"))
    assert not (named / "scans").exists()
    assert files_below(tmp_path / "xdg-state", tmp_path / "xdg-cache", tmp_path / "tmp") == []
    env["MILES_DOCS_STATE"] = str(tmp_path / "kept-state")
    again = mkdocs_build(site, env=env)
    assert again.returncode == 0, again.output
    assert "cached" in again.output
    assert list((named / "scans").glob("*.json"))
    assert (tmp_path / "kept-state" / "cache.key").is_file()


def test_a_throwaway_checkout_is_verified_against_the_pin(
        tmp_path: Path, upstream: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, commit = upstream
    site = mkdocs_host(tmp_path, upstream)
    write(site / "miles-docs.yml",
          f"cache: false\nsources:\n  - name: up\n    repo: {repo.as_uri()}\n")
    for key, value in user_dirs(tmp_path).items():
        monkeypatch.setenv(key, value)
    result = build(load_config(site / "miles-docs.yml"), Engine())
    cache = result.ctx.cache
    assert cache.throwaway and not cache.root.is_relative_to(tmp_path)
    assert result.sections["up"].checkout.root.is_relative_to(cache.root)
    assert result.sections["up"].checkout.commit == commit
    assert files_below(tmp_path / "xdg-cache", tmp_path / "xdg-state") == []
    # a pin the repository does not have is refused, as with a kept cache
    write(site / "miles-docs.lock", lock_text({"up": (repo.as_uri(), "1" * 40)}))
    with pytest.raises(FetchError, match="1111111"):
        build(load_config(site / "miles-docs.yml"), Engine())


def test_the_throwaway_folder_goes_when_the_process_ends(tmp_path: Path) -> None:
    env = user_dirs(tmp_path)
    code = ("from miles_docs_plugin.core.source.cache import Cache\n"
            "c = Cache.at(None, keep=False)\n"
            "(c.root / 'checkouts').mkdir()\n"
            "print(c.root, Cache.at(None, keep=False).root == c.root)\n")
    done = run([sys.executable, "-c", code], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.output
    root, same = done.stdout.split()
    assert same == "True" and Path(root).parent == tmp_path / "tmp"
    assert not Path(root).exists()


def test_a_killed_build_s_throwaway_folder_goes_with_the_next_build(tmp_path: Path) -> None:
    """A process killed before its exit handlers ran (kill -9, a cancelled CI job on a kept
    runner) leaves its throwaway folder; the next process that makes one removes it, and
    never one whose process still runs."""
    env = user_dirs(tmp_path)
    make = ("import os, signal, sys\n"
            "from miles_docs_plugin.core.source.cache import Cache\n"
            "root = Cache.at(None, keep=False).root\n"
            "(root / 'checkouts').mkdir()\n"
            "print(root, flush=True)\n")
    killed = run([sys.executable, "-c", make + "os.kill(os.getpid(), signal.SIGKILL)\n"],
                 cwd=tmp_path, env=env)
    assert killed.returncode == -9, killed.output
    stale = Path(killed.stdout.split()[0])
    assert (stale / "checkouts").is_dir()
    live = subprocess.Popen([sys.executable, "-c", make + "sys.stdin.read()\n"], cwd=tmp_path,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout is not None
        running = Path(live.stdout.readline().strip())
        done = run([sys.executable, "-c", make], cwd=tmp_path, env=env)
        assert done.returncode == 0, done.output
        assert not stale.exists() and (running / "checkouts").is_dir()
    finally:
        assert live.stdin is not None
        live.stdin.close()
        live.wait(30)
    assert not running.exists()
    assert list((tmp_path / "tmp").iterdir()) == []  # owner files went with their folders


def test_status_on_ci_writes_nothing_either(tmp_path: Path, upstream: tuple[Path, str]) -> None:
    """``miles-docs status`` looks where the builds look: on CI with no cache folder, a
    throwaway cache, so it creates nothing in the user's folders."""
    site = mkdocs_host(tmp_path, upstream)
    env = user_dirs(tmp_path, CI="true")
    done = run([sys.executable, "-m", "miles_docs_plugin.cli", "status"], cwd=site, env=env)
    assert done.returncode == 0, done.output
    assert "  pin " in done.output, done.output
    assert files_below(tmp_path / "home", tmp_path / "xdg-cache", tmp_path / "xdg-state",
                       tmp_path / "tmp") == []


@pytest.mark.parametrize("xdg", [True, False])
def test_the_user_folders_are_platformdirs_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                xdg: bool) -> None:
    """Worked out without platformdirs on Linux (its import costs every build 2-3 ms), and
    the same folders it gives: the XDG variable when it is set, else under the home folder."""
    import platformdirs

    from miles_docs_plugin.core.env import user_folder

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for variable in ("XDG_CACHE_HOME", "XDG_STATE_HOME"):
        if xdg:
            monkeypatch.setenv(variable, str(tmp_path / variable.lower()))
        else:
            monkeypatch.delenv(variable, raising=False)
    assert user_folder("cache") == platformdirs.user_cache_dir("miles-docs", appauthor=False)
    assert user_folder("state") == platformdirs.user_state_dir("miles-docs", appauthor=False)
    assert user_folder("cache").startswith(str(tmp_path))


def test_a_build_with_the_default_folders_does_not_import_platformdirs(
        tmp_path: Path, upstream: tuple[Path, str]) -> None:
    """Two real builds (cold, then warm) that keep their cache, scan cache, key and entry
    points in the user's folders, as on a developer's machine."""
    site = mkdocs_host(tmp_path, upstream)
    env = user_dirs(tmp_path, CI="false")
    probe = ("import sys\nfrom mkdocs.__main__ import cli\n"
             "try:\n    cli(['build', '-q'])\nexcept SystemExit as e:\n    code = e.code\n"
             "print('platformdirs' in sys.modules, code)\n")
    for _ in range(2):
        done = run([sys.executable, "-c", probe], cwd=site, env=env)
        assert done.returncode == 0, done.output
        assert done.output.split()[-2:] == ["False", "0"], done.output
    assert list((tmp_path / "xdg-cache" / "miles-docs" / "checkouts").glob("*/*/manifest.json"))
    assert (tmp_path / "xdg-state" / "miles-docs" / "cache.key").is_file()
    assert (tmp_path / "xdg-state" / "miles-docs" / "entry-points.json").is_file()
