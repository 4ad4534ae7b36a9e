"""Finding a section's page from a path as upstream authors write it (in a link, in a nav
file): the one lookup the link rules and the nav builders share."""

from __future__ import annotations

from urllib.parse import unquote

from ..model import Section

#: A folder's page, in the order the lookups try them.
INDEX_NAMES = ("index.md", "index.mdx", "README.md", "readme.md")


def split_url(url: str) -> tuple[str, str, str | None]:
    """(path, query, fragment) of a relative URL, path percent-decoded."""
    fragment: str | None = None
    if "#" in url:
        url, fragment = url.split("#", 1)
    query = ""
    if "?" in url:
        url, query = url.split("?", 1)
    return (unquote(url) if "%" in url else url), query, fragment


def find_page(section: Section, rel: str) -> str | None:
    """The page that ``rel`` (a path relative to docs_dir) names, Mintlify-style lookups too."""
    pages = section.pages
    if rel in pages:  # a page's own path (no page path starts or ends with "/")
        return rel
    folder = rel.endswith("/")  # `guide/` is the folder's index, never a sibling guide.md
    rel = rel.strip("/")
    if rel in pages and not folder:
        return rel
    if rel in section.superseded:
        return section.superseded[rel]
    if rel == "":
        candidates = list(INDEX_NAMES)
    elif folder:
        candidates = [f"{rel}/{name}" for name in INDEX_NAMES]
    else:
        candidates = [rel + ".md", rel + ".mdx"] + [f"{rel}/{name}" for name in INDEX_NAMES]
        if rel.endswith(".html"):
            candidates.insert(0, rel[:-5] + ".md")
    for candidate in candidates:
        if candidate in pages:
            return candidate
        if candidate in section.superseded:  # lost its URL to another file: go there
            return section.superseded[candidate]
    return None
