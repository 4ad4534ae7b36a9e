"""The README's "Supported versions" table, rendered from the matrix results.

``.ci/noxfile.py`` records every session it runs in ``.ci/matrix.json``; this renders them
between the ``supported-versions`` markers of README.md (a test keeps the two equal):

    python .ci/matrix.py            # rewrite the table from .ci/matrix.json
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / ".ci" / "matrix.json"
README = ROOT / "README.md"
START, END = "<!-- supported-versions:start -->", "<!-- supported-versions:end -->"
COLUMNS = ["mkdocs", "mkdocs-material", "sphinx", "myst-parser", "docutils", "markdown-it-py"]
HEADERS = ["MkDocs", "Material", "Sphinx", "myst-parser", "docutils", "markdown-it-py"]


def render(results: dict[str, dict[str, object]]) -> str:
    lines = ["| session | " + " | ".join(HEADERS) + " | tests | result |",
             "| --- |" + " --- |" * (len(HEADERS) + 2)]
    for key, row in results.items():
        versions = row["versions"]
        assert isinstance(versions, dict)
        tests = row["tests"]
        assert isinstance(tests, list)
        names = ", ".join(f"`{Path(t).stem.removeprefix('test_')}`" for t in tests)
        cells = [str(versions.get(c, "—")) for c in COLUMNS]
        lines.append(f"| {key} | " + " | ".join(cells)
                     + f" | {names} | {'pass' if row['passed'] else 'FAIL'} |")
    return "\n".join(lines)


def block() -> str:
    results = json.loads(RESULTS.read_text("utf-8")) if RESULTS.exists() else {}
    return f"{START}\n{render(results)}\n{END}"


def render_into_readme() -> None:
    text = README.read_text("utf-8")
    head, rest = text.split(START, 1)
    _old, tail = rest.split(END, 1)
    README.write_text(head + block() + tail, "utf-8")


if __name__ == "__main__":
    render_into_readme()
