"""The compatibility matrix: the oldest engine versions ``pyproject.toml`` declares, and the newest.

    .venv/bin/nox -f .ci/noxfile.py                # every combination (about 45 minutes)
    .venv/bin/nox -f .ci/noxfile.py -s oldest      # the lower bounds (tests/run.sh runs it)
    .venv/bin/nox -f .ci/noxfile.py --list         # the sessions

Each session is a fresh virtualenv (made with uv, which reuses its download cache) with the
package, its test dependencies and the pinned engine versions, and runs the tests of that
engine: real builds read back, as in the default run (the browser tests are left to it).
Each session records what it resolved and whether it passed in ``.ci/matrix.json``; the
README's "Supported versions" table is rendered from that file (``python .ci/matrix.py``).

Combinations the engines' own metadata forbid (myst-parser 3 and 4 cap Sphinx below 8 and 9,
myst-parser 5 needs Sphinx 8 and markdown-it-py 4) are not sessions: they cannot be installed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / ".ci"))
from matrix import RESULTS, render_into_readme  # noqa: E402

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.error_on_missing_interpreters = True
nox.options.sessions = ["mkdocs", "sphinx", "oldest", "newest"]

#: The lower bounds of pyproject.toml, exactly (a test keeps the two equal).
OLDEST = {
    "mkdocs": "1.6.0",
    "mkdocs-material": "9.5.0",
    "sphinx": "7.2.0",
    "myst-parser": "3.0.0",
    "markdown-it-py": "3.0.0",
    "pluggy": "1.5.0",
    "PyYAML": "6.0",
    "platformdirs": "4.0.0",
    "filelock": "3.12.0",
}

MKDOCS_TESTS = ["tests/test_mkdocs_corpus.py", "tests/test_parity.py", "tests/test_sample_site.py",
                "tests/test_links.py", "tests/test_markdown.py", "tests/test_serve.py"]
SPHINX_TESTS = ["tests/test_sphinx.py", "tests/test_parity.py", "tests/test_sample_site.py",
                "tests/test_serve.py", "tests/test_conventions.py", "tests/test_untrusted.py"]
#: The reduced set of the oldest session (tests/run.sh): one build of each kind per engine.
OLDEST_TESTS = ["tests/test_sphinx.py", "tests/test_parity.py", "tests/test_sample_site.py",
                "tests/test_mkdocs_corpus.py", "tests/test_conventions.py"]
#: What the engine tests import besides the package (the tools of the other tests are left out).
TEST_DEPS = ["pytest", "hypothesis", "mkdocs-material", "furo", "pydata-sphinx-theme",
             "sphinx-book-theme", "sphinx-design", "sphinx-autobuild", "mkdocs-macros-plugin"]
REPORTED = ["mkdocs", "mkdocs-material", "sphinx", "myst-parser", "docutils", "markdown-it-py"]

#: (MkDocs, Material, markdown-it-py): every pairing of the oldest and the newest.
MKDOCS_MATRIX = [("1.6.0", "9.5.0", "3"), ("1.6.0", "9.5.0", "4"), ("1.6.0", "latest", "3"),
                 ("1.6.0", "latest", "4"), ("latest", "9.5.0", "3"), ("latest", "9.5.0", "4"),
                 ("latest", "latest", "3"), ("latest", "latest", "4")]
#: (Sphinx, myst-parser): every pair the two packages' metadata allows; docutils and
#: markdown-it-py are what each pair resolves to (docutils as Sphinx pins it).
SPHINX_MATRIX = [("7.2", "3"), ("7.2", "4"), ("7.4", "3"), ("7.4", "4"), ("8", "4"), ("8", "5"),
                 ("9", "5")]


def _pin(name: str, version: str) -> str:
    if version == "latest":
        return name
    if version.count(".") >= 2 or name == "PyYAML":
        return f"{name}=={version}"
    return f"{name}=={version}.*"


def _run(session: nox.Session, key: str, pins: list[str], tests: list[str],
         upgrade: bool = False) -> None:
    session.chdir(ROOT)
    extra = ["--upgrade"] if upgrade else []
    session.install(*extra, "-e", ".[mkdocs,sphinx]", *TEST_DEPS, *pins)
    probe = ("import json, importlib.metadata as m; print(json.dumps({n: m.version(n) "
             f"for n in {REPORTED!r}}}))")
    versions = json.loads(session.run("python", "-c", probe, silent=True) or "{}")
    session.log("resolved: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    env = {"NO_MKDOCS_2_WARNING": "1"}
    corpus = os.environ.get("MILES_DOCS_CORPUS")
    if corpus:
        env["MILES_DOCS_CORPUS"] = corpus
    passed = False
    try:
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m",
                    "not browser", *(session.posargs or tests), env=env)
        passed = True
    finally:
        # Only a run of the session's own test set is a result; tests/run.sh records nothing.
        if not session.posargs and os.environ.get("MILES_DOCS_MATRIX_RECORD") != "0":
            _record(key, versions, tests, passed)


def _record(key: str, versions: dict[str, str], tests: list[str], passed: bool) -> None:
    data = json.loads(RESULTS.read_text("utf-8")) if RESULTS.exists() else {}
    data[key] = {"versions": versions, "tests": tests, "passed": passed}
    RESULTS.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n", "utf-8")
    render_into_readme()


@nox.session
@nox.parametrize(("mkdocs", "material", "mdit"), MKDOCS_MATRIX,
                 ids=[f"mkdocs{m}-material{t}-mdit{d}" for m, t, d in MKDOCS_MATRIX])
def mkdocs(session: nox.Session, mkdocs: str, material: str, mdit: str) -> None:
    """MkDocs and Material, oldest and newest, with markdown-it-py 3 and 4."""
    pins = [_pin("mkdocs", mkdocs), _pin("mkdocs-material", material),
            _pin("markdown-it-py", mdit)]
    _run(session, f"mkdocs {mkdocs} / Material {material} / markdown-it-py {mdit}", pins,
         MKDOCS_TESTS)


@nox.session
@nox.parametrize(("sphinx", "myst"), SPHINX_MATRIX,
                 ids=[f"sphinx{s}-myst{m}" for s, m in SPHINX_MATRIX])
def sphinx(session: nox.Session, sphinx: str, myst: str) -> None:
    """Sphinx 7.2, 7.4, 8 and 9 with each myst-parser that supports it."""
    pins = [_pin("sphinx", sphinx), _pin("myst-parser", myst)]
    _run(session, f"sphinx {sphinx} / myst-parser {myst}", pins, SPHINX_TESTS)


@nox.session
def oldest(session: nox.Session) -> None:
    """Every lower bound of pyproject.toml at once, on a reduced test set (tests/run.sh)."""
    _run(session, "oldest", [f"{n}=={v}" for n, v in OLDEST.items()], OLDEST_TESTS)


@nox.session
def newest(session: nox.Session) -> None:
    """The newest release of everything, on both engines' test sets."""
    tests = sorted(set(MKDOCS_TESTS) | set(SPHINX_TESTS))
    _run(session, "newest", [], tests, upgrade=True)
