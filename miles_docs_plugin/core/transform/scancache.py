"""A persistent cache of what parsing a page finds, keyed by the page content.

Scanning a page for links and headings, and finding where its code blocks are, are pure
functions of the page text and of the code that parses it, so a warm build reuses them for every
unchanged page instead of parsing it again: this is what keeps a warm build's overhead small.
The cache is one JSON file per engine and site in the cache root, one entry a line: read a line
at a time and kept as text, each entry decoded on use, and rewritten atomically (streamed) only
when something was added or dropped.

It verifies what it returns. The cache root may be shared (a CI cache) and written by others,
and a forged scan could hide a link from the link rules, so the file carries an HMAC under a
key that lives outside the cache (:func:`secret_key`, in the user's state folder, readable only
by its owner); a file whose MAC does not match is ignored as if it did not exist. The file is
also tied to the exact code that wrote it: the scanner version, the markdown-it-py version and
a digest of the names, sizes and modification times of this package's source files
(:func:`code_version`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import tempfile
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Any, TypeVar

from ..env import distribution_version, user_folder
from .scanned import SCANNER_VERSION, Heading, HtmlId, LinkRef, ScanResult

T = TypeVar("T")
Scanner = Callable[..., ScanResult]


KEY_ENV = "MILES_DOCS_STATE"  #: where the cache key lives (default: the user state folder)


def source_digest(package: Path) -> str:
    """A digest of the name, size and modification time of every Python file of ``package``.

    Any edit of a file, and any file added, removed or renamed, changes it, as a new install
    does (its files are written anew); it reads no file, so it costs a build about 0.5 ms
    instead of the 3-5 ms of hashing the package's 0.7 MB of source.
    """
    root = os.fspath(package)
    found: list[str] = []
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    stat = entry.stat()
                    found.append(f"{entry.path[len(root):]}\0{stat.st_size}\0{stat.st_mtime_ns}")
    found.sort()
    return hashlib.sha256("\n".join(found).encode()).hexdigest()[:16]


def version_key(scanner: str, markdown_it: str, source: str) -> str:
    return f"{scanner}:{markdown_it}:{source}"


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """What a cached scan depends on besides the page: the scanner, markdown-it-py and the
    source of this package (any edit of the code invalidates every entry)."""
    return version_key(SCANNER_VERSION, distribution_version("markdown-it-py"),
                       source_digest(Path(__file__).resolve().parents[2]))


def secret_key() -> bytes | None:
    """The key that authenticates cache files, created on first use (``0600``, outside the
    cache root); None when it cannot be kept (then nothing is cached)."""
    folder = os.environ.get(KEY_ENV)
    base = Path(folder).expanduser() if folder else Path(user_folder("state"))
    path = base / "cache.key"
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except OSError:
        pass
    try:
        base.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(32))
        return path.read_bytes()
    except FileExistsError:
        try:
            return path.read_bytes() or None
        except OSError:
            return None
    except OSError:
        return None


class ScanCache:
    def __init__(self, path: Path | None) -> None:
        self.key = secret_key() if path is not None else None
        self.path = path if self.key is not None else None
        self.version = code_version()
        self.raw: dict[str, bytes] = {}  #: key -> its entry's JSON text, as read
        self.decoded: dict[str, Any] = {}  #: key -> object, for the keys used in this build
        self.fresh: dict[str, Callable[[Any], Any]] = {}  #: computed now: key -> its dumper
        self.dirty = False
        if self.path is not None and self.key is not None:
            self.raw = _read(self.path, self.key, self.version)

    def _get(self, key: str, compute: Callable[[], T], load: Callable[[Any], T],
             dump: Callable[[T], Any]) -> T:
        hit = self.decoded.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        raw = self.raw.get(key)
        value: T | None = None
        if raw is not None:
            try:
                value = load(json.loads(raw))
            except (TypeError, ValueError, KeyError, IndexError):
                value = None
        if value is None:
            value = compute()
            self.fresh[key] = dump
            self.dirty = True
        self.decoded[key] = value
        return value

    def get(self, body: str, line_offset: int, scanner: Scanner) -> ScanResult:
        """The scan of a page body (links, headings, ids)."""
        return self._get("s" + _digest(f"{line_offset}\0{body}"),
                         lambda: scanner(body, line_offset=line_offset), _load_scan, _dump_scan)

    def remember(self, body: str, line_offset: int, result: Callable[[], ScanResult]) -> None:
        """Keep ``result()`` as the scan of ``body`` (one derived from another scan: see
        :func:`~.markdown.with_heading`), unless the cache has one already: then that one is
        kept for the next build and ``result`` is not called (deriving it scans part of the
        page, which a warm build otherwise never does)."""
        self._get("s" + _digest(f"{line_offset}\0{body}"), result, _load_scan, _dump_scan)

    def cached(self, kind: str, text: str, compute: Callable[[], T],
               dump: Callable[[T], Any], load: Callable[[Any], T]) -> T:
        """Any other pure function of a text (``kind``, one letter other than ``s``, keeps the
        kinds apart)."""
        return self._get(kind + _digest(text), compute, load, dump)

    def peek(self, kind: str, text: str) -> Any:
        """The JSON data kept under (``kind``, ``text``), or None; kept for the next build."""
        key = kind + _digest(text)
        if key in self.decoded:
            return self.decoded[key]
        raw = self.raw.get(key)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        self.decoded[key] = value
        return value

    def put(self, kind: str, text: str, value: Any) -> None:
        """Keep the JSON data ``value`` under (``kind``, ``text``) (replacing what was there)."""
        key = kind + _digest(text)
        self.decoded[key] = value
        self.fresh[key] = _same
        self.dirty = True

    def save(self) -> None:
        """Write the entries used by this build (stale ones are dropped), then let go of what
        was read: the build is done with the cache (a later lookup computes again)."""
        try:
            if self.path is not None and (self.dirty or set(self.raw) != set(self.decoded)):
                assert self.key is not None
                self._write(self.path, self.key)
        except OSError:
            pass  # a cache that cannot be written only costs speed
        finally:
            self.raw, self.decoded, self.fresh = {}, {}, {}
            self.path = None

    def _write(self, path: Path, key: bytes) -> None:
        """One entry a line, streamed, so a large cache is never held twice: the MAC line is
        written last, over a placeholder of the same length."""
        mac = hmac.new(key, digestmod=hashlib.sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(b"0" * mac.digest_size * 2 + b"\n")
                chunks = [_header(self.version)]
                last = len(self.decoded) - 1
                for i, (k, value) in enumerate(self.decoded.items()):
                    text = (json.dumps(self.fresh[k](value), separators=(",", ":")).encode(
                        "utf-8", "surrogatepass") if k in self.fresh else self.raw[k])
                    chunks.append(json.dumps(k).encode("ascii") + b":" + text
                                  + (b",\n" if i < last else b"\n"))
                    if len(chunks) >= 256:
                        _emit(fh, mac, chunks)
                chunks.append(b"}}")
                _emit(fh, mac, chunks)
                fh.seek(0)
                fh.write(mac.hexdigest().encode("ascii"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _same(value: Any) -> Any:
    return value


def _header(version: str) -> bytes:
    """The first line of the payload; one entry a line follows, then ``}}``: the payload is
    also one JSON object ``{"version": …, "entries": {key: entry, …}}``."""
    return b'{"version":' + json.dumps(version).encode("ascii") + b',"entries":{\n'


def _emit(fh: Any, mac: Any, chunks: list[bytes]) -> None:
    data = b"".join(chunks)
    mac.update(data)
    fh.write(data)
    chunks.clear()


def _read(path: Path, key: bytes, version: str) -> dict[str, bytes]:
    """The entries of a cache file, as JSON text, read a line at a time (never the whole file
    decoded at once); nothing at all unless its MAC, checked over every byte, matches."""
    entries: dict[str, bytes] = {}
    mac = hmac.new(key, digestmod=hashlib.sha256)
    try:
        with open(path, "rb") as fh:
            expected = fh.readline().rstrip(b"\n")
            header = fh.readline()
            mac.update(header)
            if header != _header(version):
                return {}  # another version (or layout): its entries are of no use
            for line in fh:
                mac.update(line)
                name, sep, value = line.partition(b":")
                if sep and name.startswith(b'"') and name.endswith(b'"'):
                    entries[name[1:-1].decode("ascii")] = value.rstrip(b"\n").removesuffix(b",")
    except (OSError, ValueError):
        return {}
    if not hmac.compare_digest(expected, mac.hexdigest().encode("ascii")):
        return {}
    return entries


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


#: a record's fields as a tuple, in ``__init__`` order (what the entry stores)
_LINK_ROW = attrgetter(*LinkRef._fields)
_HEADING_ROW = attrgetter(*Heading._fields)
_ID_ROW = attrgetter(*HtmlId._fields)


def _dump_scan(result: ScanResult) -> list[Any]:
    return [[_LINK_ROW(x) for x in result.links], [_HEADING_ROW(x) for x in result.headings],
            [_ID_ROW(x) for x in result.ids], [list(x) for x in result.unmapped]]


_LINK_FIELDS = len(LinkRef._fields)


def _load_scan(data: list[Any]) -> ScanResult:
    links, headings, ids, unmapped = data
    if any(len(x) != _LINK_FIELDS for x in links):
        raise ValueError("scan cache entry of another layout")
    return ScanResult([LinkRef(*x) for x in links], [Heading(*x) for x in headings],
                      [HtmlId(*x) for x in ids], [(int(a), str(b)) for a, b in unmapped])
