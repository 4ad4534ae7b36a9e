"""The ``miles-docs`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from . import __version__

    print(f"miles-docs {__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
