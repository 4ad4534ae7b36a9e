"""The README's promises that can be checked mechanically."""

from __future__ import annotations

import re
import tokenize

from support import ROOT

from miles_docs_plugin.core.config import reference_markdown

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_config_reference_is_generated_from_the_schema() -> None:
    m = re.search(r"<!-- config-reference:start -->\n(.*?)<!-- config-reference:end -->", README,
                  re.S)
    assert m, "README lost its config reference markers"
    assert m.group(1) == reference_markdown(), (
        "README config reference is stale: paste "
        "`python -c 'from miles_docs_plugin.core.config import reference_markdown as r; "
        "print(r())'`")


def test_two_commands_and_ci_agree() -> None:
    assert "bash sample_site/build.sh" in README
    assert "bash tests/run.sh" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "tests/run.sh" in ci


QUOTES = re.compile(r"^[a-zA-Z]*('''|\"\"\"|'|\")|('''|\"\"\"|'|\")$")


def _messages() -> list[str]:
    """Every string literal of the package, adjacent literals joined, f-string fields as {}."""
    out: list[str] = []
    for path in (ROOT / "miles_docs_plugin").rglob("*.py"):
        with open(path, encoding="utf-8") as fh:
            tokens = list(tokenize.generate_tokens(fh.readline))
        run: list[str] = []
        for tok in tokens:
            if tok.type == tokenize.STRING:
                run.append(re.sub(r"\{[^{}]*\}", "{}", QUOTES.sub("", tok.string)))
            elif tok.type not in (tokenize.NL, tokenize.COMMENT) and run:
                out.append("".join(run))
                run = []
    return out


def test_troubleshooting_quotes_real_messages() -> None:
    section = README.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"^\| `([^`]+)`", section, re.M)
    assert len(quoted) >= 12
    messages = _messages()
    for message in quoted:
        fragments = [f.strip() for f in re.split(r"\.\.\.|'[^']*'|\(.*?\)", message)]
        fragments = [f for f in fragments if len(f) >= 4]
        assert fragments, message
        for fragment in fragments:
            assert any(fragment in m for m in messages), (message, fragment)


def test_how_it_works_names_the_folders_one_to_one() -> None:
    section = README.split("## How it works", 1)[1].split("\n## ", 1)[0]
    diagram = section.split("```", 2)[1]
    package = ROOT / "miles_docs_plugin"
    stages = {p.parent.name for p in (package / "core").glob("*/__init__.py")}
    assert set(re.findall(r"core/(\w+)/", diagram)) == stages
    for stage in stages:  # each stage's modules, in the table under the diagram
        row = re.search(rf"^\| `core/{stage}/` \| (.*)$", section, re.M)
        assert row, stage
        modules = {p.name for p in (package / "core" / stage).glob("*.py")} - {"__init__.py"}
        assert set(re.findall(r"`(\w+\.py)`", row.group(1))) == modules, stage
    for path in re.findall(r"\b((?:core|builtin)/\w+\.py)", diagram):
        assert (package / path).exists(), path
    adapters = re.findall(r"(\w+)(?:\.py|/)(?=\s)", diagram.splitlines()[-3] + " ")
    assert adapters == ["mkdocs_plugin", "sphinx_ext", "mintlify_host", "cli"]
    for name in adapters:  # a package once it is one, else still a module
        assert (package / name / "__init__.py").exists() or (package / f"{name}.py").exists()
