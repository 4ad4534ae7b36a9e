"""The package as users get it: sdist and wheel built, checked, installed into a fresh
virtualenv one engine at a time, and the sample site built from the installed wheel.

Installs go through uv and its download cache (only package registries are reached, and only
on a cold cache), so the whole test takes seconds once warm.
"""

from __future__ import annotations

import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

from support import ROOT, Run, copy_sample, git, run

UV = [sys.executable, "-m", "uv"]


def _source_tree(dest: Path) -> Path:
    """The repository's files as git sees them (committed or not, ignored ones left out)."""
    files = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _ok(result: Run) -> Run:
    assert result.returncode == 0, result.output
    return result


def test_wheel_and_sdist_install_one_engine_at_a_time_and_build_the_sample(
        tmp_path: Path) -> None:
    src = _source_tree(tmp_path / "src")
    dist = tmp_path / "dist"
    _ok(run([sys.executable, "-m", "build", "--installer", "uv", "--sdist", "--wheel",
             "--outdir", str(dist), str(src)], cwd=src))
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    _ok(run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
            cwd=tmp_path))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"miles_docs_plugin/py.typed", "miles_docs_plugin/static/miles-docs.css",
            "miles_docs_plugin/engines.py"} <= names
    assert not any(n.startswith(("tests/", "sample_site/", "benchmarks/")) for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA")))
    requires = [line for line in meta.decode().splitlines() if line.startswith("Requires-Dist")]
    core = [r for r in requires if "extra ==" not in r]
    assert not [r for r in core if r.split()[1].lower().startswith(("mkdocs", "sphinx", "myst"))]
    with tarfile.open(sdist) as tar:
        assert any(n.endswith("/miles_docs_plugin/static/miles-docs.css") for n in tar.getnames())

    venv = tmp_path / "venv"
    _ok(run([*UV, "venv", "-q", "--python", sys.executable, str(venv)], cwd=tmp_path))
    python = venv / "bin" / "python"

    def install(*reqs: str) -> None:
        _ok(run([*UV, "pip", "install", "-q", "--python", str(python), *reqs], cwd=tmp_path))

    def has(module: str) -> bool:
        probe = f"import importlib.util as u; print(u.find_spec({module!r}) is not None)"
        return run([str(python), "-c", probe], cwd=tmp_path).stdout.strip() == "True"

    sample = copy_sample(tmp_path / "work")
    env = {"MILES_DOCS_CACHE": str(tmp_path / "cache"), "PYTHONPATH": ""}

    # the core alone: the command works, no engine is installed, each entry point says so
    install(str(wheel))
    assert not has("mkdocs") and not has("sphinx")
    _ok(run([str(venv / "bin" / "miles-docs"), "check"], cwd=sample / "mkdocs", env=env))
    missing = run([str(python), "-c", "import miles_docs_plugin.sphinx_ext"], cwd=tmp_path)
    assert missing.returncode != 0
    assert ("miles-docs: the Sphinx extension needs sphinx, docutils, myst_parser, which is not "
            "installed: pip install 'miles-docs-plugin[sphinx]'") in missing.stderr
    missing = run([str(python), "-c", "import miles_docs_plugin.mkdocs_plugin"], cwd=tmp_path)
    assert "pip install 'miles-docs-plugin[mkdocs]'" in missing.stderr
    serve = run([str(venv / "bin" / "miles-docs"), "serve", "sphinx"], cwd=sample)
    assert serve.returncode == 2 and "miles-docs-plugin[sphinx]" in serve.stderr

    # Sphinx without myst-parser (not what [sphinx] installs): the extension says what to do
    install("sphinx", "furo")
    sphinx_build = [str(venv / "bin" / "sphinx-build"), "-W", "--keep-going", "-q", "-b", "html",
                    "sphinx", "sphinx/_build/html"]
    only = tmp_path / "only"  # a conf.py that lists this extension alone
    only.mkdir()
    (only / "conf.py").write_text('extensions = ["miles_docs_plugin.sphinx_ext"]\n')
    (only / "index.rst").write_text("Home\n====\n")
    no_myst = run([*sphinx_build[:-2], str(only), str(only / "_build")], cwd=only, env=env)
    assert no_myst.returncode == 2
    assert "needs myst_parser, which is not installed: pip install 'miles-docs-plugin[sphinx]'" \
        in no_myst.output, no_myst.output

    # [sphinx]: no MkDocs comes with it; the sample Sphinx site builds from the wheel
    install(f"{wheel}[sphinx]")
    assert has("sphinx") and has("myst_parser") and not has("mkdocs")
    _ok(run(sphinx_build, cwd=sample, env=env))
    css = sample / "sphinx" / "_build" / "html" / "_static" / "miles-docs.css"
    assert css.is_file()  # the static file came from the installed wheel
    installed = run([str(python), "-c", "import miles_docs_plugin; print(miles_docs_plugin"
                     ".__file__)"], cwd=tmp_path).stdout
    assert installed.startswith(str(venv)), installed

    # [mkdocs]: the sample MkDocs site builds from the wheel too
    install(f"{wheel}[mkdocs]", "mkdocs-material")
    _ok(run([str(venv / "bin" / "mkdocs"), "build", "--strict", "-q"], cwd=sample / "mkdocs",
            env={**env, "NO_MKDOCS_2_WARNING": "1"}))
    assert (sample / "mkdocs" / "site" / "diffusion" / "index.html").is_file()
