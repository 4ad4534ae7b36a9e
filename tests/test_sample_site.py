"""The embedded sample: its upstream is reproducible and its host site builds offline."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from support import ROOT, Site, copy_sample, git, mkdocs_build, run

SAMPLE = ROOT / "sample_site"


def pinned(site: str) -> str:
    lock = yaml.safe_load((SAMPLE / site / "miles-docs.lock").read_text())
    return str(lock["sources"]["diffusion"]["commit"])


def test_make_upstream_reproduces_the_pinned_commit(tmp_path: Path) -> None:
    out = run([sys.executable, str(SAMPLE / "make_upstream.py"), str(tmp_path / "up.git")],
              cwd=tmp_path)
    assert out.returncode == 0, out.output
    assert out.stdout.strip() == pinned("mkdocs")


def test_sample_mkdocs_site_builds_offline(tmp_path: Path, cache_dir: Path) -> None:
    sample = copy_sample(tmp_path)  # a copy: the test leaves the working tree alone
    repo = sample.parent
    result = mkdocs_build(sample / "mkdocs", env={"MILES_DOCS_OFFLINE": "1"})
    assert result.returncode == 0, result.output
    assert "WARNING" not in result.output
    site = Site(sample / "mkdocs" / "site")
    assert site.broken() == []
    page = site.page("diffusion/getting-started/quick-start/index.html")
    assert 'href="../installation/#requirements"' in page.text
    assert 'href="../../user-guide/concepts/#lora-ipc-weight-sync"' in page.text
    assert "miles-docs-banner" in page.text
    install = site.page("diffusion/getting-started/installation/index.html").text
    assert f"diffusion-sample/blob/{pinned('mkdocs')}/scripts/train.py" in install
    assert 'src="../../assets/images/pipeline.svg"' in install
    # Material's edit and view buttons of an injected page point upstream
    buttons = re.findall(r'<a href="([^"]+)" title="[^"]*" class="md-content__button', install)
    upstream = "https://github.com/miles-docs/diffusion-sample"
    assert buttons == [f"{upstream}/edit/main/docs/getting-started/installation.md",
                       f"{upstream}/raw/main/docs/getting-started/installation.md"], buttons
    home = site.page("diffusion/index.html").text
    assert 'href="../#supported-models"' in home  # host URL became an internal link
    assert git(repo, "status", "--porcelain") == ""
