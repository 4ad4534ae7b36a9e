"""The CI and hosting recipes of ``sample_site/ci/``: valid against their schemas (offline,
check-jsonschema's built-in copies), and their commands run against the sample site."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import ROOT, copy_sample, git, run

RECIPES = ROOT / "sample_site" / "ci"
WORKFLOWS = sorted((RECIPES / "github").glob("*.yml"))
BIN = Path(sys.executable).parent


def check_jsonschema(schema: str, *files: Path) -> Any:
    return run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema,
                *map(str, files)], cwd=ROOT)


def test_workflows_match_the_github_actions_schema(tmp_path: Path) -> None:
    assert [w.name for w in WORKFLOWS] == ["docs-mkdocs.yml", "docs-sphinx.yml",
                                           "docs-update.yml"]
    result = check_jsonschema("vendor.github-workflows", *WORKFLOWS)
    assert result.returncode == 0, result.output
    # the check does check: a job without `runs-on` is refused
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOWS[0].read_text().replace("runs-on: ubuntu-latest", ""))
    assert check_jsonschema("vendor.github-workflows", broken).returncode == 1


def test_readthedocs_example_matches_its_schema(tmp_path: Path) -> None:
    result = check_jsonschema("vendor.readthedocs", RECIPES / "readthedocs.yaml")
    assert result.returncode == 0, result.output
    broken = tmp_path / "broken.yaml"
    broken.write_text((RECIPES / "readthedocs.yaml").read_text().replace("version: 2",
                                                                         "version: 3"))
    assert check_jsonschema("vendor.readthedocs", broken).returncode == 1


def test_pre_commit_hook_and_its_example(tmp_path: Path) -> None:
    manifest = ROOT / ".pre-commit-hooks.yaml"
    for command, path in (("validate-manifest", manifest),
                          ("validate-config", RECIPES / "pre-commit-config.yaml")):
        result = run([sys.executable, "-m", "pre_commit", command, str(path)], cwd=tmp_path)
        assert result.returncode == 0, result.output
    (hook,) = yaml.safe_load(manifest.read_text())
    example = yaml.safe_load((RECIPES / "pre-commit-config.yaml").read_text())
    assert [h["id"] for r in example["repos"] for h in r["hooks"]] == [hook["id"]]
    assert hook["entry"] == "miles-docs check" and hook["pass_filenames"] is False
    files = re.compile(hook["files"])
    for name in ("miles-docs.yml", "docs/miles-docs.lock", "mkdocs.yml", "docs/conf.py"):
        assert files.search(name), name
    assert not files.search("README.md") and not files.search("docs/index.md")
    # the entry, as pre-commit runs it (no file names), on a sample host: clean, exit 0
    sample = copy_sample(tmp_path)
    result = run([str(BIN / hook["entry"].split()[0]), *hook["entry"].split()[1:]],
                 cwd=sample / "mkdocs", env={"MILES_DOCS_CACHE": str(tmp_path / "cache")})
    assert result.returncode == 0, result.output


def _steps(workflow: str) -> tuple[dict[Any, Any], list[dict[str, Any]]]:
    data = yaml.safe_load((RECIPES / "github" / workflow).read_text())
    (job,) = data["jobs"].values()
    return data, job["steps"]


def _run_step(step: dict[str, Any], cwd: Path, env: dict[str, str]) -> Any:
    result = run(["bash", "-e", "-c", step["run"]], cwd=cwd,
                 env={**env, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})
    assert result.returncode == 0, f"{step['name']}: {result.output}"
    return result


@pytest.mark.parametrize(("engine", "extra", "output"), [
    ("mkdocs", "[mkdocs]", "site/diffusion/index.html"),
    ("sphinx", "[sphinx]", "docs/_build/html/diffusion/index.html"),
])
def test_build_workflow_caches_by_the_lock_and_its_steps_build_the_sample(
        engine: str, extra: str, output: str, tmp_path: Path, cache_dir: Path) -> None:
    data, steps = _steps(f"docs-{engine}.yml")
    sample = copy_sample(tmp_path)
    if engine == "mkdocs":  # the host layouts the workflows expect
        root = sample / "mkdocs"
    else:
        (sample / "sphinx").rename(sample / "docs")
        git(sample, "add", "-A")
        git(sample, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "docs/")
        root = sample
    (cache,) = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert cache["with"]["path"] == "${{ env.MILES_DOCS_CACHE }}"
    (lock,) = re.findall(r"\$\{\{ hashFiles\('([^']+)'\) \}\}", cache["with"]["key"])
    assert (root / lock).is_file() and lock.endswith("miles-docs.lock")
    assert data["env"]["MILES_DOCS_CACHE"].startswith("~/")
    (install,) = [s for s in steps if s.get("name") == "Install"]
    assert f'"miles-docs-plugin{extra}"' in install["run"]
    env = {**data["env"], "MILES_DOCS_CACHE": str(cache_dir)}
    for step in steps:
        if "run" in step and step is not install:
            _run_step(step, root, env)
    assert (root / output).is_file()
    # what the cache holds is enough: the next build fetches nothing
    (build,) = [s for s in steps if s.get("name") == "Build"]
    (sample / "_upstream.git").rename(tmp_path / "gone.git")
    _run_step(build, root, {**env, "MILES_DOCS_OFFLINE": "1"})
    assert git(root, "status", "--porcelain") == ""


def test_update_workflow_writes_the_pull_request_body(tmp_path: Path, cache_dir: Path) -> None:
    data, steps = _steps("docs-update.yml")
    assert "schedule" in data[True]  # YAML 1.1 reads the `on` key as True
    sample = copy_sample(tmp_path)
    work = tmp_path / "work"  # upstream moves on: one more page on main
    git(tmp_path, "clone", "-q", str(sample / "_upstream.git"), str(work))
    (work / "docs" / "new-page.md").write_text("# New page\n\n[broken](nowhere.md)\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "new page")
    git(work, "push", "-q", "origin", "HEAD:main")
    (move,) = [s for s in steps if s.get("name") == "Move the pins"]
    (pr,) = [s for s in steps if s.get("uses", "").startswith("peter-evans/create-pull-request")]
    assert pr["with"]["body-path"] == "${{ runner.temp }}/docs-update.md"
    assert pr["with"]["add-paths"] == "miles-docs.lock"
    _run_step(move, sample / "mkdocs", {**data["env"], "MILES_DOCS_CACHE": str(cache_dir),
                                        "RUNNER_TEMP": str(tmp_path)})
    body = (tmp_path / "docs-update.md").read_text()
    assert body.startswith("## Docs update (miles-docs)\n")
    assert "| `new-page.md` | added | +3 |" in body
    assert "nowhere.md matches no page" in body  # the new warning
    assert git(work, "rev-parse", "HEAD") in (sample / "mkdocs" / "miles-docs.lock").read_text()


def test_readthedocs_commands_run_on_a_sphinx_host(tmp_path: Path, cache_dir: Path) -> None:
    config = yaml.safe_load((RECIPES / "readthedocs.yaml").read_text())
    sample = copy_sample(tmp_path)
    (sample / "sphinx").rename(sample / "docs")  # the layout the example expects
    assert (sample / config["sphinx"]["configuration"]).is_file()
    commands = [c for job in config["build"]["jobs"].values() for c in job]
    assert any("miles-docs check" in c for c in commands)
    for command in commands:
        _run_step({"name": command, "run": command}, sample, {"MILES_DOCS_CACHE": str(cache_dir)})
