"""`miles-docs update --format markdown`: the docs changelog as a pull request body."""

from __future__ import annotations

from pathlib import Path

from support import V1, V2, git, lock_text, make_repo, write
from test_cli import ADDED_IMAGES, ADDED_PAGES, CHANGED_PAGES, cli, config_dir


def test_markdown_changelog_of_the_corpus_update(corpus_repo: Path, tmp_path: Path,
                                                 cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V1)
    code, out, err = cli("update", "--ref", "v2", "--format", "markdown", cwd=site)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "## Docs update (miles-docs)"
    assert f"### Diffusion (`diffusion`): `{V1[:7]}` → `{V2[:7]}`" in lines
    assert "**Pages:** 7 added, 0 removed, 11 changed (+" in out
    rows = {line.split(" | ")[0].removeprefix("| `").removesuffix("`"): line
            for line in lines if line.startswith("| `")}
    assert set(rows) == set(ADDED_PAGES) | set(CHANGED_PAGES)
    for page, (plus, minus) in CHANGED_PAGES.items():
        assert rows[page].endswith(f"| changed | +{plus} -{minus} |"), rows[page]
    for page in ADDED_PAGES:
        assert " | added | +" in rows[page], rows[page]
    assert "**Assets:** 8 added, 0 removed, 0 changed" in out
    assert {line.removeprefix("- added `assets/images/").removesuffix("`")
            for line in lines if line.startswith("- added `assets/")} == set(ADDED_IMAGES)
    nav_added = {line.rsplit("(`", 1)[1].removesuffix("`)")
                 for line in lines if line.startswith("- added: ")}
    assert nav_added == set(ADDED_PAGES)  # the default nav lists every page
    assert "**New warnings" in out
    # stdout is the block alone; the usual report and the progress go to stderr
    assert "fetching" in err and "pinned at" in err and "fetching" not in out
    assert V2 in (site / "miles-docs.lock").read_text()


def test_markdown_shows_nav_changes_new_warnings_and_escapes_upstream_text(
        tmp_path: Path, cache_dir: Path) -> None:
    upstream = tmp_path / "upstream"
    old = make_repo(upstream, {
        "docs/index.md": "# Home\n\nSee [a](a.md).\n",
        "docs/a.md": "# A\n\n[gone](gone.md)\n\none\ntwo\n",
    })
    git(upstream, "rm", "-q", "docs/a.md")
    new = make_repo(upstream, {
        "docs/index.md": "# Start\n\nSee [b](b.md).\n",
        "docs/b.md": "# B <img src=x onerror=alert(1)> | [x](http://evil)\n\n[broken](nope.md)\n",
        "docs/img.png": b"\x89PNG\r\n",
    }, "v2")
    site = tmp_path / "site"
    write(site / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {upstream.as_uri()}\n"
                                   "    web_url: https://github.com/org/diffusion\n")
    write(site / "miles-docs.lock", lock_text({"diffusion": (upstream.as_uri(), old)}))
    code, out, err = cli("update", "--format", "markdown", "--dry-run", cwd=site)
    assert code == 0, err
    assert out == f"""\
## Docs update (miles-docs)

### Diffusion (`diffusion`): `{old[:7]}` → `{new[:7]}`

https://github.com/org/diffusion, `main` at `{new}` ([compare](https://github.com/org/diffusion/compare/{old}...{new})); 2 pages.

**Pages:** 1 added, 1 removed, 1 changed (+5 -8 lines)

| page | change | lines |
| --- | --- | --- |
| `b.md` | added | +3 |
| `a.md` | removed | -6 |
| `index.md` | changed | +2 -2 |

**Assets:** 1 added, 0 removed, 0 changed

- added `img.png`

**Navigation:**

- added: Diffusion / B \\<img src=x onerror=alert(1)\\> \\| \\[x\\](http://evil) (`b.md`)
- removed: Diffusion / A (`a.md`)
- moved: `index.md`: Diffusion / Home → Diffusion / Start

**New warnings (2):**

- `docs/b.md:1` \\[link\\] x matches no page or file in docs/ (fix the link upstream)
- `docs/b.md:3` \\[link\\] nope.md matches no page or file in docs/ (fix the link upstream)

**Fixed:** 1 warning of the old pin.

"""  # noqa: E501
    assert old in (site / "miles-docs.lock").read_text()  # --dry-run: nothing written


def test_markdown_when_nothing_moved(corpus_repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    site = config_dir(tmp_path, corpus_repo.as_uri(), V2)
    code, out, err = cli("update", "--ref", "v2", "--format", "markdown", cwd=site)
    assert code == 0, err
    assert out == ("## Docs update (miles-docs)\n\n"
                   "No pin moved: every source is at its `ref` already.\n\n")
    assert "already at" in err
