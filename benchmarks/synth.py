"""Synthetic upstream repositories: many realistic pages, plus a large non-docs part.

:func:`make_upstream` writes a git repository (in a folder the caller owns, under a temp dir)
whose ``docs/`` holds ``pages`` Markdown pages of about 5 KB each, with the link mix of real
docs (relative page links, page links with anchors, in-page anchors, images, a raw HTML
``<img>``, repository-file links outside ``docs/``, external links, Mintlify ``<Note>``
components) and code blocks / code spans holding link-like text that must never be rewritten.
Every internal link resolves, so a plugin build of it has no link warnings.

Outside ``docs/`` the repository holds ``scripts/`` (targets of the repository-file links) and a
``src/`` tree sized so that the non-docs part is ``nondocs_factor`` times the docs tree, and the
history has two commits (the tip changes a few files of each part), like a real project.
"""

from __future__ import annotations

import os
import posixpath
import random
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

_WORD_TEXT = (
    "rollout reward policy gradient sampler scheduler diffusion latent denoise timestep "
    "checkpoint tensor shard actor critic buffer batch microbatch worker colocate launch "
    "recipe config flag metric loss entropy clip ratio advantage baseline prompt image "
    "video frame resolution guidance scale noise variance seed trainer optimizer warmup "
    "decay precision dtype kernel attention backend flash dense sparse cache memory "
    "throughput latency node cluster gpu rank world group broadcast gather reduce "
    "weights adapter lora merge export validate verify evaluate score model family "
    "pipeline stage step epoch iteration queue stream async sync resume restore"
)
WORDS = _WORD_TEXT.split()

SECTION_NAMES = (
    "Overview", "Configuring the sampler", "Launching a run", "Reward models",
    "Troubleshooting common errors", "Performance notes", "Related pages",
)

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-09-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-09-01T00:00:00Z",
}


def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    proc = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false",
                           "-c", "commit.gpgsign=false", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def slug(text: str) -> str:
    """GitHub-style heading slug (the headings here use only letters, digits and spaces)."""
    return "-".join(text.lower().split())


def png(width: int, height: int, rng: random.Random) -> bytes:
    """A small valid PNG of random pixels (incompressible, like a real screenshot's noise)."""
    raw = b"".join(b"\0" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                                  0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


@dataclass
class Layout:
    pages: list[str]  #: paths relative to docs/, index.md first
    images: list[str]  #: relative to docs/
    scripts: list[str]  #: repository paths outside docs/


def page_path(i: int, per_folder: int = 25) -> str:
    folder = i // per_folder
    return f"guide-{folder // 4:02d}/part-{folder % 4}/page-{i:04d}.md"


def layout(pages: int) -> Layout:
    n = max(1, pages - 1)
    return Layout(["index.md"] + [page_path(i) for i in range(n)],
                  [f"assets/images/fig-{k:02d}.png" for k in range(min(40, max(2, pages // 25)))],
                  [f"scripts/run_{k:02d}.py" for k in range(10)])


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(9, 18))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _paragraph(rng: random.Random, sentences: int = 4) -> str:
    return " ".join(_sentence(rng) for _ in range(sentences))


def _title(i: int, rng: random.Random) -> str:
    return f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} guide {i}"


def render_page(path: str, idx: int, lay: Layout, rng: random.Random,
                target_bytes: int = 5000, *, plain: bool = False) -> str:
    """One page: front matter, headings, ~15 links of every kind, code with link-like text.

    ``plain``: a page that needs no conversion for MkDocs (what a raw copy renders the same):
    its ``#`` title always, no Mintlify component, no link out of the docs folder."""
    here = posixpath.dirname(path)
    others = [p for p in lay.pages if p != path]

    def rel(target: str) -> str:
        return posixpath.relpath(target, here or ".")

    title = _title(idx, rng)
    out: list[str] = ["---", f"title: {title}",
                      f"description: {_sentence(rng)}", "---", ""]
    if plain or idx % 5 != 0:  # one page in five has its title only in the front matter
        out += [f"# {title}", ""]
    out += [_paragraph(rng), ""]
    n_links = 0
    for s, name in enumerate(SECTION_NAMES):
        out += [f"## {name}", ""]
        para = _paragraph(rng, 3)
        target = rng.choice(others)
        para += f" See [{rng.choice(WORDS)}]({rel(target)}) for details."
        n_links += 1
        if s % 2 == 0:
            target = rng.choice(others[1:] if others[0] == "index.md" else others)
            anchor = slug(rng.choice(SECTION_NAMES[:6]))
            para += f" The [{rng.choice(WORDS)} section]({rel(target)}#{anchor}) explains it."
            n_links += 1
        out += [para, ""]
        if s == 1:
            out += ["| Flag | Default | Meaning |", "|---|---|---|"]
            for _ in range(4):
                out.append(f"| `--{rng.choice(WORDS)}-{rng.choice(WORDS)}` | "
                           f"{rng.randint(0, 64)} | {_sentence(rng)} |")
            out.append("")
        if s == 2:
            fence_target = rng.choice(others)
            out += ["```bash", "# link-like text inside code is never rewritten:",
                    f"# [not a link]({rel(fence_target)}) and ../{fence_target}",
                    "git clone https://github.com/example/upstream.git",
                    f"python scripts/run_{rng.randint(0, 9):02d}.py --config {here or '.'}/"
                    f"{rng.choice(WORDS)}.yaml", "```", "",
                    f"Inline code such as `[x]({rel(rng.choice(others))})` stays as written; "
                    f"jump back to [the overview](#overview).", ""]
            n_links += 1
        if s == 3 and idx % 2 == 0:
            img = lay.images[idx % len(lay.images)]
            out += [f"![{rng.choice(WORDS)} curve]({rel(img)})", ""]
            n_links += 1
        if s == 3 and idx % 10 == 3:
            img = lay.images[(idx + 1) % len(lay.images)]
            out += ["<p align=\"center\">", f'  <img src="{rel(img)}" width="320">', "</p>", ""]
            n_links += 1
        if s == 4 and idx % 5 == 1 and not plain:
            out += ["<Note>", _paragraph(rng, 2), "</Note>", ""]
        if s == 4 and idx % 10 == 4 and not plain:
            script = lay.scripts[idx % len(lay.scripts)]
            out += [f"The launcher is [`{posixpath.basename(script)}`]"
                    f"({posixpath.relpath(script, posixpath.join('docs', here))}).", ""]
            n_links += 1
        if s == 5:
            out += [f"Upstream: [{rng.choice(WORDS)} paper](https://arxiv.org/abs/2406."
                    f"{rng.randint(10000, 99999)}) and [the repository]"
                    f"(https://github.com/example/upstream/issues/{rng.randint(1, 999)}).", ""]
    text = "\n".join(out)
    while len(text.encode()) < target_bytes:
        text += "\n" + _paragraph(rng, 3) + "\n"
    return text


def _pseudo_code(rng: random.Random, size: int) -> str:
    lines = ['"""Generated module (benchmark filler)."""', ""]
    total = 0
    while total < size:
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        line = (f"def {a}_{b}_{rng.randint(0, 99999)}({c}, n={rng.randint(0, 4096)}):\n"
                f"    return {c}.{b}({a}=n * {rng.random():.6f}, seed={rng.randint(0, 10**9)})\n")
        lines.append(line)
        total += len(line)
    return "\n".join(lines)


@dataclass
class Upstream:
    name: str
    path: Path  #: the working repository
    commit: str  #: tip of main
    pages: int
    docs_bytes: int  #: bytes of the docs tree at ``commit``
    nondocs_bytes: int


def make_upstream(path: Path, *, pages: int, seed: int = 1, nondocs_factor: float = 3.0,
                  name: str = "synthetic", plain: bool = False) -> Upstream:
    """``plain``: pages that need no conversion (:func:`render_page`)."""
    rng = random.Random(seed)
    lay = layout(pages)
    docs = path / "docs"
    docs.mkdir(parents=True)
    docs_bytes = 0
    for idx, page in enumerate(lay.pages):
        if page == "index.md":
            firsts = [p for p in lay.pages[1:] if p.endswith(("0000.md", "00.md", "50.md"))]
            body = ["---", "title: Synthetic upstream", "---", "", "# Synthetic upstream", "",
                    _paragraph(rng), ""]
            body += [f"- [{p}]({p})" for p in (firsts or lay.pages[1:])[:60]]
            text = "\n".join(body) + "\n"
        else:
            text = render_page(page, idx, lay, rng, plain=plain)
        target = docs / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        docs_bytes += len(text.encode())
    for img in lay.images:
        data = png(rng.randint(40, 64), rng.randint(24, 40), rng)
        (docs / img).parent.mkdir(parents=True, exist_ok=True)
        (docs / img).write_bytes(data)
        docs_bytes += len(data)
    nondocs = 0
    for script in lay.scripts:
        text = _pseudo_code(rng, 3000)
        (path / script).parent.mkdir(parents=True, exist_ok=True)
        (path / script).write_text(text, encoding="utf-8")
        nondocs += len(text.encode())
    (path / "README.md").write_text("# Synthetic upstream\n\nBenchmark data.\n", "utf-8")
    k = 0
    while nondocs < nondocs_factor * docs_bytes:
        text = _pseudo_code(rng, 24000)
        target = path / "src" / f"pkg{k // 50:02d}" / f"module_{k:04d}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        nondocs += len(text.encode())
        k += 1
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial import", date="2026-09-01T00:00:00Z")
    # A second commit, so the repository has history a full clone would carry.
    for j in range(min(10, len(lay.pages))):
        p = docs / lay.pages[(j * 37) % len(lay.pages)]
        p.write_text(p.read_text("utf-8") + "\n" + _paragraph(rng, 1) + "\n", "utf-8")
    for j, mod in enumerate(sorted((path / "src").rglob("*.py"))[:20]):
        mod.write_text(mod.read_text("utf-8") + f"\nVERSION_{j} = 2\n", "utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "second commit", date="2026-09-02T00:00:00Z")
    commit = git(path, "rev-parse", "HEAD")
    return Upstream(name, path, commit, len(lay.pages), tree_bytes(path, commit, "docs"),
                    tree_bytes(path, commit, "") - tree_bytes(path, commit, "docs"))


def tree_bytes(repo: Path, commit: str, folder: str) -> int:
    """Total size of the blobs under ``folder`` ("" for the whole tree) at ``commit``."""
    args = ["ls-tree", "-r", "-l", "-z", commit] + ([folder] if folder else [])
    total = 0
    for record in git(repo, *args).split("\0"):
        if not record:
            continue
        meta = record.split("\t", 1)[0].split()
        if meta[1] == "blob" and meta[3] != "-":
            total += int(meta[3])
    return total


def change_one_page(repo: Path, page: str) -> str:
    """Commit a one-sentence change to ``docs/<page>`` (no heading touched); return the id."""
    target = repo / "docs" / page
    text = target.read_text("utf-8")
    target.write_text(text.rstrip("\n") + "\n\nThis sentence was added upstream.\n", "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"docs: edit {page}", date="2026-09-03T00:00:00Z")
    return git(repo, "rev-parse", "HEAD")
