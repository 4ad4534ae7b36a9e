"""The core's value classes behave as the data classes they replace, and patterns compiled on
first use behave as compiled ones."""

from __future__ import annotations

import copy
import pickle
import re
from pathlib import Path

import pytest

from miles_docs_plugin.core.config import Config
from miles_docs_plugin.core.errors import Diagnostic, Severity
from miles_docs_plugin.core.model import NavGroup, NavPage, Page, PageTarget
from miles_docs_plugin.core.patterns import lazy_re
from miles_docs_plugin.core.plugins import make_plugin_manager
from miles_docs_plugin.core.records import FrozenInstanceError, replace


def test_frozen_records_compare_hash_and_refuse_assignment() -> None:
    target = PageTarget("s", "a.md", "x")
    assert target == PageTarget("s", "a.md", anchor="x")
    assert target != PageTarget("s", "a.md")
    assert target != ("s", "a.md", "x")
    assert {target: 1}[PageTarget("s", "a.md", "x")] == 1
    assert repr(target) == "PageTarget(source='s', path='a.md', anchor='x')"
    with pytest.raises(FrozenInstanceError, match="path"):
        target.path = "b.md"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del target.anchor
    diag = Diagnostic("s", "docs/a.md", 3, "link", "broken")
    assert diag.severity is Severity.WARNING
    assert replace(diag, line=4) == Diagnostic("s", "docs/a.md", 4, "link", "broken")


def test_mutable_records_compare_by_fields_and_are_unhashable() -> None:
    page = Page("s", "a.md", "a.md", "# A\n")
    assert page.meta == {} and page.extra == {}
    assert page.meta is not Page("s", "b.md", "b.md", "").meta  # a new dict per page
    assert page == Page("s", "a.md", "a.md", "# A\n")
    page.content = "changed"
    assert page != Page("s", "a.md", "a.md", "# A\n")
    with pytest.raises(TypeError, match="unhashable"):
        hash(page)
    with pytest.raises(AttributeError):
        page.not_a_field = 1  # type: ignore[attr-defined]
    assert repr(NavGroup("G", [NavPage("a.md")])) == \
        "NavGroup(title='G', children=[NavPage(path='a.md', title=None)])"


def test_replace_makes_a_copy_through_init_and_refuses_unknown_fields() -> None:
    page = Page("s", "a.md", "a.md", "old", meta={"title": "A"})
    new = replace(page, text="new")
    assert (new.text, new.meta, page.text) == ("new", {"title": "A"}, "old")
    with pytest.raises(TypeError, match="no field 'txt'"):
        replace(page, txt="new")


def test_fields_left_out_of_repr_and_equality_stay_out(tmp_path: Path) -> None:
    def config(**kw: object) -> Config:
        return Config(tmp_path, None, (), tmp_path / "miles-docs.lock", None, True, (), True,
                      "warn", **kw)  # type: ignore[arg-type]

    hooks = make_plugin_manager()
    assert config(raw={"a": 1}, hooks=hooks, extra={"k": 1}) == config()
    assert "hooks" not in repr(config(hooks=hooks)) and "raw=" not in repr(config())
    assert config(cache=False) != config()


def test_records_survive_pickle_and_copy() -> None:
    target = PageTarget("s", "a.md", "x")
    page = Page("s", "a.md", "a.md", "text", meta={"t": [1]})
    for value in (target, page, Diagnostic("s", "p", None, "c", "m", Severity.ERROR)):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value
        assert copy.copy(value) == value
    deep = copy.deepcopy(page)
    assert deep.meta is not page.meta and deep.meta == page.meta


def test_a_lazy_pattern_compiles_on_first_use_and_matches_as_compiled() -> None:
    source = r"(?P<key>[a-z]+)=(?P<value>\d+)"
    pattern = lazy_re(source, re.I)
    assert "match" not in vars(pattern)  # nothing compiled yet
    compiled = re.compile(source, re.I)
    text = "A=1 b=22 c=x"
    assert pattern.search(text).groupdict() == compiled.search(text).groupdict()  # type: ignore[union-attr]
    assert "match" in vars(pattern)  # compiled once, its methods kept
    assert [m.span() for m in pattern.finditer(text)] == \
        [m.span() for m in compiled.finditer(text)]
    assert pattern.sub("_", text) == compiled.sub("_", text)
    assert (pattern.pattern, pattern.flags, pattern.groupindex) == \
        (compiled.pattern, compiled.flags, compiled.groupindex)


def test_a_copied_section_lists_no_assets_it_touches() -> None:
    """``Section.touched`` is no field: a copy (pickle, ``copy``) starts with none."""
    import copy
    import pickle

    from miles_docs_plugin.core.model import Section

    section = Section(None, None, {}, {}, [])  # type: ignore[arg-type]
    section.touched = ["x.png"]
    for twin in (copy.copy(section), pickle.loads(pickle.dumps(section))):
        assert twin.touched is None and twin.pages == {}
