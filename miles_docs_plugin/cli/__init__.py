"""The ``miles-docs`` command: init, lock, update, status, check, cache, serve, mintlify.

Every command reads ``miles-docs.yml`` from the current folder (or ``-f PATH``). User errors are
one line on stderr and exit code 2; ``check`` exits 1 when it has findings. One module per
command group: :mod:`.init`, :mod:`.pins` (lock, update, status), :mod:`.check`, :mod:`.cache`,
:mod:`.serve`, :mod:`.mintlify`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import TextIO

from .. import __version__
from ..core.config import CONFIG_FILE
from ..core.errors import MilesDocsError
from . import cache, check, init, mintlify, pins, serve
from .common import EXIT_USAGE, Out, Parser, UsageError

__all__ = ["Out", "UsageError", "main", "parser"]


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="miles-docs", description="Inject docs sections from other git "
                "repositories, pinned to exact commits (MkDocs, Sphinx).")
    p.add_argument("--version", action="version", version=f"miles-docs {__version__}")
    common = Parser(add_help=False)
    common.add_argument("-f", "--file", metavar="PATH",
                        help=f"config file (default: ./{CONFIG_FILE})")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    for group in (init, pins, check, cache, serve, mintlify):
        group.add_parser(sub, common)
    return p


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    out = Out(stdout or sys.stdout, stderr or sys.stderr)
    try:
        with contextlib.redirect_stdout(out.out), contextlib.redirect_stderr(out.err):
            args = parser().parse_args(argv)  # --help and usage go to our streams
        return int(args.func(args, out))
    except UsageError as exc:
        out.note(f"error: {exc}")
        return EXIT_USAGE
    except MilesDocsError as exc:
        out.note(f"error: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        out.note("interrupted")
        return 130
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0)
