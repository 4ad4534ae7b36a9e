"""The Sphinx side of the sandbox for untrusted pages (see :mod:`.core.section.sandbox`).

MyST pages can run any directive and role the host has: ``{include}``, ``{literalinclude}``,
``{raw}`` and ``{csv-table}`` with ``:file:``/``:url:`` read host files or fetch URLs,
``{eval-rst}`` reaches every reST directive, ``{ifconfig}`` evaluates Python, autodoc imports
host modules, and MyST's ``substitution`` extension renders Jinja. For the documents of an
untrusted source, while MyST parses them:

- only an allow-list of directives and roles (:data:`ALLOWED_DIRECTIVES`,
  :data:`ALLOWED_ROLES`: content markup, no file, URL or code) resolves; any other is shown as
  the literal text it is and reported at the upstream ``path:line`` (so ``-W`` fails);
- docutils' own ``file_insertion_enabled`` and ``raw_enabled`` settings are off, as a second
  lock on every file-reading option;
- MyST's ``substitution`` extension (Jinja) is off.

After parsing (``doctree-read``, before Sphinx collects images and downloads) raw HTML is
sanitised (:mod:`.core.section.sanitize`), and an image or download that would resolve outside the
section's own folder is removed.

Docutils has no per-document dispatch of directives and roles: like Sphinx itself
(``sphinx.util.docutils.sphinx_domains``), :func:`_dispatch` replaces the module-level
``directives.directive`` and ``roles.role`` functions for the duration of one parse, wrapping
whatever is there. That is the one private mechanism used here; ``tests/test_untrusted.py``
fails loudly when it stops working (the host file would be published).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles
from myst_parser.parsers.sphinx_ import MystParser
from sphinx.util import logging

from ..core.patterns import lazy_re
from ..core.section.sanitize import sanitize_html, unsafe_url

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

#: Directives an untrusted page may use: content markup only (what the section's own
#: transforms write, and the common MyST and sphinx-design markup).
ALLOWED_DIRECTIVES = frozenset({
    # admonitions
    "admonition", "note", "warning", "tip", "important", "hint", "caution", "danger", "error",
    "attention", "seealso", "versionadded", "versionchanged", "deprecated", "versionremoved",
    # text and code
    "code-block", "sourcecode", "code", "highlight", "math", "parsed-literal", "line-block",
    "rubric", "topic", "sidebar", "epigraph", "highlights", "pull-quote", "compound",
    "container", "centered", "hlist", "glossary", "table", "list-table", "csv-table", "toctree",
    "image", "figure",
    # sphinx-design
    "tab-set", "tab-item", "tab-set-code", "dropdown", "grid", "grid-item", "grid-item-card",
    "card", "card-carousel", "button-link", "button-ref", "article-info", "div",
    # diagrams from the page's own text
    "mermaid",
})
#: Allowed only without arguments (an argument names a file to read).
CONTENT_ONLY = frozenset({"mermaid"})
#: Allowed without these options (they name a file or URL to read).
FILE_OPTIONS = {"csv-table": frozenset({"file", "url"})}
ALLOWED_ROLES = frozenset({
    "abbr", "kbd", "guilabel", "menuselection", "file", "samp", "command", "program", "dfn",
    "emphasis", "strong", "literal", "code", "math", "eq", "sub", "sup", "subscript",
    "superscript", "title-reference", "title", "t", "acronym", "ref", "doc", "term", "numref",
    "any", "envvar", "option", "keyword", "pep", "rfc", "octicon", "fa", "fab", "fas", "far",
})
_DESIGN_ROLE_RE = lazy_re(  # only for a role outside the allow-list
    r"^bdg(?:-[a-z]+){0,2}$")


class SandboxInfo:
    """What the sandbox needs about one untrusted document (kept on the environment)."""

    def __init__(self, location: str, upstream_file: str, mount_dir: str) -> None:
        self.location = location  #: ``owner/repo:docs/x.md``
        self.upstream_file = upstream_file  #: the page as fetched (to find lines in)
        self.mount_dir = mount_dir  #: the generated folder of the section


def _info(env: Any) -> SandboxInfo | None:
    docs: dict[str, SandboxInfo] = getattr(env, "miles_docs_sandbox", None) or {}
    return docs.get(getattr(env, "docname", ""))


def upstream_line(info: SandboxInfo, needles: list[str], near: int | None) -> int | None:
    """The upstream line holding one of ``needles``, the occurrence closest to ``near``."""
    try:
        text = Path(info.upstream_file).read_text("utf-8", errors="replace")
    except OSError:
        return near
    lines = [i + 1 for i, line in enumerate(text.splitlines())
             if any(n and n in line for n in needles)]
    if not lines:
        return near
    if near is None:
        return lines[0]
    return min(lines, key=lambda n: abs(n - near))


def _warn(info: SandboxInfo, message: str, line: int | None) -> None:
    where = f"{info.location}:{line}" if line else info.location
    logger.warning("[miles-docs] %s", message, type="miles-docs", subtype="sandbox",
                   location=where)


def _refused_directive(name: str, cls: type[Directive]) -> type[Directive]:
    """A directive with ``cls``'s syntax that shows its own text instead of running."""

    def run(self: Directive) -> list[nodes.Node]:
        env = self.state.document.settings.env
        info = _info(env)
        text = self.block_text or "\n".join(self.content)
        if info is not None:
            line = upstream_line(info, ["{" + name + "}", name + "::"], self.lineno)
            _warn(info, f"the directive {{{name}}} is not allowed in pages of an untrusted "
                        "source (it can read files, fetch URLs or run code); shown as text "
                        "(`trust: full` on the source allows it)", line)
        return [nodes.literal_block(text, text)]

    return type(f"Refused_{name}", (Directive,), {
        "required_arguments": 0,
        "optional_arguments": max(1, cls.required_arguments + cls.optional_arguments),
        "final_argument_whitespace": True,
        "option_spec": dict(cls.option_spec) if cls.option_spec else None,
        "has_content": True,
        "run": run,
    })


def _refused_role(name: str) -> Callable[..., Any]:
    def role(typ: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
        document = getattr(inliner, "document", None)
        env = getattr(getattr(document, "settings", None), "env", None)
        info = _info(env) if env is not None else None
        if info is not None:
            line = upstream_line(info, ["{" + name + "}", ":" + name + ":"], lineno)
            _warn(info, f"the role {{{name}}} is not allowed in pages of an untrusted source; "
                        "shown as text (`trust: full` on the source allows it)", line)
        return [nodes.literal(rawtext, rawtext)], []

    return role


def allowed_role(name: str) -> bool:
    name = name.lower()
    return name in ALLOWED_ROLES or bool(_DESIGN_ROLE_RE.match(name))


@contextmanager
def _dispatch() -> Iterator[None]:
    """Directive and role lookup through the allow-lists while one document is parsed."""
    lookup_directive = directives.directive
    lookup_role = roles.role

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        cls, messages = lookup_directive(name, language, document)
        if cls is None:
            return cls, messages
        key = name.lower()
        if key not in ALLOWED_DIRECTIVES:
            return _refused_directive(key, cls), messages
        if key in CONTENT_ONLY or key in FILE_OPTIONS:
            return _checked(key, cls), messages
        return cls, messages

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        fn, messages = lookup_role(name, language, lineno, reporter)
        if fn is None or allowed_role(name):
            return fn, messages
        return _refused_role(name.lower()), messages

    directives.directive = directive
    roles.role = role
    try:
        yield
    finally:
        directives.directive = lookup_directive
        roles.role = lookup_role


def _checked(name: str, cls: type[Directive]) -> type[Directive]:
    """``cls``, refused when it is given an argument (:data:`CONTENT_ONLY`) or an option that
    names a file (:data:`FILE_OPTIONS`)."""
    refused = _refused_directive(name, cls)
    forbidden = FILE_OPTIONS.get(name, frozenset())

    def run(self: Directive) -> list[nodes.Node]:
        if (name in CONTENT_ONLY and self.arguments) or forbidden & set(self.options or ()):
            return list(refused.run(self))
        return list(cls.run(self))

    return type(f"Checked_{name}", (cls,), {"run": run})


class SandboxedMystParser(MystParser):
    """MyST, with the sandbox on while it parses a document of an untrusted source."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        env = document.settings.env
        if _info(env) is None:
            super().parse(inputstring, document)
            return
        settings = document.settings
        saved = (settings.file_insertion_enabled, settings.raw_enabled, env.myst_config)
        config = env.myst_config
        exts = config.enable_extensions
        settings.file_insertion_enabled = False
        settings.raw_enabled = False
        env.myst_config = dataclasses.replace(
            config, enable_extensions=type(exts)(e for e in exts if e != "substitution"),
            substitutions={})
        try:
            with _dispatch():
                super().parse(inputstring, document)
        finally:
            settings.file_insertion_enabled, settings.raw_enabled, env.myst_config = saved


def _inside(path: str, folder: str) -> bool:
    """Is ``path`` (symlinks resolved) a non-hidden file below ``folder``?"""
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(folder))
    if not real.is_relative_to(base):
        return False
    return not any(part.startswith(".") for part in real.relative_to(base).parts)


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Sanitise raw HTML and keep images and downloads inside the section's folder."""
    env = app.env
    info = _info(env)
    if info is None:
        return
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split():
            continue
        text = raw.astext()
        clean, removed = sanitize_html(text, whole=False)
        for item in removed:
            _warn(info, f"removed the {item.what} (untrusted source; `trust: full` keeps it)",
                  upstream_line(info, [item.needle], raw.line))
        if clean != text:  # what was parsed is what is published (comments go, say)
            raw.replace_self(nodes.raw(clean, clean, format=raw["format"]))
    for ref in doctree.findall(nodes.reference):
        if unsafe_url(ref.get("refuri", "")):
            _warn(info, f"made the link {ref['refuri'][:40]!r} inert", ref.line)
            ref["refuri"] = "#"
    for node, attr in [(n, "uri") for n in doctree.findall(nodes.image)] + [
            (n, "reftarget") for n in doctree.findall(_download_reference())]:
        target = node.get(attr, "")
        if not target or "://" in target or target.startswith("data:"):
            continue
        _rel, path = env.relfn2path(target, env.docname)
        if not _inside(str(path), info.mount_dir):
            _warn(info, f"{target!r} is outside the section; removed (an upstream page can "
                        "only show its own files)", upstream_line(info, [target], node.line))
            node.replace_self(nodes.inline(node.get("alt", ""), node.get("alt", "")))


def _download_reference() -> type[nodes.Element]:
    from sphinx import addnodes

    return addnodes.download_reference
