"""The import contracts of the layout (pyproject.toml ``[tool.importlinter]``), run with the real
``lint-imports``: they hold on the package, and each one fails when a forbidden import is added
to a copy of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    # the copy is found first: lint-imports puts its working folder on sys.path
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(ROOT / "miles_docs_plugin", root / "miles_docs_plugin",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_package_keeps_its_import_contracts() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("core/pipeline.py", "from ..mkdocs_plugin import MilesDocsPlugin",
     "The core and the built-ins never import an adapter or the CLI"),
    ("builtin/nav.py", "from ..cli import main",
     "The core and the built-ins never import an adapter or the CLI"),
    ("sphinx_ext/engine.py", "from ..mintlify_host import mintlify_slug",
     "Adapters never import each other"),
    ("mintlify_host/site.py", "from ..cli.common import Out",
     "Adapters never import the CLI"),
    ("mkdocs_plugin/nav.py", "from ..builtin.links import find_page",
     "Adapters and the CLI never import a built-in plugin"),
])
def test_a_forbidden_import_fails_the_check(package_copy: Path, module: str, line: str,
                                            contract: str) -> None:
    path = package_copy / "miles_docs_plugin" / module
    original = path.read_text("utf-8")
    try:
        path.write_text(original.replace("from __future__ import annotations\n",
                                         f"from __future__ import annotations\n\n{line}  # noqa\n",
                                         1), "utf-8")
        done = lint_imports(package_copy)
    finally:
        path.write_text(original, "utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{contract} BROKEN" in done.stdout


def test_host_pages_are_found_as_the_engines_find_them(tmp_path: Path) -> None:
    """One discovery rule (the CLI's ``check`` and the Mintlify adapter): dot-folders,
    virtualenvs by any name, ``node_modules``, ``_build``, generated folders and the mounts are
    not the host's pages."""
    from miles_docs_plugin.core.hostpages import host_pages

    for rel in ("index.md", "guide/Setup.MD", "api.rst", "notes.txt", ".hidden.md",
                ".venv/lib/site-packages/pkg/README.md", "env/lib/README.md",
                "node_modules/pkg/README.md", "_build/html/_sources/index.md",
                "diffusion/index.md", "generated/page.md", ".git/x.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n", "utf-8")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n", "utf-8")
    (tmp_path / "generated" / ".miles-docs-generated").write_text("{}\n", "utf-8")
    assert host_pages(tmp_path, (".md", ".rst"), ["diffusion"]) == {
        "index.md", "guide/Setup.MD", "api.rst"}


CYCLES = """
import sys
import grimp

graph = grimp.build_graph("miles_docs_plugin", exclude_type_checking_imports=True)
found = sorted({tuple(sorted((module, imported)))
                for module in graph.modules
                for imported in graph.find_modules_directly_imported_by(module)
                if graph.chain_exists(importer=imported, imported=module)})
for a, b in found:
    print(f"{a} <-> {b}")
sys.exit(1 if found else 0)
"""


def import_cycles(root: Path) -> subprocess.CompletedProcess[str]:
    """Every pair of modules that import each other, directly or through others (imports for
    type checking only do not run, and are left out), in the package below ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", CYCLES], cwd=root, env=env,
                          capture_output=True, text=True, check=False)


def test_no_module_imports_itself_back(package_copy: Path) -> None:
    done = import_cycles(ROOT)
    assert done.returncode == 0, "import cycles:\n" + done.stdout + done.stderr
    # ... and the check sees one: the cycle `serve` and `cli` used to have
    path = package_copy / "miles_docs_plugin" / "cli" / "common.py"
    original = path.read_text("utf-8")
    try:
        path.write_text(original + "\nfrom . import serve  # noqa\n", "utf-8")
        done = import_cycles(package_copy)
    finally:
        path.write_text(original, "utf-8")
    assert done.returncode == 1, done.stderr
    assert "miles_docs_plugin.cli.common <-> miles_docs_plugin.cli.serve" in done.stdout
