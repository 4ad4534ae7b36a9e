"""Turn ``sample_site/upstream/`` into a bare git repository with a fixed commit id.

    python sample_site/make_upstream.py [TARGET]     (default: sample_site/_upstream.git)

The commit is written with git's plumbing (``hash-object``, ``mktree``, ``commit-tree``) from
the files as they are, with a fixed author, date and file mode, so the commit id is the same on
every machine and the sample sites can pin it in their committed lock files. Prints the id.
Running it again is a no-op when the repository already holds that commit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "upstream"
DEFAULT_TARGET = HERE / "_upstream.git"
DATE = "2026-11-01T12:00:00+00:00"
IDENTITY = ("miles-docs sample", "sample@example.invalid")
MESSAGE = "docs: sample upstream documentation\n"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C", "TZ": "UTC",
        "GIT_AUTHOR_NAME": IDENTITY[0], "GIT_AUTHOR_EMAIL": IDENTITY[1],
        "GIT_COMMITTER_NAME": IDENTITY[0], "GIT_COMMITTER_EMAIL": IDENTITY[1],
        "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE,
    })
    return env


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    out = subprocess.run(["git", "--git-dir", str(repo), *args], input=input,
                         capture_output=True, env=_env(), check=True)
    return out.stdout.decode().strip()


def write_tree(repo: Path, folder: Path) -> str:
    entries = []
    for child in sorted(folder.iterdir(), key=lambda p: p.name):
        if child.name.startswith(".") or child.name == "__pycache__":
            continue
        if child.is_dir():
            entries.append(f"040000 tree {write_tree(repo, child)}\t{child.name}")
        else:
            data = child.read_bytes().replace(b"\r\n", b"\n")
            oid = git(repo, "hash-object", "-w", "--stdin", input=data)
            entries.append(f"100644 blob {oid}\t{child.name}")
    return git(repo, "mktree", input=("\n".join(entries) + "\n").encode())


def make(target: Path = DEFAULT_TARGET) -> str:
    if not (target / "HEAD").exists():
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "--quiet", "--bare", "--template=", str(target)],
                       check=True, env=_env())
    # Serve partial clones and fetches by commit id, as GitHub does.
    git(target, "config", "uploadpack.allowFilter", "true")
    git(target, "config", "uploadpack.allowAnySHA1InWant", "true")
    tree = write_tree(target, SOURCE)
    commit = git(target, "commit-tree", tree, input=MESSAGE.encode())
    git(target, "update-ref", "refs/heads/main", commit)
    git(target, "symbolic-ref", "HEAD", "refs/heads/main")
    git(target, "tag", "--force", "v1", commit)
    return commit


if __name__ == "__main__":
    print(make(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DEFAULT_TARGET))
