"""Writing files so that a crash leaves the old file or the new one, never half of one: the lock
file, the scan cache and the generated folders of the Sphinx and Mintlify adapters all write
through :func:`atomic_write`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` (a temporary file beside it, then ``os.replace``).

    ``durable`` also syncs the data to disk before the rename (the lock file: a commit).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically replace ``path`` with ``data`` unless it already holds exactly that (so an
    engine's incremental build sees no change); return whether it was written."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        pass
    atomic_write(path, data)
    return True


def copy_if_changed(src: Path, dst: Path) -> bool:
    return write_if_changed(dst, src.read_bytes())
