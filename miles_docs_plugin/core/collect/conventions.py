"""Which files of a docs folder are pages: the conventions of the upstream's own generator.

One rule, used by collection (and so by both engines), for three questions:

- **Hidden files.** Every file below a dot-folder (``.github/``, ``.vale/``) or named with a
  leading dot is never a page (MkDocs and Mintlify ignore them too).
- **Snippets.** Mintlify renders no page for a file in the ``snippets/`` folder, nor for a file
  that a page imports (``import X from '/snippets/x.mdx'``, relative imports too) or pulls in
  with ``<Snippet file="x.mdx" />``, wherever it lives (:func:`snippet_paths`).
- **Folder indexes.** ``index.md``, ``index.mdx`` and ``README.md`` all stand for their
  folder's URL, ``x/index.md`` and ``x.md`` both for ``x/``, ``a.md`` and ``a.mdx`` both for
  ``a``. Exactly one file wins each URL (:func:`index_rule`): the folder's index (a link to
  ``x/`` names the folder), ``.md`` before ``.mdx``; the others are reported by name and links
  to them go to the winner.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping

from ..patterns import lazy_re
from ..records import Record

#: A folder's index, best first. ``README.md`` is MkDocs' fallback when there is no index.
INDEX_FILES = ("index.md", "index.mdx", "index.markdown", "README.md", "readme.md",
               "README.mdx", "readme.mdx")
#: Page suffixes, best first when two files differ only by suffix (``a.md`` wins over ``a.mdx``).
SUFFIX_RANK = (".md", ".mdx", ".markdown")
SNIPPET_DIR = "snippets"

_IMPORT_RE = lazy_re(
    r"""^[ \t]*import\s+(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"'\n]+)["'];?[ \t]*$""", re.M)
_SNIPPET_TAG_RE = lazy_re(
    r"""<Snippet\b[^>]*?\bfile\s*=\s*(?:"([^"]+)"|'([^']+)'|\{\s*["']([^"']+)["']\s*\})""")
_FENCE_RE = lazy_re(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?^[ \t]{0,3}\1[`~]*[ \t]*$", re.M | re.S)


def is_hidden(path: str) -> bool:
    """True for a path inside a dot-folder or a dot-file (``.github/x.md``, ``a/.draft.md``)."""
    return any(part.startswith(".") for part in path.split("/"))


def _strip_code(text: str) -> str:
    """``text`` without fenced code blocks: an ``import`` inside a code sample is no import."""
    return _FENCE_RE.sub("", text)


def imported_files(text: str) -> list[str]:
    """The module paths a page imports (``/snippets/x.mdx``, ``../shared/y.mdx``)."""
    if "import" not in text:
        return []  # most pages: no need to take the code out first
    return [m.group(1) for m in _IMPORT_RE.finditer(_strip_code(text))]


def snippet_tag_files(text: str) -> list[str]:
    """The ``file`` of every ``<Snippet file="..."/>`` of a page (Mintlify's legacy tag)."""
    if "<Snippet" not in text:
        return []
    return [next(g for g in m.groups() if g) for m in _SNIPPET_TAG_RE.finditer(_strip_code(text))]


def resolve_import(spec: str, page: str, files: set[str]) -> str | None:
    """The docs-relative file an import names, or None (a package such as ``react``)."""
    if spec.startswith("/"):
        candidate = posixpath.normpath(spec.lstrip("/"))
    elif spec.startswith(("./", "../")):
        candidate = posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))
    else:
        return None  # a package import
    return candidate if candidate in files else None


def resolve_snippet_tag(spec: str, page: str, files: set[str]) -> str | None:
    """The file ``<Snippet file=spec>`` names: below ``snippets/`` (Mintlify's rule), else
    relative to the page or the docs root, else the one file of that name anywhere."""
    spec = spec.strip()
    clean = posixpath.normpath(spec.lstrip("/"))
    for candidate in (posixpath.join(SNIPPET_DIR, clean), clean,
                      posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))):
        if candidate in files:
            return candidate
    name = "/" + clean
    matches = sorted(f for f in files if f.endswith(name))
    return matches[0] if len(matches) == 1 else None


def snippet_paths(pages: Mapping[str, str], files: Iterable[str] = (),
                  listed: Callable[[str], bool] | None = None) -> set[str]:
    """Every file that is a snippet, never a page.

    ``pages`` maps docs-relative page paths to their text; ``files`` lists the other files of
    the docs folder (snippets may be ``.jsx``). A snippet imported by a snippet is a snippet.
    With ``listed`` (is this page in the upstream's navigation?), a folder that holds snippets
    is a snippet folder: its other files that no navigation lists are snippets too (mem0 keeps
    one that no page uses yet in ``_snippets/``).
    """
    known = set(pages) | set(files)
    found = {p for p in known if p.split("/", 1)[0] == SNIPPET_DIR and "/" in p}
    for path, text in pages.items():
        for spec in imported_files(text):
            hit = resolve_import(spec, path, known)
            if hit is not None and hit != path:
                found.add(hit)
        for spec in snippet_tag_files(text):
            hit = resolve_snippet_tag(spec, path, known)
            if hit is not None and hit != path:
                found.add(hit)
    if listed is not None:
        folders = {posixpath.dirname(p) for p in found} - {""}
        found |= {p for p in pages if posixpath.dirname(p) in folders and not listed(p)}
    return found


class IndexRule(Record):
    """The outcome of :func:`index_rule`."""

    __slots__ = _fields = ("dests", "losers")
    #: page path -> its path in the host tree (a folder's index becomes ``<folder>/index.md``)
    dests: dict[str, str]
    #: page that lost its URL -> the page that has it
    losers: dict[str, str]

    def __init__(self, dests: dict[str, str] | None = None,
                 losers: dict[str, str] | None = None) -> None:
        self.dests = {} if dests is None else dests
        self.losers = {} if losers is None else losers


def _url_key(path: str, readme_index: bool) -> tuple[str, int, bool]:
    """The URL a page stands for (``a/b`` for ``a/b.md`` and ``a/b/index.md``), its rank among
    the files that stand for it (lower wins) and whether it is its folder's index."""
    folder, name = posixpath.split(path)
    if name in INDEX_FILES and (readme_index or name.lower().startswith("index.")):
        return folder, INDEX_FILES.index(name), True
    stem, ext = posixpath.splitext(path)
    ext = ext.lower()
    # the index of folder `x/` wins over a sibling `x.md` (`x/` names the folder)
    rank = len(INDEX_FILES) + (SUFFIX_RANK.index(ext) if ext in SUFFIX_RANK else 0)
    return stem, rank, False


def index_rule(paths: Iterable[str], *, readme_index: bool = True) -> IndexRule:
    """Which page has each URL, and where it goes in the host tree (``.md`` names).

    ``readme_index=False`` (Mintlify, where ``README.md`` is an ordinary page): a README is
    not its folder's index, and goes to ``readme.md`` so that no engine makes it one.
    """
    rule = IndexRule()
    by_url: dict[str, list[tuple[int, str, bool]]] = {}
    for path in paths:
        key, rank, is_index = _url_key(path, readme_index)
        by_url.setdefault(key, []).append((rank, path, is_index))
    for key, ranked in by_url.items():
        ranked.sort()
        _rank, winner, is_index = ranked[0]
        if is_index:
            rule.dests[winner] = posixpath.join(key, "index.md")
        elif posixpath.basename(key) == "README":
            rule.dests[winner] = posixpath.join(posixpath.dirname(key), "readme.md")
        else:
            rule.dests[winner] = key + ".md"
        for _rank, loser, _is_index in ranked[1:]:
            rule.losers[loser] = winner
    return rule
