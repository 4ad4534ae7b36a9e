"""The compatibility matrix (``.ci/noxfile.py``) agrees with what the package declares and with
the README's "Supported versions" table."""

from __future__ import annotations

import ast
import importlib.util
import re
from typing import Any

from packaging.version import Version
from support import ROOT

NOXFILE = ROOT / ".ci" / "noxfile.py"


def _constant(name: str) -> Any:
    tree = ast.parse(NOXFILE.read_text("utf-8"))
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name and value is not None:
            return ast.literal_eval(value)
    raise AssertionError(f"{name} not found in {NOXFILE}")


def _lower_bounds() -> dict[str, Version]:
    """Every ``"name>=version"`` requirement of pyproject.toml (core, extras)."""
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    return {m.group(1).lower(): Version(m.group(2))
            for m in re.finditer(r'"([A-Za-z0-9_.-]+)>=([0-9.]+)"', text)}


def test_oldest_session_installs_every_declared_lower_bound() -> None:
    oldest = {name.lower(): Version(v) for name, v in _constant("OLDEST").items()}
    bounds = _lower_bounds()
    assert oldest, "OLDEST is empty"
    for name, version in oldest.items():
        assert bounds[name] == version, f"{name}: the matrix tests {version}, pyproject.toml " \
                                        f"declares >={bounds[name]}"
    engines_and_core = ["mkdocs", "mkdocs-material", "sphinx", "myst-parser", "markdown-it-py",
                        "pluggy", "pyyaml", "platformdirs", "filelock"]
    assert sorted(oldest) == sorted(engines_and_core)


def test_matrix_covers_the_versions_the_readme_promises() -> None:
    mkdocs = _constant("MKDOCS_MATRIX")
    assert {m for m, _, _ in mkdocs} == {"1.6.0", "latest"}
    assert {t for _, t, _ in mkdocs} == {"9.5.0", "latest"}
    assert {d for _, _, d in mkdocs} == {"3", "4"}
    sphinx = _constant("SPHINX_MATRIX")
    assert {s for s, _ in sphinx} == {"7.2", "7.4", "8", "9"}
    assert {m for _, m in sphinx} == {"3", "4", "5"}


def test_readme_table_is_rendered_from_the_recorded_results() -> None:
    spec = importlib.util.spec_from_file_location("ci_matrix", ROOT / ".ci" / "matrix.py")
    assert spec is not None and spec.loader is not None
    matrix = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix)
    readme = (ROOT / "README.md").read_text("utf-8")
    assert matrix.block() in readme, "README is stale: run `python .ci/matrix.py`"
    results = matrix.json.loads(matrix.RESULTS.read_text("utf-8"))
    sessions = len(_constant("MKDOCS_MATRIX")) + len(_constant("SPHINX_MATRIX")) + 2
    assert len(results) == sessions, sorted(results)  # every session has run and is recorded
