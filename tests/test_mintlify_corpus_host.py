"""The Miles docs as a Mintlify host: commit B + corpus v1 against the hand port (commit A).

`miles-docs mintlify build` on B must give A's page set under diffusion/, A's Diffusion tab
(same place, groups and order), the hand port's link targets for at least 95% of the links,
and a site in which `mint broken-links` finds nothing new — for corpus v1 and v2.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mintlify_support import HOST_B, NAV, broken_links, make_host
from support import V1, V2, git, lock_text, run

BANNER_RE = re.compile(r"^<Info>This page comes from .*</Info>\n\n", re.MULTILINE)
LINK_RE = re.compile(r"\]\(([^)\s]+)\)|\b(?:href|src)=\"([^\"]+)\"")


@pytest.fixture(scope="module")
def miles_host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_host(tmp_path_factory.mktemp("mintlify") / "miles_host")


def _site(tmp: Path, miles_host: Path, corpus_repo: Path, commit: str) -> Path:
    """A checkout of commit B with the section configured next to docs.json."""
    host = tmp / "host"
    git(tmp, "clone", "-q", str(miles_host), str(host))
    git(host, "checkout", "-q", HOST_B)
    docs = host / "docs"
    (docs / "miles-docs.yml").write_text(
        "host_urls: [https://miles.radixark.com/docs]\n"
        "sources:\n"
        "  - name: diffusion\n"
        f"    repo: {corpus_repo.as_uri()}\n"
        "    web_url: https://github.com/radixark/miles_diffusion\n"
        "    mintlify:\n"
        "      tab: Diffusion\n"
        "      after: Developer Guide\n" + NAV)
    (docs / "miles-docs.lock").write_text(lock_text({"diffusion": (corpus_repo.as_uri(),
                                                                    commit)}))
    return docs


def _build(docs: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build",
                           "--out", str(out)], cwd=docs, capture_output=True, text=True,
                          check=False)


def _links(text: str) -> Counter[str]:
    text = BANNER_RE.sub("", text)
    text = re.sub(r"(?ms)^```.*?^```", "", text)  # links in code are not links
    return Counter(a or b for a, b in LINK_RE.findall(text))


def test_build_on_commit_b_reproduces_the_hand_port(tmp_path: Path, miles_host: Path,
                                                    corpus_repo: Path, cache_dir: Path) -> None:
    docs = _site(tmp_path, miles_host, corpus_repo, V1)
    out = tmp_path / "out"
    done = _build(docs, out)
    assert done.returncode == 0, done.stderr
    ported = tmp_path / "port"
    git(tmp_path, "clone", "-q", str(miles_host), str(ported))
    git(ported, "checkout", "-q", "A")
    port = ported / "docs"

    # the same page set (and images) under diffusion/
    def files(root: Path) -> set[str]:
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}

    assert files(out / "diffusion") == files(port / "diffusion")

    # the Diffusion tab: between Developer Guide and Resources, A's groups and page order;
    # docs.json is in fact A's, byte for byte
    tabs = json.loads((out / "docs.json").read_text())["navigation"]["tabs"]
    names = [t["tab"] for t in tabs]
    assert names[names.index("Diffusion") - 1:names.index("Diffusion") + 2] == [
        "Developer Guide", "Diffusion", "Resources"]
    assert (out / "docs.json").read_bytes() == (port / "docs.json").read_bytes()

    # the rest of the host is the host as it was
    host_files = files(docs) - {"miles-docs.yml", "miles-docs.lock"}
    for rel in host_files - {"docs.json"}:
        assert (out / rel).read_bytes() == (docs / rel).read_bytes(), rel

    # link targets: the hand port's for >= 95% of its links
    total = same = 0
    differences: list[str] = []
    for page in sorted((port / "diffusion").rglob("*.md")):
        rel = page.relative_to(port).as_posix()
        theirs = _links(page.read_text())
        ours = _links((out / rel).read_text())
        total += sum(theirs.values())
        same += sum((theirs & ours).values())
        for link in sorted((theirs - ours).elements()):
            differences.append(f"{rel}: port {link}")
        for link in sorted((ours - theirs).elements()):
            differences.append(f"{rel}: ours {link}")
    print(f"{same}/{total} links equal; differences:", *differences, sep="\n  ")
    assert total >= 95 and same / total >= 0.95, differences
    # components pass through untouched
    note = (out / "diffusion/advanced/sde-backend.md").read_text()
    assert note.count("<Note>") + note.count("<Warning>") == (
        (port / "diffusion/advanced/sde-backend.md").read_text().count("<Note>")
        + (port / "diffusion/advanced/sde-backend.md").read_text().count("<Warning>"))
    assert git(docs.parent, "status", "--porcelain", "--", ".", ":!docs/miles-docs.*") == ""


def test_mint_broken_links_finds_nothing_new(tmp_path: Path, miles_host: Path,
                                             corpus_repo: Path, cache_dir: Path) -> None:
    runs = {}
    for name, commit in (("v1", V1), ("v2", V2)):
        (tmp_path / name).mkdir()
        docs = _site(tmp_path / name, miles_host, corpus_repo, commit)
        done = _build(docs, tmp_path / name / "out")
        assert done.returncode == 0, done.stderr
        runs[name] = tmp_path / name / "out"
    before = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(miles_host), str(before))
    git(before, "checkout", "-q", HOST_B)
    jobs = {"B": before / "docs", **runs}
    with ThreadPoolExecutor(3) as pool:  # one HOME each: mint keeps state there
        found = dict(zip(jobs, pool.map(
            lambda job: broken_links(job[1], tmp_path / job[0], anchors=True), jobs.items()),
            strict=True))
    # B: the host's own 30 (redirected links, one .md link, 5 anchors) and 13 links into the
    # missing section; built: only the host's own 30, none in diffusion/ (anchors included)
    assert sum(map(len, found["B"].values())) == 43
    for name in ("v1", "v2"):
        assert not [f for f in found[name] if f.startswith("diffusion/")], found[name]
        for page, links in found[name].items():
            assert set(links) <= set(found["B"].get(page, [])), (name, page, links)
        assert sum(map(len, found[name].values())) == 30, found[name]


def test_mount_over_a_host_folder_stops(tmp_path: Path, miles_host: Path, corpus_repo: Path,
                                        cache_dir: Path) -> None:
    docs = _site(tmp_path, miles_host, corpus_repo, V1)
    (docs / "diffusion").mkdir()
    (docs / "diffusion" / "mine.md").write_text("# Mine\n")
    done = run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build", "--out",
                str(tmp_path / "out")], cwd=docs)
    assert done.returncode == 2
    assert "is a folder of the host" in done.stderr and "set `mount:`" in done.stderr
    assert not (tmp_path / "out").exists()
    assert (docs / "diffusion" / "mine.md").read_text() == "# Mine\n"
