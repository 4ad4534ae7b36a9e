"""Collect the pages of a checkout: read, verify, split front matter, find titles."""

from __future__ import annotations

import json
import os
import posixpath
import re
from typing import Any, overload

import yaml

from ..config import docs_prefix
from ..errors import ContentError, Severity
from ..model import GENERATED_FROM, PAGE_SUFFIXES, Checkout, Page, Section, nav_pages
from ..patterns import lazy_re
from ..source.cache import CacheEntryInvalid
from ..source.integrity import IntegrityError, blob_id, verify_commit
from .conventions import index_rule, is_hidden, snippet_paths
from .upstream import UpstreamSite, read_upstream

#: The same front matter rule as MkDocs (``mkdocs.utils.meta``): ``---`` lines around YAML.
FRONT_MATTER_RE = lazy_re(r"\A-{3}[ \t]*\r?\n(.*?\r?\n)??(?:\.{3}|-{3})[ \t]*(?:\r?\n|\Z)", re.S)
MAX_FRONT_MATTER = 256 * 1024
MAX_SYMLINK_HOPS = 40


#: libyaml's safe loader when PyYAML has it (about ten times faster), else the Python one.
#: Either way no Python tags; aliases are bounded after loading (see :func:`_bounded`).
SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: The common front matter, ``key: plain words`` a line, read without YAML (about ten times
#: faster than even libyaml) when every line is of that form and gives a string under YAML's
#: rules: a value that starts with a letter and holds no indicator (``:``, ``#``, quotes at the
#: start, brackets), and no key or value that YAML 1.1 reads as a boolean or null. Anything
#: else goes to the YAML loader.
_SIMPLE_LINE_RE = lazy_re(r"([A-Za-z_][A-Za-z0-9_-]*): +([A-Za-z][A-Za-z0-9 _.,()/'-]*?) *\n")
_YAML_WORDS = frozenset({"y", "yes", "n", "no", "true", "false", "on", "off", "null"})


def simple_front_matter(raw: str) -> dict[str, Any] | None:
    """``raw`` read as YAML, when it is only ``key: plain words`` lines; else None."""
    data: dict[str, Any] = {}
    pos = 0
    match = _SIMPLE_LINE_RE.match
    while pos < len(raw):
        m = match(raw, pos)
        if m is None:
            return None
        key, value = m.groups()
        if key.lower() in _YAML_WORDS or value.lower() in _YAML_WORDS:
            return None
        data[key] = value
        pos = m.end()
    return data or None


class FrontMatterError(ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


MAX_EXPANDED = 10_000


def _bounded(node: Any, memo: dict[int, int], stack: set[int]) -> int:
    """How many values ``node`` holds once its aliases are expanded (YAML aliases share
    objects, so a few lines can stand for millions of values, or for a cycle)."""
    if not isinstance(node, (dict, list)):
        return 1
    key = id(node)
    if key in stack:
        raise ValueError("refers to itself (a recursive alias)")
    if key in memo:
        return memo[key]
    stack.add(key)
    items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
    total = 1
    for item in items:
        total += _bounded(item, memo, stack)
        if total > MAX_EXPANDED:
            raise ValueError(f"expands to more than {MAX_EXPANDED:,} values (an alias bomb?)")
    stack.discard(key)
    memo[key] = total
    return total


def parse_front_matter(text: str) -> tuple[dict[str, Any], int, int]:
    """Return (meta, body offset, number of lines before the body) of a page.

    Raises :class:`FrontMatterError` (with the 1-based page line) for malformed front matter.
    """
    m = FRONT_MATTER_RE.match(text)
    if not m:
        return {}, 0, 0
    raw = m.group(1) or ""
    lines = text[:m.end()].count("\n")
    if len(raw) > MAX_FRONT_MATTER:
        raise FrontMatterError(f"front matter larger than {MAX_FRONT_MATTER // 1024} KiB", 1)
    try:
        data = simple_front_matter(raw)
        if data is None:
            data = yaml.load(raw, Loader=SafeLoader)  # a safe loader: no Python tags
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontMatterError(f"invalid YAML front matter: {problem}",
                               mark.line + 2 if mark is not None else 1) from None
    if data is None:
        data = {}
    try:
        _bounded(data, {}, set())
    except ValueError as exc:
        raise FrontMatterError(f"front matter {exc}", 2) from None
    if not isinstance(data, dict):
        raise FrontMatterError("front matter must be a mapping of keys to values, got "
                               f"{type(data).__name__}", 2)
    return {str(k): v for k, v in data.items()}, m.end(), lines


def _resolve_symlink(checkout: Checkout, path: str) -> tuple[str | None, str]:
    """Follow a symlink inside the repository tree; return (target path, problem)."""
    seen: set[str] = set()
    current = path
    for _ in range(MAX_SYMLINK_HOPS):
        if current in seen:
            return None, "is a symlink loop"
        seen.add(current)
        try:
            target = os.readlink(checkout.root / current)
        except OSError:
            return None, "is a symlink that cannot be read"
        if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
            return None, f"is a symlink to the absolute path {target!r} (not followed)"
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        if joined == ".." or joined.startswith("../"):
            return None, f"is a symlink that points outside the repository ({target!r}, not " \
                         "followed)"
        docs = checkout.source.docs_dir
        if not (joined == docs or joined.startswith(docs_prefix(docs))):
            return None, f"is a symlink to {joined!r}, outside {docs}/ (not followed)"
        kind = checkout.tree.kind(joined)
        if kind == "link":
            current = joined
            continue
        if kind == "blob":
            return joined, ""
        return None, f"is a symlink to {joined!r}, which is not a file (not followed)"
    return None, "is a symlink chain that is too long (not followed)"


def _hashed(checkout: Checkout, repo_path: str) -> tuple[str, bytes | None] | None:
    """What the fetch of this build hashed ``repo_path`` to, when that is its blob id in the
    tree (which every build checks against the pin)."""
    known = checkout.verified.get(repo_path)
    if known is None or checkout.local or known[0] != checkout.tree.blobs.get(repo_path):
        return None
    return known


@overload
def read_verified(checkout: Checkout, repo_path: str) -> bytes: ...
@overload
def read_verified(checkout: Checkout, repo_path: str, limit: int) -> bytes | None: ...


def read_verified(checkout: Checkout, repo_path: str, limit: int | None = None) -> bytes | None:
    """Read a file of the checkout; for pinned checkouts, check it against its blob id (the
    bytes the fetch of this build hashed to it are not read again). None when the file is
    larger than ``limit`` bytes: it is not read."""
    known = _hashed(checkout, repo_path)
    if known is not None and known[1] is not None:
        return known[1] if limit is None or len(known[1]) <= limit else None
    # one open, its size from the open file, a plain path (a page costs no pathlib object)
    with open(os.path.join(checkout.root, repo_path), "rb") as fh:  # noqa: PTH118
        if limit is not None and os.fstat(fh.fileno()).st_size > limit:
            return None
        data = fh.read()
    if not checkout.local:
        expected = checkout.tree.blobs.get(repo_path)
        if expected is None or blob_id(data) != expected:
            raise CacheEntryInvalid(f"{repo_path} does not match commit {checkout.commit}")
    return data


def verify_file(checkout: Checkout, repo_path: str) -> None:
    """Check a non-page file against its blob id (pages are checked when they are read)."""
    if checkout.local or _hashed(checkout, repo_path) is not None:
        return
    try:
        read_verified(checkout, repo_path)
    except FileNotFoundError:
        raise CacheEntryInvalid(f"{repo_path} is missing from the cache entry") from None


def verify_entry(checkout: Checkout) -> None:
    """Check that the entry's tree hashes to the pinned commit, and every non-page file of the
    docs folder to its blob id (pages are hashed when they are read).

    Raises :class:`CacheEntryInvalid` when anything does not match the pin.
    """
    if checkout.local:
        return
    tree = checkout.tree
    try:
        verify_commit(checkout.commit or "", tree.commit_object, tree.objects)
    except IntegrityError as exc:
        raise CacheEntryInvalid(str(exc)) from None
    prefix = docs_prefix(checkout.source.docs_dir)
    for path, kind in tree.entries.items():
        if kind == "blob" and path.startswith(prefix) and not is_page(path):
            verify_file(checkout, path)


#: Characters no file name of a section may hold: control characters (a newline in a name
#: would end a toctree entry or a YAML line) and the characters that make markup in HTML.
BAD_NAME_RE = lazy_re(r'[\x00-\x1f\x7f<>"]')
MAX_NAME_BYTES = 200


def name_problem(path: str) -> str | None:
    """Why the engines cannot carry the file name ``path`` safely, or None."""
    if BAD_NAME_RE.search(path):
        return 'has a control character or one of < > " in its name'
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES
           for part in path.split("/")):
        return f"has a name longer than {MAX_NAME_BYTES} bytes"
    return None


def uniform_line_endings(text: str) -> str:
    """``text`` with every line ending as most of its lines end, where CRLF and bare LF mix (a
    file edited on two systems). Each step of a build splits a page at one kind, and a stray
    one would join two lines there (and a tag spanning them would take the next line's
    place). Only CRs are added or taken out, so the lines are those git and GitHub count."""
    crlf = text.count("\r\n")
    bare_lf = text.count("\n") - crlf
    if not crlf or not bare_lf:
        return text  # one kind throughout
    if crlf >= bare_lf:
        return re.sub(r"(?<!\r)\n", "\r\n", text)
    return text.replace("\r\n", "\n")


def page_dest(path: str) -> str:
    root, ext = posixpath.splitext(path)
    return root + ".md" if ext.lower() in PAGE_SUFFIXES else path


def is_page(path: str) -> bool:
    return posixpath.splitext(path)[1].lower() in PAGE_SUFFIXES


def collect(checkout: Checkout, ctx_report: Any, *, max_page_bytes: int) -> Section:
    """Read every page of the docs folder into a new :class:`Section`.

    ``ctx_report(section, page_path, line, code, message, severity)`` records diagnostics.
    Pages larger than ``max_page_bytes`` are left out (and reported): no engine renders a page
    of tens of megabytes in reasonable time, and reading it must not cost unbounded memory.
    """
    source = checkout.source
    section = Section(source=source, checkout=checkout, pages={}, assets={}, nav=[])
    docs = source.docs_dir
    prefix = docs_prefix(docs)
    others: list[str] = []
    for repo_path in sorted(checkout.tree.files_under(docs)):
        rel = repo_path[len(prefix):]
        if is_hidden(rel):
            continue  # dot-folders and dot-files are never pages, nor published
        problem = name_problem(rel)
        if problem:
            ctx_report(section, rel, None, "name", f"{rel!r} {problem}; skipped (rename it "
                       "upstream)")
            continue
        kind = checkout.tree.kind(repo_path)
        read_path = repo_path
        if kind == "link":
            target, problem = _resolve_symlink(checkout, repo_path)
            if target is None:
                ctx_report(section, rel, None, "symlink", f"{rel} {problem}")
                continue
            read_path = target
            section.aliases[rel] = target
        if not is_page(rel):
            verify_file(checkout, read_path)
            others.append(rel)
            continue
        data = read_verified(checkout, read_path, max_page_bytes)
        if data is None:
            size = (checkout.root / read_path).stat().st_size
            ctx_report(section, rel, None, "page",
                       f"{rel} is {size / 2**20:.1f} MiB, over the {max_page_bytes >> 20} MiB "
                       "limit for a page; skipped (raise `max_page_size` to include it)")
            continue
        if b"\0" in data[:8192]:
            ctx_report(section, rel, None, "page", f"{rel} is a binary file with a Markdown "
                       "name; skipped")
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(b"\n") + 1
            ctx_report(section, rel, line, "encoding",
                       "the page is not valid UTF-8; invalid bytes were replaced with U+FFFD")
            text = data.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        if "\r" in text:
            text = uniform_line_endings(text)
        try:
            meta, body_start, body_line = parse_front_matter(text)
        except FrontMatterError as exc:
            raise ContentError(str(exc), where=f"{source.url.display}: {repo_path}:{exc.line}",
                               hint="fix the front matter upstream, or pin a commit where it "
                                    "is valid") from None
        page = Page(source=source.name, path=rel, dest=page_dest(rel), text=text, meta=meta,
                    body_start=body_start, body_line=body_line, content=text,
                    blob=checkout.tree.blobs.get(read_path))
        title = meta.get("title")
        if isinstance(title, (str, int, float)) and str(title).strip():
            page.title = str(title).strip()
        section.pages[rel] = page
    section.upstream = _upstream(checkout)
    if section.upstream is not None and section.upstream.endpoints:
        _add_endpoint_pages(section, ctx_report)
    apply_conventions(section, others, ctx_report, max_page_bytes)
    return section


def _add_endpoint_pages(section: Section, report: Any) -> None:
    """A page for each API endpoint the upstream's navigation generates from an OpenAPI spec
    (:mod:`.endpoints`), unless the upstream wrote a page with that URL itself. Its front
    matter names the operation (``openapi`` in ``meta`` only: a Mintlify host writes the
    reference too, and must not hand it to Mintlify with a path of the host's)."""
    assert section.upstream is not None
    for path, endpoint in section.upstream.endpoints.items():
        stem = path[:-len(".mdx")]
        if any(p in section.pages for p in (stem + ".md", path, stem + "/index.md",
                                           stem + "/index.mdx")):
            continue
        problem = name_problem(path)
        if problem:
            report(section, path, None, "name", f"the API endpoint page {path!r} (from "
                   f"{endpoint.spec.lstrip('/')}) {problem}; not built (change its summary "
                   "or tag upstream)")
            continue
        front = {"title": endpoint.title}
        if endpoint.sidebar:
            front["sidebarTitle"] = endpoint.sidebar
        text = "---\n" + "".join(f"{k}: {json.dumps(v)}\n" for k, v in front.items()) + "---\n"
        section.pages[path] = Page(
            source=section.source.name, path=path, dest=page_dest(path), text=text,
            meta={**front, "openapi": endpoint.openapi}, body_start=len(text),
            body_line=text.count("\n"), content=text, title=endpoint.title,
            extra={GENERATED_FROM: endpoint.spec.lstrip("/")})


def _upstream(checkout: Checkout) -> UpstreamSite | None:
    """The upstream's docs.json / mint.json / mkdocs.yml, read from the verified checkout."""
    def read_repo(repo_path: str) -> bytes | None:
        if not checkout.tree.is_file(repo_path):
            return None
        try:
            return read_verified(checkout, repo_path)
        except FileNotFoundError:  # a cache entry from before this file was fetched
            raise CacheEntryInvalid(f"{repo_path} is missing from the cache entry") from None

    docs = checkout.source.docs_dir
    return read_upstream(lambda rel: read_repo(docs_prefix(docs) + rel), read_repo, docs)


def _include_snippets(section: Section, options: dict[str, Any], report: Any,
                      max_page_bytes: int) -> None:
    """Put the text of the MkDocs upstream's ``--8<--`` includes in its pages, read from the
    docs folder of the pinned tree (see ``core/collect/includes.py``); a page takes in no
    more than ``max_page_bytes`` of included text."""
    from .includes import auto_append, include_snippets, text_of

    checkout = section.checkout
    prefix = docs_prefix(section.source.docs_dir)
    config_dir = posixpath.dirname(section.source.docs_dir.rstrip("/"))

    def read(repo_path: str) -> tuple[str | None, str]:
        kind = checkout.tree.kind(repo_path)
        if kind is None:
            return None, ""
        parts = repo_path.split("/")
        if kind != "blob" or any(checkout.tree.kind("/".join(parts[:i])) == "link"
                                 for i in range(1, len(parts))):
            return None, "a folder or a symlink, which an include does not follow"
        try:
            data = read_verified(checkout, repo_path)
        except FileNotFoundError:
            if repo_path.startswith(prefix):
                raise CacheEntryInvalid(f"{repo_path} is missing from the cache entry") from None
            # outside the docs folder: fetched with it only as far as the limit goes
            return None, (f"outside the docs folder ({repo_path}) and not fetched with it "
                          "(a fetch takes at most 64 such files; a cache entry made by an "
                          "older version has none: delete it to fetch again)")
        except OSError as exc:  # a name this file system cannot hold
            return None, f"a file this machine cannot read ({exc.strerror})"
        return text_of(data.decode("utf-8", errors="replace")), ""

    read_once: dict[str, tuple[str | None, str]] = {}  #: a file many pages include: read once

    def read_cached(repo_path: str) -> tuple[str | None, str]:
        if repo_path not in read_once:
            read_once[repo_path] = read(repo_path)
        return read_once[repo_path]

    every = bool(auto_append(options))  # files appended to every page
    for path, page in section.pages.items():
        if every or "8<" in page.content:
            for line, message in include_snippets(page, options, config_dir,
                                                  section.source.docs_dir, read_cached,
                                                  max_page_bytes):
                report(section, path, line, "snippet", message)


def _indented_blocks(section: Section, extensions: dict[str, dict[str, Any]],
                     report: Any) -> None:
    """Write the MkDocs upstream's ``/// tip`` blocks (pymdownx.blocks) in the indented syntax
    every host reads (see ``core/collect/pymdown_blocks.py``)."""
    from .pymdown_blocks import registered, rewrite

    kinds = registered(extensions)
    if not kinds:
        return
    for path, page in section.pages.items():
        body = page.content[page.body_start:]
        if "///" not in body:
            continue
        new, notes = rewrite(body, kinds)
        if new != body:
            page.content = page.content[:page.body_start] + new
        for line, message in notes:
            report(section, path, page.body_line - page.line_delta + line + 1, "block", message,
                   Severity.INFO)


def _upstream_listed(section: Section) -> set[str] | None:
    """The pages the upstream's navigation names (None when it has none)."""
    site = section.upstream
    if site is None or site.nav is None:
        return None
    out: set[str] = set()
    for item in nav_pages(site.nav):
        ref = item.path.split("#", 1)[0].strip("/")
        stem = posixpath.splitext(ref)[0] if ref.endswith(PAGE_SUFFIXES) else ref
        out |= {ref, stem + ".md", stem + ".mdx", f"{stem}/index.md", f"{stem}/index.mdx"}
    return out


def apply_conventions(section: Section, others: list[str], report: Any,
                      max_page_bytes: int = 1 << 62) -> None:
    """Take snippets out of the pages, and give every URL exactly one page (the index rule);
    pages that lose their URL are reported by name, and links to them go to the winner."""
    site = section.upstream
    if site is not None and site.exclude:
        import pathspec  # MkDocs upstreams' excludes only: 7+ ms of imports otherwise

        spec = pathspec.GitIgnoreSpec.from_lines(site.exclude)
        for path in sorted(p for p in section.pages if spec.match_file(p)):
            del section.pages[path]
            report(section, path, None, "excluded",
                   f"{path} is not built: the upstream's {site.kind} excludes it "
                   "(exclude_docs, draft_docs or MkDocs' defaults)", Severity.INFO)
    if site is not None and site.snippets is not None:
        _include_snippets(section, site.snippets, report, max_page_bytes)
    if site is not None and site.blocks:
        _indented_blocks(section, site.blocks, report)
    listed = _upstream_listed(section)
    snippets = snippet_paths({p: page.text for p, page in section.pages.items()}, others,
                             listed.__contains__ if listed is not None else None)
    for path in sorted(snippets):
        page = section.pages.pop(path, None)
        if page is not None:
            section.snippets[path] = page
    mintlify = section.upstream is not None and section.upstream.mintlify
    rule = index_rule(section.pages, readme_index=not mintlify)
    for path, dest in rule.dests.items():
        section.pages[path].dest = dest
    for loser, winner in sorted(rule.losers.items()):
        del section.pages[loser]
        section.superseded[loser] = winner
        report(section, loser, None, "index",
               f"{loser} is left out: {winner} has the same URL and wins "
               "(index.md, then index.mdx, then README.md; x/index.md over x.md; .md over "
               ".mdx); links to it go to that page", Severity.INFO)
