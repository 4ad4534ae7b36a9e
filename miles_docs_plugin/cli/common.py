"""What every command shares: the output streams, usage errors, the config of ``-f``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..core.config import CONFIG_FILE, Config, SourceConfig, load_config

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, as everywhere else
        self.print_usage(sys.stderr)
        raise UsageError(message)


@dataclass
class Out:
    out: TextIO
    err: TextIO

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def note(self, text: str) -> None:
        print(f"miles-docs: {text}", file=self.err, flush=True)


def progress_to(out: Out) -> Callable[[str], None]:
    return lambda message: out.note(message + " …")


def read_config(args: argparse.Namespace) -> Config:
    path = Path(args.file) if args.file else Path.cwd() / CONFIG_FILE
    if not path.exists():
        raise UsageError(f"no {path.name} in {path.parent} (pass -f PATH, or create one with "
                         "`miles-docs init`)")
    return load_config(path)


def selected(config: Config, names: Sequence[str]) -> list[SourceConfig]:
    if not names:
        return list(config.sources)
    return [config.source(name) for name in names]


def short(commit: str | None) -> str:
    return commit[:7] if commit else "-------"


def file_stamps(roots: Iterable[Path],
                walk: Callable[[Path], Iterable[Path]]) -> dict[Path, tuple[int, int]]:
    """Modification time and size of every path ``walk`` finds below each folder of
    ``roots`` (a root that is a file: itself; one that is missing: nothing). The commands
    that rebuild on a change poll this: no extra dependency, and it works on every file
    system."""
    stamps: dict[Path, tuple[int, int]] = {}
    for root in roots:
        try:
            paths = walk(root) if root.is_dir() else [root]
            for path in paths:
                try:
                    st = path.stat()
                except OSError:
                    continue
                stamps[path] = (st.st_mtime_ns, st.st_size)
        except OSError:  # a folder removed while it was walked: the next poll sees it
            continue
    return stamps
