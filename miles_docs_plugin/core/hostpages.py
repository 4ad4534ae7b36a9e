"""The host's own files, found the way the engines find them: the one discovery rule of the
Mintlify adapter, ``miles-docs check`` and ``miles-docs serve``'s watcher (the MkDocs and
Sphinx adapters ask their engine instead).

Folders that are no part of a site's sources are never entered: dot-folders (``.git``,
``.venv``), virtual environments by any name (a ``pyvenv.cfg`` inside), ``node_modules``,
Sphinx's ``_build`` output and generated section folders (their marker); dot-files are left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .section.generated import MARKER

#: Folders no engine reads pages from.
SKIPPED_DIRS = frozenset({"node_modules", "_build", "__pycache__"})


def skipped_dir(path: Path) -> bool:
    """Is the folder ``path`` outside the host's sources?"""
    name = path.name
    return (name.startswith(".") or name in SKIPPED_DIRS or (path / "pyvenv.cfg").exists()
            or (path / MARKER).exists())


def walk_host(root: Path, prune: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Every file of the host below ``root`` (dot-files and skipped folders left out);
    ``prune`` leaves out more folders."""
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not skipped_dir(here / d)
                             and not (prune and prune(here / d)))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield here / name


def host_pages(docs: Path, suffixes: Iterable[str], mounts: Iterable[str] = ()) -> set[str]:
    """The host's pages below ``docs`` (docs-relative POSIX paths) with one of ``suffixes``
    (compared in lower case), the folders of ``mounts`` left out."""
    wanted = tuple(s.lower() for s in suffixes)
    skip = {docs / m for m in mounts}
    return {path.relative_to(docs).as_posix()
            for path in walk_host(docs, lambda p: p in skip)
            if path.suffix.lower() in wanted}
