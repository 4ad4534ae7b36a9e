"""Link rules (``builtin/links.py``): every link becomes a target, then is written back."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import lock_text, make_repo, write

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.context import Engine
from miles_docs_plugin.core.pipeline import BuildResult, build

PAGES = {
    "README.md": "# upstream readme\n",
    "scripts/run.py": "print('run')\n",
    "docs/index.md": """
        ---
        title: Home
        ---
        # Home

        - [guide](guide/setup.md) and [guide anchor](guide/setup.md#lora--ipc-weight-sync)
        - [folder](guide/) and [extensionless](guide/setup)
        - ![diagram](assets/d.png "Diagram") and <img src="assets/d.png">
        - [readme](../README.md) and [scripts](../scripts/) and [run](../scripts/run.py#L1)
        - [site root](/guide/setup) and [host](https://host.example/docs/about#team)
        - [mail](mailto:a@b.c) and [ext](https://example.org)
        - [missing](nope.md) and [escape](../../../etc/passwd) and [gone](../nothing.py)
        - [bad anchor](guide/setup.md#no-such-heading) and [self](#home)
        - <a href="javascript:alert(1)">js</a> and [git](../.git/config)
        - `[code](guide/setup.md)` stays
        """,
    "docs/guide/index.md": "# Guide index\n",
    "docs/guide/setup.md": """
        # Setup

        ## LoRA + IPC weight sync

        Back [home](../index.md) and [same page](#lora--ipc-weight-sync).
        """,
    "docs/assets/d.png": b"\x89PNG\r\n\x1a\nfake",
}


@pytest.fixture
def result(tmp_path: Path, cache_dir: Path) -> BuildResult:
    up = tmp_path / "up"
    commit = make_repo(up, PAGES)
    write(tmp_path / "miles-docs.yml", f"""
        host_urls: [https://host.example/docs]
        sources:
          - name: s
            repo: {up.as_uri()}
            web_url: https://github.com/o/r
        """)
    write(tmp_path / "miles-docs.lock", lock_text({"s": (up.as_uri(), commit)}))
    return build(load_config(tmp_path / "miles-docs.yml"),
                 Engine(host_pages={"index.md", "about.md"}))


def content(result: BuildResult, page: str) -> str:
    return result.sections["s"].pages[page].content


def messages(result: BuildResult) -> list[str]:
    return [d.format() for d in result.diagnostics]


def test_page_links_anchors_and_folders(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert "[guide](guide/setup.md)" in text
    assert "[guide anchor](guide/setup.md#lora-ipc-weight-sync)" not in text  # neutral engine
    assert "[guide anchor](guide/setup.md#lora--ipc-weight-sync)" in text
    assert "[folder](guide/index.md)" in text
    assert "[extensionless](guide/setup.md)" in text
    assert "[site root](guide/setup.md)" in text
    assert "[self](#home)" in text


def test_assets_markdown_and_html(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert '![diagram](assets/d.png "Diagram")' in text
    assert '<img src="assets/d.png">' in text
    assert set(result.sections["s"].assets) == {"assets/d.png"}


def test_repo_files_get_permalinks_at_the_pin(result: BuildResult) -> None:
    commit = result.sections["s"].checkout.commit
    text = content(result, "index.md")
    assert f"[readme](https://github.com/o/r/blob/{commit}/README.md)" in text
    assert f"[scripts](https://github.com/o/r/tree/{commit}/scripts)" in text
    assert f"[run](https://github.com/o/r/blob/{commit}/scripts/run.py#L1)" in text


def test_host_urls_become_host_page_links(result: BuildResult) -> None:
    assert "[host](../about.md#team)" in content(result, "index.md")


def test_external_links_and_code_are_unchanged(result: BuildResult) -> None:
    text = content(result, "index.md")
    assert "[mail](mailto:a@b.c) and [ext](https://example.org)" in text
    assert "`[code](guide/setup.md)` stays" in text


def test_unresolved_links_are_diagnostics_with_upstream_lines(result: BuildResult) -> None:
    found = messages(result)
    assert any("docs/index.md:12: nope.md matches no page" in m for m in found), found
    assert any("docs/index.md:12: ../../../etc/passwd points outside the repository" in m
               for m in found), found
    assert any("docs/index.md:12: ../nothing.py does not exist in the repository" in m
               for m in found), found
    assert any("docs/index.md:13: anchor #no-such-heading matches no heading" in m
               for m in found), found
    assert any("docs/index.md:14: javascript: links are not allowed" in m for m in found), found
    assert any("docs/index.md:14: ../.git/config points into .git" in m for m in found), found
    text = content(result, "index.md")
    commit = result.sections["s"].checkout.commit
    # written so that the engine does not report them again: inert, upstream, or page top
    assert '<a href="#">js</a>' in text
    assert "[escape](#)" in text and "[git](#)" in text
    assert f"[missing](https://github.com/o/r/blob/{commit}/docs/nope.md)" in text
    assert f"[gone](https://github.com/o/r/blob/{commit}/nothing.py)" in text
    assert "[bad anchor](guide/setup.md)" in text


def test_anchor_mapping_in_the_same_page(result: BuildResult) -> None:
    assert "[same page](#lora--ipc-weight-sync)" in content(result, "guide/setup.md")
    assert "[home](../index.md)" in content(result, "guide/setup.md")
