"""The generated folder ``<srcdir>/<mount>/``: Sphinx reads documents only from its source
folder, so the section is written there (a generated folder of the core's kind: marker,
``.gitignore``), and a file only when its bytes change, so Sphinx re-reads exactly the pages
that changed upstream; files that no longer exist upstream are removed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from sphinx.errors import ExtensionError

from ..core.files import copy_if_changed, write_if_changed
from ..core.model import Section
from ..core.section.generated import (
    RESERVED,
    claim,
    host_folder_error,
    is_generated,
    remove_others,
)

STATE = ".miles-docs-state.json"  #: what sync() wrote last time (lets it skip reading files)


class GeneratedFolder:
    """``<srcdir>/<mount>``, owned by miles-docs (proved by its marker file)."""

    def __init__(self, srcdir: Path, section: Section) -> None:
        self.root = srcdir / section.mount
        self.section = section

    def claim(self) -> None:
        if self.root.exists() and not is_generated(self.root):
            error = host_folder_error(self.section.source.name, self.section.mount, self.root,
                                      "")
            raise ExtensionError(f"[miles-docs] {error.message}; {error.hint}.")
        claim(self.root, self.section.source.name)

    def sync(self, files: dict[str, bytes | Path]) -> list[str]:
        """Make the folder hold exactly ``files``; return the paths that were (re)written.

        What was written last time is recorded in a state file (content digest, and the size
        and mtime the file then had), so an unchanged file is recognised without reading it.
        """
        state_file = self.root / STATE
        try:
            old_state = json.loads(state_file.read_text("utf-8"))
        except (OSError, ValueError):
            old_state = {}
        state: dict[str, list[Any]] = {}
        written = []
        root = str(self.root)
        for rel, content in files.items():
            if rel in (*RESERVED, STATE):
                continue  # an upstream file may not replace what keeps the folder safe
            if isinstance(content, Path):
                st = content.stat()
                digest = f"file:{content}:{st.st_size}:{st.st_mtime_ns}"
            else:
                digest = hashlib.sha1(content, usedforsecurity=False).hexdigest()
            known = old_state.get(rel)
            try:  # by name: a Path per file was most of the time of an unchanged folder
                tst = os.stat(f"{root}/{rel}")  # noqa: PTH116
                current = [digest, tst.st_size, tst.st_mtime_ns]
            except FileNotFoundError:
                current = None
            if known is None or current is None or list(known) != current:
                target = self.root / rel
                changed = (copy_if_changed(content, target) if isinstance(content, Path)
                           else write_if_changed(target, content))
                if changed:
                    written.append(rel)
                tst = target.stat()
                current = [digest, tst.st_size, tst.st_mtime_ns]
            state[rel] = current
        if state != old_state:
            write_if_changed(state_file, json.dumps(state, sort_keys=True).encode())
        remove_others(self.root, set(files) | {*RESERVED, STATE}, dotfiles=False)
        return written
