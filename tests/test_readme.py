"""The README's promises that can be checked mechanically."""

from __future__ import annotations

import re

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
