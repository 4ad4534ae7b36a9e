"""Repository URLs: what is allowed, what is shown, and where the web pages of a repo are.

Only the transports ``https``, ``http``, ``ssh``, ``git`` and ``file`` (plus scp-like
``user@host:path`` and local paths) are accepted. Anything git would treat as an option (a
leading ``-``) or as a remote helper (``ext::``, ``fd::``) is refused, and so are credentials
written into the URL: they would end up in logs, lock files and error messages. Tokens for CI go
through ``MILES_DOCS_GIT_TOKEN`` instead (see :mod:`miles_docs_plugin.core.source.git`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import urlsplit

from .errors import ConfigError
from .patterns import lazy_re
from .records import FrozenRecord

ALLOWED_SCHEMES = ("https", "http", "ssh", "git", "file")
#: A URL of its own (a scheme, or ``//`` for the page's): not a path of a docs folder.
URL_RE = lazy_re(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
SCP_RE = lazy_re(
    r"^(?:(?P<user>[A-Za-z0-9._~-]+)@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>[^/].*|/.*)$")
FORGES = {"github.com": "github", "gitlab.com": "gitlab"}


class RepoUrl(FrozenRecord):
    """A source's repository URL, parsed and checked (see :func:`parse_repo_url`)."""

    __slots__ = _fields = ("written", "fetch_url", "transport", "host", "path", "forge",
                           "web_url")
    written: str  #: as in the config
    fetch_url: str  #: what git is given
    transport: str  #: https, http, ssh, git or file
    host: str | None
    path: str  #: repository path on the host ("owner/name") or the local path
    forge: str | None  #: "github", "gitlab" or None
    web_url: str | None  #: https://github.com/owner/name, when known

    def __init__(self, written: str, fetch_url: str, transport: str, host: str | None,
                 path: str, forge: str | None, web_url: str | None) -> None:
        _set = object.__setattr__
        _set(self, "written", written)
        _set(self, "fetch_url", fetch_url)
        _set(self, "transport", transport)
        _set(self, "host", host)
        _set(self, "path", path)
        _set(self, "forge", forge)
        _set(self, "web_url", web_url)

    @property
    def display(self) -> str:
        """Short form for logs: ``owner/name`` on a forge, otherwise the URL as written."""
        if self.forge and self.path:
            return self.path
        return self.written

    @property
    def is_local(self) -> bool:
        return self.transport == "file"


def _refuse(url: str, why: str, hint: str, where: str | None) -> ConfigError:
    return ConfigError(f"repository URL {mask(url)!r} is refused: {why}", where=where, hint=hint)


def mask(url: str) -> str:
    """Hide any password or token that a URL carries (``https://***@host/...``)."""
    return re.sub(r"(?<=://)[^/@\s]+@", "***@", url)


def _forge_web_url(host: str | None, path: str) -> tuple[str | None, str | None]:
    if not host:
        return None, None
    forge = FORGES.get(host.lower())
    if not forge:
        return None, None
    clean = path.strip("/")
    if clean.endswith(".git"):
        clean = clean[:-4]
    if clean.count("/") < 1:
        return None, None
    return forge, f"https://{host.lower()}/{clean}"


def parse_repo_url(url: str, *, base_dir: Path, where: str | None = None) -> RepoUrl:
    """Check a repository URL against the allow-list and work out its parts."""
    if not isinstance(url, str) or not url.strip():
        raise ConfigError("repository URL is empty", where=where, hint="set `repo:` to a git URL")
    if url != url.strip() or any(ord(c) < 0x20 for c in url):
        raise _refuse(url, "it holds white space or control characters", "write the URL alone",
                      where)
    if url.startswith("-"):
        raise _refuse(url, "it starts with '-' and git would read it as an option",
                      "write a URL such as https://host/owner/repo.git", where)
    if "::" in url.split("/", 1)[0]:
        raise _refuse(url, "remote helpers (ext::, fd::, ...) can run commands",
                      f"use one of: {', '.join(ALLOWED_SCHEMES)}", where)
    if "://" in url:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ALLOWED_SCHEMES:
            raise _refuse(url, f"the transport {scheme!r} is not allowed",
                          f"use one of: {', '.join(ALLOWED_SCHEMES)}", where)
        if parts.password is not None or (scheme in ("http", "https") and parts.username):
            raise _refuse(url, "it carries credentials",
                          "remove them; use a git credential helper, an SSH key, or the "
                          "MILES_DOCS_GIT_TOKEN environment variable", where)
        if scheme == "file":
            path = parts.path
            return RepoUrl(url, url, "file", None, path, None, None)
        host = parts.hostname
        if not host:
            raise _refuse(url, "it has no host", "write scheme://host/path", where)
        forge, web = _forge_web_url(host, parts.path)
        return RepoUrl(url, url, scheme, host, parts.path.strip("/").removesuffix(".git")
                       if forge else parts.path, forge, web)
    m = SCP_RE.match(url)
    if m and not re.match(r"^[A-Za-z]:[\\/]", url) and "/" not in url.split(":", 1)[0]:
        host = m.group("host")
        forge, web = _forge_web_url(host, m.group("path"))
        path = m.group("path").strip("/").removesuffix(".git") if forge else m.group("path")
        return RepoUrl(url, url, "ssh", host, path, forge, web)
    # A local path, relative to the config file's folder.
    local = (base_dir / url).resolve()
    return RepoUrl(url, local.as_uri(), "file", None, str(local), None, None)


@functools.lru_cache(maxsize=64)  # asked for every page of a build, of one or a few URLs
def forge_of(web_url: str) -> str | None:
    host = urlsplit(web_url).hostname or ""
    if "gitlab" in host:
        return "gitlab"
    return "github" if host else None


def web_link(web_url: str, kind: str, ref: str, path: str) -> str:
    """A forge page of ``path`` at ``ref``: ``kind`` is ``blob``, ``tree``, ``edit`` or ``raw``.

    GitHub and Gitea/Forgejo use ``/<kind>/<ref>/<path>``; GitLab puts ``/-/`` before the kind.
    """
    sep = "/-/" if forge_of(web_url) == "gitlab" else "/"
    return f"{web_url.rstrip('/')}{sep}{kind}/{ref}/{path.strip('/')}".rstrip("/")
