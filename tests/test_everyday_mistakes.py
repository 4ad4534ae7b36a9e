"""Everyday mistakes each have a way out: a bad environment value, a changed `repo:`, a
branch given to `update --ref`, a repository that does not exist, duplicate lock keys, a
fetch killed half-way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import git, lock_text, make_repo, write
from test_cli import cli

from miles_docs_plugin.core.errors import LockError
from miles_docs_plugin.core.source.lock import load_lock


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
    done = subprocess.run([sys.executable, "-c", "import miles_docs_plugin.core.source.git, "
                           "miles_docs_plugin.mkdocs_plugin"], capture_output=True, text=True,
                          env={**os.environ, "MILES_DOCS_GIT_TIMEOUT": "soon"}, check=False)
    assert done.returncode == 0, done.stderr


# -- a changed `repo:` -------------------------------------------------------------------------


def _mirrored(tmp_path: Path) -> tuple[Path, Path, str]:
    """An upstream and a mirror of it (same commits, another URL)."""
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n"})
    mirror = tmp_path / "mirror"
    git(tmp_path, "clone", "-q", "--mirror", str(up), str(mirror))
    return up, mirror, commit


def test_update_re_pins_a_changed_repo_and_status_shows_the_mismatch(
        tmp_path: Path, cache_dir: Path) -> None:
    up, mirror, commit = _mirrored(tmp_path)
    site = site_for(tmp_path, up.as_uri())
    write(site / "miles-docs.lock", lock_text({"diffusion": (up.as_uri(), commit)}))
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {mirror.as_uri()}\n")
    code, out, err = cli("status", cwd=site)
    assert code == 0, err
    assert "MISMATCH" in out and up.as_uri() in out and mirror.as_uri() in out, out
    code, out, err = cli("check", cwd=site)
    assert code == 1 and "miles-docs update diffusion" in out, out
    code, out, err = cli("update", "diffusion", cwd=site)
    assert code == 0, err
    assert "repo changed" in out and "already at" not in out, out
    assert load_lock(site / "miles-docs.lock").entries["diffusion"].repo == mirror.as_uri()
    code, out, err = cli("status", cwd=site)
    assert "MISMATCH" not in out and "up to date" in out, out
    code, out, err = cli("check", cwd=site)
    assert code == 0, out


def test_lock_re_pins_a_source_whose_repo_changed(tmp_path: Path, cache_dir: Path) -> None:
    up, mirror, commit = _mirrored(tmp_path)
    site = site_for(tmp_path, mirror.as_uri())
    write(site / "miles-docs.lock", lock_text({"diffusion": (up.as_uri(), commit)}))
    code, out, err = cli("lock", cwd=site)
    assert code == 0, err
    assert "repo changed" in out and "(kept)" not in out, out
    entry = load_lock(site / "miles-docs.lock").entries["diffusion"]
    assert (entry.repo, entry.commit) == (mirror.as_uri(), commit)


# -- update --ref ------------------------------------------------------------------------------


def test_update_ref_records_the_ref_and_status_says_it_differs(tmp_path: Path,
                                                               cache_dir: Path) -> None:
    up = tmp_path / "up"
    first = make_repo(up, {"docs/index.md": "# Home\n"})
    git(up, "checkout", "-q", "-b", "docs/x")
    branch = make_repo(up, {"docs/index.md": "# Home on the branch\n"})
    git(up, "checkout", "-q", "main")
    site = site_for(tmp_path, up.as_uri())
    write(site / "miles-docs.lock", lock_text({"diffusion": (up.as_uri(), first)}))
    code, out, err = cli("update", "--ref", "docs/x", cwd=site)
    assert code == 0, err
    entry = load_lock(site / "miles-docs.lock").entries["diffusion"]
    assert (entry.ref, entry.commit) == ("docs/x", branch)
    code, out, err = cli("status", cwd=site)
    assert "the pin follows docs/x, the config says main" in out, out
    assert "docs/x: up to date" in out, out  # compared with the branch it follows, not main
    code, out, err = cli("update", cwd=site)  # back to the config's ref, and it says so
    assert "the lock follows docs/x, the config says main" in out, out
    entry = load_lock(site / "miles-docs.lock").entries["diffusion"]
    assert (entry.ref, entry.commit) == ("main", first)


# -- a repository that does not exist ----------------------------------------------------------


def test_a_missing_repository_shows_what_git_said(tmp_path: Path, cache_dir: Path) -> None:
    site = site_for(tmp_path, (tmp_path / "nowhere").as_uri())
    code, _out, err = cli("lock", cwd=site)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "does not appear to be a git repository" in lines[0], err
    assert "the repository exists" in lines[0], err


def test_git_out_of_disk_space_is_named() -> None:
    from miles_docs_plugin.core.source.git import explain  # git's own words, as it prints them

    said = ("error: unable to write file .git/objects/pack/tmp_pack_x: No space left on device\n"
            "fatal: unpack-objects failed\n")
    message, hint = explain(said)
    assert message.startswith("out of disk space (error: unable to write file")
    assert hint and "MILES_DOCS_CACHE" in hint


# -- the lock file -----------------------------------------------------------------------------


def test_duplicate_source_keys_in_the_lock_are_refused(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n"})
    other = make_repo(up, {"docs/index.md": "# Home, later\n"})
    site = site_for(tmp_path, up.as_uri())
    write(site / "miles-docs.lock", lock_text({"diffusion": (up.as_uri(), commit)})
          + f"  diffusion:\n    repo: {up.as_uri()}\n    ref: main\n    commit: {other}\n")
    for args in (("update",), ("status",), ("check",)):
        code, out, err = cli(*args, cwd=site)
        assert code == (1 if args == ("check",) else 2), (args, out, err)
        said = out + err  # check reports it as a finding
        assert "miles-docs.lock:7" in said and "duplicate key 'diffusion'" in said, said
    with pytest.raises(LockError, match="duplicate key 'diffusion' \\(first on line 3\\)"):
        load_lock(site / "miles-docs.lock")


# -- a fetch killed half-way -------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _working_in(folder: Path) -> list[int]:
    """Processes whose working directory is inside ``folder``."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if entry.name.isdigit() and cwd.startswith(str(folder)):
            pids.append(int(entry.name))
    return pids


def test_a_killed_fetch_is_listed_and_pruned_with_its_git(tmp_path: Path,
                                                          cache_dir: Path) -> None:
    repo = "ssh://git.example.invalid/owner/docs.git"
    site = site_for(tmp_path, repo)
    write(site / "miles-docs.lock", lock_text({"diffusion": (repo, "1" * 40)}))
    # the "network": an ssh that never answers, so git is still fetching when the build dies
    never = f"{sys.executable} -c 'import time; time.sleep(120)'"
    build = subprocess.Popen([sys.executable, "-m", "miles_docs_plugin.cli", "check"], cwd=site,
                             env={**os.environ, "GIT_SSH_COMMAND": never},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tmp = cache_dir / "tmp"
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        waiting = False  # git fetch is waiting on the "network"
        while not waiting and time.monotonic() < deadline:
            time.sleep(0.2)
            pids = _working_in(tmp) if tmp.is_dir() else []
            waiting = any(_comm(pid).startswith("python") for pid in pids)
        assert waiting, "the fetch never started"
        time.sleep(0.2)
        pids = _working_in(tmp)
        build.kill()  # kill -9
        build.wait()
        gits = [pid for pid in pids if _comm(pid).startswith("git")]
        assert any(_alive(pid) for pid in gits), pids  # git outlived its build
        code, out, err = cli("cache", "list", cwd=site)
        assert code == 0, err
        assert "left by killed fetches" in out and "git still running" in out, out
        code, out, err = cli("cache", "prune", cwd=site)
        assert code == 0, err
        assert "left by a killed fetch" in out and "stopped git" in out, out
        assert list(tmp.iterdir()) == []
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in gits) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in gits)
        code, out, err = cli("cache", "list", cwd=site)
        assert "left by killed fetches" not in out
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
        for pid in set(pids) | set(_working_in(tmp)):  # only what this test started
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_half_deleted_invalid_entry_is_a_leftover(tmp_path: Path, cache_dir: Path) -> None:
    site = site_for(tmp_path, "https://github.com/o/r.git")
    write(cache_dir / "tmp" / "invalid-abc-1-2" / "files" / "page.md", "x" * 1000)
    code, out, _err = cli("cache", "list", cwd=site)
    assert "tmp/invalid-abc-1-2" in out, out
    code, out, _err = cli("cache", "prune", cwd=site)
    assert code == 0 and "removed tmp/invalid-abc-1-2" in out, out
    assert not (cache_dir / "tmp" / "invalid-abc-1-2").exists()


def test_the_next_fetch_removes_what_a_killed_one_left(tmp_path: Path, cache_dir: Path) -> None:
    up = tmp_path / "up"
    commit = make_repo(up, {"docs/index.md": "# Home\n"})
    site = site_for(tmp_path, up.as_uri())
    write(site / "miles-docs.lock", lock_text({"diffusion": (up.as_uri(), commit)}))
    left = cache_dir / "tmp" / "fetch-0123456789ab-dead"
    write(left / "repo" / "objects.pack", "x" * 1000)
    write(cache_dir / "tmp" / "fetch-0123456789ab-dead.owner", "999999\n")  # nobody holds it
    code, out, err = cli("check", cwd=site)
    assert code == 0, out + err
    assert sorted(p.name for p in (cache_dir / "tmp").iterdir()) == []
