"""The `miles-docs` command (lock, update, status, check, cache, init) on real repositories."""

from __future__ import annotations

import io
import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support import CORPUS, V1, V2, git, lock_text, make_repo, write

from miles_docs_plugin.cli import main

ADDED_PAGES = ["developer/fa3-validation.md", "fsdp_model_roles.md",
               "models/h3/lora_sft_guide.md", "models/h3/ref2va_sft.md", "models/krea/krea2.md",
               "models/qwen-image/qwen-image-21.md", "wan_controlnet.md"]
CHANGED_PAGES = {  # the corpus README's table: lines added / removed
    "index.md": (4, 3), "advanced/deterministic.md": (31, 17),
    "advanced/dtype-control.md": (1, 0), "developer/contributor-guide.md": (3, 1),
    "models/h3/h3.md": (124, 57), "models/ltx/ltx2.md": (2, 2), "models/wan/wan2-2.md": (1, 1),
    "user-guide/customization.md": (4, 6), "user-guide/launch-script.md": (4, 5),
    "user-guide/recipe-verification.md": (10, 6), "user-guide/rewards.md": (85, 5),
}
ADDED_IMAGES = ["h3/lora_forest_fire.webp", "h3/lora_incense.webp", "h3/lora_powder_keg.webp",
                "h3/lora_smoke_clip.webp", "h3/sft_loss.png", "krea2/async_ocr_reward_mean.png",
                "qwen-image/log_prob_mean_abs_diff.png", "qwen-image/reward_mean.png"]


def cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import os

    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(list(args), stdout=out, stderr=err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def config_dir(tmp_path: Path, repo: str, commit: str | None = None, extra: str = "") -> Path:
    site = tmp_path / "site"
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo}\n{extra}")
    if commit:
        write(site / "miles-docs.lock", lock_text({"diffusion": (repo, commit)}))
    return site


def test_update_prints_the_docs_changelog_and_rewrites_only_the_pin_lines(
        corpus_repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V1)
    lock_before = (site / "miles-docs.lock").read_text()
    code, out, err = cli("update", "--ref", "v2", cwd=site)
    assert code == 0, err
    assert f"diffusion: {V1[:7]} → {V2[:7]}" in out
    added = [line.split()[1] for line in out.splitlines() if line.startswith("    + ")
             and line.split()[1].endswith(".md")]
    assert added == ADDED_PAGES
    changed = {line.split()[1]: line for line in out.splitlines() if line.startswith("    ~ ")}
    assert set(changed) == set(CHANGED_PAGES)
    for page, (plus, minus) in CHANGED_PAGES.items():
        assert f"(+{plus} -{minus})" in changed[page], changed[page]
    images = [line.split()[1].removeprefix("assets/images/") for line in out.splitlines()
              if line.startswith("    + assets/")]
    assert images == ADDED_IMAGES
    assert "pages removed (0)" in out and "assets removed (0)" in out
    lock_after = (site / "miles-docs.lock").read_text()
    diff = [(a, b) for a, b in zip(lock_before.splitlines(), lock_after.splitlines(), strict=True)
            if a != b]
    # the pin and the ref it was resolved from; nothing else
    assert diff == [("    ref: main", "    ref: v2"), (f"    commit: {V1}", f"    commit: {V2}")]
    assert "fetching" in err  # progress on stderr


def test_dry_run_writes_nothing(corpus_repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V1)
    before = (site / "miles-docs.lock").read_text()
    code, out, _ = cli("update", "--ref", "v2", "--dry-run", cwd=site)
    assert code == 0 and "dry run" in out
    assert (site / "miles-docs.lock").read_text() == before


def test_status_reports_the_pin_behind_main(corpus_repo: Path, tmp_path: Path,
                                            cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V1)
    code, out, err = cli("status", cwd=site)
    assert code == 0, err
    assert f"pin     {V1[:7]}" in out and "(not cached)" in out
    assert "main: 1 commit ahead of the pin" in out
    assert "pages: 7 added, 11 changed, 0 removed; assets: 8 added" in out
    assert "local   not active" in out
    cli("check", cwd=site)  # fetches the pin
    code, out, _ = cli("status", cwd=site)
    assert "2026-08-18  (cached)" in out


def test_status_says_when_the_remote_is_unreachable(tmp_path: Path, cache_dir: Path) -> None:
    site = config_dir(tmp_path, (tmp_path / "gone").as_uri(), V1)
    code, out, _ = cli("status", cwd=site)
    assert code == 0
    assert "main: remote not reachable" in out


def test_lock_adds_missing_pins_and_keeps_existing_ones(corpus_repo: Path, tmp_path: Path,
                                                         cache_dir: Path) -> None:
    repo = corpus_repo.as_uri()
    site = config_dir(tmp_path, repo, None,
                      f"  - name: other\n    repo: {repo}\n    ref: v1\n    mount: other\n")
    write(site / "miles-docs.lock", lock_text({"diffusion": (repo, V1)}))
    code, out, _ = cli("lock", cwd=site)
    assert code == 0
    assert f"diffusion: pinned at {V1[:7]} (kept)" in out
    assert f"other: pinned v1 at {V1[:7]}" in out
    text = (site / "miles-docs.lock").read_text()
    assert text.startswith(lock_text({"diffusion": (repo, V1)}))
    assert f"  other:\n    repo: {repo}\n    ref: v1\n    commit: {V1}\n" in text


def test_check_exit_codes_and_json(tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "up"
    commit = make_repo(upstream, {"docs/index.md": "# I\n\n[ok](a.md) [broken](nope.md)\n",
                                  "docs/a.md": "# A\n"})
    site = config_dir(tmp_path, upstream.as_uri(), commit)
    code, out, _ = cli("check", cwd=site)
    assert code == 1
    assert "docs/index.md:3: [link] nope.md matches no page" in out
    code, out, _ = cli("check", "--format", "json", cwd=site)
    data = json.loads(out)
    assert code == 1 and not data["ok"]
    assert data["findings"][0]["line"] == 3 and data["findings"][0]["code"] == "link"
    assert data["sources"]["diffusion"]["pages"] == 2
    fixed = make_repo(upstream, {"docs/index.md": "# I\n\n[ok](a.md)\n"})
    write(site / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), fixed)}))
    assert cli("check", cwd=site)[0] == 0
    write(site / "miles-docs.yml", "sources:\n  - name: diffusion\n    rep: x\n")
    code, _, err = cli("check", cwd=site)
    assert code == 2 and "did you mean 'repo'" in err and "Traceback" not in err


def test_check_reports_lock_problems_and_mount_collisions(corpus_repo: Path, tmp_path: Path,
                                                          cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), None)
    write(site / "miles-docs.lock", lock_text({"diffusion": ("https://elsewhere/x.git", V1)}))
    code, out, _ = cli("check", cwd=site)
    assert code == 1 and "[lock]" in out and "pinned for repo" in out
    write(site / "miles-docs.lock", lock_text({"diffusion": (corpus_repo.as_uri(), V1)}))
    write(site / "mkdocs.yml", "site_name: x\ndocs_dir: pages\n")
    write(site / "pages" / "diffusion" / "index.md", "# mine\n")
    code, out, _ = cli("check", cwd=site)
    assert code == 1 and "[mount] mount 'diffusion' collides with the host folder" in out


def test_errors_are_one_line_without_traceback(tmp_path: Path, cache_dir: Path) -> None:
    code, _, err = cli("status", cwd=tmp_path)
    assert code == 2
    assert err.strip().count("\n") == 0 and "miles-docs init" in err
    proc = subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", "nope"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["init", "lock", "update", "status", "check", "cache",
                                     "serve"])
def test_help_everywhere(command: str, tmp_path: Path) -> None:
    code, out, _ = cli(command, "--help", cwd=tmp_path)
    assert code == 0 and "usage: miles-docs" in out


def test_cache_list_and_prune(corpus_repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V1)
    cli("update", "--ref", "v2", "--dry-run", cwd=site)  # caches v1 and v2
    code, out, _ = cli("cache", "list", cwd=site)
    assert code == 0 and f"@{V1[:7]}" in out and f"@{V2[:7]}" in out
    # the total is what is on disk: files the two entries share by hard links count once
    rows = re.findall(r"^  \S.*?(\d+\.\d) MB  (\S+/\S+)$", out, re.M)
    assert len(rows) == 2, out
    inodes: dict[tuple[int, int], int] = {}
    for _, name in rows:
        (entry,) = [p for p in cache_dir.rglob(name.split("/")[1]) if p.parent.name ==
                    name.split("/")[0]]
        for path in entry.rglob("*"):
            st = path.lstat()
            if stat.S_ISREG(st.st_mode):
                inodes[(st.st_dev, st.st_ino)] = st.st_size
    listed = [size for size, _ in rows]
    total = re.search(r"^  total (\d+\.\d) MB on disk", out, re.M)
    assert total and float(total.group(1)) == round(sum(inodes.values()) / 1e6, 1), out
    assert sum(map(float, listed)) > float(total.group(1)) and "files that entries share" in out
    code, out, _ = cli("cache", "prune", cwd=site)
    assert code == 0 and "1 entry removed, 1 pinned kept" in out
    assert f"@{V2[:7]}" not in cli("cache", "list", cwd=site)[1]
    assert cli("cache", "prune", "--all", cwd=site)[0] == 0
    assert f"@{V1[:7]}" not in cli("cache", "list", cwd=site)[1]


def test_init_writes_a_commented_config_and_the_lock(corpus_repo: Path, tmp_path: Path,
                                                     cache_dir: Path) -> None:
    site = tmp_path / "site"
    write(site / "mkdocs.yml", "site_name: x\n")
    code, out, err = cli("init", "--repo", corpus_repo.as_uri(), "--name", "diffusion",
                         cwd=site)
    assert code == 0, err
    text = (site / "miles-docs.yml").read_text()
    assert "# " in text and f"repo: {corpus_repo.as_uri()}" in text
    assert f"commit: {V2}" in (site / "miles-docs.lock").read_text()
    assert "add `- miles-docs` under `plugins:`" in out
    columns = {line.index("# ", 6) for line in text.splitlines() if line.startswith("    ")
               and "# " in line[6:]}
    assert len(columns) == 1, text  # the comments line up
    write(site / "mkdocs.yml", "site_name: x\nplugins:\n  - miles-docs\n")
    code, out, _ = cli("init", "--repo", corpus_repo.as_uri(), "--force", cwd=site)
    assert code == 0 and "mkdocs.yml already uses miles-docs" in out
    code, _, err = cli("init", "--repo", "x", cwd=site)
    assert code == 2 and "exists already" in err
    assert cli("init", "--repo", "x", cwd=tmp_path)[0] == 2  # no site here


def test_corpus_readme_agrees(corpus_repo: Path) -> None:
    assert "(7 pages and 8 images added, 11 pages modified)" in (CORPUS / "README.md").read_text()
    assert git(corpus_repo, "rev-parse", "v2") == V2


def test_update_and_status_report_navigation_changes(tmp_path: Path, cache_dir: Path) -> None:
    """A Mintlify upstream moves a page to another group and drops one from its docs.json."""
    repo = tmp_path / "up"
    pages = {f"docs/{p}.mdx": f"# {p}\n" for p in ("a", "b", "c", "d")}
    nav_v1 = {"navigation": {"groups": [{"group": "Start", "pages": ["a", "b", "d"]},
                                        {"group": "More", "pages": ["c"]}]}}
    nav_v2 = {"navigation": {"groups": [{"group": "Start", "pages": ["a"]},
                                        {"group": "More", "pages": ["c", "b"]}]}}
    old = make_repo(repo, {**pages, "docs/docs.json": json.dumps(nav_v1)})
    make_repo(repo, {"docs/docs.json": json.dumps(nav_v2)}, "move b, drop d")
    site = config_dir(tmp_path, repo.as_uri(), old)
    code, out, err = cli("status", cwd=site)
    assert code == 0, err
    assert "nav: moved b.mdx: Start → More" in out
    assert "nav: left the nav: d.mdx" in out
    code, out, err = cli("update", "--dry-run", cwd=site)
    assert code == 0, err
    assert "moved b.mdx: Start → More" in out
    assert "out d.mdx" in out
    assert "a.mdx" not in out  # it stayed where it was


def test_status_reports_navigation_changes_of_an_upstream_mkdocs_yml(
        tmp_path: Path, cache_dir: Path) -> None:
    """The nav of an MkDocs upstream lives in mkdocs.yml, outside the docs folder."""
    repo = tmp_path / "up"
    old = make_repo(repo, {"docs/index.md": "# Home\n", "docs/a.md": "# A\n",
                           "mkdocs.yml": "site_name: x\nnav:\n  - index.md\n  - a.md\n"})
    make_repo(repo, {"mkdocs.yml": "site_name: x\nnav:\n  - index.md\n  - Group:\n"
                                   "    - a.md\n"}, "group a")
    site = config_dir(tmp_path, repo.as_uri(), old)
    code, out, err = cli("status", cwd=site)
    assert code == 0, err
    assert "pages: 0 added, 0 changed, 0 removed; assets: 0 added" in out
    assert "nav: moved a.md: top → Group" in out


def test_update_moves_off_a_pin_that_cannot_be_read(tmp_path: Path, cache_dir: Path) -> None:
    """A pinned commit with invalid front matter stops every build, and ``update`` had to
    read it for the changelog, so it stopped too: the one way out was deleting the lock.
    It now moves to the fixed commit and says why there is no changelog."""
    up = tmp_path / "up"
    broken = make_repo(up, {"docs/index.md": "---\ntitle: 'unclosed\n---\n\n# Home\n"})
    fixed = make_repo(up, {"docs/index.md": "---\ntitle: 'closed'\n---\n\n# Home\n"})
    site = config_dir(tmp_path, up.as_uri(), broken)
    code, out, err = cli("update", cwd=site)
    assert code == 0, err
    assert "no changelog: the old pin cannot be read" in out, out
    assert f"commit: {fixed}" in (site / "miles-docs.lock").read_text()
